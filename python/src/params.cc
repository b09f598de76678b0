// cvmrt.load_params and the serializer under cvmrt.save_params: param dicts in the cvmrt and
// the legacy CVM formats, loaded without copying where the source allows.
#include <string>

#include "bindings.h"
#include "cvm/error.h"
#include "cvm/params.h"

namespace cvmpy {
namespace {

using cvm::ParamDict;

cvm::ParamFormat parse_format(const std::string& format) {
  if (format == "cvmrt") return cvm::ParamFormat::kCvmrt;
  if (format == "legacy" || format == "cvm") return cvm::ParamFormat::kLegacy;
  CVM_LOGIC_ERROR() << "unknown params format \"" << format
                    << "\" (expected \"cvmrt\" or \"legacy\")";
}

ParamDict load_dict(py::handle src, bool verify) {
  const cvm::LoadOptions options{verify};
  if (py::isinstance<py::bytes>(src)) {
    // bytes are immutable: the arrays point into them and keep them alive.
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(src.ptr(), &data, &size) != 0) throw py::error_already_set();
    return ParamDict::load_borrowed(data, static_cast<size_t>(size),
                                    keep_alive(py::reinterpret_borrow<py::object>(src)), options);
  }
  if (PyObject_CheckBuffer(src.ptr()) && !py::isinstance<py::str>(src)) {
    // bytearray, memoryview, NumPy bytes: they may change later, so the tensors are copied.
    py::buffer_info info = py::reinterpret_borrow<py::buffer>(src).request();
    CVM_VERIFY(info.ndim <= 1 && (info.ndim == 0 || info.strides[0] == info.itemsize))
        << "load_params: the buffer must be contiguous bytes";
    return ParamDict::load(info.ptr, static_cast<size_t>(info.size * info.itemsize), options);
  }
  const std::string path = py::module_::import("os").attr("fspath")(src).cast<std::string>();
  return ParamDict::load_file(path, options);
}

ParamDict dict_of(py::handle mapping) {
  CVM_VERIFY(py::hasattr(mapping, "items"))
      << "save_params: expected a dict of name -> array, found "
      << std::string(py::str(py::type::of(mapping).attr("__name__")));
  ParamDict dict;
  for (py::handle item : mapping.attr("items")()) {
    py::tuple kv = py::reinterpret_borrow<py::tuple>(item);
    CVM_VERIFY(py::isinstance<py::str>(kv[0]))
        << "save_params: every name must be a str, found "
        << std::string(py::str(py::type::of(kv[0]).attr("__name__")));
    const std::string name = kv[0].cast<std::string>();
    try {
      dict.set(name, to_ndarray(kv[1]));
    } catch (const cvm::LogicError& e) {
      throw cvm::LogicError("save_params: \"" + name + "\": " + e.what());
    }
  }
  return dict;
}

}  // namespace

void bind_params(py::module_& m) {
  m.def("load_params", [](py::object src, bool verify) {
          const ParamDict dict = load_dict(src, verify);
          py::dict out;
          for (const auto& [name, array] : dict.entries()) out[py::str(name)] = array;
          return out;
        }, py::arg("path_or_bytes"), py::arg("verify") = true, R"doc(
The tensors of a param dict (cvmrt or legacy CVM format, detected), in file order.

From a path: the file is mapped read-only and the arrays point into it. From bytes: the arrays
point into the bytes object and keep it alive. From a bytearray or memoryview: copied. verify=False
skips the cvmrt format's per-tensor checksums (never the structure checks).)doc");
  m.def("_save_params_bytes", [](py::object mapping, const std::string& format) {
          const ParamDict dict = dict_of(mapping);
          const std::vector<uint8_t> bytes = dict.save(parse_format(format));
          return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        }, py::arg("params"), py::arg("format") = "cvmrt",
        "The param dict's bytes (used by cvmrt.save_params).");
}

}  // namespace cvmpy
