// Portable int32 depthwise conv2d (one input channel per group, any channel multiplier):
// direct, over a zero-padded copy of each input plane in lanes (lanes.h), int8 pairs of
// neighbouring output columns when x and w fit int8, else int32.
//
// Padded cell (r, c) is x at row r - pad_h, column c - pad_w (0 outside x, as a skipped tap adds
// nothing modulo 2^32). Output column ow reads padded column ow * stride_w + kw * dilation_w, so
// the lane at column c packs cells c and c + stride_w: the taps of outputs (ow, ow + 1), ow
// even. Each output row runs blocks of kBlock lanes times each tap's weight; each output gets the
// bias, Conv2dParams::clamp and then Conv2dParams::scale of its channel as it is stored
// (staged_sum).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lanes.h"
#include "params/nn.h"
#include "portable_kernels.h"

namespace cvm {
namespace kernel {
namespace portable {
namespace {

constexpr int kBlock = 8;  // lanes of one output row per pass over the taps

template <class L>
bool depthwise(const KernelCall& call) {
  using T = typename L::T;
  constexpr int kOuts = L::kOuts;
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const auto in_h = static_cast<ptrdiff_t>(x.shape[2]), in_w = static_cast<ptrdiff_t>(x.shape[3]);
  const auto kh_n = static_cast<ptrdiff_t>(w.shape[2]), kw_n = static_cast<ptrdiff_t>(w.shape[3]);
  const auto out_c = static_cast<ptrdiff_t>(y.shape[1]), out_h = static_cast<ptrdiff_t>(y.shape[2]);
  const auto out_w = static_cast<ptrdiff_t>(y.shape[3]);
  const auto sh = static_cast<ptrdiff_t>(p.stride_h), sw = static_cast<ptrdiff_t>(p.stride_w);
  const auto dh = static_cast<ptrdiff_t>(p.dilation_h), dw = static_cast<ptrdiff_t>(p.dilation_w);
  const auto ph = static_cast<ptrdiff_t>(p.pad_h), pw = static_cast<ptrdiff_t>(p.pad_w);
  const ptrdiff_t taps = kh_n * kw_n, per_group = out_c / static_cast<ptrdiff_t>(p.groups);
  const ptrdiff_t row_lanes = (out_w + kOuts - 1) / kOuts;  // lanes of outputs per row
  const ptrdiff_t step = kOuts * sw;                    // padded columns from lane to lane
  const ptrdiff_t rows = (out_h - 1) * sh + (kh_n - 1) * dh + 1;
  const ptrdiff_t pitch = (row_lanes - 1) * step + (kw_n - 1) * dw + 1;  // lanes per padded row
  const ptrdiff_t cells = pitch + (kOuts - 1) * sw;                  // cells they read
  if (p.scratch == nullptr) return false;
  auto acquire = [&](int64_t n, size_t bytes) {
    return p.scratch->acquire(p.scratch->ctx, n * static_cast<int64_t>(bytes));
  };
  auto* plane = static_cast<T*>(acquire(int64_t{rows} * pitch, sizeof(T)));
  auto* row = static_cast<T*>(acquire(cells, sizeof(T)));
  auto* off = static_cast<ptrdiff_t*>(acquire(taps, sizeof(ptrdiff_t)));
  auto* wl = static_cast<T*>(acquire(taps, sizeof(T)));
  if (plane == nullptr || row == nullptr || off == nullptr || wl == nullptr) return false;
  for (ptrdiff_t kh = 0; kh < kh_n; ++kh) {
    for (ptrdiff_t kw = 0; kw < kw_n; ++kw) off[kh * kw_n + kw] = kh * dh * pitch + kw * dw;
  }
  const auto* xd = static_cast<const int32_t*>(x.data);
  const auto* wd = static_cast<const int32_t*>(w.data);
  auto* yd = static_cast<int32_t*>(y.data);
  const auto ys_h = static_cast<ptrdiff_t>(y.strides[2]);
  const auto ys_w = static_cast<ptrdiff_t>(y.strides[3]);
  const ptrdiff_t lo = std::min(cells, pw), hi = std::max(lo, std::min(cells, in_w + pw));
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (ptrdiff_t oc = 0; oc < out_c; ++oc) {
      if (oc % per_group == 0) {  // pack input plane oc / per_group
        const int32_t* xc = xd + n * x.strides[0] + oc / per_group * x.strides[1];
        for (ptrdiff_t r = 0; r < rows; ++r) {
          const ptrdiff_t ih = r - ph;
          std::fill(row, row + cells, T{0});
          if (ih >= 0 && ih < in_h) {
            const int32_t* xr = xc + ih * x.strides[2];
            for (ptrdiff_t c = lo; c < hi; ++c) row[c] = L::one(xr[(c - pw) * x.strides[3]]);
          }
          T* dst = plane + r * pitch;
          for (ptrdiff_t c = 0; c < pitch; ++c) {
            const T v[2] = {row[c], row[c + (kOuts - 1) * sw]};
            dst[c] = L::join(v);
          }
        }
      }
      for (ptrdiff_t kh = 0; kh < kh_n; ++kh) {
        for (ptrdiff_t kw = 0; kw < kw_n; ++kw) {
          wl[kh * kw_n + kw] =
              L::one(wd[oc * w.strides[0] + kh * w.strides[2] + kw * w.strides[3]]);
        }
      }
      const uint32_t b =
          bias == nullptr ? 0u : static_cast<const uint32_t*>(bias->data)[oc * bias->strides[0]];
      int32_t* yc = yd + n * y.strides[0] + oc * y.strides[1];
      auto store = [&](int32_t* yr, ptrdiff_t q, T s) {
        uint32_t o[kOuts];
        L::split(s, o);
        for (ptrdiff_t l = 0; l < kOuts && q * kOuts + l < out_w; ++l) {
          yr[(q * kOuts + l) * ys_w] =
              static_cast<int32_t>(staged_sum(o[l], b, p.clamp, p.scale, oc));
        }
      };
      for (ptrdiff_t oh = 0; oh < out_h; ++oh) {
        const T* r = plane + oh * sh * pitch;
        int32_t* yr = yc + oh * ys_h;
        ptrdiff_t q = 0;
        for (; q + kBlock <= row_lanes; q += kBlock) {
          T acc[kBlock] = {};
          for (ptrdiff_t t = 0; t < taps; ++t) {
            const T* s = r + off[t] + q * step;
            const T wt = wl[t];
            for (int j = 0; j < kBlock; ++j) acc[j] += s[j * step] * wt;
          }
          for (int j = 0; j < kBlock; ++j) store(yr, q + j, acc[j]);
        }
        for (; q < row_lanes; ++q) {
          T acc = 0;
          for (ptrdiff_t t = 0; t < taps; ++t) acc += r[off[t] + q * step] * wl[t];
          store(yr, q, acc);
        }
      }
    }
  }
  return true;
}

}  // namespace

bool conv2d_depthwise(const KernelCall& call) {
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const bool pairs =
      w.shape[2] * w.shape[3] <= PairF64::kMaxDepth && fits_int8(x) && fits_int8(w);
  return pairs ? depthwise<PairF64>(call) : depthwise<Int32Lanes>(call);
}

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
