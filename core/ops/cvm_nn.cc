// Operator definitions of the cvm_nn family: conv2d, dense, max_pool2d, upsampling (spec §5, §6).
//
// conv2d, dense and max_pool2d also run on float32 arrays (imported float models), with the
// same attributes and shapes and the evaluation order of docs/determinism.md; precision
// inference stays int32-only.
//
// Integer attributes without a range in the spec use the default [0, 4096]; a stated bound
// ("units >= 1", "dilation >= 1", "groups >= 1", "scale >= 1") replaces that default entirely
// and the other end is the int32 limit. Window sizes (kernel_size, pool_size) must be >= 1.
#include <algorithm>
#include <climits>
#include <new>
#include <optional>
#include <string>

#include "attrs.h"
#include "cvm/array_ops.h"
#include "cvm/allocator.h"
#include "kernel_views.h"
#include "op_def.h"
#include "precision.h"
#include "prepack.h"
#include "params/nn.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {
namespace {

std::string tuple_str(const std::vector<int64_t>& v) { return Shape(v).str(); }

// A tuple attribute of `counts` allowed lengths (e.g. {2} or {1, 2}), each value in [lo, hi].
std::vector<int64_t> get_sized_tuple(AttrReader& r, const std::string& key,
                                     std::optional<std::vector<int64_t>> fallback,
                                     std::vector<size_t> counts, int64_t lo, int64_t hi) {
  std::vector<int64_t> t = r.get_tuple(key, std::move(fallback), lo, hi);
  if (std::find(counts.begin(), counts.end(), t.size()) == counts.end()) {
    r.fail(key, counts.size() == 1 ? "2 values" : "1 or 2 values", tuple_str(t));
  }
  return t;
}

// A string attribute that has one accepted value (or a few), e.g. layout "NCHW".
void get_fixed_string(AttrReader& r, const std::string& key, const std::string& fallback,
                      const std::vector<std::string>& accepted) {
  std::string v = r.get_string(key, fallback);
  if (std::find(accepted.begin(), accepted.end(), v) == accepted.end()) {
    std::string expected;
    for (const std::string& a : accepted) {
      expected += (expected.empty() ? "" : " or ") + ("\"" + a + "\"");
    }
    r.fail(key, expected, "\"" + v + "\"");
  }
}

// LogicError unless the op got 2 inputs, or 3 with use_bias: the arity depends on an attribute,
// so the generic arity check (num_inputs() is -1) cannot do this.
void verify_input_count(const OpDef& op, size_t given, bool use_bias, const char* names) {
  const size_t want = use_bias ? 3 : 2;
  VERIFY(given == want) << op_prefix(op) << "expected " << want << " inputs (" << names
                        << (use_bias ? ", bias" : "")
                        << ") with use_bias=" << (use_bias ? "true" : "false") << ", got " << given;
}

void verify_ndim(const OpDef& op, const char* input, const Shape& s, int ndim, const char* dims) {
  s.numel();  // LogicError on negative extents or an element count overflow
  VERIFY(s.ndim() == ndim) << op_prefix(op) << input << " shape " << s << " must be " << ndim
                           << "-D " << dims;
}

// Extent + 2 * pad, LogicError instead of overflow.
int64_t padded(const OpDef& op, const Shape& s, int dim, int64_t pad) {
  VERIFY(s[dim] <= INT64_MAX - 2 * pad)
      << op_prefix(op) << "data shape " << s << " is too large to pad";
  return s[dim] + 2 * pad;
}

// conv2d, dense and max_pool2d run int32 (CVM) or float32 (imported float models): every input
// of input 0's dtype, which the output takes. The kernel is chosen by that dtype too, so a
// float32 call never meets an int32 kernel (nor its weight packer).
std::vector<DataType> int32_or_float32(const OpDef& op, const std::vector<DataType>& in,
                                       const std::vector<const char*>& names) {
  const DataType t = in[0];
  VERIFY(t == DataType::Int(32) || t == DataType::Float(32))
      << op_prefix(op) << "input 0 must be int32 or float32, found " << t;
  verify_same_dtype(op, in, names);
  return {t};
}

// conv2d/dense precision (spec §5): p_x <= 8 and p_w <= 8; p_x + p_w + NB(terms), with a bias
// max(that, p_b) + 1; in 1..32.
int product_precision(const OpDef& op, const std::vector<int>& p, int64_t terms) {
  static const char* const kNames[] = {"data", "weight", "bias"};
  CHECK(p.size() == 2 || p.size() == 3) << op_prefix(op) << p.size() << " input precisions";
  for (size_t i = 0; i < p.size(); ++i) {
    const int max = i < 2 ? 8 : 32;
    VERIFY(p[i] >= 1 && p[i] <= max)
        << op_prefix(op) << kNames[i] << " precision must be in [1, " << max << "], found " << p[i];
  }
  int out = p[0] + p[1] + bit_length(static_cast<uint64_t>(terms));
  if (p.size() > 2) out = std::max(out, p[2]) + 1;
  VERIFY(out <= 32) << op_prefix(op) << "output precision " << out << " exceeds 32";
  return out;
}

// Scratch lent to one kernel call (kernel_abi.h): blocks from the arrays' device allocator
// (whose cache makes repeated calls cheap), given back when the call is over. Never throws
// into the kernel: a refused allocation answers null and the kernel does without.
class KernelScratch {
 public:
  explicit KernelScratch(Device device)
      : device_(device), scratch_{&KernelScratch::acquire, this} {}
  ~KernelScratch() {
    for (int i = 0; i < count_; ++i) {
      Allocator::get(device_).free(blocks_[i].data, blocks_[i].bytes);
    }
  }
  KernelScratch(const KernelScratch&) = delete;
  KernelScratch& operator=(const KernelScratch&) = delete;

  const kernel::Scratch* get() const { return &scratch_; }

 private:
  static void* acquire(void* ctx, int64_t bytes) noexcept {
    auto* self = static_cast<KernelScratch*>(ctx);
    if (bytes <= 0 || self->count_ == kMaxBlocks) return nullptr;
    try {
      void* p = Allocator::get(self->device_).allocate(static_cast<size_t>(bytes));
      self->blocks_[self->count_++] = {p, static_cast<size_t>(bytes)};
      return p;
    } catch (...) {
      return nullptr;
    }
  }

  static constexpr int kMaxBlocks = 4;
  struct Block {
    void* data;
    size_t bytes;
  };
  Device device_;
  kernel::Scratch scratch_;
  Block blocks_[kMaxBlocks] = {};
  int count_ = 0;
};

bool takes_int8_activations(const kernel::KernelEntry& e) { return e.takes_int8_activations; }

// Runs a conv2d / dense call through `kernels`. A session with int8 activation buffers hands
// it an int8 activation (inputs[0]) or output, the output only with `clamp` set and the values
// it ends with (after `scale`'s clamp for a conv2d with a channel scale) within int8
// (KernelEntry::takes_int8_activations): the chain's entries that take int8 run such a call;
// when each of them declines, the call runs on int32 copies through the whole chain, the clamp
// and the scale applied here when the entry that ran did not, and the result is narrowed into
// the output.
void run_gemm(const NodeKernels& kernels, const std::vector<NDArray>& outputs,
              const std::vector<NDArray>& inputs, const void* params,
              const kernel::CvmClampParams* clamp, const kernel::ChannelScale* scale) {
  const DataType i8 = DataType::Int(8), i32 = DataType::Int(32);
  const bool narrow_in = inputs[0].dtype() == i8, narrow_out = outputs[0].dtype() == i8;
  if (!narrow_in && !narrow_out) {
    run_kernel(kernels[0], plain_views(outputs, inputs), 1, params, kernels.packed_for,
               kernels.packed);
    return;
  }
  if (try_run_kernel(kernels[0], plain_views(outputs, inputs), 1, params, kernels.packed_for,
                     kernels.packed, takes_int8_activations)) {
    return;
  }
  CHECK(inputs[0].device().is_cpu() && (!narrow_out || clamp != nullptr))
      << "int8 activations: a conv2d/dense call on " << inputs[0].device().name()
      << (narrow_out && clamp == nullptr ? " with an int8 output and no clamp" : "");
  std::vector<NDArray> wide_in = inputs, wide_out = outputs;
  if (narrow_in) wide_in[0] = cvm::cast(inputs[0], i32);
  if (narrow_out) wide_out[0] = NDArray::empty(outputs[0].shape(), i32);
  run_kernel(kernels[0], plain_views(wide_out, wide_in), 1, params, kernels.packed_for,
             kernels.packed);
  if (!narrow_out) return;
  const kernel::KernelEntry& ran = *kernels[0].last_ran;
  int32_t* y = wide_out[0].mutable_data_as<int32_t>();
  const int64_t count = wide_out[0].numel();
  if (!ran.applies_clamp) {
    for (int64_t i = 0; i < count; ++i) y[i] = kernel::apply_clamp_one(y[i], *clamp);
  }
  if (scale != nullptr && !ran.applies_channel_scale) {  // (N, OC, OH, OW): as the scale stage
    const Shape& s = wide_out[0].shape();
    const int64_t plane = s[2] * s[3];
    for (int64_t i = 0; i < count; ++i) {
      const uint32_t product =
          static_cast<uint32_t>(y[i]) * static_cast<uint32_t>(scale->multiplier[i / plane % s[1]]);
      y[i] = kernel::apply_clamp_one(static_cast<int32_t>(product), scale->clamp);
    }
  }
  NDArray out = outputs[0];
  cvm::copy_into(out, wide_out[0]);  // exact: the last clamp's interval lies within int8
}

// ---------------------------------------------------------------------------------------------
// conv2d

struct Conv2dAttrs : OpAttrs {
  int64_t channels = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  bool use_bias = true;
  kernel::Conv2dParams params{};
};

class Conv2dOp : public OpDef {
 public:
  const char* name() const override { return "conv2d"; }
  int num_inputs() const override { return -1; }  // 2 or 3: depends on use_bias

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<Conv2dAttrs>();
    a->channels = r.get_int("channels", std::nullopt);
    auto kernel = get_sized_tuple(r, "kernel_size", std::nullopt, {2}, 1, 4096);
    auto strides = get_sized_tuple(r, "strides", std::vector<int64_t>{1, 1}, {2}, 1, 4096);
    auto padding = get_sized_tuple(r, "padding", std::vector<int64_t>{0, 0}, {1, 2}, 0, 4096);
    auto dilation = get_sized_tuple(r, "dilation", std::vector<int64_t>{1, 1}, {2}, 1, INT32_MAX);
    const int64_t groups = r.get_int("groups", 1, 1, INT32_MAX);
    get_fixed_string(r, "layout", "NCHW", {"NCHW"});
    get_fixed_string(r, "kernel_layout", "OIHW", {"OIHW"});
    // "__undef__" is the original runtime's default (the input layout): models written with
    // their full attribute dicts carry it.
    get_fixed_string(r, "out_layout", "", {"NCHW", "", "__undef__"});
    r.ignore("out_dtype");
    a->use_bias = r.get_bool("use_bias", true);
    r.finish();
    a->kernel_h = kernel[0];
    a->kernel_w = kernel[1];
    a->params = {strides[0],  strides[1],  padding[0], padding.back(),
                 dilation[0], dilation[1], groups,     nullptr};
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& a = static_cast<const Conv2dAttrs&>(attrs);
    const kernel::Conv2dParams& p = a.params;
    verify_input_count(*this, in.size(), a.use_bias, "data, weight");
    const Shape &x = in[0], &w = in[1];
    verify_ndim(*this, "data", x, 4, "(N, C, H, W)");
    verify_ndim(*this, "weight", w, 4, "(OC, C/groups, KH, KW)");
    VERIFY(w[0] == a.channels) << op_prefix(*this) << "weight shape " << w
                               << " does not match channels " << a.channels;
    VERIFY(w[2] == a.kernel_h && w[3] == a.kernel_w)
        << op_prefix(*this) << "weight shape " << w << " does not match kernel_size (" << a.kernel_h
        << ", " << a.kernel_w << ")";
    VERIFY(x[1] % p.groups == 0) << op_prefix(*this) << "data shape " << x << ": " << x[1]
                                 << " input channels are not divisible by groups " << p.groups;
    VERIFY(a.channels % p.groups == 0) << op_prefix(*this) << "channels " << a.channels
                                       << " are not divisible by groups " << p.groups;
    VERIFY(w[1] == x[1] / p.groups)
        << op_prefix(*this) << "weight shape " << w << " does not match data shape " << x
        << " with groups " << p.groups
        << ": expected weight dim 1 = C / groups = " << x[1] / p.groups;
    if (a.use_bias) {
      VERIFY(in[2].ndim() == 1 && in[2][0] == a.channels)
          << op_prefix(*this) << "bias shape " << in[2] << " does not match channels " << a.channels
          << ": expected (" << a.channels << ")";
    }
    return {Shape{x[0], a.channels, out_extent(x, 2, p.pad_h, p.dilation_h, w[2], p.stride_h),
                  out_extent(x, 3, p.pad_w, p.dilation_w, w[3], p.stride_w)}};
  }

  std::vector<DataType> infer_dtypes(const OpAttrs&,
                                     const std::vector<DataType>& in) const override {
    return int32_or_float32(*this, in, {"data", "weight", "bias"});
  }

  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>& shapes,
                                    const std::vector<int>& p) const override {
    return {product_precision(*this, p, taps(shapes[1]))};
  }

  int64_t cost_base(const OpAttrs& attrs, const std::vector<Shape>& shapes) const override {
    return checked_mul(taps(shapes[1]), 3, "conv2d cost") +
           (static_cast<const Conv2dAttrs&>(attrs).use_bias ? 1 : 0);
  }

  bool takes_prepacked_weight() const override { return true; }
  Int8Activations int8_activations() const override { return Int8Activations::kGemm; }

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const auto& a = static_cast<const Conv2dAttrs&>(attrs);
    KernelScratch scratch(inputs[0].device());
    kernel::Conv2dParams params = a.params;
    params.pad_h += kernels.fused_pad_h;
    params.pad_w += kernels.fused_pad_w;
    params.scratch = scratch.get();
    params.clamp = kernels.clamp;
    params.scale = kernels.scale;
    run_gemm(kernels, outputs, inputs, &params, kernels.clamp, kernels.scale);
  }

 private:
  // Products summed into each output: C/g * KH * KW, from the weight shape.
  static int64_t taps(const Shape& w) {
    return checked_mul(checked_mul(w[1], w[2], "conv2d taps"), w[3], "conv2d taps");
  }

  // OH = (H + 2PH - DH(KH - 1) - 1) / SH + 1; the dilated kernel must fit in H + 2PH.
  int64_t out_extent(const Shape& x, int dim, int64_t pad, int64_t dilation, int64_t taps,
                     int64_t stride) const {
    const char* what = dim == 2 ? "height" : "width";
    const int64_t span = dilation * (taps - 1) + 1;
    const int64_t room = padded(*this, x, dim, pad);
    VERIFY(span <= room) << op_prefix(*this) << "dilated kernel " << what << " " << span
                         << " (kernel " << taps << ", dilation " << dilation
                         << ") does not fit in the padded data " << what << " " << room
                         << " (data shape " << x << ", padding " << pad << ")";
    return (room - span) / stride + 1;
  }
};

// ---------------------------------------------------------------------------------------------
// dense

struct DenseAttrs : OpAttrs {
  int64_t units = 0;
  bool use_bias = true;
};

class DenseOp : public OpDef {
 public:
  const char* name() const override { return "dense"; }
  int num_inputs() const override { return -1; }  // 2 or 3: depends on use_bias

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<DenseAttrs>();
    a->units = r.get_int("units", std::nullopt, 1, INT32_MAX);
    a->use_bias = r.get_bool("use_bias", true);
    r.finish();
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& a = static_cast<const DenseAttrs&>(attrs);
    verify_input_count(*this, in.size(), a.use_bias, "data, weight");
    const Shape &x = in[0], &w = in[1];
    verify_ndim(*this, "data", x, 2, "(M, K)");
    verify_ndim(*this, "weight", w, 2, "(units, K)");
    VERIFY(w[0] == a.units && w[1] == x[1])
        << op_prefix(*this) << "weight shape " << w << " does not match units " << a.units
        << " and data shape " << x << ": expected (" << a.units << ", " << x[1] << ")";
    if (a.use_bias) {
      VERIFY(in[2].ndim() == 1 && in[2][0] == a.units)
          << op_prefix(*this) << "bias shape " << in[2] << " does not match units " << a.units
          << ": expected (" << a.units << ")";
    }
    return {Shape{x[0], a.units}};
  }

  std::vector<DataType> infer_dtypes(const OpAttrs&,
                                     const std::vector<DataType>& in) const override {
    return int32_or_float32(*this, in, {"data", "weight", "bias"});
  }

  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>& shapes,
                                    const std::vector<int>& p) const override {
    return {product_precision(*this, p, shapes[1][1])};
  }

  int64_t cost_base(const OpAttrs& attrs, const std::vector<Shape>& shapes) const override {
    return checked_mul(shapes[1][1], 3, "dense cost") +
           (static_cast<const DenseAttrs&>(attrs).use_bias ? 1 : 0);
  }

  bool takes_prepacked_weight() const override { return true; }
  Int8Activations int8_activations() const override { return Int8Activations::kGemm; }

  void compute(const OpAttrs&, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    KernelScratch scratch(inputs[0].device());
    const kernel::DenseParams params{scratch.get(), kernels.clamp};
    run_gemm(kernels, outputs, inputs, &params, kernels.clamp, nullptr);
  }
};

// ---------------------------------------------------------------------------------------------
// max_pool2d

struct MaxPool2dAttrs : OpAttrs {
  bool ceil_mode = false;
  kernel::MaxPool2dParams params{};
};

class MaxPool2dOp : public OpDef {
 public:
  const char* name() const override { return "max_pool2d"; }
  int num_inputs() const override { return 1; }
  Int8Activations int8_activations() const override { return Int8Activations::kTogether; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<MaxPool2dAttrs>();
    auto pool = get_sized_tuple(r, "pool_size", std::nullopt, {2}, 1, 4096);
    auto strides = get_sized_tuple(r, "strides", std::vector<int64_t>{1, 1}, {2}, 1, 4096);
    auto padding = get_sized_tuple(r, "padding", std::vector<int64_t>{0, 0}, {1, 2}, 0, 4096);
    get_fixed_string(r, "layout", "NCHW", {"NCHW"});
    a->ceil_mode = r.get_bool("ceil_mode", false);
    r.finish();
    if (padding[0] >= pool[0] || padding.back() >= pool[1]) {
      r.fail("padding", "values below pool_size " + tuple_str(pool), tuple_str(padding));
    }
    a->params = {pool[0], pool[1], strides[0], strides[1], padding[0], padding.back()};
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& a = static_cast<const MaxPool2dAttrs&>(attrs);
    const kernel::MaxPool2dParams& p = a.params;
    const Shape& x = in[0];
    verify_ndim(*this, "data", x, 4, "(N, C, H, W)");
    return {Shape{x[0], x[1], out_extent(x, 2, p.pool_h, p.stride_h, p.pad_h, a.ceil_mode),
                  out_extent(x, 3, p.pool_w, p.stride_w, p.pad_w, a.ceil_mode)}};
  }

  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>&,
                                    const std::vector<int>& p) const override {
    return {p[0]};
  }

  std::vector<DataType> infer_dtypes(const OpAttrs&,
                                     const std::vector<DataType>& in) const override {
    return int32_or_float32(*this, in, {"data"});
  }

  int64_t cost_base(const OpAttrs& attrs, const std::vector<Shape>&) const override {
    const kernel::MaxPool2dParams& p = static_cast<const MaxPool2dAttrs&>(attrs).params;
    return p.pool_h * p.pool_w;
  }

  // int32: padding cells are INT32_MIN; float32: they take no part (a window of padding only
  // gives -inf) and a NaN in the window gives the canonical NaN.
  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const auto& a = static_cast<const MaxPool2dAttrs&>(attrs);
    run_kernel(kernels[0], plain_views(outputs, inputs), 1, &a.params);
  }

 private:
  // floor((H + 2P - K) / S) + 1, or with ceil_mode the ceiling, less the last window when it
  // would start at or beyond H + P, i.e. entirely in the bottom padding.
  int64_t out_extent(const Shape& x, int dim, int64_t pool, int64_t stride, int64_t pad,
                     bool ceil_mode) const {
    const char* what = dim == 2 ? "height" : "width";
    const int64_t room = padded(*this, x, dim, pad);
    VERIFY(pool <= room) << op_prefix(*this) << "pool " << what << " " << pool
                         << " does not fit in the padded data " << what << " " << room
                         << " (data shape " << x << ", padding " << pad << ")";
    if (!ceil_mode) return (room - pool) / stride + 1;
    int64_t out = (room - pool + stride - 1) / stride + 1;
    if ((out - 1) * stride >= x[dim] + pad) --out;
    return out;
  }
};

// ---------------------------------------------------------------------------------------------
// upsampling

struct UpsamplingAttrs : OpAttrs {
  kernel::UpsamplingParams params{};
};

class UpsamplingOp : public OpDef {
 public:
  const char* name() const override { return "upsampling"; }
  int num_inputs() const override { return 1; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<UpsamplingAttrs>();
    a->params.scale = r.get_int("scale", std::nullopt, 1, INT32_MAX);
    get_fixed_string(r, "method", "NEAREST_NEIGHBOR", {"NEAREST_NEIGHBOR"});
    get_fixed_string(r, "layout", "NCHW", {"NCHW"});
    r.finish();
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const int64_t scale = static_cast<const UpsamplingAttrs&>(attrs).params.scale;
    const Shape& x = in[0];
    verify_ndim(*this, "data", x, 4, "(N, C, H, W)");
    return {Shape{x[0], x[1], checked_mul(x[2], scale, "upsampling output height"),
                  checked_mul(x[3], scale, "upsampling output width")}};
  }

  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>&,
                                    const std::vector<int>& p) const override {
    return {p[0]};
  }

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const auto& a = static_cast<const UpsamplingAttrs&>(attrs);
    run_kernel(kernels[0], plain_views(outputs, inputs), 1, &a.params);
  }
};

}  // namespace

PrepackedWeight prepack_weight(const OpDef& op, const OpAttrs& attrs,
                               const std::vector<NDArray>& inputs,
                               const kernel::KernelEntry& entry) {
  PrepackedWeight out;
  out.entry = &entry;
  // The packers take int32 weights only (they narrow them to int8/int16); a float32 call's
  // kernel has no packer anyway, but never hand one anything else.
  if (entry.prepack == nullptr || inputs.size() < 2 ||
      inputs[0].dtype() != DataType::Int(32) || inputs[1].dtype() != DataType::Int(32)) {
    return out;
  }
  kernel::Conv2dParams conv{};
  const kernel::DenseParams dense{nullptr};
  const void* params = &dense;
  if (const auto* c = dynamic_cast<const Conv2dAttrs*>(&attrs)) {
    conv = c->params;
    conv.scratch = nullptr;
    params = &conv;
  }
  const NDArray& w = inputs.at(1);
  const kernel::TensorView view = plain_view(w, const_cast<void*>(w.data()));
  const size_t bytes = entry.prepack(view, params, nullptr, 0);
  if (bytes == 0) return out;
  std::shared_ptr<uint8_t> data(new (std::align_val_t{64}) uint8_t[bytes], [](uint8_t* p) {
    ::operator delete[](p, std::align_val_t{64});
  });
  if (entry.prepack(view, params, data.get(), bytes) != bytes) return out;
  out.data = std::move(data);
  out.bytes = bytes;
  return out;
}

void add_cvm_nn_ops(OpList& ops) {
  static const Conv2dOp conv2d;
  static const DenseOp dense;
  static const MaxPool2dOp max_pool2d;
  static const UpsamplingOp upsampling;
  ops.insert(ops.end(), {&conv2d, &dense, &max_pool2d, &upsampling});
}

}  // namespace ops
}  // namespace cvm
