// CUDA kernel of matmul: one thread per output element, summed in the scalar reference's k order.
//
// Views as backends/scalar/matmul.cc: outputs[0] (B..., M, N), inputs[0] (B..., M, K),
// inputs[1] (B..., K, N), all of the same ndim >= 2 with equal batch extents (broadcast batch
// dimensions have stride 0). Each output starts at 0 and adds a[i, kk] * b[kk, j] for
// kk = 0 .. K-1: int8 products exact in int32 with int32 wrapping sums, int32 wrapping, floats
// one rounding per multiply and per add (-fmad=false: never fused); a NaN is written canonical.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "convert.h"
#include "reference_keys.h"
#include "cuda_common.cuh"
#include "cuda_kernels.h"
#include "elem_types.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

// acc + x * y in the output type (backends/scalar/matmul.cc multiply_add).
template <typename T, typename Acc>
__device__ Acc multiply_add(Acc acc, T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    return wrap_add(acc, wrap_mul(static_cast<Acc>(x), static_cast<Acc>(y)));
  } else {
    const Acc product = x * y;
    return acc + product;
  }
}

template <typename T, typename Acc>
__global__ void matmul_kernel(TensorView a, TensorView b, TensorView out, int64_t total) {
  const int nd = out.ndim;
  const int64_t m = out.shape[nd - 2], n = out.shape[nd - 1], k = a.shape[nd - 1];
  const int64_t a_row = a.strides[nd - 2], a_col = a.strides[nd - 1];
  const int64_t b_row = b.strides[nd - 2], b_col = b.strides[nd - 1];
  const T* a_data = static_cast<const T*>(a.data);
  const T* b_data = static_cast<const T*>(b.data);
  Acc* out_data = static_cast<Acc*>(out.data);
  for (int64_t o = global_thread(); o < total; o += grid_threads()) {
    // o = ((batch...) * m + i) * n + j, row-major over the output's shape.
    int64_t rem = o / n;
    const int64_t j = o - rem * n;
    const int64_t q = rem / m;
    const int64_t i = rem - q * m;
    rem = q;
    int64_t a_off = i * a_row, b_off = j * b_col;
    int64_t o_off = i * out.strides[nd - 2] + j * out.strides[nd - 1];
    for (int d = nd - 3; d >= 0; --d) {
      const int64_t qd = rem / out.shape[d];
      const int64_t id = rem - qd * out.shape[d];
      a_off += id * a.strides[d];
      b_off += id * b.strides[d];
      o_off += id * out.strides[d];
      rem = qd;
    }
    const T* pa = a_data + a_off;
    const T* pb = b_data + b_off;
    Acc acc = Acc(0);
    for (int64_t kk = 0; kk < k; ++kk) {
      acc = multiply_add<T, Acc>(acc, pa[kk * a_col], pb[kk * b_row]);
    }
    if constexpr (std::is_floating_point_v<Acc>) {
      if (std::isnan(acc)) acc = canonical_nan<Acc>();
    }
    out_data[o_off] = acc;
  }
}

}  // namespace

template <ElemType E>
KernelStatus matmul(const KernelCall& call) {
  using T = ElemT<E>;
  using Acc = std::conditional_t<E == ElemType::kInt8, int32_t, T>;
  const TensorView& out = call.outputs[0];
  const int64_t total = out.numel();
  if (total == 0) return KernelStatus::kDone;
  matmul_kernel<T, Acc><<<blocks_for(total), kBlockThreads, 0, stream_of(call)>>>(
      call.inputs[0], call.inputs[1], out, total);
  return launched("matmul");
}

CVM_REFERENCE_MATMUL(CVM_INSTANTIATE_KERNEL)

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
