// Portable int32 conv2d: a GEMM per image and group over an implicit im2col (gemm.h), in int8
// pair lanes when x and w fit int8, else int32 lanes; one input channel per group goes to the
// direct depthwise kernel (depthwise.cc).
//
// Per group: A = the group's weights (out channels x K), K = (channel, kh, kw) taps; B = its
// im2col (K x output pixels), packed panel by panel straight from x, padding taps as 0 (a
// product 0 * w adds nothing modulo 2^32, as a skipped tap does in the reference). y starts as
// the bias and the GEMM adds the sums to it, applying Conv2dParams::clamp, then
// Conv2dParams::scale of the row's output channel, as it stores the last part of each sum.
//
// The packer (conv2d_i32__portable_prepack) packs an int8 w once, as every group's whole A in
// pair-lane operands (doubles); a call given that pack and an int8 x reads it in place instead
// of checking w's range and gathering A per image and group. Depthwise layers are not packed.
#include <cstddef>
#include <cstdint>
#include <limits>

#include "gemm.h"
#include "params/nn.h"
#include "portable_kernels.h"

namespace cvm {
namespace kernel {
namespace portable {
namespace {

constexpr uint32_t kConvMagic = 0x43384650u;  // "PF8C": conv2d A, int8 values in doubles

// One tap k = (c, kh, kw) of a group's K: its offsets in x (from the group's first channel of
// the image) and in w (from an output channel's row), and its row and column shifts.
struct Tap {
  ptrdiff_t x, w, dh, dw;
};

// B of one image and group: element (k, pixel) is x at tap k of the pixel's window, or 0.
template <int kNB>
struct Im2col {
  const int32_t* x;  // the image's first channel of the group
  const Tap* taps;
  ptrdiff_t in_h, in_w, xs_h, xs_w, out_w, n;
  ptrdiff_t stride_h, stride_w, pad_h, pad_w;
  ptrdiff_t h0[kNB], w0[kNB];  // the panel's window origins (far outside for columns past n)

  void panel(ptrdiff_t n0) {
    ptrdiff_t oh = n0 / out_w, ow = n0 % out_w;
    for (int l = 0; l < kNB; ++l) {
      const bool in = n0 + l < n;
      h0[l] = in ? oh * stride_h - pad_h : std::numeric_limits<ptrdiff_t>::min() / 2;
      w0[l] = ow * stride_w - pad_w;
      if (++ow == out_w) ow = 0, ++oh;
    }
  }
  void values(ptrdiff_t k, int32_t* v) const {
    const Tap& t = taps[k];
    const int32_t* xc = x + t.x;
    for (int l = 0; l < kNB; ++l) {
      const ptrdiff_t ih = h0[l] + t.dh, iw = w0[l] + t.dw;
      v[l] = static_cast<size_t>(ih) < static_cast<size_t>(in_h) &&
                     static_cast<size_t>(iw) < static_cast<size_t>(in_w)
                 ? xc[ih * xs_h + iw * xs_w]
                 : 0;
    }
  }
};

// The lanes of the call's pack when conv2d_i32__portable_prepack made it for a w of this shape
// and groups, else null.
const double* conv_packed(const KernelCall& call, const TensorView& w, int64_t groups) {
  const auto* h = static_cast<const PackHeader*>(call.prepacked);
  if (h == nullptr || h->magic != kConvMagic || h->lane_bytes != sizeof(double) ||
      h->d[0] != w.shape[0] || h->d[1] != w.shape[1] || h->d[2] != w.shape[2] ||
      h->d[3] != w.shape[3] || h->d[4] != groups) {
    return nullptr;
  }
  return reinterpret_cast<const double*>(h + 1);
}

// a_packed: every group's A packed whole (pack_a(), lanes L, group after group), or null to
// pack each group's A per image.
template <class L>
KernelStatus conv_gemm(const KernelCall& call, const typename L::T* a_packed = nullptr) {
  using T = typename L::T;
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t group_c = w.shape[1], kernel_h = w.shape[2], kernel_w = w.shape[3];
  const int64_t out_c = y.shape[1], out_h = y.shape[2], out_w = y.shape[3];
  const int64_t per_group = out_c / p.groups, depth = group_c * kernel_h * kernel_w;
  if (p.scratch == nullptr) return KernelStatus::kDeclined;
  auto* taps = static_cast<Tap*>(
      p.scratch->acquire(p.scratch->ctx, depth * static_cast<int64_t>(sizeof(Tap))));
  auto* buf = static_cast<T*>(p.scratch->acquire(
      p.scratch->ctx, gemm_scratch_lanes<L>(per_group, depth, a_packed != nullptr, false) *
                          static_cast<int64_t>(sizeof(T))));
  if (taps == nullptr || buf == nullptr) return KernelStatus::kDeclined;
  Tap* t = taps;
  for (int64_t c = 0; c < group_c; ++c) {
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        *t++ = {static_cast<ptrdiff_t>(c * x.strides[1]),
                static_cast<ptrdiff_t>(c * w.strides[1] + kh * w.strides[2] + kw * w.strides[3]),
                static_cast<ptrdiff_t>(kh * p.dilation_h),
                static_cast<ptrdiff_t>(kw * p.dilation_w)};
      }
    }
  }
  // y = bias (or 0), then each GEMM adds its sums and applies the output stage (clamp, scale);
  // without taps there are no sums, and y = the output stage of the bias at once.
  auto* yd = static_cast<uint32_t*>(y.data);
  const int64_t pixels = out_h * out_w;
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      const uint32_t b0 =
          bias == nullptr ? 0u : static_cast<const uint32_t*>(bias->data)[oc * bias->strides[0]];
      const uint32_t b = depth == 0 ? staged_sum(b0, 0u, p.clamp, p.scale, oc) : b0;
      uint32_t* yr = yd + n * y.strides[0] + oc * y.strides[1];
      for (int64_t i = 0; i < pixels; ++i) yr[i * y.strides[3]] = b;
    }
  }
  const auto* xd = static_cast<const int32_t*>(x.data);
  const auto* wd = static_cast<const int32_t*>(w.data);
  Im2col<kNR * L::kOuts> b_src{};
  b_src.taps = taps;
  b_src.in_h = static_cast<ptrdiff_t>(x.shape[2]);
  b_src.in_w = static_cast<ptrdiff_t>(x.shape[3]);
  b_src.xs_h = static_cast<ptrdiff_t>(x.strides[2]);
  b_src.xs_w = static_cast<ptrdiff_t>(x.strides[3]);
  b_src.out_w = static_cast<ptrdiff_t>(out_w);
  b_src.n = static_cast<ptrdiff_t>(pixels);
  b_src.stride_h = static_cast<ptrdiff_t>(p.stride_h);
  b_src.stride_w = static_cast<ptrdiff_t>(p.stride_w);
  b_src.pad_h = static_cast<ptrdiff_t>(p.pad_h);
  b_src.pad_w = static_cast<ptrdiff_t>(p.pad_w);
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      b_src.x = xd + n * x.strides[0] + g * group_c * x.strides[1];
      const int32_t* wg = wd + g * per_group * w.strides[0];
      const auto ws = static_cast<ptrdiff_t>(w.strides[0]);
      auto a_elem = [&](ptrdiff_t i, ptrdiff_t k) { return wg[i * ws + taps[k].w]; };
      const GemmOut out{yd + n * y.strides[0] + g * per_group * y.strides[1],
                        static_cast<ptrdiff_t>(y.strides[1]), static_cast<ptrdiff_t>(y.strides[3]),
                        p.clamp, p.scale, static_cast<ptrdiff_t>(g * per_group)};
      const T* a_group =
          a_packed == nullptr ? nullptr : a_packed + g * packed_a_lanes<L>(per_group, depth);
      gemm<L>(static_cast<ptrdiff_t>(per_group), static_cast<ptrdiff_t>(pixels),
              static_cast<ptrdiff_t>(depth), a_elem, b_src, buf, out, a_group);
    }
  }
  return KernelStatus::kDone;
}

}  // namespace

KernelStatus conv2d_i32__portable(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  if (y.numel() == 0) return KernelStatus::kDone;
  if (w.shape[1] == 1 && p.groups > 1) {
    return conv2d_depthwise(call) ? KernelStatus::kDone : KernelStatus::kDeclined;
  }
  // Pixel (oh, ow) of an output plane at (oh * out_w + ow) * strides[3].
  if (y.shape[2] > 1 && y.strides[2] != y.shape[3] * y.strides[3]) return KernelStatus::kDeclined;
  const bool x8 = fits_int8(x);
  const double* packed = conv_packed(call, w, p.groups);
  if (packed != nullptr && x8) return conv_gemm<PairF64>(call, packed);  // w: int8, packer-checked
  return x8 && fits_int8(w) ? conv_gemm<PairF64>(call) : conv_gemm<Int32Lanes>(call);
}

size_t conv2d_i32__portable_prepack(const TensorView& w, const void* params, void* out,
                                    size_t cap) {
  using L = PairF64;
  const auto& p = *static_cast<const Conv2dParams*>(params);
  if (w.type != ElemType::kInt32 || w.ndim != 4 || p.groups < 1 || w.shape[0] < 1 ||
      w.shape[0] % p.groups != 0 || w.shape[1] < 1 || w.shape[2] < 1 || w.shape[3] < 1) {
    return 0;
  }
  if (w.shape[1] == 1 && p.groups > 1) return 0;  // depthwise: the direct kernel, no GEMM
  const int64_t per_group = w.shape[0] / p.groups, taps = w.shape[2] * w.shape[3];
  const int64_t depth = w.shape[1] * taps;
  const int64_t group_lanes = packed_a_lanes<L>(per_group, depth);
  if (group_lanes > (int64_t{1} << 28) / p.groups) return 0;
  if (!fits_int8(w)) return 0;  // the kernel takes a packed w as int8 pair-lane operands
  const size_t bytes =
      sizeof(PackHeader) + static_cast<size_t>(group_lanes * p.groups) * sizeof(double);
  if (out == nullptr || cap < bytes) return bytes;
  auto* h = static_cast<PackHeader*>(out);
  *h = PackHeader{kConvMagic, sizeof(double),
                  {w.shape[0], w.shape[1], w.shape[2], w.shape[3], p.groups, depth, 0}};
  auto* dst = reinterpret_cast<double*>(h + 1);
  const auto* wd = static_cast<const int32_t*>(w.data);
  for (int64_t g = 0; g < p.groups; ++g) {
    // Element (i, k) of the group's A: w[g * per_group + i, c, kh, kw] for k = (c, kh, kw).
    auto a_elem = [&](ptrdiff_t i, ptrdiff_t k) {
      const int64_t c = k / taps, kh = k % taps / w.shape[3], kw = k % w.shape[3];
      return wd[(g * per_group + i) * w.strides[0] + c * w.strides[1] + kh * w.strides[2] +
                kw * w.strides[3]];
    };
    pack_a<L>(static_cast<ptrdiff_t>(per_group), static_cast<ptrdiff_t>(depth), a_elem,
              dst + g * group_lanes);
  }
  return bytes;
}

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
