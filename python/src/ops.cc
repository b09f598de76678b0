// cvmrt.op and cvmrt.ops: any registered operator on arrays, with attributes as Python values.
#include <string>
#include <vector>

#include "bindings.h"
#include "cvm/error.h"
#include "cvm/op.h"

namespace cvmpy {
namespace {

using cvm::AttrValue;

std::string type_name(py::handle h) {
  return py::str(py::type::of(h).attr("__name__")).cast<std::string>();
}

// An attribute from its Python value: bool, int, None, a tuple or list of ints, or CVM text.
AttrValue attr_value(const std::string& op, const std::string& name, py::handle v) {
  if (py::isinstance<py::bool_>(v)) return AttrValue::boolean(v.cast<bool>());
  if (v.is_none()) return AttrValue::none();
  if (py::isinstance<py::str>(v)) return AttrValue(v.cast<std::string>());
  py::object index = py::module_::import("operator").attr("index");
  if (py::hasattr(v, "__index__")) return AttrValue::integer(index(v).cast<int64_t>());
  if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) {
    std::vector<int64_t> items;
    for (py::handle item : v) {
      CVM_VERIFY(py::hasattr(item, "__index__") && !py::isinstance<py::bool_>(item))
          << op << ": attribute " << name << ": a tuple may hold only ints, found "
          << type_name(item);
      items.push_back(index(item).cast<int64_t>());
    }
    return AttrValue::tuple(std::move(items));
  }
  CVM_LOGIC_ERROR() << op << ": attribute " << name << ": expected an int, a bool, None, a "
                    << "tuple of ints or a str, found " << type_name(v);
}

py::list run(const std::string& name, py::handle inputs, const py::kwargs& attrs) {
  std::vector<cvm::NDArray> args;
  if (py::isinstance<py::list>(inputs) || py::isinstance<py::tuple>(inputs)) {
    for (py::handle x : inputs) args.push_back(to_ndarray(x));
  } else {
    args.push_back(to_ndarray(inputs));  // one input given alone
  }
  cvm::AttrMap map;
  for (const auto& kv : attrs) {
    const std::string key = kv.first.cast<std::string>();
    map[key] = attr_value(name, key, kv.second);
  }
  std::vector<cvm::NDArray> outs;
  {
    py::gil_scoped_release nogil;
    outs = cvm::run_op(name, args, map);
  }
  py::list result;
  for (cvm::NDArray& o : outs) result.append(py::cast(std::move(o)));
  return result;
}

}  // namespace

void bind_ops(py::module_& m) {
  m.def("_op", &run, py::arg("name"), py::arg("inputs"));
  m.def("_ops", [] {
    py::list out;
    for (const cvm::OpInfo& op : cvm::list_ops()) {
      out.append(py::make_tuple(op.name, op.num_inputs, op.num_outputs, op.cvm, op.inplace));
    }
    return out;
  });
}

}  // namespace cvmpy
