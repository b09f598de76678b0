// CUDA kernels of the data-dependent transforms: take (int32 gather) and where (int32 select).
#include <cstdint>

#include "cuda_kernels.h"
#include "elementwise_common.cuh"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

// y (outer, count, inner)[o, j, i] = x (outer, dim, inner)[o, clamp(idx[j], 0, last), i],
// one thread per output element in row-major order.
__global__ void take_kernel(TensorView y, TensorView x, TensorView idx, int64_t count,
                            int64_t inner, int64_t last, int64_t n) {
  auto* out = static_cast<int32_t*>(y.data);
  const auto* in = static_cast<const int32_t*>(x.data);
  const auto* index = static_cast<const int32_t*>(idx.data);
  for (int64_t t = global_thread(); t < n; t += grid_threads()) {
    const int64_t i = t % inner;
    const int64_t r = t / inner;
    const int64_t j = r % count;
    const int64_t o = r / count;
    int64_t k = index[j * idx.strides[0]];
    k = k < 0 ? 0 : (k > last ? last : k);
    out[o * y.strides[0] + j * y.strides[1] + i * y.strides[2]] =
        in[o * x.strides[0] + k * x.strides[1] + i * x.strides[2]];
  }
}

struct Select {
  __device__ int32_t operator()(int32_t cond, int32_t x, int32_t y) const {
    return cond != 0 ? x : y;
  }
};

}  // namespace

KernelStatus take(const KernelCall& call) {
  const TensorView& y = call.outputs[0];
  const TensorView& x = call.inputs[0];
  const TensorView& idx = call.inputs[1];
  const int64_t outer = y.shape[0], count = y.shape[1], inner = y.shape[2];
  const int64_t n = outer * count * inner;
  if (n == 0) return KernelStatus::kDone;
  const int64_t last = x.shape[1] - 1;  // >= 0: the op layer rejects an empty axis
  take_kernel<<<blocks_for(n), kBlockThreads, 0, stream_of(call)>>>(y, x, idx, count, inner,
                                                                     last, n);
  return launched("take");
}

KernelStatus where(const KernelCall& call) {
  return map_elements<int32_t, int32_t, 3>(call, Select{}, "where");
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
