// ONNX handlers for element-wise arithmetic, activations, softmax, identities and the constant
// producers (Constant, ConstantOfShape, Shape, Gather, Cast on constants).
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "onnx_converter.h"

namespace cvm {
namespace onnx {
namespace detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- arithmetic ----

void binary(Converter& c, const char* op) {
  // Before opset 7, broadcasting was opt-in and could align on an axis; only the NumPy-like
  // trailing alignment (no axis) means the same thing today.
  if (c.opset() < 7 && c.attr("axis") != nullptr) {
    fail("legacy broadcasting with an \"axis\" attribute is not supported");
  }
  c.set_output(0, c.emit(op, {c.input(0), c.input(1)}, {}));
}

void add(Converter& c) { binary(c, "add"); }
void sub(Converter& c) { binary(c, "sub"); }
void mul(Converter& c) { binary(c, "mul"); }
void div(Converter& c) { binary(c, "div"); }

// ---- activations ----

void relu(Converter& c) { c.set_output(0, c.emit("relu", {c.input(0)}, {})); }

void sigmoid(Converter& c) { c.set_output(0, c.emit("sigmoid", {c.input(0)}, {})); }

void leaky_relu(Converter& c) {
  const float alpha = c.attr_float("alpha", 0.01f);
  c.set_output(0, c.emit("leaky_relu", {c.input(0)}, {{"alpha", float_attr(alpha)}}));
}

// A scalar bound of Clip given as an input: a one-element constant, or absent.
double clip_bound(Converter& c, int k, double fallback) {
  if (!c.has_input(k)) return fallback;
  const Value& v = c.input(k);
  if (!v.is_constant()) {
    fail(std::string(k == 1 ? "min" : "max") + " (input " + std::to_string(k) +
         ") must be a constant");
  }
  if (v.constant.numel() != 1) {
    fail(std::string(k == 1 ? "min" : "max") + " must have one element, found shape " +
         v.constant.shape().str());
  }
  return double_values(v.constant)[0];
}

void clip(Converter& c) {
  double lo = -kInf, hi = kInf;
  if (c.opset() < 11) {
    lo = c.attr_float("min", -std::numeric_limits<float>::infinity());
    hi = c.attr_float("max", std::numeric_limits<float>::infinity());
  } else {
    lo = clip_bound(c, 1, -kInf);
    hi = clip_bound(c, 2, kInf);
  }
  if (std::isnan(lo) || std::isnan(hi)) fail("NaN bounds are not supported");
  const Value& x = c.input(0);
  c.set_output(0, c.emit("clamp", {x}, {{"a_min", float_attr(lo)}, {"a_max", float_attr(hi)}}));
}

// ---- softmax ----

int64_t product(const Shape& s, int from, int to) {
  int64_t p = 1;
  for (int d = from; d < to; ++d) p = checked_mul(p, s[d], "softmax extent");
  return p;
}

void softmax(Converter& c) {
  const Value& x = c.input(0);
  const Shape shape = c.shape_of(x);
  const int rank = shape.ndim();
  if (rank < 1) fail("a 0-d input is not supported");
  const int axis = normalize_axis(c.attr_int("axis", c.opset() < 13 ? 1 : -1), rank, "axis");
  if (c.opset() >= 13 || axis == rank - 1) {
    c.set_output(0, c.emit("softmax", {x}, {{"axis", std::to_string(axis)}}));
    return;
  }
  // Before opset 13 Softmax normalises over every dimension from `axis` on, as one.
  const Shape flat{product(shape, 0, axis), product(shape, axis, rank)};
  Value v = reshape_value(c, x, flat, "_flatten");
  v = c.emit("softmax", {v}, {{"axis", "1"}}, "_softmax");
  c.set_output(0, reshape_value(c, v, shape, ""));
}

// ---- identities ----

void identity(Converter& c) { c.set_output(0, c.input(0)); }

void dropout(Converter& c) {
  // Inference: the data passes through; the mask output must not be needed.
  if (c.opset() >= 12 && c.has_input(2)) {
    const Value& training = c.input(2);
    if (!training.is_constant() || training.constant.numel() != 1 ||
        double_values(training.constant)[0] != 0) {
      fail("training_mode must be a constant false");
    }
  }
  c.require_unused_output(1, "the dropout mask");
  c.set_output(0, c.input(0));
}

// ---- constants ----

DataType cast_target(int64_t to) {
  if (std::optional<DataType> t = supported_dtype(to)) return *t;
  fail("casting to " +
       onnx_dtype_name(to >= INT32_MIN && to <= INT32_MAX ? static_cast<int>(to) : -1) +
       " is not supported (float32, int64 and int32 are)");
}

void constant(Converter& c) {
  const int64_t max = c.options().limits.max_elements;
  if (c.node().attribute_size() != 1) {
    fail("expected exactly one attribute giving the value, found " +
         std::to_string(c.node().attribute_size()));
  }
  const ::onnx::AttributeProto& a = c.node().attribute(0);
  NDArray value;
  if (a.name() == "value") {
    if (a.type() != ::onnx::AttributeProto::TENSOR) fail("attribute \"value\" is not a tensor");
    value = tensor_to_array(a.t(), "attribute \"value\"", max);
  } else if (a.name() == "value_float" && a.type() == ::onnx::AttributeProto::FLOAT) {
    value = float_array(Shape(), {a.f()});
  } else if (a.name() == "value_int" && a.type() == ::onnx::AttributeProto::INT) {
    value = int64_array(Shape(), {a.i()});
  } else if (a.name() == "value_floats" && a.type() == ::onnx::AttributeProto::FLOATS) {
    const std::vector<float> v(a.floats().begin(), a.floats().end());
    value = float_array(Shape{static_cast<int64_t>(v.size())}, v);
  } else if (a.name() == "value_ints" && a.type() == ::onnx::AttributeProto::INTS) {
    const std::vector<int64_t> v(a.ints().begin(), a.ints().end());
    value = int64_array(Shape{static_cast<int64_t>(v.size())}, v);
  } else {
    fail("a value given as attribute \"" + a.name() + "\" (type " +
         ::onnx::AttributeProto_AttributeType_Name(a.type()) + ") is not supported");
  }
  c.set_output(0, c.constant(value, ""));
}

void constant_of_shape(Converter& c) {
  const Value& shape_in = c.input(0);
  if (!shape_in.is_constant()) fail("the shape (input 0) must be a constant");
  const std::vector<int64_t> dims = int_values(shape_in.constant, "the shape (input 0)");
  const int64_t max = c.options().limits.max_elements;
  NDArray fill_value = float_array(Shape{1}, {0.0f});
  if (const ::onnx::AttributeProto* a = c.attr("value")) {
    if (a->type() != ::onnx::AttributeProto::TENSOR) fail("attribute \"value\" is not a tensor");
    fill_value = tensor_to_array(a->t(), "attribute \"value\"", max);
  }
  if (dims.size() > 32) fail("the shape has too many dimensions");
  c.set_output(0, c.constant(fill_array(Shape(dims), fill_value, max), ""));
}

void shape(Converter& c) {
  const Shape s = c.shape_of(c.input(0));
  const int64_t rank = s.ndim();
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::min(std::max<int64_t>(start, 0), rank);
  end = std::min(std::max<int64_t>(end, 0), rank);
  std::vector<int64_t> dims;
  for (int64_t d = start; d < end; ++d) dims.push_back(s[static_cast<int>(d)]);
  c.set_output(0, c.constant(int64_array(Shape{static_cast<int64_t>(dims.size())}, dims), ""));
}

void gather(Converter& c) {
  const Value& data = c.input(0);
  const Value& indices = c.input(1);
  if (!data.is_constant() || !indices.is_constant()) {
    fail("only constant data and indices are supported (the node is folded at import)");
  }
  const int axis = normalize_axis(c.attr_int("axis", 0), data.constant.ndim(), "axis");
  c.set_output(0, c.constant(gather_array(data.constant, indices.constant, axis,
                                          c.options().limits.max_elements),
                             ""));
}

void cast(Converter& c) {
  const Value& x = c.input(0);
  const ::onnx::AttributeProto* to_attr = c.attr("to");
  if (to_attr == nullptr) fail("attribute \"to\" is missing");
  const DataType to = cast_target(c.attr_int("to", 0));
  if (x.is_constant()) {
    c.set_output(0, c.constant(cast_array(x.constant, to), ""));
  } else if (to == DataType::Float(32)) {
    c.set_output(0, x);  // graph tensors are float32 already
  } else {
    fail("casting a graph tensor to " + to.name() + " is not supported");
  }
}

}  // namespace

void add_basic_handlers(std::vector<HandlerEntry>& table) {
  table.insert(table.end(), {
                                {"Add", add},
                                {"Sub", sub},
                                {"Mul", mul},
                                {"Div", div},
                                {"Relu", relu},
                                {"LeakyRelu", leaky_relu},
                                {"Sigmoid", sigmoid},
                                {"Clip", clip},
                                {"Softmax", softmax},
                                {"Identity", identity},
                                {"Dropout", dropout},
                                {"Constant", constant},
                                {"ConstantOfShape", constant_of_shape},
                                {"Shape", shape},
                                {"Gather", gather},
                                {"Cast", cast},
                            });
}

}  // namespace detail
}  // namespace onnx
}  // namespace cvm
