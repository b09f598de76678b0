// Scalar reference kernels of the transform family whose indexing depends on data: take, where.
#include <cstdint>

#include "scalar_kernels.h"
#include "strided_loop.h"

namespace cvm {
namespace kernel {
namespace scalar {

KernelStatus take(const KernelCall& call) {
  const TensorView& y = call.outputs[0];
  const TensorView& x = call.inputs[0];
  const TensorView& idx = call.inputs[1];
  auto* out = static_cast<int32_t*>(y.data);
  const auto* in = static_cast<const int32_t*>(x.data);
  const auto* index = static_cast<const int32_t*>(idx.data);
  const int64_t outer = y.shape[0], count = y.shape[1], inner = y.shape[2];
  if (outer == 0 || inner == 0) return KernelStatus::kDone;
  const int64_t last = x.shape[1] - 1;  // >= 0: the op layer rejects an empty axis
  for (int64_t j = 0; j < count; ++j) {
    int64_t k = index[j * idx.strides[0]];
    k = k < 0 ? 0 : (k > last ? last : k);
    for (int64_t o = 0; o < outer; ++o) {
      int32_t* dst = out + o * y.strides[0] + j * y.strides[1];
      const int32_t* src = in + o * x.strides[0] + k * x.strides[1];
      for (int64_t i = 0; i < inner; ++i) dst[i * y.strides[2]] = src[i * x.strides[2]];
    }
  }
  return KernelStatus::kDone;
}

KernelStatus where(const KernelCall& call) {
  const TensorView* views[4] = {&call.outputs[0], &call.inputs[0], &call.inputs[1],
                                &call.inputs[2]};
  for_each_row(views, [](char* const* ptr, int64_t n, const int64_t* step) {
    char* out = ptr[0];
    const char* cond = ptr[1];
    const char* x = ptr[2];
    const char* y = ptr[3];
    for (int64_t i = 0; i < n; ++i) {
      const bool pick_x = *reinterpret_cast<const int32_t*>(cond) != 0;
      *reinterpret_cast<int32_t*>(out) = *reinterpret_cast<const int32_t*>(pick_x ? x : y);
      out += step[0];
      cond += step[1];
      x += step[2];
      y += step[3];
    }
  });
  return KernelStatus::kDone;
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
