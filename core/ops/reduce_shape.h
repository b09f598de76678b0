// Shared reduction planning for the CVM (sum, max) and array (reduce_*, argmax) operators:
// axis validation, keepdims/exclude output shapes, and the kernel views of the reduce kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cvm/ndarray.h"
#include "cvm/shape.h"
#include "kernel_abi.h"
#include "op_def.h"

namespace cvm {
namespace ops {

// How a reduction names its axes and shapes a fully reduced result.
enum class ReduceFlavor {
  // CVM/TVM (spec section 5): an empty axis tuple means every axis, and reducing every axis
  // without keepdims gives shape (1,).
  kCvm,
  // NumPy: `nullopt` (None) means every axis, an empty tuple reduces nothing, and reducing every
  // axis without keepdims gives a 0-d array.
  kNumpy,
};

// Which dimensions one reduction covers and the shape it produces.
struct ReducePlan {
  std::vector<bool> reduced;  // per input dimension
  std::vector<int> out_dim;   // per input dimension: the output dimension it maps to, -1 if none
  Shape out_shape;
  // Elements combined into each output: the product of the reduced extents (1 when nothing is
  // reduced). Equals in_size / out_size whenever the output is not empty.
  int64_t reduce_size = 1;
};

// Validates `axes` against `in` and plans the reduction. Each axis must lie in [-N, N-1] and
// name a distinct dimension (the order does not matter: axes are sorted). With `exclude` the
// listed axes are the ones kept (kCvm only). `axes` == nullopt: every axis. LogicError naming
// op "<name>", attribute "axis", the accepted range and the value found.
ReducePlan plan_reduce(const OpDef& op, ReduceFlavor flavor, const Shape& in,
                       const std::optional<std::vector<int64_t>>& axes, bool keepdims,
                       bool exclude);

// LogicError when `plan` combines zero elements into a non-empty output: max, min, mean and
// argmax have no value for an empty set.
void verify_nonempty_reduction(const OpDef& op, const ReducePlan& plan, const Shape& in);

// Kernel views of one reduction. `in` lists the kept dimensions first, then the reduced ones,
// each group in the input's dimension order, so that a row-major walk of the reduced group is
// the reduction order; `out` has exactly the kept dimensions (same extents). Size-1 dimensions
// are dropped and neighbours merged where the strides allow it, which never changes that walk.
struct ReduceViews {
  kernel::TensorView in;
  kernel::TensorView out;
};
ReduceViews reduce_views(const ReducePlan& plan, const NDArray& in, const void* in_data,
                         const NDArray& out, void* out_data);

}  // namespace ops
}  // namespace cvm
