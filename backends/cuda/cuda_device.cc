// The CUDA runtime behind the core's device layer (device_abi.h): discovery, memory, copies, streams.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "device_abi.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

thread_local std::string t_last_error;

void fail(const std::string& message) { t_last_error = message; }

void fail(const std::string& what, cudaError_t err) {
  fail(what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

void write(char* out, size_t cap, const std::string& s) {
  if (out == nullptr || cap == 0) return;
  std::snprintf(out, cap, "%s", s.c_str());
}

int32_t device_count(char* why, size_t cap) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear it: it is the answer, not a failure of later calls
    write(why, cap, std::string("the CUDA runtime found no usable device: ") +
                        cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
    return 0;
  }
  if (n == 0) write(why, cap, "the CUDA runtime found no device");
  return n;
}

void describe(int32_t id, char* out, size_t cap) {
  cudaDeviceProp p;
  const cudaError_t err = cudaGetDeviceProperties(&p, id);
  if (err != cudaSuccess) {
    cudaGetLastError();
    write(out, cap, std::string("(no properties: ") + cudaGetErrorName(err) + ")");
    return;
  }
  char line[320];
  std::snprintf(line, sizeof line, "%s, sm_%d%d, %.1f GiB, %d SMs", p.name, p.major, p.minor,
                static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
                p.multiProcessorCount);
  write(out, cap, line);
}

bool set_device(int32_t id) {
  const cudaError_t err = cudaSetDevice(id);
  if (err == cudaSuccess) return true;
  fail("cudaSetDevice(" + std::to_string(id) + ")", err);
  return false;
}

// Stream-ordered memory from the device's default pool, which keeps freed blocks for reuse
// (its release threshold is raised once per device): CUDA's own caching allocator, safe across
// streams. The core's Allocator counts and limits on top of it.
void* allocate(int32_t id, size_t nbytes, void* stream) {
  if (!set_device(id)) return nullptr;
  static thread_local int pool_ready_for = -1;
  if (pool_ready_for != id) {
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, id) == cudaSuccess) {
      uint64_t keep = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    cudaGetLastError();
    pool_ready_for = id;
  }
  void* p = nullptr;
  const cudaError_t err =
      cudaMallocAsync(&p, nbytes == 0 ? 1 : nbytes, static_cast<cudaStream_t>(stream));
  if (err != cudaSuccess) {
    cudaGetLastError();
    fail("cudaMallocAsync(" + std::to_string(nbytes) + " bytes)", err);
    return nullptr;
  }
  return p;
}

void free_memory(int32_t id, void* ptr, void* stream) {
  if (ptr == nullptr || !set_device(id)) return;
  if (cudaFreeAsync(ptr, static_cast<cudaStream_t>(stream)) != cudaSuccess) cudaGetLastError();
}

bool copy(int32_t id, void* dst, const void* src, size_t nbytes, CopyKind kind, void* stream) {
  if (nbytes == 0) return true;
  if (!set_device(id)) return false;
  const auto s = static_cast<cudaStream_t>(stream);
  cudaMemcpyKind k = cudaMemcpyDeviceToDevice;
  if (kind == CopyKind::kHostToDevice) k = cudaMemcpyHostToDevice;
  if (kind == CopyKind::kDeviceToHost) k = cudaMemcpyDeviceToHost;
  cudaError_t err = cudaMemcpyAsync(dst, src, nbytes, k, s);
  // Host memory is pageable: wait, so the caller may reuse a host source or read a host result.
  if (err == cudaSuccess && kind != CopyKind::kDeviceToDevice) err = cudaStreamSynchronize(s);
  if (err == cudaSuccess) return true;
  cudaGetLastError();
  fail("copying " + std::to_string(nbytes) + " bytes", err);
  return false;
}

bool stream_create(int32_t id, void** stream) {
  if (!set_device(id)) return false;
  cudaStream_t s = nullptr;
  const cudaError_t err = cudaStreamCreate(&s);
  if (err != cudaSuccess) {
    cudaGetLastError();
    fail("cudaStreamCreate", err);
    return false;
  }
  *stream = s;
  return true;
}

void stream_destroy(int32_t id, void* stream) {
  if (stream == nullptr || !set_device(id)) return;
  cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  cudaStreamDestroy(static_cast<cudaStream_t>(stream));
  cudaGetLastError();
}

bool synchronize(int32_t id, void* stream) {
  if (!set_device(id)) return false;
  const cudaError_t err = stream == nullptr
                              ? cudaDeviceSynchronize()
                              : cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  if (err == cudaSuccess) return true;
  cudaGetLastError();
  fail("a kernel failed on cuda:" + std::to_string(id), err);
  return false;
}

const char* last_error() { return t_last_error.c_str(); }

bool holds(int32_t id, const void* ptr, char* why, size_t cap) {
  cudaPointerAttributes a{};
  const cudaError_t err = cudaPointerGetAttributes(&a, ptr);
  if (err != cudaSuccess) {
    cudaGetLastError();
    write(why, cap, std::string("cudaPointerGetAttributes: ") + cudaGetErrorName(err));
    return false;
  }
  if (a.type == cudaMemoryTypeManaged) return true;
  if (a.type == cudaMemoryTypeDevice) {
    if (a.device == id) return true;
    write(why, cap, "its data is memory of cuda:" + std::to_string(a.device));
    return false;
  }
  write(why, cap, a.type == cudaMemoryTypeHost
                      ? "its data is pinned host memory (DLPack's kDLCUDAHost, not kDLCUDA)"
                      : "its data is host memory, not device memory");
  return false;
}

}  // namespace

// Declared for the kernels in cuda_common.cuh (a header only nvcc can read).
void record_error(const char* what, cudaError_t err);
void record_error(const char* what, cudaError_t err) {
  fail(std::string("launching ") + what, err);
}

}  // namespace cuda

extern const DeviceApi kCudaDeviceApi = {
    "cuda",           2 /* kDLCUDA */,      cuda::device_count, cuda::describe,
    cuda::set_device, cuda::allocate,       cuda::free_memory,  cuda::copy,
    cuda::stream_create, cuda::stream_destroy, cuda::synchronize, cuda::last_error,
    cuda::holds,
};

}  // namespace kernel
}  // namespace cvm
