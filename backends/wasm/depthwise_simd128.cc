// SIMD128 depthwise conv2d (one input and one output channel per group): each channel plane is
// packed into a zero-padded, stride-phased copy in lent scratch, then rows of outputs are
// vectors of 4 columns times splatted weights, with no border cases; each vector gets the bias
// and the channel's output stage (Conv2dParams::clamp, then Conv2dParams::scale: OutputStage,
// simd128.h) in registers before it is stored. x and y may be int8 views (int8 activations:
// the packing widens, the stores narrow; Act in simd128.h).
//
// Layout. Padded column c of a padded row (input column c - pad_w, 0 outside the input) is
// stored at phase c % stride_w, index c / stride_w; the phases of a row lie one after another.
// Tap kw of output column ow reads padded column ow * stride_w + kw * dilation_w, so the four
// lanes of outputs ow .. ow + 3 are four consecutive elements of one phase: a plain v128.load
// for every stride. Padded rows (pad_h zero rows above the input, zeros below) make every
// output row's taps plain rows too; those zeros are written once per call.
//
// Exactness (see nn_simd128.cc): a plane whose values (those outputs read) and weights all fit
// int16 is packed as int16 pairs (column c, column c + dilation_w) and takes i32x4.dot_i16x8_s,
// two taps per instruction, exact modulo 2^32 (the one wrapping case, 2 * (-32768)^2,
// included); any other plane is packed again as int32 and takes i32x4.mul, one tap per
// instruction, exact for every int32. The range check rides on the packing's copy, and the
// choice is made per channel.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "params/nn.h"
#include "simd128.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

constexpr int64_t kMaxKernelW = 64;  // wider kernels take the general conv2d path
constexpr int64_t kMaxTaps = 1024;   // so do kernels with more taps
constexpr int64_t kMaxScratchElems = int64_t{1} << 26;  // 256 MiB

// Pairs: lanes hold int16 pairs (column c, column c + dilation_w), weights (w[kw], w[kw + 1]).
struct Pairs {
  static constexpr int kTaps = 2;
  static v128_t mac(v128_t acc, v128_t x, v128_t w) {
    return wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(x, w));
  }
};
// Words: lanes hold int32 columns, one weight per tap.
struct Words {
  static constexpr int kTaps = 1;
  static v128_t mac(v128_t acc, v128_t x, v128_t w) {
    return wasm_i32x4_add(acc, wasm_i32x4_mul(x, w));
  }
};

// The packed plane in scratch and the geometry shared by all channels. Indices are ptrdiff_t,
// wasm32's native width.
struct Packed {
  ptrdiff_t stride, dilation, pad, in_w, in_h, pad_h;
  ptrdiff_t phase;             // elements per phase: ceil(columns read / stride), a multiple of 4
  ptrdiff_t pitch;             // elements per padded row: stride * phase
  ptrdiff_t rows;              // padded rows
  ptrdiff_t data_rows;         // input rows any output reads
  int32_t* buf;                // rows x pitch
  int32_t* row;                // one padded input row: 0, the input row at pad, 0 (words)
  ptrdiff_t off[kMaxKernelW];  // element offset of tap kw within a padded row
};

inline int32_t pair(int32_t lo, int32_t hi) {
  return static_cast<int32_t>((static_cast<uint32_t>(lo) & 0xFFFFu) |
                              (static_cast<uint32_t>(hi) << 16));
}

// Element Op of the padded row t at column c.
template <class Op>
inline int32_t element(const Packed& pk, const int32_t* t, ptrdiff_t c) {
  if constexpr (Op::kTaps == 2) {
    return pair(t[c], t[c + pk.dilation]);
  } else {
    return t[c];
  }
}

// Elements Op of the padded row t at columns c .. c + 3.
template <class Op>
inline v128_t elements4(const Packed& pk, const int32_t* t, ptrdiff_t c) {
  if constexpr (Op::kTaps == 2) {
    return interleave_low16(load4(t + c), load4(t + c + pk.dilation));
  } else {
    return load4(t + c);
  }
}

// The padded row pk.row as padded row dst in format Op, stored whole (so a row never keeps
// another format's elements). Unit stride stores vectors, stride 2 splits pairs of vectors
// into the two phases, other strides go element by element.
template <class Op>
void pack_row(const Packed& pk, int32_t* dst) {
  const int32_t* t = pk.row;
  if (pk.stride == 1) {
    for (ptrdiff_t c = 0; c < pk.pitch; c += 4) store4(dst + c, elements4<Op>(pk, t, c));
  } else if (pk.stride == 2) {
    for (ptrdiff_t i = 0; i < pk.phase; i += 4) {
      const v128_t a = elements4<Op>(pk, t, 2 * i), b = elements4<Op>(pk, t, 2 * i + 4);
      store4(dst + i, wasm_i32x4_shuffle(a, b, 0, 2, 4, 6));
      store4(dst + pk.phase + i, wasm_i32x4_shuffle(a, b, 1, 3, 5, 7));
    }
  } else {
    for (ptrdiff_t ph = 0; ph < pk.stride; ++ph) {
      for (ptrdiff_t i = 0; i < pk.phase; ++i) {
        dst[ph * pk.phase + i] = element<Op>(pk, t, i * pk.stride + ph);
      }
    }
  }
}

// Copies input row xr (of T: int32_t, or int8_t for int8 activations) between the zeros of
// pk.row; lo, hi: running lane minimum and maximum of the values copied.
template <class T>
inline void copy_row(const Packed& pk, const T* xr, v128_t& lo, v128_t& hi) {
  int32_t* t = pk.row + pk.pad;
  ptrdiff_t i = 0;
  for (; i + 4 <= pk.in_w; i += 4) {
    const v128_t v = load4(xr + i);
    store4(t + i, v);
    lo = wasm_i32x4_min(lo, v);
    hi = wasm_i32x4_max(hi, v);
  }
  for (; i < pk.in_w; ++i) {
    t[i] = xr[i];
    lo = wasm_i32x4_min(lo, wasm_i32x4_splat(xr[i]));
    hi = wasm_i32x4_max(hi, wasm_i32x4_splat(xr[i]));
  }
}

// Packs the rows of channel plane xc (of T, row pitch xs) that outputs read in format Op;
// returns whether all their values are in int16 range (which Pairs needs: else pack again as
// Words).
template <class Op, class T>
bool pack_plane(const Packed& pk, const T* xc, ptrdiff_t xs) {
  v128_t lo = wasm_i32x4_splat(0), hi = wasm_i32x4_splat(0);
  for (ptrdiff_t ih = 0; ih < pk.data_rows; ++ih) {
    copy_row(pk, xc + ih * xs, lo, hi);
    pack_row<Op>(pk, pk.buf + (ih + pk.pad_h) * pk.pitch);
  }
  return hmin(lo) >= -32768 && hmax(hi) <= 32767;
}

// One output row, columns [0, out_w), from the n = kernel rows x vector taps per row inputs
// x[i] + ow and weights w(i) (splatted), plus the bias, through the channel's output stage.
// Blocks of 8 columns, then 4 (the last one partial: padded rows are long enough to read whole
// vectors).
template <class Op, class X, class W>
inline void dw_row(ptrdiff_t n, const X& x, const W& w, v128_t bias,
                   const OutputStage::Channel& stage, Act yr, ptrdiff_t out_w) {
  ptrdiff_t ow = 0;
  for (; ow + 8 <= out_w; ow += 8) {
    v128_t a0 = bias, a1 = bias;
    for (ptrdiff_t i = 0; i < n; ++i) {
      const v128_t wv = w(i);
      a0 = Op::mac(a0, load4(x[i] + ow), wv);
      a1 = Op::mac(a1, load4(x[i] + ow + 4), wv);
    }
    yr.store4(ow, stage.vec(a0));
    yr.store4(ow + 4, stage.vec(a1));
  }
  for (; ow < out_w; ow += 4) {
    v128_t a = bias;
    for (ptrdiff_t i = 0; i < n; ++i) a = Op::mac(a, load4(x[i] + ow), w(i));
    yr.store_n(ow, stage.vec(a), out_w - ow);
  }
}

// All output rows of channel plane ch into y rows yc + oh * ys: kh_n kernel rows of k vector
// taps, weights wk[kh * k + t]. KH, K: fixed at compile time (splatted weights and row
// pointers live in locals), or 0 (any: weights splatted from wk on use).
template <class Op, int KH, int K>
void dw_plane(const Packed& pk, const Conv2dParams& p, int64_t ch, ptrdiff_t kh_n, ptrdiff_t k,
              const int32_t* wk, int32_t bias, Act yc, ptrdiff_t ys, ptrdiff_t out_h,
              ptrdiff_t out_w) {
  constexpr int kN = KH * K > 0 ? KH * K : 1;
  const ptrdiff_t n = KH > 0 ? KH * K : kh_n * k, taps = K > 0 ? K : k;
  const v128_t b = wasm_i32x4_splat(bias);
  // A local: no store to y can alias it.
  const OutputStage::Channel stage = OutputStage(p.clamp, p.scale).channel(ch);
  v128_t wv[kN];
  if constexpr (KH > 0) {
    for (int i = 0; i < kN; ++i) wv[i] = wasm_i32x4_splat(wk[i]);
  }
  const int32_t* xp_any[KH > 0 ? 1 : kMaxTaps];
  const int32_t* xp_fixed[kN];
  const int32_t** xp = KH > 0 ? xp_fixed : xp_any;
  const ptrdiff_t row_step = static_cast<ptrdiff_t>(p.dilation_h) * pk.pitch;
  for (ptrdiff_t oh = 0; oh < out_h; ++oh) {
    const int32_t* r = pk.buf + oh * static_cast<ptrdiff_t>(p.stride_h) * pk.pitch;
    for (ptrdiff_t i = 0; i < n; ++i) {
      xp[i] = r + i / taps * row_step + pk.off[i % taps * Op::kTaps];
    }
    if constexpr (KH > 0) {
      dw_row<Op>(
          n, xp_fixed, [&](ptrdiff_t i) { return wv[i]; }, b, stage, yc.at(oh * ys), out_w);
    } else {
      dw_row<Op>(
          n, xp, [&](ptrdiff_t i) { return wasm_v128_load32_splat(wk + i); }, b, stage,
          yc.at(oh * ys), out_w);
    }
  }
}

// Packs the weights of channel ch, whose plane is packed in format Op, then runs its rows.
template <class Op>
void dw_channel(const Packed& pk, const Conv2dParams& p, int64_t ch, const int32_t* wc,
                ptrdiff_t ws_h, ptrdiff_t ws_w, ptrdiff_t kh_n, ptrdiff_t kw_n, int32_t bias,
                Act yc, ptrdiff_t ys, ptrdiff_t out_h, ptrdiff_t out_w) {
  const ptrdiff_t k = (kw_n + Op::kTaps - 1) / Op::kTaps;
  int32_t wk[kMaxTaps];
  for (ptrdiff_t kh = 0; kh < kh_n; ++kh) {
    for (ptrdiff_t t = 0; t < k; ++t) {
      const ptrdiff_t kw = t * Op::kTaps;
      const int32_t w0 = wc[kh * ws_h + kw * ws_w];
      if constexpr (Op::kTaps == 2) {
        wk[kh * k + t] = pair(w0, kw + 1 < kw_n ? wc[kh * ws_h + (kw + 1) * ws_w] : 0);
      } else {
        wk[kh * k + t] = w0;
      }
    }
  }
  if (kh_n == 3 && k == 2) {
    dw_plane<Op, 3, 2>(pk, p, ch, kh_n, k, wk, bias, yc, ys, out_h, out_w);
  } else if (kh_n == 3 && k == 3) {
    dw_plane<Op, 3, 3>(pk, p, ch, kh_n, k, wk, bias, yc, ys, out_h, out_w);
  } else {
    dw_plane<Op, 0, 0>(pk, p, ch, kh_n, k, wk, bias, yc, ys, out_h, out_w);
  }
}

}  // namespace

bool conv2d_depthwise_simd128(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const int64_t channels = y.shape[1], kh_n = w.shape[2], kw_n = w.shape[3];
  if (w.shape[1] != 1 || x.shape[1] != p.groups || channels != p.groups || p.scratch == nullptr ||
      kw_n > kMaxKernelW || kh_n * kw_n > kMaxTaps) {
    return false;
  }
  const int64_t out_h = y.shape[2], out_w = y.shape[3];
  Packed pk{};
  pk.stride = static_cast<ptrdiff_t>(p.stride_w);
  pk.dilation = static_cast<ptrdiff_t>(p.dilation_w);
  pk.pad = static_cast<ptrdiff_t>(p.pad_w);
  pk.in_w = static_cast<ptrdiff_t>(x.shape[3]);
  pk.in_h = static_cast<ptrdiff_t>(x.shape[2]);
  pk.pad_h = static_cast<ptrdiff_t>(p.pad_h);
  // Columns read: outputs rounded up to whole vectors, then whole vectors of
  // each phase.
  const int64_t cols = ((out_w + 3) / 4 * 4 - 1) * p.stride_w + (kw_n - 1) * p.dilation_w + 1;
  const int64_t phase = ((cols + p.stride_w - 1) / p.stride_w + 3) / 4 * 4;
  const int64_t pitch = p.stride_w * phase;
  const int64_t read_rows = (out_h - 1) * p.stride_h + (kh_n - 1) * p.dilation_h + 1;
  const int64_t rows = std::max(x.shape[2] + 2 * p.pad_h, read_rows);
  // The padded input row: zeros, the row at pad_w, zeros past every column a
  // pair reads.
  const int64_t row_len = std::max(pitch + p.dilation_w, p.pad_w + x.shape[3]) + 8;
  if (pitch > kMaxScratchElems || rows > kMaxScratchElems / pitch || row_len > kMaxScratchElems) {
    return false;
  }
  const int64_t elems = rows * pitch + row_len;
  // Planes of (image, channel) pairs split over threads, each task with a buffer of its own.
  const int64_t planes = y.shape[0] * channels;
  const int64_t tasks = task_count(call, planes, out_h * out_w * kh_n * kw_n);
  auto* buf = static_cast<int32_t*>(p.scratch->acquire(p.scratch->ctx, tasks * elems * 4));
  if (buf == nullptr) return false;
  std::memset(buf, 0, static_cast<size_t>(tasks * elems) * sizeof(int32_t));
  pk.phase = static_cast<ptrdiff_t>(phase);
  pk.pitch = static_cast<ptrdiff_t>(pitch);
  pk.rows = static_cast<ptrdiff_t>(rows);
  pk.data_rows =
      static_cast<ptrdiff_t>(std::min(x.shape[2], std::max<int64_t>(0, read_rows - p.pad_h)));
  for (int64_t kw = 0; kw < kw_n; ++kw) {
    const int64_t c = kw * p.dilation_w;
    pk.off[kw] = static_cast<ptrdiff_t>(c % p.stride_w * phase + c / p.stride_w);
  }
  const bool x8 = x.type == ElemType::kInt8;
  const auto* wd = static_cast<const int32_t*>(w.data);
  parallel_tasks(call, planes, tasks, [&](int64_t task, int64_t begin, int64_t end) {
    Packed own = pk;
    own.buf = buf + task * elems;
    own.row = own.buf + rows * pitch;
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t n = plane / channels, ch = plane % channels;
      const int64_t xc = n * x.strides[0] + ch * x.strides[1];  // the plane's first element
      const int32_t* wc = wd + ch * w.strides[0];
      bool narrow = true;
      for (int64_t kh = 0; kh < kh_n; ++kh) {
        for (int64_t kw = 0; kw < kw_n; ++kw) {
          const int32_t v = wc[kh * w.strides[2] + kw * w.strides[3]];
          narrow = narrow && v >= -32768 && v <= 32767;
        }
      }
      const ptrdiff_t xs = static_cast<ptrdiff_t>(x.strides[2]);
      auto pack = [&](auto format) {
        using Op = decltype(format);
        return x8 ? pack_plane<Op>(own, static_cast<const int8_t*>(x.data) + xc, xs)
                  : pack_plane<Op>(own, static_cast<const int32_t*>(x.data) + xc, xs);
      };
      narrow = narrow && pack(Pairs{});
      const int32_t b =
          bias == nullptr ? 0 : static_cast<const int32_t*>(bias->data)[ch * bias->strides[0]];
      const Act yc = Act(y).at(n * y.strides[0] + ch * y.strides[1]);
      if (narrow) {
        dw_channel<Pairs>(own, p, ch, wc, w.strides[2], w.strides[3], kh_n, kw_n, b, yc,
                          y.strides[2], out_h, out_w);
      } else {
        pack(Words{});
        dw_channel<Words>(own, p, ch, wc, w.strides[2], w.strides[3], kh_n, kw_n, b, yc,
                          y.strides[2], out_h, out_w);
      }
    }
  });
  return true;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
