// The contract between the core and a device backend's runtime: devices, memory, copies, streams.
//
// The core reaches device memory only through this table (core/src/device_runtime.cc): its
// Allocator for the device, NDArray copies across devices, a Session's stream. Like kernels,
// these functions never throw; a failure returns false or null and leaves a message that
// last_error() gives to the failing thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cvm {
namespace kernel {

enum class CopyKind : int32_t {
  kHostToDevice = 0,
  kDeviceToHost = 1,
  kDeviceToDevice = 2,
};

struct DeviceApi {
  const char* name;     // "cuda"
  int32_t device_type;  // DLPack device type of its memory (2 = kDLCUDA)
  // Devices this process can use. 0 when there are none, with the reason in `why` (a driver
  // missing or too old, no device, the runtime's own error), NUL-terminated within `cap`.
  int32_t (*device_count)(char* why, size_t cap);
  // One line about device `id` ("NVIDIA H100 80GB HBM3, sm_90, 79.1 GiB") into `out`.
  void (*describe)(int32_t id, char* out, size_t cap);
  // Makes device `id` current on the calling thread (kernels launch on the current device).
  bool (*set_device)(int32_t id);
  // Device memory of device `id`, ordered on `stream` (null: the default stream) like a kernel:
  // work enqueued later on any stream may use it, and a free waits for the work enqueued before
  // it. 256-byte aligned. Null when the device is out of memory.
  void* (*allocate)(int32_t id, size_t nbytes, void* stream);
  void (*free)(int32_t id, void* ptr, void* stream);
  // Copies `nbytes` between host and device memory or within device `id`, after the work
  // already enqueued on `stream`. When it returns, a host source may be reused and a host
  // destination holds the bytes (host copies are synchronous); a device-to-device copy is only
  // enqueued.
  bool (*copy)(int32_t id, void* dst, const void* src, size_t nbytes, CopyKind kind, void* stream);
  // A stream of device `id`, ordered after the default stream's earlier work (a blocking stream).
  bool (*stream_create)(int32_t id, void** stream);
  void (*stream_destroy)(int32_t id, void* stream);
  // Waits until the work enqueued on `stream` (null: the whole device) is done; false when any
  // of it failed (the message says which error).
  bool (*synchronize)(int32_t id, void* stream);
  // The calling thread's last failure message ("" before any).
  const char* (*last_error)();
  // Whether `ptr` (a foreign tensor's data, DLPack's device_type of this runtime) is memory that
  // device `id` reads as its own: allocated on it, or managed. False with the reason in `why`
  // (host memory, another device's), NUL-terminated within `cap`.
  bool (*holds)(int32_t id, const void* ptr, char* why, size_t cap);
};

// The CUDA runtime (backends/cuda/cuda_device.cc), when nvcc was found at build time.
extern const DeviceApi kCudaDeviceApi;

}  // namespace kernel
}  // namespace cvm
