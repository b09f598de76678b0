// The CVM elementwise operators (spec section 5): relu, abs, negative, cvm_precision,
// elemwise_add/sub, and the clamping ops clip, cvm_clip, cvm_right_shift, cvm_left_shift.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "attrs.h"
#include "elementwise_ops.h"
#include "precision.h"
#include "params/elementwise.h"

namespace cvm {
namespace ops {
namespace {

constexpr int64_t kInt32Max = 2147483647;

int precision_six(const std::vector<int>&) { return 6; }

enum class ClampKind { kClip, kCvmClip, kRightShift, kLeftShift };

struct ClampAttrs : OpAttrs {
  kernel::CvmClampParams params{};
  int precision = 0;  // output precision
};

// clip, cvm_clip, cvm_right_shift and cvm_left_shift: one int32 input, y = clamp(shift(x)).
class ClampOp : public ElementwiseOp {
 public:
  ClampOp(const char* name, const char* kernel, ClampKind kind)
      : ElementwiseOp({name, kernel, 1, true, true, ShapeRule::kSame, DtypeRule::kInt32, nullptr}),
        kind_(kind) {}

  std::unique_ptr<OpAttrs> parse(const AttrMap& map) const override {
    AttrReader r(name(), map);
    auto a = std::make_unique<ClampAttrs>();
    if (kind_ == ClampKind::kClip) {
      const int64_t lo = r.get_int("a_min", std::nullopt, -kInt32Max, kInt32Max);
      const int64_t hi = r.get_int("a_max", std::nullopt, -kInt32Max, kInt32Max);
      if (lo >= hi) {
        r.fail("a_max", "a value greater than a_min (" + std::to_string(lo) + ")",
               std::to_string(hi));
      }
      a->params.lo = static_cast<int32_t>(lo);
      a->params.hi = static_cast<int32_t>(hi);
      // NP(n) = NB(n + 1) + 1 (quirk: one too many when n + 1 is a power of two).
      const uint64_t n = static_cast<uint64_t>(std::max(std::llabs(lo), std::llabs(hi)));
      a->precision = number_precision(n);
    } else {
      const int64_t p = r.get_int("precision", std::nullopt, 1, 32);
      if (kind_ != ClampKind::kCvmClip) {
        a->params.shift = static_cast<int32_t>(r.get_int("shift_bit", std::nullopt, 1, 32));
      }
      // is_sign (default true in the original) has no effect: every clip is symmetric. The
      // original declares it for cvm_clip, cvm_right_shift and cvm_left_shift alike.
      r.ignore("is_sign");
      a->params.hi = alpha(p);
      a->params.lo = -a->params.hi;
      a->precision = static_cast<int>(p);
    }
    r.finish();
    return a;
  }

  // clip, cvm_clip and cvm_right_shift (not cvm_left_shift: its kernels take int32 only).
  Int8Activations int8_activations() const override {
    return kind_ == ClampKind::kLeftShift ? Int8Activations::kNo : Int8Activations::kTogether;
  }

  bool as_clamp(const OpAttrs& attrs, kernel::CvmClampParams* clamp) const override {
    if (kind_ == ClampKind::kLeftShift) return false;
    *clamp = static_cast<const ClampAttrs&>(attrs).params;
    if (kind_ != ClampKind::kRightShift) clamp->shift = 0;
    return true;
  }

  std::vector<int> infer_precisions(const OpAttrs& attrs, const std::vector<Shape>&,
                                    const std::vector<int>& p) const override {
    const auto& a = static_cast<const ClampAttrs&>(attrs);
    if (kind_ == ClampKind::kLeftShift) {
      VERIFY(p[0] + a.params.shift <= 32)
          << op_prefix(*this) << "input precision " << p[0] << " + shift_bit " << a.params.shift
          << " must be at most 32, found " << p[0] + a.params.shift;
    }
    return {a.precision};
  }

 protected:
  const void* kernel_params(const OpAttrs& attrs) const override {
    return &static_cast<const ClampAttrs&>(attrs).params;
  }

 private:
  ClampKind kind_;
};

}  // namespace

void add_cvm_elementwise_ops(OpList& ops) {
  using S = ShapeRule;
  using D = DtypeRule;
  // negative is not in-place (quirk, spec section 3); abs and negative take any signed integer
  // or float dtype, relu int32 or float32 (float models), the others int32 only.
  static const ElementwiseOp kSimple[] = {
      ElementwiseOp({"relu", "relu", 1, true, true, S::kSame, D::kInt32OrFloat32, precision_p0,
                     Int8Activations::kTogether}),
      ElementwiseOp({"abs", "abs", 1, true, true, S::kSame, D::kSignedOrFloat, precision_p0}),
      ElementwiseOp(
          {"negative", "negative", 1, true, false, S::kSame, D::kSignedOrFloat, precision_p0}),
      ElementwiseOp(
          {"cvm_precision", "cvm_precision", 1, true, true, S::kSame, D::kInt32, precision_six}),
      ElementwiseOp({"elemwise_add", "add", 2, true, true, S::kSame, D::kInt32,
                     precision_max_plus_one, Int8Activations::kTogetherClamped}),
      ElementwiseOp({"elemwise_sub", "sub", 2, true, true, S::kSame, D::kInt32,
                     precision_max_plus_one, Int8Activations::kTogetherClamped}),
  };
  static const ClampOp kClamps[] = {
      {"clip", "clip", ClampKind::kClip},
      {"cvm_clip", "clip", ClampKind::kCvmClip},
      {"cvm_right_shift", "cvm_right_shift", ClampKind::kRightShift},
      {"cvm_left_shift", "cvm_left_shift", ClampKind::kLeftShift},
  };
  for (const OpDef& op : kSimple) ops.push_back(&op);
  for (const OpDef& op : kClamps) ops.push_back(&op);
}

}  // namespace ops
}  // namespace cvm
