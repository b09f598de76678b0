// The array reductions reduce_sum, reduce_mean, reduce_max, reduce_min and argmax (any numeric
// dtype, NumPy axes), and their public C++ entry points.

#include "attrs.h"
#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "kernel_views.h"
#include "op_def.h"
#include "reduce_shape.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {
namespace {

struct ArrayReduceAttrs : OpAttrs {
  std::optional<std::vector<int64_t>> axis;  // nullopt (None): every axis
  bool keepdims = false;
};

class ArrayReduceOp : public OpDef {
 public:
  // `name` is also the kernel's op name in the backend tables. `has_identity`: defined over
  // zero elements (the sum: 0). `gives_index`: the output is an int64 position (argmax).
  ArrayReduceOp(const char* name, bool has_identity, bool gives_index)
      : name_(name), has_identity_(has_identity), gives_index_(gives_index) {}

  const char* name() const override { return name_; }
  int num_inputs() const override { return 1; }
  bool is_cvm() const override { return false; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name_, attrs);
    auto a = std::make_unique<ArrayReduceAttrs>();
    a->axis = r.get_optional_tuple("axis", INT64_MIN, INT64_MAX);
    a->keepdims = r.get_bool("keepdims", false);
    r.finish();
    return a;
  }

  std::vector<DataType> infer_dtypes(const OpAttrs&,
                                     const std::vector<DataType>& inputs) const override {
    VERIFY(!inputs[0].is_bool()) << op_prefix(*this)
                                 << "input 0: expected a numeric dtype, found bool";
    return {gives_index_ ? DataType::Int(64) : inputs[0]};
  }

  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& inputs) const override {
    return {plan(attrs, inputs[0]).out_shape};
  }

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const NDArray& in = inputs[0];
    NDArray out = outputs[0];
    const ReducePlan p = plan(attrs, in.shape());
    void* out_data = out.mutable_data();
    const ReduceViews v = reduce_views(p, in, in.data(), out, out_data);
    run_kernel(kernels[0], {v.out, v.in}, 1, nullptr);
  }

 private:
  ReducePlan plan(const OpAttrs& attrs, const Shape& in) const {
    const auto& a = static_cast<const ArrayReduceAttrs&>(attrs);
    ReducePlan p = plan_reduce(*this, ReduceFlavor::kNumpy, in, a.axis, a.keepdims, false);
    if (!has_identity_) verify_nonempty_reduction(*this, p, in);
    return p;
  }

  const char* name_;
  bool has_identity_;
  bool gives_index_;
};

NDArray run_reduction(const char* op, const NDArray& x, const ReduceAxes& axes, bool keepdims) {
  AttrMap attrs;
  if (!axes.all()) {
    detail::MessageStream os;  // ostream formatting without iostreams
    os << "(";
    for (int64_t a : axes.axes()) os << a << ",";
    os << ")";
    attrs["axis"] = os.str();
  }
  attrs["keepdims"] = keepdims ? "1" : "0";
  return run_op(op, {x}, attrs)[0];
}

}  // namespace

void add_array_reduce_ops(OpList& ops) {
  static const ArrayReduceOp kOps[] = {
      ArrayReduceOp("reduce_sum", true, false),  ArrayReduceOp("reduce_mean", false, false),
      ArrayReduceOp("reduce_max", false, false), ArrayReduceOp("reduce_min", false, false),
      ArrayReduceOp("argmax", false, true),
  };
  for (const OpDef& op : kOps) ops.push_back(&op);
}

}  // namespace ops

NDArray reduce_sum(const NDArray& x, const ReduceAxes& axes, bool keepdims) {
  return ops::run_reduction("reduce_sum", x, axes, keepdims);
}
NDArray reduce_mean(const NDArray& x, const ReduceAxes& axes, bool keepdims) {
  return ops::run_reduction("reduce_mean", x, axes, keepdims);
}
NDArray reduce_max(const NDArray& x, const ReduceAxes& axes, bool keepdims) {
  return ops::run_reduction("reduce_max", x, axes, keepdims);
}
NDArray reduce_min(const NDArray& x, const ReduceAxes& axes, bool keepdims) {
  return ops::run_reduction("reduce_min", x, axes, keepdims);
}
NDArray argmax(const NDArray& x, const ReduceAxes& axes, bool keepdims) {
  return ops::run_reduction("argmax", x, axes, keepdims);
}

}  // namespace cvm
