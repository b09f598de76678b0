// POD kernel parameters and view layout of the reduction kernels (reduce_sum, reduce_max,
// reduce_min, reduce_mean, argmax), and the canonical NaN of float reductions and matmul.
//
// View layout (built by core/ops/reduce_shape.cc): outputs[0] has k dimensions; inputs[0] has
// those same k leading dimensions (same extents) followed by the reduced dimensions. Each output
// element combines the input elements under its index in row-major order over the reduced
// dimensions: that walk is the reduction order of docs/determinism.md, whatever the strides.
#pragma once

#include <cstdint>
#include <cstring>

namespace cvm {
namespace kernel {

// Optional (params may be null: all fields 0).
struct ReduceParams {
  // reduce_max only: start the accumulator at 0 instead of the first element, so the result is
  // max(0, max X) (the CVM quirk of `max` with axis=() and exclude=false; integers only).
  int32_t max_starts_at_zero;
};

}  // namespace kernel
}  // namespace cvm
