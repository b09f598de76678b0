// ONNX handlers for shape manipulation: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat,
// Pad. Shapes are resolved at import; constants are transformed directly (folded).
#include <algorithm>

#include "onnx_converter.h"

namespace cvm {
namespace onnx {
namespace detail {

Value reshape_value(Converter& c, const Value& v, const Shape& shape, const std::string& suffix) {
  const Shape from = c.shape_of(v);
  if (from == shape) return v;
  if (from.numel() != shape.numel()) {
    fail("cannot reshape " + from.str() + " to " + shape.str() + " (element counts differ)");
  }
  if (v.is_constant()) return c.constant(v.constant.contiguous().reshape(shape), suffix);
  return c.emit("reshape", {v}, {{"shape", tuple_attr(shape.to_vector())}}, suffix);
}

namespace {

int64_t product(const Shape& s, int from, int to) {
  int64_t p = 1;
  for (int d = from; d < to; ++d) p = checked_mul(p, s[d], "reshape extent");
  return p;
}

// Axes from the attribute (before `input_opset`) or from input 1 (a constant), if any.
std::optional<std::vector<int64_t>> axes_of(Converter& c, int input_opset) {
  if (c.opset() < input_opset) return c.attr_ints("axes");
  if (!c.has_input(1)) return std::nullopt;
  const Value& axes = c.input(1);
  if (!axes.is_constant()) fail("axes (input 1) must be a constant");
  return int_values(axes.constant, "axes (input 1)");
}

void reshape(Converter& c) {
  const Value& x = c.input(0);
  const Shape in = c.shape_of(x);
  std::vector<int64_t> codes;
  if (c.opset() < 5) {
    std::optional<std::vector<int64_t>> attr = c.attr_ints("shape");
    if (!attr) fail("attribute \"shape\" is missing");
    codes = *attr;
  } else {
    const Value& shape = c.input(1);
    if (!shape.is_constant()) fail("the shape (input 1) must be a constant");
    codes = int_values(shape.constant, "the shape (input 1)");
  }
  const bool allow_zero = c.attr_int("allowzero", 0) != 0;
  if (codes.size() > 32) fail("the target shape has too many dimensions");
  std::vector<int64_t> out(codes.size());
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < codes.size(); ++i) {
    const int64_t code = codes[i];
    int64_t d = code;
    if (code == 0 && !allow_zero) {
      if (static_cast<int>(i) >= in.ndim()) {
        fail("shape " + tuple_attr(codes) + ": a 0 at position " + std::to_string(i) +
             " copies no input dimension (input shape " + in.str() + ")");
      }
      d = in[static_cast<int>(i)];
    } else if (code == -1) {
      if (inferred >= 0) fail("shape " + tuple_attr(codes) + " has more than one -1");
      inferred = static_cast<int>(i);
      d = 1;
    } else if (code < 0) {
      fail("shape " + tuple_attr(codes) + " has the invalid extent " + std::to_string(code));
    }
    out[i] = d;
    known = checked_mul(known, d, "reshape target size");
  }
  const int64_t total = in.numel();
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) {
      fail("shape " + tuple_attr(codes) + " cannot be resolved for input shape " + in.str());
    }
    out[static_cast<size_t>(inferred)] = total / known;
  }
  const Shape target(out);
  if (target.numel() != total) {
    fail("cannot reshape " + in.str() + " to " + target.str() + " (element counts differ)");
  }
  c.set_output(0, reshape_value(c, x, target, ""));
}

void flatten(Converter& c) {
  const Value& x = c.input(0);
  const Shape in = c.shape_of(x);
  const int axis = normalize_axis(c.attr_int("axis", 1), in.ndim(), "axis", true);
  c.set_output(0,
               reshape_value(c, x, Shape{product(in, 0, axis), product(in, axis, in.ndim())}, ""));
}

void squeeze(Converter& c) {
  const Value& x = c.input(0);
  const Shape in = c.shape_of(x);
  const std::optional<std::vector<int64_t>> axes = axes_of(c, 13);
  std::vector<bool> drop(static_cast<size_t>(in.ndim()), !axes);
  if (axes) {
    for (int64_t a : *axes) {
      const int d = normalize_axis(a, in.ndim(), "axis");
      if (in[d] != 1) {
        fail("axis " + std::to_string(a) + " has extent " + std::to_string(in[d]) +
             " (input shape " + in.str() + "); only extents of 1 can be squeezed");
      }
      drop[static_cast<size_t>(d)] = true;
    }
  }
  Shape out;
  for (int d = 0; d < in.ndim(); ++d) {
    if (!drop[static_cast<size_t>(d)] || in[d] != 1) out.push_back(in[d]);
  }
  c.set_output(0, reshape_value(c, x, out, ""));
}

void unsqueeze(Converter& c) {
  const Value& x = c.input(0);
  const Shape in = c.shape_of(x);
  const std::optional<std::vector<int64_t>> axes = axes_of(c, 13);
  if (!axes) fail("axes are missing");
  if (axes->size() > 32) fail("too many axes");
  const int rank = in.ndim() + static_cast<int>(axes->size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : *axes) {
    const int d = normalize_axis(a, rank, "axis");
    if (inserted[static_cast<size_t>(d)]) fail("axis " + std::to_string(a) + " is repeated");
    inserted[static_cast<size_t>(d)] = true;
  }
  Shape out;
  int src = 0;
  for (int d = 0; d < rank; ++d) out.push_back(inserted[static_cast<size_t>(d)] ? 1 : in[src++]);
  c.set_output(0, reshape_value(c, x, out, ""));
}

void transpose(Converter& c) {
  const Value& x = c.input(0);
  const int rank = c.shape_of(x).ndim();
  std::vector<int64_t> perm;
  if (std::optional<std::vector<int64_t>> p = c.attr_ints("perm")) {
    perm = *p;
  } else {
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  if (static_cast<int>(perm.size()) != rank) {
    fail("perm " + tuple_attr(perm) + " is not a permutation of " + std::to_string(rank) + " axes");
  }
  std::vector<int> axes;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t p : perm) {
    const int d = normalize_axis(p, rank, "perm entry");
    if (seen[static_cast<size_t>(d)]) fail("perm " + tuple_attr(perm) + " repeats an axis");
    seen[static_cast<size_t>(d)] = true;
    axes.push_back(d);
  }
  bool trivial = true;
  for (int d = 0; d < rank; ++d) trivial = trivial && axes[static_cast<size_t>(d)] == d;
  if (trivial) {
    c.set_output(0, x);
  } else if (x.is_constant()) {
    c.set_output(0, c.constant(permute_array(x.constant, axes), ""));
  } else {
    std::vector<int64_t> a(axes.begin(), axes.end());
    c.set_output(0, c.emit("transpose", {x}, {{"axes", tuple_attr(a)}}));
  }
}

void concat(Converter& c) {
  std::vector<Value> parts;
  bool all_constant = true;
  for (int k = 0; k < c.node().input_size(); ++k) {
    if (!c.has_input(k)) fail("input " + std::to_string(k) + " is missing");
    parts.push_back(c.input(k));
    all_constant = all_constant && parts.back().is_constant();
  }
  if (parts.empty()) fail("no inputs");
  const ::onnx::AttributeProto* axis_attr = c.attr("axis");
  if (axis_attr == nullptr) fail("attribute \"axis\" is missing");
  const int rank = c.shape_of(parts[0]).ndim();
  const int axis = normalize_axis(c.attr_int("axis", 0), rank, "axis");
  if (parts.size() == 1) {
    c.set_output(0, parts[0]);
  } else if (all_constant) {
    std::vector<NDArray> arrays;
    for (const Value& v : parts) arrays.push_back(v.constant);
    c.set_output(0, c.constant(concat_arrays(arrays, axis), ""));
  } else {
    c.set_output(0, c.emit("concatenate", parts, {{"axis", std::to_string(axis)}}));
  }
}

void pad(Converter& c) {
  const std::string mode = c.attr_string("mode", "constant");
  if (mode != "constant") fail("mode \"" + mode + "\" is not supported (only \"constant\")");
  const Value& x = c.input(0);
  const int rank = c.shape_of(x).ndim();
  std::vector<int64_t> pads;
  double value = 0;
  if (c.opset() < 11) {
    std::optional<std::vector<int64_t>> p = c.attr_ints(c.opset() < 2 ? "paddings" : "pads");
    if (!p) fail("attribute \"pads\" is missing");
    pads = *p;
    value = c.attr_float("value", 0.0f);
  } else {
    const Value& p = c.input(1);
    if (!p.is_constant()) fail("pads (input 1) must be a constant");
    pads = int_values(p.constant, "pads (input 1)");
    if (c.has_input(2)) {
      const Value& v = c.input(2);
      if (!v.is_constant() || v.constant.numel() != 1) {
        fail("constant_value (input 2) must be a one-element constant");
      }
      value = double_values(v.constant)[0];
    }
    if (c.has_input(3)) fail("the axes input (input 3) is not supported");
  }
  if (static_cast<int>(pads.size()) != 2 * rank) {
    fail("pads " + tuple_attr(pads) + " must have 2 x " + std::to_string(rank) + " values");
  }
  for (int64_t p : pads) {
    if (p < 0) fail("negative pads " + tuple_attr(pads) + " (cropping) are not supported");
  }
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) {
    c.set_output(0, x);
  } else if (x.is_constant()) {
    c.set_output(
        0, c.constant(pad_array(x.constant, pads, value, c.options().limits.max_elements), ""));
  } else {
    c.set_output(0, c.emit("pad", {x}, {{"pads", tuple_attr(pads)}, {"value", float_attr(value)}}));
  }
}

}  // namespace

void add_shape_handlers(std::vector<HandlerEntry>& table) {
  table.insert(table.end(), {
                                {"Reshape", reshape},
                                {"Flatten", flatten},
                                {"Squeeze", squeeze},
                                {"Unsqueeze", unsqueeze},
                                {"Transpose", transpose},
                                {"Concat", concat},
                                {"Pad", pad},
                            });
}

}  // namespace detail
}  // namespace onnx
}  // namespace cvm
