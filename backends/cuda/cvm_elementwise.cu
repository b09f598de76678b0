// CUDA kernels of the int32-only CVM elementwise ops: relu, cvm_precision, clip, cvm shifts.
#include <cstdint>

#include "cuda_kernels.h"
#include "elem_types.h"
#include "elementwise_common.cuh"
#include "params/elementwise.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

// clamp(v, lo, hi) on int32.
__device__ inline int32_t clamp(int32_t v, int32_t lo, int32_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

struct Relu {
  __device__ int32_t operator()(int32_t x) const { return x > 0 ? x : 0; }
};

// Bit length of |x|, at least 1; |INT32_MIN| = 2^31 has 32 bits.
struct Precision {
  __device__ int32_t operator()(int32_t x) const {
    const uint32_t mag = x < 0 ? 0u - static_cast<uint32_t>(x) : static_cast<uint32_t>(x);
    const int32_t bits = 32 - __clz(static_cast<int>(mag));  // 0 for mag = 0
    return bits > 1 ? bits : 1;
  }
};

struct Clip {
  int32_t lo, hi;
  __device__ int32_t operator()(int32_t x) const { return clamp(x, lo, hi); }
};

// ((x >> (s-1)) + 1) >> 1 with arithmetic shifts and a wrapping add (s - 1 <= 31), clamped.
struct RightShift {
  int32_t s1, lo, hi;
  __device__ int32_t operator()(int32_t x) const {
    const int32_t t = wrap_add<int32_t>(x >> s1, 1);
    return clamp(t >> 1, lo, hi);
  }
};

// x << s wrapping to 32 bits (s = 32 gives 0), clamped.
struct LeftShift {
  int32_t shift, lo, hi;
  __device__ int32_t operator()(int32_t x) const {
    const uint32_t v = shift >= 32 ? 0u : static_cast<uint32_t>(x) << shift;
    return clamp(static_cast<int32_t>(v), lo, hi);
  }
};

const CvmClampParams& clamp_params(const KernelCall& call) {
  return *static_cast<const CvmClampParams*>(call.params);
}

}  // namespace

KernelStatus relu(const KernelCall& call) {
  return map_elements<int32_t, int32_t, 1>(call, Relu{}, "relu");
}

KernelStatus cvm_precision(const KernelCall& call) {
  return map_elements<int32_t, int32_t, 1>(call, Precision{}, "cvm_precision");
}

KernelStatus clip(const KernelCall& call) {
  const CvmClampParams& p = clamp_params(call);
  return map_elements<int32_t, int32_t, 1>(call, Clip{p.lo, p.hi}, "clip");
}

KernelStatus cvm_right_shift(const KernelCall& call) {
  const CvmClampParams& p = clamp_params(call);
  return map_elements<int32_t, int32_t, 1>(call, RightShift{p.shift - 1, p.lo, p.hi},
                                           "cvm_right_shift");
}

KernelStatus cvm_left_shift(const KernelCall& call) {
  const CvmClampParams& p = clamp_params(call);
  return map_elements<int32_t, int32_t, 1>(call, LeftShift{p.shift, p.lo, p.hi},
                                           "cvm_left_shift");
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
