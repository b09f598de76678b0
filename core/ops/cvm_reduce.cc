// The CVM reduce operators sum and max (spec section 5 "Reduce"): axis/keepdims/exclude, the
// axis=() max quirk, precision p0 + NB(in/out) for sum and the cost base in_size / out_size.
#include "attrs.h"
#include "cvm/check.h"
#include "kernel_views.h"
#include "op_def.h"
#include "precision.h"
#include "params/reduce.h"
#include "reduce_shape.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {
namespace {

struct CvmReduceAttrs : OpAttrs {
  std::vector<int64_t> axis;  // as written; () = every axis
  bool keepdims = false;
  bool exclude = false;
};

class CvmReduceOp : public OpDef {
 public:
  CvmReduceOp(const char* name, bool is_max) : name_(name), is_max_(is_max) {}

  const char* name() const override { return name_; }
  int num_inputs() const override { return 1; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name_, attrs);
    auto a = std::make_unique<CvmReduceAttrs>();
    a->axis = r.get_tuple("axis", std::vector<int64_t>{});
    a->keepdims = r.get_bool("keepdims", false);
    a->exclude = r.get_bool("exclude", false);
    r.ignore("dtype");
    r.finish();
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& inputs) const override {
    return {plan(attrs, inputs[0]).out_shape};
  }

  std::vector<int> infer_precisions(const OpAttrs& attrs, const std::vector<Shape>& shapes,
                                    const std::vector<int>& precisions) const override {
    if (is_max_) return {precisions[0]};
    const int64_t ratio = plan(attrs, shapes[0]).reduce_size;
    return {precisions[0] + bit_length(static_cast<uint64_t>(ratio))};
  }

  int64_t cost_base(const OpAttrs& attrs, const std::vector<Shape>& inputs) const override {
    return is_max_ ? 1 : plan(attrs, inputs[0]).reduce_size;
  }

  std::vector<const char*> kernel_ops() const override {
    return {is_max_ ? "reduce_max" : "reduce_sum"};
  }

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const NDArray& in = inputs[0];
    NDArray out = outputs[0];
    const ReducePlan p = plan(attrs, in.shape());
    void* out_data = out.mutable_data();
    const ReduceViews v = reduce_views(p, in, in.data(), out, out_data);
    kernel::ReduceParams params{};
    params.max_starts_at_zero = starts_at_zero(attrs);
    run_kernel(kernels[0], {v.out, v.in}, 1, &params);
  }

 private:
  // The quirk: CVM's max over axis=() without exclude starts its accumulator at 0, not at the
  // first element (the explicit-axes path does), so the result is max(0, max X).
  bool starts_at_zero(const OpAttrs& attrs) const {
    const auto& a = static_cast<const CvmReduceAttrs&>(attrs);
    return is_max_ && a.axis.empty() && !a.exclude;
  }

  // The plan of this reduction; a max over zero elements is an error unless the quirk's
  // accumulator gives it a value.
  ReducePlan plan(const OpAttrs& attrs, const Shape& in) const {
    const auto& a = static_cast<const CvmReduceAttrs&>(attrs);
    ReducePlan p = plan_reduce(*this, ReduceFlavor::kCvm, in, a.axis, a.keepdims, a.exclude);
    if (is_max_ && !starts_at_zero(attrs)) verify_nonempty_reduction(*this, p, in);
    return p;
  }

  const char* name_;
  bool is_max_;
};

}  // namespace

void add_cvm_reduce_ops(OpList& ops) {
  static const CvmReduceOp kSum("sum", false);
  static const CvmReduceOp kMax("max", true);
  ops.push_back(&kSum);
  ops.push_back(&kMax);
}

}  // namespace ops
}  // namespace cvm
