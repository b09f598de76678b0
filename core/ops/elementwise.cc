// ElementwiseOp (shapes, dtypes, precisions, dispatch), broadcast_shapes, and the public
// elementwise functions of array_ops.h, which run the registered operators.
#include <algorithm>
#include <cstring>
#include <limits>

#include "attrs.h"
#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "elementwise_ops.h"
#include "kernel_views.h"
#include "registry_internal.h"

namespace cvm {

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const int n = std::max(a.ndim(), b.ndim());
  Shape out;
  out.resize(n);
  for (int i = 0; i < n; ++i) {
    int ia = a.ndim() - n + i, ib = b.ndim() - n + i;
    int64_t da = ia >= 0 ? a[ia] : 1;
    int64_t db = ib >= 0 ? b[ib] : 1;
    VERIFY(da == db || da == 1 || db == 1)
        << "shapes " << a << " and " << b << " cannot be broadcast (dim " << i << ": " << da
        << " vs " << db << ")";
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace ops {

int precision_p0(const std::vector<int>& p) { return p[0]; }
int precision_max(const std::vector<int>& p) { return std::max(p[0], p[1]); }
int precision_max_plus_one(const std::vector<int>& p) { return std::max(p[0], p[1]) + 1; }
int precision_sum(const std::vector<int>& p) { return p[0] + p[1]; }

std::unique_ptr<OpAttrs> ElementwiseOp::parse(const AttrMap& attrs) const {
  AttrReader(name(), attrs).finish();
  return std::make_unique<NoAttrs>();
}

std::vector<Shape> ElementwiseOp::infer_shapes(const OpAttrs&,
                                               const std::vector<Shape>& inputs) const {
  if (inputs.size() == 1) return {inputs[0]};
  const Shape &a = inputs[0], &b = inputs[1];
  if (spec_.shapes == ShapeRule::kSame) {
    VERIFY(a == b) << op_prefix(*this) << "input shapes must be equal, found " << a << " and " << b;
    return {a};
  }
  try {
    return {broadcast_shapes(a, b)};
  } catch (const LogicError& e) {
    CVM_LOGIC_ERROR() << op_prefix(*this) << e.what();
  }
}

std::vector<DataType> ElementwiseOp::infer_dtypes(const OpAttrs& attrs,
                                                  const std::vector<DataType>& inputs) const {
  if (spec_.dtypes == DtypeRule::kInt32) return OpDef::infer_dtypes(attrs, inputs);
  const DataType t = inputs[0];
  if (spec_.dtypes == DtypeRule::kInt32OrFloat32 || spec_.dtypes == DtypeRule::kFloat32) {
    const bool int32_ok = spec_.dtypes == DtypeRule::kInt32OrFloat32;
    VERIFY(t == DataType::Float(32) || (int32_ok && t == DataType::Int(32)))
        << op_prefix(*this) << "input 0 must be " << (int32_ok ? "int32 or float32" : "float32")
        << ", found " << t;
    verify_same_dtype(*this, inputs);
    return {t};
  }
  for (size_t i = 1; i < inputs.size(); ++i) {
    VERIFY(inputs[i] == t) << op_prefix(*this) << "dtypes differ (" << t << " vs " << inputs[i]
                           << ")";
  }
  if (spec_.dtypes == DtypeRule::kAnyToBool) return {DataType::Bool()};
  if (spec_.dtypes == DtypeRule::kSignedOrFloat) {
    VERIFY(t.is_int() || t.is_float())
        << op_prefix(*this) << "input 0 must be a signed integer or float, found " << t;
  } else {
    VERIFY(!t.is_bool()) << op_prefix(*this) << "input dtype is " << t
                         << "; bool arrays are not numeric";
  }
  return {t};
}

std::vector<int> ElementwiseOp::infer_precisions(const OpAttrs& attrs,
                                                 const std::vector<Shape>& shapes,
                                                 const std::vector<int>& precisions) const {
  if (spec_.precision == nullptr) return OpDef::infer_precisions(attrs, shapes, precisions);
  return {spec_.precision(precisions)};
}

void ElementwiseOp::compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                            const std::vector<NDArray>& outputs, const NodeKernels& kernels) const {
  NDArray out = outputs[0];
  std::vector<Operand> operands = {{&out, out.mutable_data()}};  // first: out may alias input 0
  std::vector<NDArray> broadcast;
  broadcast.reserve(inputs.size());
  for (const NDArray& in : inputs) broadcast.push_back(in.broadcast_to(out.shape()));
  for (const NDArray& in : broadcast) operands.push_back({&in, const_cast<void*>(in.data())});
  // A session's fused clamp run after an elemwise_add / elemwise_sub (graph/output_stage.h):
  // the int32 add / sub entries with KernelEntry::applies_clamp apply it as they store.
  const void* params = kernels.clamp != nullptr ? kernels.clamp : kernel_params(attrs);
  run_kernel(kernels[0], elementwise_views(operands), 1, params);
}

bool ElementwiseOp::as_clamp(const OpAttrs&, kernel::CvmClampParams* clamp) const {
  if (std::strcmp(spec_.name, "relu") != 0) return false;
  *clamp = {0, 0, std::numeric_limits<int32_t>::max()};
  return true;
}

}  // namespace ops

namespace {

NDArray run1(const char* op, const std::vector<NDArray>& inputs) {
  return run_op(op, inputs).front();
}

}  // namespace

NDArray add(const NDArray& a, const NDArray& b) { return run1("add", {a, b}); }
NDArray sub(const NDArray& a, const NDArray& b) { return run1("sub", {a, b}); }
NDArray mul(const NDArray& a, const NDArray& b) { return run1("mul", {a, b}); }
NDArray div(const NDArray& a, const NDArray& b) { return run1("div", {a, b}); }
NDArray maximum(const NDArray& a, const NDArray& b) { return run1("maximum", {a, b}); }
NDArray minimum(const NDArray& a, const NDArray& b) { return run1("minimum", {a, b}); }
NDArray negative(const NDArray& x) { return run1("negative", {x}); }
NDArray abs(const NDArray& x) { return run1("abs", {x}); }
NDArray equal(const NDArray& a, const NDArray& b) { return run1("equal", {a, b}); }
NDArray not_equal(const NDArray& a, const NDArray& b) { return run1("not_equal", {a, b}); }
NDArray less(const NDArray& a, const NDArray& b) { return run1("less", {a, b}); }
NDArray less_equal(const NDArray& a, const NDArray& b) { return run1("less_equal", {a, b}); }
NDArray greater(const NDArray& a, const NDArray& b) { return run1("greater", {a, b}); }
NDArray greater_equal(const NDArray& a, const NDArray& b) { return run1("greater_equal", {a, b}); }

}  // namespace cvm
