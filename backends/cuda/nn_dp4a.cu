// CUDA int8 paths of int32 conv2d and dense: __dp4a on packed operands, exact fallback on device.
//
// Each call enqueues, on its stream and without synchronizing:
//   1. clear_flag_kernel: flag = 0;
//   2. pack_i8_kernel for w, then x: int32 -> int8, 4 consecutive input channels (dense: 4
//      consecutive k) of one pixel per 32-bit word, zero past the group's channels; any value
//      outside [-128, 127] stores flag = 1 (a plain store of the same value: order-free);
//   3. the dp4a kernel, whose blocks return at once when flag != 0;
//   4. the general exact kernel of nn.cu (nn_direct.cuh), whose threads return at once when
//      flag == 0.
// Integer sums wrap (two's complement) and are exact in any order, so either kernel writes the
// scalar reference's bits; the bias is added last in wrapping int32 as there.
//
// Scratch (params' Scratch, device memory on a CUDA call): [flag | packed w | packed x], each part
// 64-byte aligned. The kernels decline, before enqueuing anything, without scratch or for shapes
// they do not suit (too few channels or rows to gain, extents beyond the launch shapes).
#include <cstdint>

#include "cuda_common.cuh"
#include "cuda_nn_kernels.h"
#include "elem_types.h"
#include "nn_direct.cuh"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

// The largest packed operand in 32-bit words (sizes beyond are declined, and overflow nothing).
constexpr int64_t kMaxWords = int64_t{1} << 40;
// The largest grid extent along y and z.
constexpr int64_t kMaxGridYZ = 65535;

// a * b when both are >= 0 and the product is at most kMaxWords, else -1.
int64_t words_mul(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  if (a != 0 && b > kMaxWords / a) return -1;
  return a * b;
}

int64_t align64(int64_t bytes) { return (bytes + 63) / 64 * 64; }

__global__ void clear_flag_kernel(int32_t* flag) { *flag = 0; }

// Packs v (d0, d1 = groups * group_c, d2, d3) into words [i0][g][q][i2][i3] for q < cq: byte j
// (lowest first) of a word holds channel g * group_c + 4 q + j of v, 0 when 4 q + j >= group_c.
// Stores *flag = 1 when a packed value lies outside int8.
__global__ void pack_i8_kernel(TensorView v, int64_t groups, int64_t group_c, int64_t cq,
                               int64_t total, int32_t* out, int32_t* flag) {
  const int64_t d2 = v.shape[2], d3 = v.shape[3];
  for (int64_t e = global_thread(); e < total; e += grid_threads()) {
    const int64_t i3 = e % d3, i2 = e / d3 % d2, q = e / (d3 * d2) % cq;
    const int64_t g = e / (d3 * d2 * cq) % groups, i0 = e / (d3 * d2 * cq * groups);
    uint32_t word = 0;
    bool outside = false;
    for (int j = 0; j < 4; ++j) {
      const int64_t c = 4 * q + j;
      if (c >= group_c) break;
      const int32_t value = *ptr4<const int32_t>(v, i0, g * group_c + c, i2, i3);
      outside = outside || value < -128 || value > 127;
      word |= static_cast<uint32_t>(static_cast<uint8_t>(value)) << (8 * j);
    }
    out[e] = static_cast<int32_t>(word);
    if (outside) *flag = 1;
  }
}

// The parts of one call's scratch.
struct Packed {
  int32_t* flag;
  int32_t* w;
  int32_t* x;
};

// Scratch for the flag and `w_words` + `x_words` packed words; false when none is lent.
bool acquire_packed(const Scratch* s, int64_t w_words, int64_t x_words, Packed* out) {
  const int64_t w_at = 64, x_at = w_at + align64(w_words * 4);
  auto* base = static_cast<char*>(acquire_scratch(s, x_at + align64(x_words * 4)));
  if (base == nullptr) return false;
  out->flag = reinterpret_cast<int32_t*>(base);
  out->w = reinterpret_cast<int32_t*>(base + w_at);
  out->x = reinterpret_cast<int32_t*>(base + x_at);
  return true;
}

// Steps 1 and 2: clear the flag, pack w (w4: groups 1) and x (x4: `groups` groups), both with
// `group_c` channels a group in `cq` words.
void enqueue_packs(cudaStream_t stream, const Packed& p, const TensorView& w4, int64_t w_words,
                   const TensorView& x4, int64_t x_words, int64_t groups, int64_t group_c,
                   int64_t cq) {
  clear_flag_kernel<<<1, 1, 0, stream>>>(p.flag);
  pack_i8_kernel<<<blocks_for(w_words), kBlockThreads, 0, stream>>>(w4, 1, group_c, cq, w_words,
                                                                    p.w, p.flag);
  pack_i8_kernel<<<blocks_for(x_words), kBlockThreads, 0, stream>>>(x4, groups, group_c, cq,
                                                                    x_words, p.x, p.flag);
}

// ---- conv2d ----------------------------------------------------------------------------------

constexpr int kConvThreads = 128;     // a block: 128 output pixels of one image and group
constexpr int kConvOcTile = 8;        // output channels a thread sums (one word each per tap)
constexpr int kConvSmemWords = 4096;  // staged weights: [word q][tap][kConvOcTile] (16 KiB)
constexpr int64_t kMinGroupChannels = 3;  // fewer input channels a group: the general path

struct DpConv {
  int64_t groups, group_c, group_oc, cq, in_h, in_w, out_h, out_w, kernel_h, kernel_w, taps;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t chunk;     // channel words staged in shared memory at a time
  int64_t oc_tiles;  // ceil(group_oc / kConvOcTile)
  int32_t has_bias;
};

// Grid (pixel blocks, groups * oc_tiles, batch). Thread: output pixel q of image n, output
// channels o0 .. o0 + 7 of group g; xq [n][g][q][ih][iw], wq [oc][q][tap] (pack_i8_kernel).
__global__ void __launch_bounds__(kConvThreads)
    conv2d_dp4a_kernel(DpConv d, const int32_t* xq, const int32_t* wq, TensorView bias,
                       TensorView y, const int32_t* flag) {
  if (*flag != 0) return;  // the same for every thread: the general kernel computes
  __shared__ __align__(16) int32_t sw[kConvSmemWords];
  const int64_t n = blockIdx.z;
  const int64_t g = blockIdx.y / d.oc_tiles, o0 = blockIdx.y % d.oc_tiles * kConvOcTile;
  const int64_t pixel = static_cast<int64_t>(blockIdx.x) * kConvThreads + threadIdx.x;
  const bool active = pixel < d.out_h * d.out_w;
  const int64_t oh = active ? pixel / d.out_w : 0, ow = active ? pixel % d.out_w : 0;
  const int64_t h0 = oh * d.stride_h - d.pad_h, w0 = ow * d.stride_w - d.pad_w;
  int64_t kh_lo, kh_hi, kw_lo, kw_hi;
  taps_inside(h0, d.dilation_h, d.kernel_h, d.in_h, &kh_lo, &kh_hi);
  taps_inside(w0, d.dilation_w, d.kernel_w, d.in_w, &kw_lo, &kw_hi);
  const int64_t plane = d.in_h * d.in_w;
  const int32_t* xg = xq + (n * d.groups + g) * d.cq * plane;
  int32_t acc[kConvOcTile] = {};
  for (int64_t c0 = 0; c0 < d.cq; c0 += d.chunk) {
    const int64_t cn = d.cq - c0 < d.chunk ? d.cq - c0 : d.chunk;
    const int64_t run = cn * d.taps;  // words of one output channel in this stage
    __syncthreads();                  // the previous stage is read
    for (int64_t e = threadIdx.x; e < kConvOcTile * run; e += kConvThreads) {
      const int64_t o = e / run, ct = e % run;  // ct = c * taps + tap
      const int32_t v =
          o0 + o < d.group_oc ? wq[((g * d.group_oc + o0 + o) * d.cq + c0) * d.taps + ct] : 0;
      sw[ct * kConvOcTile + o] = v;
    }
    __syncthreads();
    if (!active) continue;
    for (int64_t c = 0; c < cn; ++c) {
      const int32_t* xc = xg + (c0 + c) * plane;
      const int32_t* wc = sw + c * d.taps * kConvOcTile;
      for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
        const int64_t row = (h0 + kh * d.dilation_h) * d.in_w + w0;  // + kw * dilation_w >= 0
        const int32_t* wr = wc + kh * d.kernel_w * kConvOcTile;
        for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
          const int32_t a = xc[row + kw * d.dilation_w];
          const int4* wv = reinterpret_cast<const int4*>(wr + kw * kConvOcTile);
          const int4 lo = wv[0], hi = wv[1];
          acc[0] = __dp4a(a, lo.x, acc[0]);
          acc[1] = __dp4a(a, lo.y, acc[1]);
          acc[2] = __dp4a(a, lo.z, acc[2]);
          acc[3] = __dp4a(a, lo.w, acc[3]);
          acc[4] = __dp4a(a, hi.x, acc[4]);
          acc[5] = __dp4a(a, hi.y, acc[5]);
          acc[6] = __dp4a(a, hi.z, acc[6]);
          acc[7] = __dp4a(a, hi.w, acc[7]);
        }
      }
    }
  }
  if (!active) return;
#pragma unroll
  for (int o = 0; o < kConvOcTile; ++o) {
    if (o0 + o >= d.group_oc) break;
    const int64_t oc = g * d.group_oc + o0 + o;
    int32_t v = acc[o];
    if (d.has_bias != 0) v = wrap_add(v, *ptr1<const int32_t>(bias, oc));
    *ptr4<int32_t>(y, n, oc, oh, ow) = v;
  }
}

// ---- dense -----------------------------------------------------------------------------------

constexpr int kDenseTile = 64;     // rows and units of a block's output tile
constexpr int kDenseStep = 16;     // words of k staged at a time
constexpr int kDenseThreads = 256; // 16 x 16 threads, 4 x 4 outputs each
constexpr int64_t kDenseMinRows = 5;  // fewer rows: packing w costs what it saves

// Grid (unit tiles, row tiles). xq [m][kq], wq [u][kq] (pack_i8_kernel, one group).
__global__ void __launch_bounds__(kDenseThreads)
    dense_dp4a_kernel(int64_t rows, int64_t units, int64_t kq, const int32_t* xq,
                      const int32_t* wq, TensorView bias, int32_t has_bias, TensorView y,
                      const int32_t* flag) {
  if (*flag != 0) return;  // the same for every thread: the general kernel computes
  __shared__ int32_t xs[kDenseStep][kDenseTile + 1];
  __shared__ int32_t ws[kDenseStep][kDenseTile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * kDenseTile;
  const int64_t u0 = static_cast<int64_t>(blockIdx.x) * kDenseTile;
  int32_t acc[4][4] = {};
  for (int64_t k0 = 0; k0 < kq; k0 += kDenseStep) {
    __syncthreads();  // the previous stage is read
    for (int e = threadIdx.x; e < kDenseTile * kDenseStep; e += kDenseThreads) {
      const int r = e / kDenseStep, k = e % kDenseStep;
      const bool in_k = k0 + k < kq;
      xs[k][r] = in_k && m0 + r < rows ? xq[(m0 + r) * kq + k0 + k] : 0;
      ws[k][r] = in_k && u0 + r < units ? wq[(u0 + r) * kq + k0 + k] : 0;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kDenseStep; ++k) {
      int32_t a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = xs[k][ty + 16 * i];
        b[i] = ws[k][tx + 16 * i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = __dp4a(a[i], b[j], acc[i][j]);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int64_t m = m0 + ty + 16 * i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t u = u0 + tx + 16 * j;
      if (m >= rows || u >= units) continue;
      int32_t v = acc[i][j];
      if (has_bias != 0) v = wrap_add(v, *ptr1<const int32_t>(bias, u));
      *ptr2<int32_t>(y, m, u) = v;
    }
  }
}

// A 2-d view (r, k) as the 4-d (r, k, 1, 1) that pack_i8_kernel reads.
TensorView as_4d(const TensorView& v) {
  TensorView r = v;
  r.ndim = 4;
  r.shape[2] = r.shape[3] = 1;
  r.strides[2] = r.strides[3] = 0;
  return r;
}

}  // namespace

bool conv2d_dp4a_suits(const TensorView* inputs, int32_t num_inputs) {
  if (num_inputs < 2 || inputs[1].ndim != 4) return false;
  const TensorView& w = inputs[1];
  return w.shape[1] >= kMinGroupChannels &&
         w.shape[2] * w.shape[3] * kConvOcTile <= kConvSmemWords;
}

bool dense_dp4a_suits(const TensorView* inputs, int32_t num_inputs) {
  return num_inputs >= 1 && inputs[0].ndim == 2 && inputs[0].shape[0] >= kDenseMinRows;
}

KernelStatus conv2d_i8i32_dp4a(const KernelCall& call) {
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  if (y.numel() == 0) return KernelStatus::kDone;
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  DpConv d{};
  d.groups = p.groups;
  d.group_c = w.shape[1];
  d.group_oc = y.shape[1] / p.groups;
  d.cq = (d.group_c + 3) / 4;
  d.in_h = x.shape[2];
  d.in_w = x.shape[3];
  d.out_h = y.shape[2];
  d.out_w = y.shape[3];
  d.kernel_h = w.shape[2];
  d.kernel_w = w.shape[3];
  d.taps = d.kernel_h * d.kernel_w;
  d.stride_h = p.stride_h;
  d.stride_w = p.stride_w;
  d.pad_h = p.pad_h;
  d.pad_w = p.pad_w;
  d.dilation_h = p.dilation_h;
  d.dilation_w = p.dilation_w;
  d.oc_tiles = (d.group_oc + kConvOcTile - 1) / kConvOcTile;
  d.has_bias = call.num_inputs > 2 ? 1 : 0;
  if (!conv2d_dp4a_suits(call.inputs, call.num_inputs)) return KernelStatus::kDeclined;
  d.chunk = kConvSmemWords / (d.taps * kConvOcTile);
  if (d.chunk > d.cq) d.chunk = d.cq;
  const int64_t batch = y.shape[0];
  const int64_t pixel_blocks = (d.out_h * d.out_w + kConvThreads - 1) / kConvThreads;
  const int64_t w_words = words_mul(words_mul(y.shape[1], d.cq), d.taps);
  const int64_t x_words =
      words_mul(words_mul(words_mul(batch, d.groups * d.cq), d.in_h), d.in_w);
  if (w_words < 0 || x_words < 0 || pixel_blocks > INT32_MAX ||
      d.groups * d.oc_tiles > kMaxGridYZ || batch > kMaxGridYZ) {
    return KernelStatus::kDeclined;
  }
  Packed packed;
  if (!acquire_packed(p.scratch, w_words, x_words, &packed)) return KernelStatus::kDeclined;
  const cudaStream_t stream = stream_of(call);
  enqueue_packs(stream, packed, w, w_words, x, x_words, d.groups, d.group_c, d.cq);
  const TensorView bias = d.has_bias != 0 ? call.inputs[2] : TensorView{};
  const dim3 grid(static_cast<unsigned>(pixel_blocks), static_cast<unsigned>(d.groups * d.oc_tiles),
                  static_cast<unsigned>(batch));
  conv2d_dp4a_kernel<<<grid, kConvThreads, 0, stream>>>(d, packed.x, packed.w, bias, y,
                                                         packed.flag);
  const KernelStatus status = launched("conv2d_i8i32_dp4a");
  if (status != KernelStatus::kDone) return status;
  return conv2d_i32_direct(call, packed.flag);
}

KernelStatus dense_i8i32_dp4a(const KernelCall& call) {
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  if (y.numel() == 0) return KernelStatus::kDone;
  const auto* p = static_cast<const DenseParams*>(call.params);
  const int64_t rows = y.shape[0], units = y.shape[1], depth = x.shape[1];
  const int64_t kq = (depth + 3) / 4;
  const int64_t row_tiles = (rows + kDenseTile - 1) / kDenseTile;
  const int64_t unit_tiles = (units + kDenseTile - 1) / kDenseTile;
  const int64_t w_words = words_mul(units, kq), x_words = words_mul(rows, kq);
  if (p == nullptr || !dense_dp4a_suits(call.inputs, call.num_inputs) || depth == 0 || w_words < 0 || x_words < 0 ||
      row_tiles > kMaxGridYZ || unit_tiles > INT32_MAX) {
    return KernelStatus::kDeclined;
  }
  Packed packed;
  if (!acquire_packed(p->scratch, w_words, x_words, &packed)) return KernelStatus::kDeclined;
  const cudaStream_t stream = stream_of(call);
  enqueue_packs(stream, packed, as_4d(w), w_words, as_4d(x), x_words, 1, depth, kq);
  const int32_t has_bias = call.num_inputs > 2 ? 1 : 0;
  const TensorView bias = has_bias != 0 ? call.inputs[2] : TensorView{};
  const dim3 grid(static_cast<unsigned>(unit_tiles), static_cast<unsigned>(row_tiles));
  dense_dp4a_kernel<<<grid, kDenseThreads, 0, stream>>>(rows, units, kq, packed.x, packed.w, bias,
                                                        has_bias, y, packed.flag);
  const KernelStatus status = launched("dense_i8i32_dp4a");
  if (status != KernelStatus::kDone) return status;
  return dense_i32_direct(call, packed.flag);
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
