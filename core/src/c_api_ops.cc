// C ABI: the generic operator entry points (run, list, describe, infer) and kernel queries.
//
// Attributes arrive as a JSON object and become typed values here (no text round trip), so one
// call serves every operator and bindings (JS, Python, Go) need no per-op code.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "attrs_json.h"
#include "c_api_common.h"
#include "cvm/c_api.h"
#include "cvm/check.h"
#include "cvm/dtype.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/registry.h"
#include "json_text.h"
#include "op_def.h"

using cvm::NDArray;
using cvm::capi::guard;
using cvm::capi::require_not_null;

namespace cvm {
namespace capi {
namespace {

// Most inputs one call accepts: far above any operator's need, and it keeps a corrupted count
// from turning into a huge allocation.
constexpr int kMaxOpInputs = 1 << 16;

using json::Value;

// Deepest nesting attrs_json may have: an attribute is at most an array in the object.
constexpr int kMaxAttrsDepth = 64;

// The JSON document `text`; LogicError naming `fn` and the parser's reason when it is not one.
Value parse_attrs_json(const std::string& text, const char* fn) {
  try {
    return json::parse(text, kMaxAttrsDepth);
  } catch (const json::ParseError& e) {
    CVM_LOGIC_ERROR() << fn << ": attrs_json is not valid JSON: " << e.what();
  }
}

// The value of an integer-valued JSON number; false when it is not one (or beyond int64).
bool integer_value(const Value& v, int64_t* out) {
  if (v.integer(out)) return true;
  if (v.is_float()) {
    double d = v.number();
    // [-2^63, 2^63) holds exactly the doubles that convert to int64 without overflow.
    if (!std::isfinite(d) || d != std::trunc(d) || d < -9223372036854775808.0 ||
        d >= 9223372036854775808.0) {
      return false;
    }
    *out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

// A short description of a JSON value for messages: a scalar's text, a container's kind.
std::string brief(const Value& v) {
  return v.is_structured() ? std::string("an ") + v.type_name() : v.brief_text().substr(0, 64);
}

// A string is CVM attribute text; every other accepted kind becomes a typed value.
AttrValue attr_value(const Value& v, const std::string& key, const char* fn) {
  int64_t x = 0;
  if (v.is_string()) return AttrValue(v.string());
  if (v.is_boolean()) return AttrValue::boolean(v.boolean());
  if (v.is_null()) return AttrValue::none();
  if (v.is_number()) {
    VERIFY(integer_value(v, &x)) << fn << ": attribute \"" << key
                                 << "\": expected an integer (within int64), found " << brief(v);
    return AttrValue::integer(x);
  }
  if (v.is_array()) {
    std::vector<int64_t> tuple;
    tuple.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      VERIFY(v[i].is_number() && integer_value(v[i], &x))
          << fn << ": attribute \"" << key << "\": expected an array of integers, found item " << i
          << " = " << brief(v[i]);
      tuple.push_back(x);
    }
    return AttrValue::tuple(std::move(tuple));
  }
  CVM_LOGIC_ERROR() << fn << ": attribute \"" << key
                    << "\": expected a string, integer, boolean, null or array of integers, found "
                    << v.type_name();
}

}  // namespace

AttrMap attrs_from_json(const char* text, const char* fn) {
  AttrMap attrs;
  if (text == nullptr || text[0] == '\0') return attrs;
  size_t len = strnlen(text, kMaxAttrsJsonBytes + 1);
  VERIFY(len <= kMaxAttrsJsonBytes)
      << fn << ": attrs_json is longer than " << kMaxAttrsJsonBytes << " bytes";
  std::string s(text, len);
  const Value doc = parse_attrs_json(s, fn);
  VERIFY(doc.is_object()) << fn << ": attrs_json must be a JSON object, found " << doc.type_name();
  for (size_t k = 0; k < doc.size(); ++k) {
    attrs[doc.keys()[k]] = attr_value(doc[k], doc.keys()[k], fn);
  }
  return attrs;
}

}  // namespace capi
}  // namespace cvm

extern "C" {

int CVMOpRun(const char* op_name, const CVMArrayHandle* inputs, int num_inputs,
             const char* attrs_json, CVMArrayHandle** outputs, int* num_outputs) {
  return guard([&] {
    constexpr const char* fn = "CVMOpRun";
    require_not_null(outputs, fn, "outputs");
    require_not_null(num_outputs, fn, "num_outputs");
    *outputs = nullptr;
    *num_outputs = 0;
    require_not_null(op_name, fn, "op_name");
    VERIFY(num_inputs >= 0 && num_inputs <= cvm::capi::kMaxOpInputs)
        << fn << ": num_inputs must be in 0.." << cvm::capi::kMaxOpInputs << ", got " << num_inputs;
    VERIFY(num_inputs == 0 || inputs != nullptr)
        << fn << ": argument 'inputs' is NULL with num_inputs " << num_inputs;
    cvm::AttrMap attrs = cvm::capi::attrs_from_json(attrs_json, fn);
    std::vector<NDArray> in;
    in.reserve(static_cast<size_t>(num_inputs));
    for (int i = 0; i < num_inputs; ++i) {
      VERIFY(inputs[i] != nullptr) << fn << ": input " << i << " is NULL";
      in.push_back(cvm::capi::borrow(inputs[i], fn, "inputs"));
    }
    std::vector<NDArray> out = cvm::run_op(op_name, in, attrs);

    thread_local std::vector<CVMArrayHandle> handles;
    handles.clear();
    handles.reserve(out.size());  // may throw; nothing is handed out before it succeeds
    for (NDArray& a : out) handles.push_back(cvm::capi::to_handle(std::move(a)));
    *outputs = handles.data();
    *num_outputs = static_cast<int>(handles.size());
  });
}

int CVMOpList(const char*** names, int* count) {
  return guard([&] {
    constexpr const char* fn = "CVMOpList";
    require_not_null(names, fn, "names");
    require_not_null(count, fn, "count");
    *names = nullptr;
    *count = 0;
    thread_local std::vector<std::string> storage;
    thread_local std::vector<const char*> pointers;
    std::vector<std::string> fresh;
    for (const cvm::OpInfo& info : cvm::list_ops()) fresh.push_back(info.name);
    std::vector<const char*> ptrs;
    storage.swap(fresh);
    for (const std::string& n : storage) ptrs.push_back(n.c_str());
    pointers.swap(ptrs);
    *names = pointers.data();
    *count = static_cast<int>(pointers.size());
  });
}

int CVMOpInfo(const char* name, int* num_inputs, int* num_outputs, int* is_cvm) {
  return guard([&] {
    require_not_null(name, "CVMOpInfo", "name");
    const cvm::ops::OpDef* op = cvm::ops::find_op(name);
    VERIFY(op != nullptr) << "CVMOpInfo: unknown operator \"" << name << "\"";
    if (num_inputs != nullptr) *num_inputs = op->num_inputs();
    if (num_outputs != nullptr) *num_outputs = op->num_outputs();
    if (is_cvm != nullptr) *is_cvm = op->is_cvm() ? 1 : 0;
  });
}

int CVMOpHasKernel(const char* op_kernel_name, const char* dtype_name, const char* backend,
                   int* available) {
  return guard([&] {
    constexpr const char* fn = "CVMOpHasKernel";
    require_not_null(available, fn, "available");
    *available = 0;
    require_not_null(op_kernel_name, fn, "op_kernel_name");
    require_not_null(dtype_name, fn, "dtype_name");
    const std::string dtype = cvm::DataType::parse(dtype_name).name();
    const bool any_backend = backend == nullptr || backend[0] == '\0';
    for (const cvm::KernelInfo& k : cvm::list_kernels()) {
      if (k.usable && k.op == op_kernel_name && (k.dtype == dtype || k.dtype == "any") &&
          (any_backend || k.backend == backend)) {
        *available = 1;
        return;
      }
    }
  });
}

int CVMOperatorHasKernel(const char* op_name, const char* dtype_name, const char* backend,
                         int* available) {
  return guard([&] {
    constexpr const char* fn = "CVMOperatorHasKernel";
    require_not_null(available, fn, "available");
    *available = 0;
    require_not_null(op_name, fn, "op_name");
    require_not_null(dtype_name, fn, "dtype_name");
    *available = cvm::operator_has_kernel(op_name, cvm::DataType::parse(dtype_name),
                                          backend == nullptr ? "" : backend)
                     ? 1
                     : 0;
  });
}

int CVMOpInfer(const char* op_name, const int64_t* const* input_shapes, const int* input_ndims,
               const int* input_precisions, int num_inputs, const char* attrs_json,
               int* num_outputs, const int64_t* const** output_shapes, const int** output_ndims,
               const int** output_precisions, int64_t* cost_base) {
  return guard([&] {
    constexpr const char* fn = "CVMOpInfer";
    require_not_null(num_outputs, fn, "num_outputs");
    require_not_null(output_shapes, fn, "output_shapes");
    require_not_null(output_ndims, fn, "output_ndims");
    require_not_null(output_precisions, fn, "output_precisions");
    require_not_null(cost_base, fn, "cost_base");
    *num_outputs = 0;
    *output_shapes = nullptr;
    *output_ndims = nullptr;
    *output_precisions = nullptr;
    *cost_base = 0;
    require_not_null(op_name, fn, "op_name");
    VERIFY(num_inputs >= 0 && num_inputs <= cvm::capi::kMaxOpInputs)
        << fn << ": num_inputs must be in 0.." << cvm::capi::kMaxOpInputs << ", got " << num_inputs;
    if (num_inputs > 0) {
      require_not_null(input_shapes, fn, "input_shapes");
      require_not_null(input_ndims, fn, "input_ndims");
      require_not_null(input_precisions, fn, "input_precisions");
    }
    const cvm::ops::OpDef* op = cvm::ops::find_op(op_name);
    VERIFY(op != nullptr) << fn << ": unknown operator \"" << op_name << "\"";
    VERIFY(op->is_cvm()) << fn << ": operator \"" << op_name
                         << "\" is not a CVM operator (no precision or cost rules)";
    cvm::AttrMap attrs = cvm::capi::attrs_from_json(attrs_json, fn);
    std::vector<std::vector<int64_t>> shapes(static_cast<size_t>(num_inputs));
    std::vector<int> precisions(static_cast<size_t>(num_inputs));
    for (int i = 0; i < num_inputs; ++i) {
      VERIFY(input_ndims[i] >= 0 && input_ndims[i] <= cvm::capi::kMaxDims)
          << fn << ": input " << i << ": ndim must be in 0.." << cvm::capi::kMaxDims << ", got "
          << input_ndims[i];
      VERIFY(input_ndims[i] == 0 || input_shapes[i] != nullptr)
          << fn << ": input " << i << ": shape is NULL with ndim " << input_ndims[i];
      shapes[i].assign(input_shapes[i], input_shapes[i] + input_ndims[i]);
      precisions[i] = input_precisions[i];
    }
    cvm::OpInference r = cvm::infer_op(op_name, shapes, precisions, attrs);

    thread_local std::vector<std::vector<int64_t>> out_shapes;
    thread_local std::vector<const int64_t*> shape_ptrs;
    thread_local std::vector<int> ndims;
    thread_local std::vector<int> out_precisions;
    out_shapes = std::move(r.output_shapes);
    out_precisions = std::move(r.output_precisions);
    shape_ptrs.clear();
    ndims.clear();
    for (const auto& s : out_shapes) {
      shape_ptrs.push_back(s.data());
      ndims.push_back(static_cast<int>(s.size()));
    }
    CHECK(out_precisions.size() == out_shapes.size())
        << fn << ": operator \"" << op_name << "\" inferred " << out_shapes.size() << " shapes but "
        << out_precisions.size() << " precisions";
    *num_outputs = static_cast<int>(out_shapes.size());
    *output_shapes = shape_ptrs.data();
    *output_ndims = ndims.data();
    *output_precisions = out_precisions.data();
    *cost_base = r.cost_base;
  });
}

}  // extern "C"
