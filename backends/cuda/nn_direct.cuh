// The exact one-thread-per-output conv2d, dense and pooling loops shared by the CUDA nn kernels.
//
// Each output runs the scalar reference's loops (backends/scalar/nn_loops.h) in the same order,
// with the arithmetic each kernel passes in (Arith: as nn_loops.h describes, device functions).
#pragma once

#include <cstdint>

#include "cuda_common.cuh"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace cuda {

// Element pointers of 1-, 2- and 4-d views, through their element strides.
template <typename T>
__device__ inline T* ptr1(const TensorView& v, int64_t i0) {
  return static_cast<T*>(v.data) + i0 * v.strides[0];
}
template <typename T>
__device__ inline T* ptr2(const TensorView& v, int64_t i0, int64_t i1) {
  return static_cast<T*>(v.data) + i0 * v.strides[0] + i1 * v.strides[1];
}
template <typename T>
__device__ inline T* ptr4(const TensorView& v, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return static_cast<T*>(v.data) + i0 * v.strides[0] + i1 * v.strides[1] + i2 * v.strides[2] +
         i3 * v.strides[3];
}

// Taps t in [*lo, *hi) of a window starting at `start` with step `dilation` over `taps` taps
// that land inside [0, extent) (scalar taps_inside).
__device__ inline void taps_inside(int64_t start, int64_t dilation, int64_t taps, int64_t extent,
                                   int64_t* lo, int64_t* hi) {
  *lo = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  const int64_t inside = (extent - start + dilation - 1) / dilation;
  *hi = start >= extent ? 0 : (taps < inside ? taps : inside);
  if (*hi < *lo) *hi = *lo;
}

// Runs only when `flag` is null or *flag != 0 (the dp4a paths' fallback signal).
__device__ inline bool flag_allows(const int32_t* flag) { return flag == nullptr || *flag != 0; }

// A conv2d call as a kernel argument.
struct ConvArgs {
  TensorView x, w, bias, y;
  int32_t has_bias;
  Conv2dParams p;
  int64_t total;  // output elements
};

inline ConvArgs conv_args(const KernelCall& call) {
  ConvArgs a{};
  a.x = call.inputs[0];
  a.w = call.inputs[1];
  a.has_bias = call.num_inputs > 2 ? 1 : 0;
  if (a.has_bias != 0) a.bias = call.inputs[2];
  a.y = call.outputs[0];
  a.p = *static_cast<const Conv2dParams*>(call.params);
  a.total = a.y.numel();
  return a;
}

// conv2d output element i (row-major over y's (N, OC, OH, OW)): taps over ic, then kh, then kw
// ascending, padding taps skipped, then the bias.
template <class Arith>
__global__ void conv2d_direct_kernel(ConvArgs a, const int32_t* flag) {
  using T = typename Arith::Elem;
  if (!flag_allows(flag)) return;
  const Conv2dParams& p = a.p;
  const int64_t out_c = a.y.shape[1], out_h = a.y.shape[2], out_w = a.y.shape[3];
  const int64_t in_h = a.x.shape[2], in_w = a.x.shape[3];
  const int64_t group_c = a.w.shape[1], kernel_h = a.w.shape[2], kernel_w = a.w.shape[3];
  const int64_t out_per_group = out_c / p.groups;
  for (int64_t i = global_thread(); i < a.total; i += grid_threads()) {
    const int64_t ow = i % out_w, oh = i / out_w % out_h, oc = i / (out_w * out_h) % out_c;
    const int64_t n = i / (out_w * out_h * out_c);
    const int64_t ic0 = oc / out_per_group * group_c;
    const int64_t h0 = oh * p.stride_h - p.pad_h, w0 = ow * p.stride_w - p.pad_w;
    int64_t kh_lo, kh_hi, kw_lo, kw_hi;
    taps_inside(h0, p.dilation_h, kernel_h, in_h, &kh_lo, &kh_hi);
    taps_inside(w0, p.dilation_w, kernel_w, in_w, &kw_lo, &kw_hi);
    typename Arith::Acc sum = 0;
    for (int64_t c = 0; c < group_c; ++c) {
      for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
        const int64_t ih = h0 + kh * p.dilation_h;
        for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
          const int64_t iw = w0 + kw * p.dilation_w;
          sum = Arith::mac(sum, *ptr4<const T>(a.x, n, ic0 + c, ih, iw),
                           *ptr4<const T>(a.w, oc, c, kh, kw));
        }
      }
    }
    if (a.has_bias != 0) sum = Arith::add(sum, *ptr1<const T>(a.bias, oc));
    *ptr4<T>(a.y, n, oc, oh, ow) = Arith::store(sum);
  }
}

// Enqueues conv2d_direct_kernel<Arith> (flag: as flag_allows).
template <class Arith>
KernelStatus conv2d_direct(const KernelCall& call, const int32_t* flag, const char* name) {
  const ConvArgs a = conv_args(call);
  if (a.total == 0) return KernelStatus::kDone;
  conv2d_direct_kernel<Arith><<<blocks_for(a.total), kBlockThreads, 0, stream_of(call)>>>(a, flag);
  return launched(name);
}

// dense output element i (row-major over y's (M, units)): k ascending, then the bias.
template <class Arith>
__global__ void dense_direct_kernel(TensorView x, TensorView w, TensorView bias, int32_t has_bias,
                                    TensorView y, int64_t total, const int32_t* flag) {
  using T = typename Arith::Elem;
  if (!flag_allows(flag)) return;
  const int64_t units = y.shape[1], depth = x.shape[1];
  for (int64_t i = global_thread(); i < total; i += grid_threads()) {
    const int64_t m = i / units, u = i % units;
    typename Arith::Acc sum = 0;
    for (int64_t k = 0; k < depth; ++k) {
      sum = Arith::mac(sum, *ptr2<const T>(x, m, k), *ptr2<const T>(w, u, k));
    }
    if (has_bias != 0) sum = Arith::add(sum, *ptr1<const T>(bias, u));
    *ptr2<T>(y, m, u) = Arith::store(sum);
  }
}

template <class Arith>
KernelStatus dense_direct(const KernelCall& call, const int32_t* flag, const char* name) {
  const TensorView& y = call.outputs[0];
  const int64_t total = y.numel();
  if (total == 0) return KernelStatus::kDone;
  const TensorView bias = call.num_inputs > 2 ? call.inputs[2] : TensorView{};
  dense_direct_kernel<Arith><<<blocks_for(total), kBlockThreads, 0, stream_of(call)>>>(
      call.inputs[0], call.inputs[1], bias, call.num_inputs > 2 ? 1 : 0, y, total, flag);
  return launched(name);
}

// The int32 conv2d and dense of nn.cu (wrapping sums), for the dp4a paths' fallback: they run
// only when *flag != 0 (flag null: always).
KernelStatus conv2d_i32_direct(const KernelCall& call, const int32_t* flag);
KernelStatus dense_i32_direct(const KernelCall& call, const int32_t* flag);

// One output element of a 2-D pooling and the input window it reads (scalar PoolWindow).
struct PoolWindow {
  int64_t n, c, oh, ow;                // the output element
  int64_t h0, w0;                      // the input row and column of tap (0, 0)
  int64_t kh_lo, kh_hi, kw_lo, kw_hi;  // the taps inside the input (taps_inside)
};

// The window of output element i (row-major over y's (N, C, OH, OW)) for the geometry `g`.
__device__ inline PoolWindow pool_window(const TensorView& x, const TensorView& y,
                                         const MaxPool2dParams& g, int64_t i) {
  PoolWindow win;
  win.ow = i % y.shape[3];
  win.oh = i / y.shape[3] % y.shape[2];
  win.c = i / (y.shape[3] * y.shape[2]) % y.shape[1];
  win.n = i / (y.shape[3] * y.shape[2] * y.shape[1]);
  win.h0 = win.oh * g.stride_h - g.pad_h;
  win.w0 = win.ow * g.stride_w - g.pad_w;
  taps_inside(win.h0, 1, g.pool_h, x.shape[2], &win.kh_lo, &win.kh_hi);
  taps_inside(win.w0, 1, g.pool_w, x.shape[3], &win.kw_lo, &win.kw_hi);
  return win;
}

// Calls op(x, y, window) for every output element; Op is a functor with a __device__ call.
template <class Op>
__global__ void pool2d_kernel(TensorView x, TensorView y, MaxPool2dParams g, int64_t total, Op op) {
  for (int64_t i = global_thread(); i < total; i += grid_threads()) {
    op(x, y, pool_window(x, y, g, i));
  }
}

template <class Op>
KernelStatus pool2d(const KernelCall& call, const MaxPool2dParams& g, const Op& op,
                    const char* name) {
  const TensorView& y = call.outputs[0];
  const int64_t total = y.numel();
  if (total == 0) return KernelStatus::kDone;
  pool2d_kernel<Op><<<blocks_for(total), kBlockThreads, 0, stream_of(call)>>>(call.inputs[0], y, g,
                                                                              total, op);
  return launched(name);
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
