// What every CUDA kernel file shares: strided indexing on the device, launch shapes, launch status.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace cuda {

// Threads per block of the elementwise-style kernels (grid-stride loops over outputs).
constexpr int kBlockThreads = 256;
// The most blocks a 1-d grid-stride launch asks for: enough to fill any current GPU.
constexpr int64_t kMaxBlocks = 65535;

// Blocks for a grid-stride loop over `n` items (at least 1, so an empty launch is valid).
inline unsigned blocks_for(int64_t n) {
  int64_t b = (n + kBlockThreads - 1) / kBlockThreads;
  if (b < 1) b = 1;
  if (b > kMaxBlocks) b = kMaxBlocks;
  return static_cast<unsigned>(b);
}

inline cudaStream_t stream_of(const KernelCall& call) {
  return static_cast<cudaStream_t>(call.stream);
}

// Records `what` failed with `err` as the calling thread's last error (DeviceApi::last_error).
void record_error(const char* what, cudaError_t err);

// The status of the launches just made on this thread: kDone, or kFailed with the error
// recorded (naming `kernel`).
inline KernelStatus launched(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return KernelStatus::kDone;
  record_error(kernel, err);
  return KernelStatus::kFailed;
}

// The element offset of row-major linear index `i` of `v`'s shape, through its strides.
__host__ __device__ inline int64_t offset_of(const TensorView& v, int64_t i) {
  int64_t off = 0;
  for (int d = v.ndim - 1; d >= 0; --d) {
    const int64_t extent = v.shape[d];
    const int64_t q = i / extent;
    off += (i - q * extent) * v.strides[d];
    i = q;
  }
  return off;
}

// Typed element `i` (row-major over v's shape) of a view.
template <typename T>
__device__ inline T& element(const TensorView& v, int64_t i) {
  return static_cast<T*>(v.data)[offset_of(v, i)];
}

// Grid-stride loop index helpers.
__device__ inline int64_t global_thread() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t grid_threads() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// Device memory the op layer lends (kernel_abi.h Scratch; on a CUDA call it is device memory,
// ordered on the call's stream). Null when none.
inline void* acquire_scratch(const Scratch* s, int64_t bytes) {
  return s == nullptr ? nullptr : s->acquire(s->ctx, bytes);
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
