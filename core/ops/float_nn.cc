// Operator definitions of the float32 operators of imported (ONNX) float models.
//
// avg_pool2d, leaky_relu, clamp, sigmoid, softmax and pad: not CVM operators (no precision),
// float32 only except pad, which also takes int32. The kernels' evaluation order is in
// docs/determinism.md.
#include "params/float_nn.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#if !defined(__EMSCRIPTEN__)
#include <locale>
#include <sstream>
#endif

#include "attrs.h"
#include "elementwise_ops.h"
#include "kernel_views.h"
#include "op_def.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
// Axis attributes are bounded at parsing (so normalising cannot overflow) and checked against the
// input's ndim at shape inference.
constexpr int64_t kAxisBound = 1 << 20;

std::string tuple_str(const std::vector<int64_t>& v) { return Shape(v).str(); }

// A decimal number ("0.01", "-2", "1e-3", ".5", "+4.") or an infinity ("inf", "-inf", "infinity",
// any case) as a double; nullopt for anything else (NaN included) or a number beyond the double
// range. Locale-independent.
std::optional<double> parse_float_text(const std::string& raw) {
  size_t b = 0, e = raw.size();
  while (b < e && std::isspace(static_cast<unsigned char>(raw[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(raw[e - 1]))) --e;
  std::string s = raw.substr(b, e - b);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.erase(0, 1);
  }
  std::string low = s;
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (low == "inf" || low == "infinity") {
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  // digits [. digits] [e [sign] digits], with at least one digit before the exponent.
  size_t i = 0, digits = 0;
  auto is_digit = [&](size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
  while (is_digit(i)) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (is_digit(i)) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!is_digit(i)) return std::nullopt;
    while (is_digit(i)) ++i;
  }
  if (i != s.size()) return std::nullopt;
#if defined(__EMSCRIPTEN__)
  // What libc++'s `istream >> double` does (strtod in the "C" locale, the only one emscripten's
  // libc has; ERANGE fails), without pulling iostreams and locales into the WebAssembly module.
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
#else
  std::istringstream in(s);
  in.imbue(std::locale::classic());
  double v = 0;
  in >> v;
  if (in.fail() || !std::isfinite(v)) return std::nullopt;  // out of the double range
#endif
  return neg ? -v : v;
}

// A float attribute of `attrs` (read through `r`): the number rounded to the nearest float32, or
// `fallback` when absent. `allow_inf`: "inf"/"-inf" accepted; a finite number beyond the float32
// range never is.
float get_float(AttrReader& r, const AttrMap& attrs, const std::string& key, float fallback,
                bool allow_inf) {
  if (attrs.find(key) == attrs.end()) {
    r.ignore(key);
    return fallback;
  }
  const std::string text = r.get_string(key, std::nullopt);
  const std::optional<double> v = parse_float_text(text);
  const char* expected = allow_inf ? "a number, \"inf\" or \"-inf\"" : "a finite number";
  if (!v) r.fail(key, expected, "\"" + text + "\"");
  if (std::isinf(*v)) {
    if (!allow_inf) r.fail(key, expected, "\"" + text + "\"");
    return static_cast<float>(*v);
  }
  const float f = static_cast<float>(*v);
  if (std::isinf(f)) r.fail(key, "a number within the float32 range", "\"" + text + "\"");
  return f;
}

// A tuple attribute with one of the lengths `counts` (e.g. {2} or {1, 2, 4}), values in [lo, hi].
std::vector<int64_t> get_sized_tuple(AttrReader& r, const std::string& key,
                                     std::optional<std::vector<int64_t>> fallback,
                                     const std::vector<size_t>& counts, int64_t lo, int64_t hi) {
  std::vector<int64_t> t = r.get_tuple(key, std::move(fallback), lo, hi);
  if (std::find(counts.begin(), counts.end(), t.size()) == counts.end()) {
    std::string expected;
    for (size_t i = 0; i < counts.size(); ++i) {
      if (i > 0) expected += i + 1 == counts.size() ? " or " : ", ";
      expected += std::to_string(counts[i]);
    }
    r.fail(key, expected + " values", tuple_str(t));
  }
  return t;
}

// LogicError unless input 0 is float32 (and every other input too).
std::vector<DataType> float32_only(const OpDef& op, const std::vector<DataType>& in) {
  VERIFY(in[0] == DataType::Float(32))
      << op_prefix(op) << "input 0 must be float32, found " << in[0];
  return {verify_same_dtype(op, in)};
}

// `axis` in [-n, n - 1] mapped to [0, n - 1]; LogicError naming the attribute otherwise.
int normalize_axis(const OpDef& op, int64_t axis, int n) {
  VERIFY(axis >= -n && axis < n) << op_prefix(op) << "attribute \"axis\": expected an axis in ["
                                 << -n << ", " << n - 1 << "], found " << axis << " for " << n
                                 << "-d input";
  return static_cast<int>(axis < 0 ? axis + n : axis);
}

// A one-input float32 operator outside CVM whose kernel takes a parameter struct: the frame of
// avg_pool2d and softmax.
class FloatOp : public OpDef {
 public:
  int num_inputs() const override { return 1; }
  bool is_cvm() const override { return false; }

  std::vector<DataType> infer_dtypes(const OpAttrs&,
                                     const std::vector<DataType>& in) const override {
    return float32_only(*this, in);
  }

 protected:
  // Runs this operator's float32 kernel with `params` (the kernel's parameter struct).
  static void run_float32(const NodeKernels& kernels, const std::vector<NDArray>& inputs,
                          const std::vector<NDArray>& outputs, const void* params) {
    run_kernel(kernels[0], plain_views(outputs, inputs), 1, params);
  }
};

// ---------------------------------------------------------------------------------------------
// avg_pool2d

struct AvgPool2dAttrs : OpAttrs {
  bool ceil_mode = false;
  kernel::AvgPool2dParams params{};
};

class AvgPool2dOp : public FloatOp {
 public:
  const char* name() const override { return "avg_pool2d"; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<AvgPool2dAttrs>();
    auto pool = get_sized_tuple(r, "pool_size", std::nullopt, {2}, 1, 4096);
    auto strides = get_sized_tuple(r, "strides", std::vector<int64_t>{1, 1}, {2}, 1, 4096);
    auto pad = get_sized_tuple(r, "padding", std::vector<int64_t>{0, 0}, {1, 2, 4}, 0, 4096);
    const std::string layout = r.get_string("layout", "NCHW");
    if (layout != "NCHW") r.fail("layout", "\"NCHW\"", "\"" + layout + "\"");
    a->ceil_mode = r.get_bool("ceil_mode", false);
    const bool include_pad = r.get_bool("count_include_pad", false);
    r.finish();
    // (p) | (ph, pw) | (top, left, bottom, right)
    if (pad.size() == 1) pad = {pad[0], pad[0], pad[0], pad[0]};
    if (pad.size() == 2) pad = {pad[0], pad[1], pad[0], pad[1]};
    if (pad[0] >= pool[0] || pad[2] >= pool[0] || pad[1] >= pool[1] || pad[3] >= pool[1]) {
      r.fail("padding", "values below pool_size " + tuple_str(pool) + " on their axis",
             tuple_str(pad));
    }
    kernel::AvgPool2dParams& p = a->params;
    p.pool_h = pool[0];
    p.pool_w = pool[1];
    p.stride_h = strides[0];
    p.stride_w = strides[1];
    p.pad_top = pad[0];
    p.pad_left = pad[1];
    p.pad_bottom = pad[2];
    p.pad_right = pad[3];
    p.count_include_pad = include_pad ? 1 : 0;
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& a = static_cast<const AvgPool2dAttrs&>(attrs);
    const kernel::AvgPool2dParams& p = a.params;
    const Shape& x = in[0];
    x.numel();  // LogicError on negative extents or an element count overflow
    VERIFY(x.ndim() == 4) << op_prefix(*this) << "data shape " << x << " must be 4-D (N, C, H, W)";
    return {Shape{x[0], x[1],
                  out_extent(x, 2, p.pool_h, p.stride_h, p.pad_top, p.pad_bottom, a.ceil_mode),
                  out_extent(x, 3, p.pool_w, p.stride_w, p.pad_left, p.pad_right, a.ceil_mode)}};
  }

  int64_t cost_base(const OpAttrs& attrs, const std::vector<Shape>&) const override {
    const kernel::AvgPool2dParams& p = static_cast<const AvgPool2dAttrs&>(attrs).params;
    return p.pool_h * p.pool_w;
  }

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    run_float32(kernels, inputs, outputs, &static_cast<const AvgPool2dAttrs&>(attrs).params);
  }

 private:
  // floor((H + lo + hi - K) / S) + 1; with ceil_mode the ceiling + 1, less the last window when it
  // would start at or beyond H + lo (in the bottom padding): the ONNX/PyTorch rule.
  int64_t out_extent(const Shape& x, int dim, int64_t pool, int64_t stride, int64_t lo, int64_t hi,
                     bool ceil_mode) const {
    const char* what = dim == 2 ? "height" : "width";
    VERIFY(x[dim] <= INT64_MAX - lo - hi)
        << op_prefix(*this) << "data shape " << x << " is too large to pad";
    const int64_t room = x[dim] + lo + hi;
    VERIFY(pool <= room) << op_prefix(*this) << "pool " << what << " " << pool
                         << " does not fit in the padded data " << what << " " << room
                         << " (data shape " << x << ", padding " << lo << " and " << hi << ")";
    if (!ceil_mode) return (room - pool) / stride + 1;
    int64_t out = (room - pool + stride - 1) / stride + 1;
    if ((out - 1) * stride >= x[dim] + lo) --out;
    return out;
  }
};

// ---------------------------------------------------------------------------------------------
// leaky_relu, clamp, sigmoid: elementwise, float32 in and out

constexpr ElementwiseSpec float_unary(const char* name) {
  return {name, name, 1, false, false, ShapeRule::kSame, DtypeRule::kFloat32, nullptr};
}

// An elementwise float32 operator whose attributes are one kernel parameter struct P, filled by
// `parse_params` (which also finishes the reader and checks the values).
template <typename P>
class FloatParamsOp : public ElementwiseOp {
 public:
  using ParseFn = void (*)(AttrReader& r, const AttrMap& map, P* params);
  FloatParamsOp(const char* name, ParseFn parse_params)
      : ElementwiseOp(float_unary(name)), parse_params_(parse_params) {}

  std::unique_ptr<OpAttrs> parse(const AttrMap& map) const override {
    AttrReader r(name(), map);
    auto a = std::make_unique<Attrs>();
    parse_params_(r, map, &a->params);
    return a;
  }

 protected:
  const void* kernel_params(const OpAttrs& attrs) const override {
    return &static_cast<const Attrs&>(attrs).params;
  }

 private:
  struct Attrs : OpAttrs {
    P params{};
  };
  ParseFn parse_params_;
};

void parse_leaky_relu(AttrReader& r, const AttrMap& map, kernel::LeakyReluParams* p) {
  p->alpha = get_float(r, map, "alpha", 0.01f, /*allow_inf=*/false);
  r.finish();
}

void parse_clamp(AttrReader& r, const AttrMap& map, kernel::ClampParams* p) {
  p->lo = get_float(r, map, "a_min", -kInf, /*allow_inf=*/true);
  p->hi = get_float(r, map, "a_max", kInf, /*allow_inf=*/true);
  r.finish();
  if (!(p->lo <= p->hi)) {
    detail::MessageStream lo, hi;  // std::ostream's "C" locale output, without iostreams
    lo << p->lo;
    hi << p->hi;
    r.fail("a_max", "a value >= a_min (" + lo.str() + ")", hi.str());
  }
}

// ---------------------------------------------------------------------------------------------
// softmax

struct SoftmaxAttrs : OpAttrs {
  int64_t axis = -1;
};

class SoftmaxOp : public FloatOp {
 public:
  const char* name() const override { return "softmax"; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<SoftmaxAttrs>();
    a->axis = r.get_int("axis", -1, -kAxisBound, kAxisBound);
    r.finish();
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    in[0].numel();  // LogicError on negative extents or an element count overflow
    axis(attrs, in[0]);
    return {in[0]};
  }

  // The length of the axis: the terms each output's normalisation reads.
  int64_t cost_base(const OpAttrs& attrs, const std::vector<Shape>& in) const override {
    return in[0][axis(attrs, in[0])];
  }

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const kernel::SoftmaxParams params{axis(attrs, inputs[0].shape())};
    run_float32(kernels, inputs, outputs, &params);
  }

 private:
  int axis(const OpAttrs& attrs, const Shape& x) const {
    return normalize_axis(*this, static_cast<const SoftmaxAttrs&>(attrs).axis, x.ndim());
  }
};

// ---------------------------------------------------------------------------------------------
// pad

struct PadAttrs : OpAttrs {
  std::vector<int64_t> pads;  // begin of every axis, then end of every axis
  double value = 0;
  std::string value_text;  // as written, for messages
};

class PadOp : public OpDef {
 public:
  const char* name() const override { return "pad"; }
  int num_inputs() const override { return 1; }
  bool is_cvm() const override { return false; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<PadAttrs>();
    a->pads = r.get_tuple("pads", std::nullopt, 0, 4096);
    a->value_text = r.get_string("value", "0");
    r.finish();
    const std::optional<double> v = parse_float_text(a->value_text);
    if (!v) r.fail("value", "a number, \"inf\" or \"-inf\"", "\"" + a->value_text + "\"");
    a->value = *v;
    return a;
  }

  // float32 (value rounded to float32, which it must fit), or int32 (value an integer within
  // int32).
  std::vector<DataType> infer_dtypes(const OpAttrs& attrs,
                                     const std::vector<DataType>& in) const override {
    const auto& a = static_cast<const PadAttrs&>(attrs);
    const DataType t = in[0];
    if (t == DataType::Int(32)) {
      VERIFY(std::trunc(a.value) == a.value && a.value >= INT32_MIN && a.value <= INT32_MAX)
          << op_prefix(*this) << "attribute \"value\": expected an integer within int32 for "
          << "int32 data, found \"" << a.value_text << "\"";
    } else {
      VERIFY(t == DataType::Float(32))
          << op_prefix(*this) << "input 0 must be float32 or int32, found " << t;
      VERIFY(std::isinf(a.value) || !std::isinf(static_cast<float>(a.value)))
          << op_prefix(*this) << "attribute \"value\": expected a number within the float32 "
          << "range, found \"" << a.value_text << "\"";
    }
    return {t};
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const std::vector<int64_t>& pads = static_cast<const PadAttrs&>(attrs).pads;
    const Shape& x = in[0];
    x.numel();  // LogicError on negative extents or an element count overflow
    const int n = x.ndim();
    VERIFY(pads.size() == 2 * static_cast<size_t>(n))
        << op_prefix(*this) << "attribute \"pads\": expected " << 2 * n
        << " values (the begin of each axis, then the end of each axis) for "
           "input shape "
        << x << ", found " << tuple_str(pads);
    Shape out = x;
    for (int d = 0; d < n; ++d) {
      VERIFY(x[d] <= INT64_MAX - pads[d] - pads[n + d])
          << op_prefix(*this) << "output extent of axis " << d << " overflows int64";
      out[d] = x[d] + pads[d] + pads[n + d];
    }
    return {out};
  }

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const auto& a = static_cast<const PadAttrs&>(attrs);
    kernel::PadParams params{};
    for (int d = 0; d < inputs[0].ndim() && d < kernel::kMaxKernelDims; ++d) {
      params.begin[d] = a.pads[d];
    }
    if (inputs[0].dtype() == DataType::Int(32)) {
      const int32_t v = static_cast<int32_t>(a.value);
      std::memcpy(&params.value_bits, &v, 4);
    } else {
      const float v = static_cast<float>(a.value);
      std::memcpy(&params.value_bits, &v, 4);
    }
    run_kernel(kernels[0], plain_views(outputs, inputs), 1, &params);
  }
};

}  // namespace

void add_float_nn_ops(OpList& ops) {
  static const AvgPool2dOp avg_pool2d;
  static const FloatParamsOp<kernel::LeakyReluParams> leaky_relu("leaky_relu", parse_leaky_relu);
  static const FloatParamsOp<kernel::ClampParams> clamp("clamp", parse_clamp);
  static const ElementwiseOp sigmoid(float_unary("sigmoid"));
  static const SoftmaxOp softmax;
  static const PadOp pad;
  ops.insert(ops.end(), {&avg_pool2d, &leaky_relu, &clamp, &sigmoid, &softmax, &pad});
}

}  // namespace ops
}  // namespace cvm
