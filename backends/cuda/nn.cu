// CUDA int32 nn kernels (conv2d, dense, max_pool2d, upsampling) and pad: the exact general paths.
#include <cstdint>

#include "cuda_common.cuh"
#include "cuda_kernels.h"
#include "elem_types.h"
#include "nn_direct.cuh"
#include "params/float_nn.h"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

// int32 arithmetic of conv2d and dense: two's-complement wrapping (scalar WrappingInt32).
struct WrappingInt32 {
  using Elem = int32_t;
  using Acc = int32_t;
  __device__ static int32_t mac(int32_t acc, int32_t a, int32_t b) {
    return wrap_add(acc, wrap_mul(a, b));
  }
  __device__ static int32_t add(int32_t acc, int32_t b) { return wrap_add(acc, b); }
  __device__ static int32_t store(int32_t acc) { return acc; }
};

// max_pool2d (int32): the largest cell inside the input; padding cells are INT32_MIN.
struct MaxPoolI32 {
  __device__ void operator()(const TensorView& x, const TensorView& y,
                             const PoolWindow& win) const {
    int32_t best = INT32_MIN;
    for (int64_t kh = win.kh_lo; kh < win.kh_hi; ++kh) {
      for (int64_t kw = win.kw_lo; kw < win.kw_hi; ++kw) {
        const int32_t v = *ptr4<const int32_t>(x, win.n, win.c, win.h0 + kh, win.w0 + kw);
        best = best < v ? v : best;
      }
    }
    *ptr4<int32_t>(y, win.n, win.c, win.oh, win.ow) = best;
  }
};

__global__ void upsampling_kernel(TensorView x, TensorView y, int64_t scale, int64_t total) {
  for (int64_t i = global_thread(); i < total; i += grid_threads()) {
    const int64_t w = i % y.shape[3], h = i / y.shape[3] % y.shape[2];
    const int64_t c = i / (y.shape[3] * y.shape[2]) % y.shape[1];
    const int64_t n = i / (y.shape[3] * y.shape[2] * y.shape[1]);
    *ptr4<int32_t>(y, n, c, h, w) = *ptr4<const int32_t>(x, n, c, h / scale, w / scale);
  }
}

// Output element i (row-major over y's shape) is input element [index - begin] when that lies
// inside the input, else the fill bits; elements move as raw 32-bit words.
__global__ void pad_b32_kernel(TensorView x, TensorView y, PadParams p, int64_t total) {
  const auto* xb = static_cast<const uint32_t*>(x.data);
  auto* yb = static_cast<uint32_t*>(y.data);
  for (int64_t i = global_thread(); i < total; i += grid_threads()) {
    int64_t rest = i, x_off = 0, y_off = 0;
    bool inside = true;
    for (int d = y.ndim - 1; d >= 0; --d) {
      const int64_t index = rest % y.shape[d];
      rest /= y.shape[d];
      const int64_t xi = index - p.begin[d];
      inside = inside && xi >= 0 && xi < x.shape[d];
      x_off += xi * x.strides[d];
      y_off += index * y.strides[d];
    }
    yb[y_off] = inside ? xb[x_off] : p.value_bits;
  }
}

}  // namespace

KernelStatus conv2d_i32_direct(const KernelCall& call, const int32_t* flag) {
  return conv2d_direct<WrappingInt32>(call, flag, "conv2d_i32");
}

KernelStatus dense_i32_direct(const KernelCall& call, const int32_t* flag) {
  return dense_direct<WrappingInt32>(call, flag, "dense_i32");
}

KernelStatus conv2d_i32(const KernelCall& call) { return conv2d_i32_direct(call, nullptr); }

KernelStatus dense_i32(const KernelCall& call) { return dense_i32_direct(call, nullptr); }

KernelStatus max_pool2d_i32(const KernelCall& call) {
  return pool2d(call, *static_cast<const MaxPool2dParams*>(call.params), MaxPoolI32{},
                "max_pool2d_i32");
}

KernelStatus upsampling_i32(const KernelCall& call) {
  const TensorView& y = call.outputs[0];
  const int64_t total = y.numel();
  if (total == 0) return KernelStatus::kDone;
  const int64_t scale = static_cast<const UpsamplingParams*>(call.params)->scale;
  upsampling_kernel<<<blocks_for(total), kBlockThreads, 0, stream_of(call)>>>(call.inputs[0], y,
                                                                             scale, total);
  return launched("upsampling_i32");
}

KernelStatus pad_b32(const KernelCall& call) {
  const TensorView& y = call.outputs[0];
  const int64_t total = y.numel();  // 1 for a 0-d pad
  if (total == 0) return KernelStatus::kDone;
  const PadParams p = *static_cast<const PadParams*>(call.params);
  pad_b32_kernel<<<blocks_for(total), kBlockThreads, 0, stream_of(call)>>>(call.inputs[0], y, p,
                                                                          total);
  return launched("pad_b32");
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
