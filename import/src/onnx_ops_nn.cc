// ONNX handlers for the network layers: Conv, Gemm, MatMul (dense or matmul), BatchNormalization
// (folded into a preceding Conv/dense when possible), MaxPool, AveragePool, GlobalAveragePool.
#include <cmath>
#include <optional>

#include "onnx_converter.h"

namespace cvm {
namespace onnx {
namespace detail {
namespace {

// Extents, strides, dilations and pads are bounded so that every computation below stays far
// from int64 overflow; cvmrt's own limits are much lower.
constexpr int64_t kMaxWindowValue = int64_t{1} << 30;

const char* bool_attr(bool b) { return b ? "True" : "False"; }

// ---- 2-D windows (Conv, MaxPool, AveragePool) ----

struct Window2d {
  int64_t kernel[2];
  int64_t strides[2] = {1, 1};
  int64_t dilations[2] = {1, 1};
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right (ONNX order: begins, then ends)
  bool symmetric() const { return pads[0] == pads[2] && pads[1] == pads[3]; }
};

std::vector<int64_t> pair_attr(Converter& c, const char* name, int64_t fallback, int64_t lo,
                               size_t count = 2) {
  std::optional<std::vector<int64_t>> v = c.attr_ints(name);
  if (!v) return std::vector<int64_t>(count, fallback);
  if (v->size() != count) {
    fail(std::string("attribute \"") + name + "\" " + tuple_attr(*v) + ": expected " +
         std::to_string(count) + " values (2-D only)");
  }
  for (int64_t x : *v) {
    if (x < lo || x > kMaxWindowValue) {
      fail(std::string("attribute \"") + name + "\" " + tuple_attr(*v) + ": values must be in [" +
           std::to_string(lo) + ", " + std::to_string(kMaxWindowValue) + "]");
    }
  }
  return *v;
}

// Reads strides, dilations (when `dilations_allowed`, else they must be 1), pads and auto_pad
// for a window of `kernel` over the spatial dims of `x` (N, C, H, W).
Window2d read_window(Converter& c, const Shape& x, int64_t kh, int64_t kw, bool dilations_allowed) {
  Window2d w;
  w.kernel[0] = kh;
  w.kernel[1] = kw;
  const std::vector<int64_t> strides = pair_attr(c, "strides", 1, 1);
  const std::vector<int64_t> dilations = pair_attr(c, "dilations", 1, 1);
  const std::vector<int64_t> pads = pair_attr(c, "pads", 0, 0, 4);
  for (int i = 0; i < 2; ++i) {
    w.strides[i] = strides[static_cast<size_t>(i)];
    w.dilations[i] = dilations[static_cast<size_t>(i)];
  }
  if (!dilations_allowed && (w.dilations[0] != 1 || w.dilations[1] != 1)) {
    fail("dilations " + tuple_attr(dilations) + " are not supported (only 1)");
  }
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    for (int i = 0; i < 4; ++i) w.pads[i] = pads[static_cast<size_t>(i)];
  } else if (auto_pad == "VALID") {
    // no padding
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // The output keeps ceil(in / stride) positions; the padding that takes is split evenly,
    // the odd one at the end (SAME_UPPER) or at the beginning (SAME_LOWER).
    for (int i = 0; i < 2; ++i) {
      const int64_t in = x[2 + i], s = w.strides[i];
      const int64_t span = w.dilations[i] * (w.kernel[i] - 1) + 1;
      const int64_t out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + span - in);
      const int64_t small = total / 2, large = total - small;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      w.pads[i + 2] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else {
    fail("auto_pad \"" + auto_pad + "\" is not supported");
  }
  return w;
}

Shape spatial_input(Converter& c, const Value& x, const char* what) {
  const Shape s = c.shape_of(x);
  if (s.ndim() != 4) {
    fail(std::string("only 2-D ") + what +
         " (an (N, C, H, W) input) is supported, found input "
         "shape " +
         s.str());
  }
  return s;
}

// Kernel shape from the attribute (required for pooling).
std::vector<int64_t> kernel_shape(Converter& c) {
  if (c.attr("kernel_shape") == nullptr) fail("attribute \"kernel_shape\" is missing");
  return pair_attr(c, "kernel_shape", 1, 1);
}

// A pad node applying the window's asymmetric pads to the spatial dims, filled with `value`.
Value pad_spatial(Converter& c, const Value& x, const Window2d& w, const std::string& value) {
  const std::vector<int64_t> pads = {0, 0, w.pads[0], w.pads[1], 0, 0, w.pads[2], w.pads[3]};
  return c.emit("pad", {x}, {{"pads", tuple_attr(pads)}, {"value", value}}, "_pad");
}

// ---- BatchNormalization folding ----

// y = x * scale + shift per channel, from a BatchNormalization node's constants.
struct ChannelAffine {
  std::vector<float> scale;
  std::vector<double> mean;  // (b - mean) * scale + beta is the folded bias
  std::vector<double> beta;
};

const NDArray* bn_constant(Converter& c, const ::onnx::NodeProto& bn, int k, int64_t channels) {
  if (k >= bn.input_size()) return nullptr;
  const Value* v = c.find_value(bn.input(k));
  if (v == nullptr || !v->is_constant()) return nullptr;
  const NDArray& a = v->constant;
  if (a.dtype() != DataType::Float(32) || a.ndim() != 1 || a.shape()[0] != channels) {
    return nullptr;
  }
  return &a;
}

// The affine form of BatchNormalization node `bn` for `channels` channels, or nullopt when it
// is not an inference-form node with constant parameters of that size.
std::optional<ChannelAffine> bn_affine(Converter& c, const ::onnx::NodeProto& bn,
                                       int64_t channels) {
  const NDArray* p[4];
  for (int k = 1; k <= 4; ++k) {
    p[k - 1] = bn_constant(c, bn, k, channels);
    if (p[k - 1] == nullptr) return std::nullopt;
  }
  float epsilon = 1e-5f;
  for (const ::onnx::AttributeProto& a : bn.attribute()) {
    if (a.name() == "epsilon") {
      if (a.type() != ::onnx::AttributeProto::FLOAT) return std::nullopt;
      epsilon = a.f();
    } else if (a.name() == "training_mode" || a.name() == "spatial" || a.name() == "is_test") {
      if (a.type() != ::onnx::AttributeProto::INT) return std::nullopt;
      if (a.name() == "training_mode" && a.i() != 0) return std::nullopt;
      if (a.name() == "spatial" && a.i() != 1) return std::nullopt;
    } else if (a.name() != "momentum" && a.name() != "consumed_inputs") {
      return std::nullopt;
    }
  }
  const std::vector<double> gamma = double_values(*p[0]), beta = double_values(*p[1]),
                            mean = double_values(*p[2]), var = double_values(*p[3]);
  ChannelAffine f;
  for (size_t i = 0; i < gamma.size(); ++i) {
    f.scale.push_back(static_cast<float>(gamma[i] / std::sqrt(var[i] + epsilon)));
  }
  f.mean = mean;
  f.beta = beta;
  return f;
}

// When the current node's output 0 feeds only an inference BatchNormalization over `channels`
// channels, marks that node folded and returns its affine form.
std::optional<ChannelAffine> take_batchnorm(Converter& c, int64_t channels) {
  if (c.node().output_size() < 1) return std::nullopt;
  const std::string& out = c.node().output(0);
  const int j = c.sole_consumer(out);
  if (j < 0) return std::nullopt;
  const ::onnx::NodeProto& bn = c.graph_node(j);
  if (bn.op_type() != "BatchNormalization" || !(bn.domain().empty() || bn.domain() == "ai.onnx") ||
      bn.input_size() < 5 || bn.input(0) != out || bn.output_size() < 1) {
    return std::nullopt;
  }
  // Training outputs (running mean/var, saved stats) must not be needed.
  for (int k = 1; k < bn.output_size(); ++k) {
    if (!bn.output(k).empty()) return std::nullopt;
  }
  std::optional<ChannelAffine> f = bn_affine(c, bn, channels);
  if (f) c.fold_into_current(j);
  return f;
}

// Scales each of the `units` rows of a float32 weight by scale[row].
NDArray scale_rows(const NDArray& w, const std::vector<float>& scale) {
  NDArray out = NDArray::empty(w.shape(), DataType::Float(32));
  const NDArray src = w.contiguous();
  const int64_t rows = w.shape()[0];
  const int64_t per_row = rows == 0 ? 0 : w.numel() / rows;
  const float* in = src.data_as<float>();
  float* dst = out.mutable_data_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < per_row; ++i) {
      dst[r * per_row + i] = in[r * per_row + i] * scale[static_cast<size_t>(r)];
    }
  }
  return out;
}

// (bias - mean) * scale + beta, per channel (bias may be absent: 0).
NDArray folded_bias(const ChannelAffine& f, const NDArray* bias) {
  const std::vector<double> b = bias ? double_values(*bias) : std::vector<double>();
  std::vector<float> out(f.scale.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const double bi = i < b.size() ? b[i] : 0.0;
    out[i] = static_cast<float>((bi - f.mean[i]) * f.scale[i] + f.beta[i]);
  }
  return float_array(Shape{static_cast<int64_t>(out.size())}, out);
}

NDArray require_float_constant(const Value& v, const char* what) {
  if (!v.is_constant()) fail(std::string(what) + " must be a constant");
  if (v.constant.dtype() != DataType::Float(32)) {
    fail(std::string(what) + " must be float32, found " + v.constant.dtype().name());
  }
  return v.constant;
}

// ---- Conv ----

void conv(Converter& c) {
  const Value x = c.input(0);
  const NDArray weight = require_float_constant(c.input(1), "the weight (input 1)");
  const Shape ws = weight.shape();
  const Shape xs = c.shape_of(x);
  if (ws.ndim() != 4 || xs.ndim() != 4) {
    fail("only 2-D convolution is supported (input shape " + xs.str() + ", weight shape " +
         ws.str() + ")");
  }
  if (c.attr("kernel_shape") != nullptr) {
    const std::vector<int64_t> k = pair_attr(c, "kernel_shape", 1, 1);
    if (k[0] != ws[2] || k[1] != ws[3]) {
      fail("kernel_shape " + tuple_attr(k) + " does not match the weight shape " + ws.str());
    }
  }
  const int64_t group = c.attr_int("group", 1);
  if (group < 1 || group > kMaxWindowValue) fail("group " + std::to_string(group) + " is invalid");
  const Window2d w = read_window(c, xs, ws[2], ws[3], true);
  const int64_t channels = ws[0];

  std::optional<Value> bias;
  if (c.has_input(2)) bias = c.input(2);
  Value weight_value = c.input(1);  // keeps the initializer's name unless BN changes it
  if (!bias || bias->is_constant()) {
    if (std::optional<ChannelAffine> f = take_batchnorm(c, channels)) {
      weight_value = c.constant(scale_rows(weight, f->scale), "_weight");
      bias = c.constant(folded_bias(*f, bias ? &bias->constant : nullptr), "_bias");
    }
  }

  Value data = x;
  int64_t padding[2] = {w.pads[0], w.pads[1]};
  if (!w.symmetric()) {
    data = pad_spatial(c, x, w, "0");
    padding[0] = padding[1] = 0;
  }
  const AttrMap attrs = {
      {"channels", std::to_string(channels)},
      {"kernel_size", tuple_attr({ws[2], ws[3]})},
      {"strides", tuple_attr({w.strides[0], w.strides[1]})},
      {"padding", tuple_attr({padding[0], padding[1]})},
      {"dilation", tuple_attr({w.dilations[0], w.dilations[1]})},
      {"groups", std::to_string(group)},
      {"use_bias", bool_attr(bias.has_value())},
  };
  std::vector<Value> inputs = {data, weight_value};
  if (bias) inputs.push_back(*bias);
  c.set_output(0, c.emit("conv2d", inputs, attrs));
}

// ---- dense / matmul ----

// dense(a, weight (units, K), bias) as the node's output (BatchNormalization folded when
// `fold_bn`); `suffix` names it when another node follows.
Value dense(Converter& c, const Value& a, NDArray weight, std::optional<NDArray> bias, bool fold_bn,
            const std::string& suffix) {
  const int64_t units = weight.shape()[0];
  if (fold_bn) {
    if (std::optional<ChannelAffine> f = take_batchnorm(c, units)) {
      weight = scale_rows(weight, f->scale);
      bias = folded_bias(*f, bias ? &*bias : nullptr);
    }
  }
  std::vector<Value> inputs = {a, c.constant(weight, "_weight")};
  if (bias) inputs.push_back(c.constant(*bias, "_bias"));
  return c.emit("dense", inputs,
                {{"units", std::to_string(units)}, {"use_bias", bool_attr(bias.has_value())}},
                suffix);
}

Value transpose_2d(Converter& c, const Value& v, const std::string& suffix) {
  if (v.is_constant()) return c.constant(permute_array(v.constant, {1, 0}), suffix);
  return c.emit("transpose", {v}, {{"axes", "(1, 0)"}}, suffix);
}

Value scalar_constant(Converter& c, float value, const std::string& suffix) {
  return c.constant(float_array(Shape{1}, {value}), suffix);
}

void gemm(Converter& c) {
  Value a = c.input(0);
  const Value& b = c.input(1);
  const Shape as = c.shape_of(a), bs = c.shape_of(b);
  if (as.ndim() != 2 || bs.ndim() != 2) {
    fail("A and B must be 2-D, found shapes " + as.str() + " and " + bs.str());
  }
  const float alpha = c.attr_float("alpha", 1.0f), beta = c.attr_float("beta", 1.0f);
  const bool trans_a = c.attr_int("transA", 0) != 0, trans_b = c.attr_int("transB", 0) != 0;
  if (trans_a) a = transpose_2d(c, a, "_transpose_a");
  std::optional<Value> addend;  // beta * C where it is not a per-unit bias
  std::optional<Value> cv;
  if (c.has_input(2)) cv = c.input(2);

  if (b.is_constant() && b.constant.dtype() == DataType::Float(32)) {
    NDArray weight = trans_b ? b.constant.contiguous() : permute_array(b.constant, {1, 0});
    if (alpha != 1.0f) {
      weight = c.emit("mul", {c.constant(weight, ""), scalar_constant(c, alpha, "")}, {}).constant;
    }
    const int64_t units = weight.shape()[0];
    std::optional<NDArray> bias;
    if (cv && cv->is_constant()) {
      const NDArray& cc = cv->constant;
      const Shape cs = cc.shape();
      const bool row = cs.ndim() <= 2 && cs.numel() >= 1 &&
                       (cs.numel() == 1 ||
                        (cs.ndim() >= 1 && cs[cs.ndim() - 1] == units && cs.numel() == units));
      if (row && cc.dtype() == DataType::Float(32)) {
        NDArray flat = cc.contiguous().reshape(Shape{cs.numel()}).broadcast_to(Shape{units});
        NDArray vec = NDArray::empty(Shape{units}, DataType::Float(32));
        vec.copy_from(flat);
        if (beta != 1.0f) {
          vec = c.emit("mul", {c.constant(vec, ""), scalar_constant(c, beta, "")}, {}).constant;
        }
        bias = vec;
      } else {
        addend = *cv;
      }
    } else if (cv) {
      addend = *cv;
    }
    if (addend && beta != 1.0f) {
      addend = c.emit("mul", {*addend, scalar_constant(c, beta, "_beta")}, {}, "_beta");
    }
    Value out = dense(c, a, weight, bias, !addend, addend ? "_dense" : "");
    if (addend) out = c.emit("add", {out, *addend}, {});
    c.set_output(0, out);
    return;
  }

  // B is a graph tensor: matmul, then the scalings and C as array operations.
  const Value bt = trans_b ? transpose_2d(c, b, "_transpose_b") : b;
  const bool scaled = alpha != 1.0f;
  Value out = c.emit("matmul", {a, bt}, {}, scaled || cv ? "_matmul" : "");
  if (scaled)
    out = c.emit("mul", {out, scalar_constant(c, alpha, "_alpha")}, {}, cv ? "_alpha" : "");
  if (cv) {
    Value term = *cv;
    if (beta != 1.0f) term = c.emit("mul", {term, scalar_constant(c, beta, "_beta")}, {}, "_beta");
    out = c.emit("add", {out, term}, {});
  }
  c.set_output(0, out);
}

void matmul(Converter& c) {
  const Value& a = c.input(0);
  const Value& b = c.input(1);
  const Shape as = c.shape_of(a), bs = c.shape_of(b);
  if (!a.is_constant() && b.is_constant() && b.constant.dtype() == DataType::Float(32) &&
      as.ndim() == 2 && bs.ndim() == 2) {
    c.set_output(0, dense(c, a, permute_array(b.constant, {1, 0}), std::nullopt, true, ""));
    return;
  }
  c.set_output(0, c.emit("matmul", {a, b}, {}));
}

// ---- BatchNormalization on its own ----

void batch_normalization(Converter& c) {
  const Value& x = c.input(0);
  const Shape xs = c.shape_of(x);
  if (xs.ndim() < 2) fail("the input must have at least 2 dimensions, found " + xs.str());
  if (c.attr_int("training_mode", 0) != 0) fail("training_mode is not supported");
  if (c.opset() < 9 && c.attr_int("spatial", 1) != 1) fail("spatial=0 is not supported");
  for (int k = 1; k < c.node().output_size(); ++k) {
    c.require_unused_output(k, "a training statistic");
  }
  const int64_t channels = xs[1];
  for (int k = 1; k <= 4; ++k) {
    const NDArray p = require_float_constant(c.input(k), "scale, B, mean and var");
    if (p.ndim() != 1 || p.shape()[0] != channels) {
      fail("input " + std::to_string(k) + " has shape " + p.shape().str() + ", expected (" +
           std::to_string(channels) + ")");
    }
  }
  const std::optional<ChannelAffine> f = bn_affine(c, c.node(), channels);
  if (!f) fail("unsupported attributes");
  std::vector<float> shift(f->scale.size());
  for (size_t i = 0; i < shift.size(); ++i) {
    shift[i] = static_cast<float>(f->beta[i] - f->mean[i] * f->scale[i]);
  }
  Shape cshape{channels};
  for (int d = 2; d < xs.ndim(); ++d) cshape.push_back(1);
  const Value scaled =
      c.emit("mul", {x, c.constant(float_array(cshape, f->scale), "_scale")}, {}, "_mul");
  c.set_output(0, c.emit("add", {scaled, c.constant(float_array(cshape, shift), "_shift")}, {}));
}

// ---- pooling ----

void max_pool(Converter& c) {
  const Value& x = c.input(0);
  const Shape xs = spatial_input(c, x, "pooling");
  const std::vector<int64_t> k = kernel_shape(c);
  if (c.attr_int("storage_order", 0) != 0) fail("storage_order 1 is not supported");
  c.require_unused_output(1, "the indices");
  const Window2d w = read_window(c, xs, k[0], k[1], false);
  const bool ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  Value data = x;
  int64_t padding[2] = {w.pads[0], w.pads[1]};
  if (!w.symmetric()) {
    data = pad_spatial(c, x, w, "-inf");
    padding[0] = padding[1] = 0;
  }
  c.set_output(0, c.emit("max_pool2d", {data},
                         {{"pool_size", tuple_attr(k)},
                          {"strides", tuple_attr({w.strides[0], w.strides[1]})},
                          {"padding", tuple_attr({padding[0], padding[1]})},
                          {"ceil_mode", bool_attr(ceil_mode)}}));
}

void average_pool(Converter& c) {
  const Value& x = c.input(0);
  const Shape xs = spatial_input(c, x, "pooling");
  const std::vector<int64_t> k = kernel_shape(c);
  const Window2d w = read_window(c, xs, k[0], k[1], false);
  const bool ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  const bool include_pad = c.attr_int("count_include_pad", 0) != 0;
  c.set_output(0, c.emit("avg_pool2d", {x},
                         {{"pool_size", tuple_attr(k)},
                          {"strides", tuple_attr({w.strides[0], w.strides[1]})},
                          {"padding", tuple_attr({w.pads[0], w.pads[1], w.pads[2], w.pads[3]})},
                          {"ceil_mode", bool_attr(ceil_mode)},
                          {"count_include_pad", bool_attr(include_pad)}}));
}

void global_average_pool(Converter& c) {
  const Value& x = c.input(0);
  const int rank = c.shape_of(x).ndim();
  if (rank < 3) fail("the input must have spatial dimensions, found rank " + std::to_string(rank));
  std::vector<int64_t> axes;
  for (int d = 2; d < rank; ++d) axes.push_back(d);
  c.set_output(0, c.emit("reduce_mean", {x}, {{"axis", tuple_attr(axes)}, {"keepdims", "True"}}));
}

}  // namespace

void add_nn_handlers(std::vector<HandlerEntry>& table) {
  table.insert(table.end(), {
                                {"Conv", conv},
                                {"Gemm", gemm},
                                {"MatMul", matmul},
                                {"BatchNormalization", batch_normalization},
                                {"MaxPool", max_pool},
                                {"AveragePool", average_pool},
                                {"GlobalAveragePool", global_average_pool},
                            });
}

}  // namespace detail
}  // namespace onnx
}  // namespace cvm
