// Private to the cvm_transform family's two sources: the family's OpDef base and shared helpers.
#pragma once

#include <string>
#include <vector>

#include "cvm/ndarray.h"
#include "op_def.h"

namespace cvm {
namespace ops {
namespace transform {

// Axis attributes are checked against the input's ndim at shape inference; parsing only bounds
// them so that normalising cannot overflow.
constexpr int64_t kAxisBound = 1 << 20;

template <typename A>
const A& as(const OpAttrs& attrs) {
  return static_cast<const A&>(attrs);
}

// "(1, 2)", "(1)", "()": the style of Shape::str().
std::string tuple_str(const std::vector<int64_t>& v);

// The (freshly allocated, hence contiguous) output seen in another shape of the same element
// count, for writing through a finer view. RuntimeError when it is not contiguous.
NDArray output_as(const NDArray& out, const Shape& shape);

// Base of the family: one input unless overridden, precision p0, cost base 1, int32 in and out
// (the OpDef defaults) unless any_dtype(), and the family's attribute-error helpers.
class TransformOp : public OpDef {
 public:
  int num_inputs() const override { return 1; }
  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>&,
                                    const std::vector<int>& precisions) const override {
    return {precisions.at(0)};
  }
  // int32 (CVM) only; with any_dtype(), inputs of any one dtype, which the output takes.
  std::vector<DataType> infer_dtypes(const OpAttrs& attrs,
                                     const std::vector<DataType>& inputs) const override {
    if (!any_dtype()) return OpDef::infer_dtypes(attrs, inputs);
    return {verify_same_dtype(*this, inputs)};
  }
  // Moving elements: the dtype-blind "copy" kernel for the dtype of input 0.
  std::vector<const char*> kernel_ops() const override { return {"copy"}; }

 protected:
  // Ops that only move elements through the dtype-blind copy kernel (float models use them).
  virtual bool any_dtype() const { return false; }
  [[noreturn]] void fail_attr(const char* key, const std::string& expected,
                              const std::string& found) const {
    CVM_LOGIC_ERROR() << op_prefix(*this) << "attribute \"" << key << "\": expected " << expected
                      << ", found " << found;
  }
  // `axis` in [-n, n - 1] (or [-n - 1, n] when `insert`) mapped to [0, n - 1] (or [0, n]).
  int axis_in(const char* key, int64_t axis, int n, bool insert = false) const {
    const int64_t lo = insert ? -n - 1 : -n, hi = insert ? n : n - 1;
    if (axis < lo || axis > hi) {
      fail_attr(key, "an axis in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
                std::to_string(axis) + " for " + std::to_string(n) + "-d input");
    }
    return static_cast<int>(axis < 0 ? axis + n + (insert ? 1 : 0) : axis);
  }
  // a * b for output extents; LogicError naming the op on overflow.
  int64_t mul(int64_t a, int64_t b) const {
    return checked_mul(a, b, (op_prefix(*this) + "output extent").c_str());
  }
};

// Appends take, cvm_lut and where (cvm_transform_index.cc).
void add_index_ops(OpList& ops);

}  // namespace transform
}  // namespace ops
}  // namespace cvm
