// Portable int32 dense: a GEMM (gemm.h) with A = x and B = w transposed, in int8 pair lanes
// when x and w fit int8, else int32 lanes; a row or two of x go direct instead (packing w would
// cost more than the products), as do empty sums and outputs.
#include <cstddef>
#include <cstdint>

#include "gemm.h"
#include "params/nn.h"
#include "portable_kernels.h"

namespace cvm {
namespace kernel {
namespace portable {
namespace {

constexpr int64_t kDirectRows = 2;  // at most this many rows of x go direct

// B of the GEMM: element (k, u) is w (u, k), 0 for u past the last unit.
template <int kNB>
struct WeightColumns {
  const int32_t* w;
  ptrdiff_t ws_u, ws_k, units;
  const int32_t* rows[kNB];

  void panel(ptrdiff_t u0) {
    for (int l = 0; l < kNB; ++l) rows[l] = u0 + l < units ? w + (u0 + l) * ws_u : nullptr;
  }
  void values(ptrdiff_t k, int32_t* v) const {
    for (int l = 0; l < kNB; ++l) v[l] = rows[l] != nullptr ? rows[l][k * ws_k] : 0;
  }
};

// y[m, u] = x[m, :] . w[u, :] + bias[u] for four units at a time, in wrapping uint32.
void dense_direct(const TensorView& x, const TensorView& w, const TensorView* bias,
                  const TensorView& y) {
  const auto depth = static_cast<ptrdiff_t>(x.shape[1]), units = static_cast<ptrdiff_t>(y.shape[1]);
  const auto xs = static_cast<ptrdiff_t>(x.strides[1]), ws = static_cast<ptrdiff_t>(w.strides[1]);
  const auto* wd = static_cast<const int32_t*>(w.data);
  for (int64_t m = 0; m < y.shape[0]; ++m) {
    const int32_t* xr = static_cast<const int32_t*>(x.data) + m * x.strides[0];
    auto* yr = static_cast<int32_t*>(y.data) + m * y.strides[0];
    for (ptrdiff_t u0 = 0; u0 < units; u0 += 4) {
      const int nu = static_cast<int>(units - u0 < 4 ? units - u0 : 4);
      const int32_t* wr[4];
      for (int j = 0; j < 4; ++j) wr[j] = wd + (u0 + (j < nu ? j : 0)) * w.strides[0];
      uint32_t acc[4] = {};
      for (ptrdiff_t k = 0; k < depth; ++k) {
        const auto xv = static_cast<uint32_t>(xr[k * xs]);
        for (int j = 0; j < 4; ++j) acc[j] += static_cast<uint32_t>(wr[j][k * ws]) * xv;
      }
      for (int j = 0; j < nu; ++j) {
        const uint32_t b = bias == nullptr ? 0u
                                           : static_cast<const uint32_t*>(
                                                 bias->data)[(u0 + j) * bias->strides[0]];
        yr[(u0 + j) * y.strides[1]] = static_cast<int32_t>(acc[j] + b);
      }
    }
  }
}

template <class L>
KernelStatus dense_gemm(const KernelCall& call, const Scratch& scratch) {
  using T = typename L::T;
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t rows = y.shape[0], units = y.shape[1], depth = x.shape[1];
  auto* buf = static_cast<T*>(scratch.acquire(
      scratch.ctx, gemm_scratch_lanes<L>(rows, depth) * static_cast<int64_t>(sizeof(T))));
  if (buf == nullptr) return KernelStatus::kDeclined;
  auto* yd = static_cast<uint32_t*>(y.data);
  for (int64_t m = 0; m < rows; ++m) {  // y = bias (or 0); the GEMM adds the sums
    for (int64_t u = 0; u < units; ++u) {
      yd[m * y.strides[0] + u * y.strides[1]] =
          bias == nullptr ? 0u
                          : static_cast<const uint32_t*>(bias->data)[u * bias->strides[0]];
    }
  }
  const auto* xd = static_cast<const int32_t*>(x.data);
  const auto xs_m = static_cast<ptrdiff_t>(x.strides[0]);
  const auto xs_k = static_cast<ptrdiff_t>(x.strides[1]);
  auto a_elem = [&](ptrdiff_t i, ptrdiff_t k) { return xd[i * xs_m + k * xs_k]; };
  WeightColumns<kNR * L::kOuts> b_src{};
  b_src.w = static_cast<const int32_t*>(w.data);
  b_src.ws_u = static_cast<ptrdiff_t>(w.strides[0]);
  b_src.ws_k = static_cast<ptrdiff_t>(w.strides[1]);
  b_src.units = static_cast<ptrdiff_t>(units);
  const GemmOut out{yd, static_cast<ptrdiff_t>(y.strides[0]), static_cast<ptrdiff_t>(y.strides[1])};
  gemm<L>(static_cast<ptrdiff_t>(rows), static_cast<ptrdiff_t>(units),
          static_cast<ptrdiff_t>(depth), a_elem, b_src, buf, out);
  return KernelStatus::kDone;
}

}  // namespace

KernelStatus dense_i32__portable(const KernelCall& call) {
  const auto* p = static_cast<const DenseParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  if (y.shape[0] <= kDirectRows || x.shape[1] == 0 || y.shape[1] == 0) {
    dense_direct(x, w, call.num_inputs > 2 ? &call.inputs[2] : nullptr, y);
    return KernelStatus::kDone;
  }
  if (p == nullptr || p->scratch == nullptr) return KernelStatus::kDeclined;
  return fits_int8(x) && fits_int8(w) ? dense_gemm<PairF64>(call, *p->scratch)
                                      : dense_gemm<Int32Lanes>(call, *p->scratch);
}

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
