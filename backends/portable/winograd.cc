// Portable integer Winograd F(2x2, 3x3) for 3x3 stride-1 conv2d on int8 operands: 16 GEMMs
// (gemm.h) of the transformed weights U and inputs V instead of one of 9 taps, 2.25x fewer
// multiplies, with the reference's bits (the transforms and the exactness argument:
// backends/winograd_f23.h).
//
// Per image: V[t][c][tile] (t: the 16 positions of a 4x4 transformed tile, c: input channels,
// tiles: the 2x2 output blocks flattened over (tile row, tile column)), then for each t the GEMM
// M[t] (out_c x tiles) = U[t] (out_c x C) V[t] (C x tiles), then y = A^T M A / 4 + bias through
// the output stage (Conv2dParams::clamp, then scale) per output.
//
// Lanes: WinogradPairF64, the int8 pair lanes of lanes.h with a shorter exact depth. With x and
// w in [-128, 127], |V| <= 4 * 128 = 512 and |U| <= 9 * 128 = 1152, so each product is at most
// 589824 (< 2^19.2) and S0 (lanes.h) stays in [-2^25, 2^25) for 56 terms; the whole sum then
// stays below 56 * 1152 * (512 + 512 * 2^26) < 2^51. The GEMM cuts C into blocks of at most 56
// and adds each block's split sums to M modulo 2^32, which is all M needs: A^T M A is a ring
// operation, and |y| <= 9 * C * 128 * 128 < 2^29 (C < 3640, checked) makes 4y exact in int32.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gemm.h"
#include "params/nn.h"
#include "portable_kernels.h"
#include "winograd_f23.h"

namespace cvm {
namespace kernel {
namespace portable {
namespace {

namespace wf = winograd_f23;

struct WinogradPairF64 : PairF64 {
  static constexpr int64_t kMaxDepth = 56;  // see the top of the file
};
using L = WinogradPairF64;

constexpr uint32_t kWinogradMagic = 0x57384650u;  // "PF8W": U of every position, int8 w
constexpr int64_t kMaxInC = 3639;                 // 9 * C * 128 * 128 < 2^29

// U of every position packed as the GEMMs' A operands, position t's pack_a() at t * a_lanes
// (packed_a_lanes()): each filter transformed once, its 16 values written to their lanes.
void pack_filters(const TensorView& w, double* dst) {
  const auto out_c = static_cast<ptrdiff_t>(w.shape[0]), in_c = static_cast<ptrdiff_t>(w.shape[1]);
  const int64_t a_lanes = packed_a_lanes<L>(out_c, in_c);
  std::fill(dst, dst + 16 * a_lanes, 0.0);  // the rows past out_c of the last panel
  const auto* wd = static_cast<const int32_t*>(w.data);
  int32_t u[16];
  for (ptrdiff_t oc = 0; oc < out_c; ++oc) {
    for (ptrdiff_t c = 0; c < in_c; ++c) {
      wf::filter_transform(wd + oc * w.strides[0] + c * w.strides[1],
                           static_cast<ptrdiff_t>(w.strides[2]),
                           static_cast<ptrdiff_t>(w.strides[3]), u);
      const int64_t lane = packed_a_lane<L>(out_c, in_c, oc, c);
      for (int t = 0; t < 16; ++t) dst[t * a_lanes + lane] = L::one(u[t]);
    }
  }
}

// The step from one position's V[t] (rows rows of g.tiles) or M[t] to the next: one cache line
// more than the rows, so the 16 positions of a tile fall in 16 cache sets (with a pitch of a
// multiple of 4 KiB, 64x56x56's V, they all fell in one and thrashed it).
ptrdiff_t pitch(ptrdiff_t rows, const wf::Tiles& g) { return rows * g.tiles + 16; }

// B of position t's GEMM: element (c, tile) = V[t][c][tile], 0 past the last tile.
struct TileColumns {
  static constexpr int kNB = kNR * L::kOuts;
  const int32_t* v;  // V[t]: [in_c][tiles]
  ptrdiff_t tiles, n0 = 0;
  void panel(ptrdiff_t first) { n0 = first; }
  void values(ptrdiff_t c, int32_t* out) const {
    const int32_t* row = v + c * tiles + n0;
    const ptrdiff_t n = std::min<ptrdiff_t>(kNB, tiles - n0);
    for (ptrdiff_t l = 0; l < kNB; ++l) out[l] = l < n ? row[l] : 0;
  }
};

// V[t][c][tile] of image n (position t at v + t * pitch(in_c, g)), each channel first copied
// into `plane` zero-padded by the call's padding (g.xh x g.xw cells), so the tiles read it
// unchecked.
void transform_inputs(const TensorView& x, int64_t n, const Conv2dParams& p, const wf::Tiles& g,
                      int32_t* plane, int32_t* v) {
  const auto in_c = static_cast<ptrdiff_t>(x.shape[1]);
  const auto in_h = static_cast<ptrdiff_t>(x.shape[2]), in_w = static_cast<ptrdiff_t>(x.shape[3]);
  const auto sh = static_cast<ptrdiff_t>(x.strides[2]), sw = static_cast<ptrdiff_t>(x.strides[3]);
  const auto ph = static_cast<ptrdiff_t>(p.pad_h), pw = static_cast<ptrdiff_t>(p.pad_w);
  auto add = [](int32_t a, int32_t b) { return a + b; };  // |V| <= 512: no overflow
  auto sub = [](int32_t a, int32_t b) { return a - b; };
  for (ptrdiff_t c = 0; c < in_c; ++c) {
    const int32_t* xc = static_cast<const int32_t*>(x.data) + n * x.strides[0] + c * x.strides[1];
    for (ptrdiff_t r = 0; r < g.xh; ++r) {
      const ptrdiff_t ih = r - ph;
      int32_t* row = plane + r * g.xw;
      for (ptrdiff_t k = 0; k < g.xw; ++k) {
        const ptrdiff_t iw = k - pw;
        row[k] = ih >= 0 && ih < in_h && iw >= 0 && iw < in_w ? xc[ih * sh + iw * sw] : 0;
      }
    }
    int32_t* vc = v + c * g.tiles;
    const ptrdiff_t tv = pitch(in_c, g);
    for (ptrdiff_t tile = 0; tile < g.tiles; ++tile) {
      const int32_t* base = plane + 2 * (tile / g.tw) * g.xw + 2 * (tile % g.tw);
      int32_t d[4][4];
      for (int r = 0; r < 4; ++r) {
        for (int k = 0; k < 4; ++k) d[r][k] = base[r * g.xw + k];
      }
      int32_t vt[16];
      wf::input_transform(d, vt, add, sub);
      for (int t = 0; t < 16; ++t) vc[t * tv + tile] = vt[t];
    }
  }
}

// y of image n from M[t][oc][tile] (position t at m + t * pitch(out_c, g)): A^T M A / 4 + bias
// through the output stage.
void output_tiles(const KernelCall& call, int64_t n, const wf::Tiles& g, const uint32_t* m) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& y = call.outputs[0];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const auto out_c = static_cast<ptrdiff_t>(y.shape[1]);
  auto add = [](uint32_t a, uint32_t b) { return a + b; };  // modulo 2^32
  auto sub = [](uint32_t a, uint32_t b) { return a - b; };
  for (ptrdiff_t oc = 0; oc < out_c; ++oc) {
    const uint32_t b =
        bias == nullptr ? 0u : static_cast<const uint32_t*>(bias->data)[oc * bias->strides[0]];
    auto* yc = static_cast<uint32_t*>(y.data) + n * y.strides[0] + oc * y.strides[1];
    for (ptrdiff_t tile = 0; tile < g.tiles; ++tile) {
      uint32_t mt[16], y4[4];
      for (int t = 0; t < 16; ++t) mt[t] = m[t * pitch(out_c, g) + oc * g.tiles + tile];
      wf::output_transform(mt, y4, add, sub);
      const ptrdiff_t oh = 2 * (tile / g.tw), ow = 2 * (tile % g.tw);
      uint32_t out[4];
      for (int q = 0; q < 4; ++q) {
        const auto sum = static_cast<uint32_t>(static_cast<int32_t>(y4[q]) >> 2);
        out[q] = staged_sum(b, sum, p.clamp, p.scale, oc);
      }
      uint32_t* y0 = yc + oh * y.strides[2] + ow * y.strides[3];
      const bool right = ow + 1 < g.out_w, below = oh + 1 < g.out_h;
      y0[0] = out[0];
      if (right) y0[y.strides[3]] = out[1];
      if (below) y0[y.strides[2]] = out[2];
      if (right && below) y0[y.strides[2] + y.strides[3]] = out[3];
    }
  }
}

// The lanes of a pack this file's prepack made for w's shape, else null.
const double* winograd_packed(const KernelCall& call, const TensorView& w) {
  const auto* h = static_cast<const PackHeader*>(call.prepacked);
  if (h == nullptr || h->magic != kWinogradMagic || h->lane_bytes != sizeof(double) ||
      h->d[0] != w.shape[0] || h->d[1] != w.shape[1]) {
    return nullptr;
  }
  return reinterpret_cast<const double*>(h + 1);
}

// The call when it suits (see conv2d_i32__portable_winograd); false, having written nothing,
// otherwise.
bool winograd(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView &x = call.inputs[0], &w = call.inputs[1], &y = call.outputs[0];
  if (!wf::eligible(w, p) || w.shape[1] > kMaxInC || p.scratch == nullptr) return false;
  const wf::Tiles g = wf::tiles_of(y);
  // V, M and the packed filters index in ptrdiff_t: keep them far inside wasm32's range.
  constexpr int64_t kMaxLanes = int64_t{1} << 28;
  if (int64_t{16} * (std::max(w.shape[0], w.shape[1]) * int64_t{g.tiles} + 16) > kMaxLanes ||
      int64_t{16} * packed_a_lanes<L>(w.shape[0], w.shape[1]) > kMaxLanes) {
    return false;
  }
  const double* packed = winograd_packed(call, w);
  if (packed == nullptr && g.tiles * y.shape[0] < wf::kMinTilesUnpacked) return false;
  if (!fits_int8(x) || (packed == nullptr && !fits_int8(w))) return false;
  const auto out_c = static_cast<ptrdiff_t>(w.shape[0]), in_c = static_cast<ptrdiff_t>(w.shape[1]);
  const int64_t a_lanes = packed_a_lanes<L>(out_c, in_c);
  // Four blocks at most (the op layer's limit): V and the padded plane share one.
  auto acquire = [&](int64_t bytes) { return p.scratch->acquire(p.scratch->ctx, bytes); };
  const int64_t v_lanes = 16 * pitch(in_c, g);
  auto* v = static_cast<int32_t*>(acquire((v_lanes + int64_t{g.xh} * g.xw) * 4));
  auto* m = static_cast<uint32_t*>(acquire(int64_t{16} * pitch(out_c, g) * 4));
  auto* buf = static_cast<double*>(
      acquire(gemm_scratch_lanes<L>(out_c, in_c, true, false) * int64_t{sizeof(double)}));
  double* own = packed != nullptr ? nullptr
                                  : static_cast<double*>(acquire(16 * a_lanes * 8));
  if (v == nullptr || m == nullptr || buf == nullptr || (packed == nullptr && own == nullptr)) {
    return false;
  }
  int32_t* plane = v + v_lanes;
  if (packed == nullptr) {
    pack_filters(w, own);
    packed = own;
  }
  auto no_a = [](ptrdiff_t, ptrdiff_t) { return int32_t{0}; };  // A comes packed
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    transform_inputs(x, n, p, g, plane, v);
    std::memset(m, 0, static_cast<size_t>(16 * pitch(out_c, g)) * 4);
    for (int t = 0; t < 16; ++t) {
      TileColumns cols{v + t * pitch(in_c, g), g.tiles};
      const GemmOut out{m + t * pitch(out_c, g), g.tiles, 1};
      gemm<L>(out_c, g.tiles, in_c, no_a, cols, buf, out, packed + t * a_lanes);
    }
    output_tiles(call, n, g, m);
  }
  return true;
}

}  // namespace

KernelStatus conv2d_i32__portable_winograd(const KernelCall& call) {
  return winograd(call) ? KernelStatus::kDone : KernelStatus::kDeclined;
}

size_t conv2d_i32__portable_winograd_prepack(const TensorView& w, const void* params, void* out,
                                             size_t cap) {
  const auto& p = *static_cast<const Conv2dParams*>(params);
  if (w.type != ElemType::kInt32 || !wf::eligible(w, p) || w.shape[1] > kMaxInC ||
      !fits_int8(w)) {
    return 0;
  }
  const auto out_c = static_cast<ptrdiff_t>(w.shape[0]), in_c = static_cast<ptrdiff_t>(w.shape[1]);
  const int64_t lanes = 16 * packed_a_lanes<L>(out_c, in_c);
  if (lanes > (int64_t{1} << 28)) return 0;
  const size_t bytes = sizeof(PackHeader) + static_cast<size_t>(lanes) * sizeof(double);
  if (out == nullptr || cap < bytes) return bytes;
  auto* h = static_cast<PackHeader*>(out);
  *h = PackHeader{kWinogradMagic, sizeof(double), {out_c, in_c, 3, 3, 1, 0, 0}};
  pack_filters(w, reinterpret_cast<double*>(h + 1));
  return bytes;
}

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
