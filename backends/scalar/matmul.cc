// Scalar reference kernel of matmul: batched (..., M, K) x (..., K, N) over strided views, each
// output accumulated in k order from 0 with one rounding per multiply and per add (a NaN result
// is written as the canonical NaN).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "convert.h"
#include "reference_keys.h"
#include "elem_types.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// acc + x * y in the output type: int8 products are exact in int32, int32 wraps, floats round
// the product and then the sum (never fused: -ffp-contract=off).
template <typename T, typename Acc>
Acc multiply_add(Acc acc, T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    return wrap_add(acc, wrap_mul(static_cast<Acc>(x), static_cast<Acc>(y)));
  } else {
    const Acc product = x * y;
    return acc + product;
  }
}

}  // namespace

// Views: outputs[0] (B..., M, N), inputs[0] (B..., M, K), inputs[1] (B..., K, N), all of the
// same ndim >= 2 with equal batch extents (broadcast batch dimensions have stride 0).
template <ElemType E>
KernelStatus matmul(const KernelCall& call) {
  using T = ElemT<E>;
  using Acc = std::conditional_t<E == ElemType::kInt8, int32_t, T>;
  const TensorView& out = call.outputs[0];
  const TensorView& a = call.inputs[0];
  const TensorView& b = call.inputs[1];
  const int nd = out.ndim;
  const int batch_dims = nd - 2;
  for (int d = 0; d < nd; ++d) {
    if (out.shape[d] == 0) return KernelStatus::kDone;
  }
  const int64_t m = out.shape[nd - 2], n = out.shape[nd - 1], k = a.shape[nd - 1];
  const int64_t a_row = a.strides[nd - 2], a_col = a.strides[nd - 1];
  const int64_t b_row = b.strides[nd - 2], b_col = b.strides[nd - 1];
  const int64_t o_row = out.strides[nd - 2], o_col = out.strides[nd - 1];
  int64_t index[kMaxKernelDims] = {};
  for (;;) {
    int64_t a_off = 0, b_off = 0, o_off = 0;
    for (int d = 0; d < batch_dims; ++d) {
      a_off += index[d] * a.strides[d];
      b_off += index[d] * b.strides[d];
      o_off += index[d] * out.strides[d];
    }
    const T* pa = static_cast<const T*>(a.data) + a_off;
    const T* pb = static_cast<const T*>(b.data) + b_off;
    Acc* po = static_cast<Acc*>(out.data) + o_off;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        Acc acc = Acc(0);
        for (int64_t kk = 0; kk < k; ++kk) {
          acc = multiply_add<T, Acc>(acc, pa[i * a_row + kk * a_col], pb[kk * b_row + j * b_col]);
        }
        if constexpr (std::is_floating_point_v<Acc>) {
          if (std::isnan(acc)) acc = canonical_nan<Acc>();
        }
        po[i * o_row + j * o_col] = acc;
      }
    }
    int d = batch_dims - 1;
    for (; d >= 0; --d) {
      if (++index[d] < out.shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return KernelStatus::kDone;
  }
}

CVM_REFERENCE_MATMUL(CVM_INSTANTIATE_KERNEL)

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
