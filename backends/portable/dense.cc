// Portable int32 dense: a GEMM (gemm.h) with A = x and B = w transposed, in int8 pair lanes
// when x and w fit int8, else int32 lanes; a row or two of x go direct instead (packing w would
// cost more than the products), as do empty sums and outputs. Every path applies
// DenseParams::clamp to each output as it stores its final value.
//
// The packer (dense_i32__portable_prepack) packs an int8 w once, as the GEMM's whole B in pair
// lanes; a call given that pack and an int8 x reads it in place: through the GEMM for rows of
// two and more, and directly, two panels at a time, for one row (or without scratch).
#include <cstddef>
#include <cstdint>

#include "gemm.h"
#include "params/nn.h"
#include "portable_kernels.h"

namespace cvm {
namespace kernel {
namespace portable {
namespace {

constexpr int64_t kDirectRows = 2;             // at most this many rows of x go direct
constexpr uint32_t kDenseMagic = 0x44384650u;  // "PF8D": dense B, int8 pairs in doubles

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

template <int kNB>
WeightColumns<kNB> weight_columns(const TensorView& w) {
  WeightColumns<kNB> b{};
  b.w = static_cast<const int32_t*>(w.data);
  b.ws_u = static_cast<ptrdiff_t>(w.strides[0]);
  b.ws_k = static_cast<ptrdiff_t>(w.strides[1]);
  b.units = static_cast<ptrdiff_t>(w.shape[0]);
  return b;
}

// The lanes of the call's pack when dense_i32__portable_prepack made it for a w of this shape,
// else null.
const double* dense_packed(const KernelCall& call, int64_t units, int64_t depth) {
  const auto* h = static_cast<const PackHeader*>(call.prepacked);
  if (h == nullptr || h->magic != kDenseMagic || h->lane_bytes != sizeof(double) ||
      h->d[0] != units || h->d[1] != depth) {
    return nullptr;
  }
  return reinterpret_cast<const double*>(h + 1);
}

// y = bias (or 0) for rows [0, rows).
void init_rows(const TensorView* bias, const TensorView& y) {
  auto* yd = static_cast<uint32_t*>(y.data);
  for (int64_t m = 0; m < y.shape[0]; ++m) {
    for (int64_t u = 0; u < y.shape[1]; ++u) {
      yd[m * y.strides[0] + u * y.strides[1]] =
          bias == nullptr ? 0u
                          : static_cast<const uint32_t*>(bias->data)[u * bias->strides[0]];
    }
  }
}

// y[m, u] = clamp(x[m, :] . w[u, :] + bias[u]) for four units at a time, in wrapping uint32.
void dense_direct(const TensorView& x, const TensorView& w, const TensorView* bias,
                  const TensorView& y, const CvmClampParams* clamp) {
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
        yr[(u0 + j) * y.strides[1]] = static_cast<int32_t>(clamped_sum(acc[j], b, clamp));
      }
    }
  }
}

// The sums of B panel q (kNB units from q * kNB) for one row, split and added to row yr, then
// clamped by `clamp` unless it is null (the last K block).
inline void add_panel(const double (&acc)[kNR], ptrdiff_t q, ptrdiff_t units, uint32_t* yr,
                      ptrdiff_t ys, const CvmClampParams* clamp) {
  constexpr int kNB = kNR * PairF64::kOuts;
  for (int j = 0; j < kNR; ++j) {
    uint32_t s[PairF64::kOuts];
    PairF64::split(acc[j], s);
    for (int l = 0; l < PairF64::kOuts; ++l) {
      const ptrdiff_t u = q * kNB + j * PairF64::kOuts + l;
      if (u < units) yr[u * ys] = clamped_sum(yr[u * ys], s[l], clamp);
    }
  }
}

// dense row by row from the packed B (pack_b() in PairF64 lanes), x in int8: per K block, the
// block of x as doubles (on the stack), then two B panels at a time (8 accumulators), each
// panel's sums added to y modulo 2^32 (and clamped in the last block). No scratch.
void dense_direct_packed(const TensorView& x, const double* packed, const TensorView* bias,
                         const TensorView& y, const CvmClampParams* clamp_out) {
  using L = PairF64;
  const auto depth = static_cast<ptrdiff_t>(x.shape[1]), units = static_cast<ptrdiff_t>(y.shape[1]);
  const auto xs = static_cast<ptrdiff_t>(x.strides[1]), ys = static_cast<ptrdiff_t>(y.strides[1]);
  const ptrdiff_t kc = block_depth<L>(depth);
  const auto lanes = static_cast<ptrdiff_t>(b_lanes<L>(units)), panels = lanes / kNR;
  init_rows(bias, y);
  double xb[kMaxBlockDepth];
  for (int64_t m = 0; m < y.shape[0]; ++m) {
    const int32_t* xr = static_cast<const int32_t*>(x.data) + m * x.strides[0];
    uint32_t* yr = static_cast<uint32_t*>(y.data) + m * y.strides[0];
    for (ptrdiff_t k0 = 0; k0 < depth; k0 += kc) {
      const ptrdiff_t kn = std::min(kc, depth - k0);
      const CvmClampParams* clamp = k0 + kn == depth ? clamp_out : nullptr;  // y's final values
      for (ptrdiff_t kk = 0; kk < kn; ++kk) xb[kk] = L::one(xr[(k0 + kk) * xs]);
      const double* block = packed + lanes * k0;
      ptrdiff_t q = 0;
      for (; q + 2 <= panels; q += 2) {
        const double* b0 = block + q * kn * kNR;
        const double* b1 = b0 + kn * kNR;
        double acc0[kNR] = {}, acc1[kNR] = {};
        for (ptrdiff_t kk = 0; kk < kn; ++kk, b0 += kNR, b1 += kNR) {
          const double xv = xb[kk];
          for (int j = 0; j < kNR; ++j) acc0[j] += xv * b0[j];
          for (int j = 0; j < kNR; ++j) acc1[j] += xv * b1[j];
        }
        add_panel(acc0, q, units, yr, ys, clamp);
        add_panel(acc1, q + 1, units, yr, ys, clamp);
      }
      if (q < panels) {
        const double* b0 = block + q * kn * kNR;
        double acc0[kNR] = {};
        for (ptrdiff_t kk = 0; kk < kn; ++kk, b0 += kNR) {
          const double xv = xb[kk];
          for (int j = 0; j < kNR; ++j) acc0[j] += xv * b0[j];
        }
        add_panel(acc0, q, units, yr, ys, clamp);
      }
    }
  }
}

// The GEMM; b_packed: B packed whole (pack_b(), lanes L), or null to pack it panel by panel.
template <class L>
KernelStatus dense_gemm(const KernelCall& call, const Scratch& scratch,
                        const CvmClampParams* clamp, const typename L::T* b_packed = nullptr) {
  using T = typename L::T;
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t rows = y.shape[0], units = y.shape[1], depth = x.shape[1];
  auto* buf = static_cast<T*>(scratch.acquire(
      scratch.ctx, gemm_scratch_lanes<L>(rows, depth, false, b_packed != nullptr) *
                       static_cast<int64_t>(sizeof(T))));
  if (buf == nullptr) return KernelStatus::kDeclined;
  init_rows(bias, y);  // the GEMM adds the sums
  const auto* xd = static_cast<const int32_t*>(x.data);
  const auto xs_m = static_cast<ptrdiff_t>(x.strides[0]);
  const auto xs_k = static_cast<ptrdiff_t>(x.strides[1]);
  auto a_elem = [&](ptrdiff_t i, ptrdiff_t k) { return xd[i * xs_m + k * xs_k]; };
  auto b_src = weight_columns<kNR * L::kOuts>(w);
  auto* yd = static_cast<uint32_t*>(y.data);
  const GemmOut out{yd, static_cast<ptrdiff_t>(y.strides[0]), static_cast<ptrdiff_t>(y.strides[1]),
                    clamp};
  gemm<L>(static_cast<ptrdiff_t>(rows), static_cast<ptrdiff_t>(units),
          static_cast<ptrdiff_t>(depth), a_elem, b_src, buf, out, nullptr, b_packed);
  return KernelStatus::kDone;
}

}  // namespace

KernelStatus dense_i32__portable(const KernelCall& call) {
  const auto* p = static_cast<const DenseParams*>(call.params);
  const Scratch* scratch = p == nullptr ? nullptr : p->scratch;
  const CvmClampParams* clamp = p == nullptr ? nullptr : p->clamp;
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t rows = y.shape[0], depth = x.shape[1], units = y.shape[1];
  if (rows == 0 || depth == 0 || units == 0) {
    dense_direct(x, w, bias, y, clamp);
    return KernelStatus::kDone;
  }
  const double* packed = dense_packed(call, units, depth);
  if (packed != nullptr && fits_int8(x)) {  // w fits int8: its packer checked
    if (rows > 1 && scratch != nullptr &&
        dense_gemm<PairF64>(call, *scratch, clamp, packed) == KernelStatus::kDone) {
      return KernelStatus::kDone;
    }
    dense_direct_packed(x, packed, bias, y, clamp);
    return KernelStatus::kDone;
  }
  if (rows <= kDirectRows) {
    dense_direct(x, w, bias, y, clamp);
    return KernelStatus::kDone;
  }
  if (scratch == nullptr) return KernelStatus::kDeclined;
  return fits_int8(x) && fits_int8(w) ? dense_gemm<PairF64>(call, *scratch, clamp)
                                      : dense_gemm<Int32Lanes>(call, *scratch, clamp);
}

size_t dense_i32__portable_prepack(const TensorView& w, const void*, void* out, size_t cap) {
  using L = PairF64;
  if (w.type != ElemType::kInt32 || w.ndim != 2 || w.shape[0] < 1 || w.shape[1] < 1) return 0;
  const int64_t lanes = packed_b_lanes<L>(w.shape[0], w.shape[1]);
  if (lanes > (int64_t{1} << 28)) return 0;
  if (!fits_int8(w)) return 0;  // pair lanes hold int8 values only
  const size_t bytes = sizeof(PackHeader) + static_cast<size_t>(lanes) * sizeof(double);
  if (out == nullptr || cap < bytes) return bytes;
  auto* h = static_cast<PackHeader*>(out);
  *h = PackHeader{kDenseMagic, sizeof(double), {w.shape[0], w.shape[1], 0, 0, 0, 0, 0}};
  auto b_src = weight_columns<kNR * L::kOuts>(w);
  pack_b<L>(static_cast<ptrdiff_t>(w.shape[0]), static_cast<ptrdiff_t>(w.shape[1]), b_src,
            reinterpret_cast<double*>(h + 1));
  return bytes;
}

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
