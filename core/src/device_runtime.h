// The core's side of device backends (backends/device_abi.h): which runtime serves a device,
// the thread's current stream, copies across devices, and device errors as RuntimeErrors.
#pragma once

#include <cstddef>
#include <string>

#include "cvm/device.h"
#include "device_abi.h"

namespace cvm {
namespace device {

// The runtime of `d`'s device type: null for the CPU; LogicError for a type this build has no
// backend for (e.g. CUDA without nvcc at build time).
const kernel::DeviceApi* api_of(Device d);

// Returns the runtime of `d` after checking the device exists: RuntimeError naming why not
// (no driver, no device, an id past the last device). Null for the CPU.
const kernel::DeviceApi* require(Device d);

// Why `ptr` (a foreign tensor's data) is not memory device `d` can use as its own ("" when it
// is, and for the CPU, whose memory cannot be checked).
std::string foreign_memory_problem(Device d, const void* ptr);

// RuntimeError "<what> on <device>: <the runtime's last error>".
[[noreturn]] void raise(const kernel::DeviceApi& api, Device d, const std::string& what);

// The stream device work of this thread is enqueued on (null: the device's default stream).
void* current_stream();

// Makes `device` current on this thread, with `stream` (null: the default stream) for kernels,
// allocations and copies, until destroyed; restores the previous ones. No-op for the CPU.
class ScopedStream {
 public:
  ScopedStream(Device device, void* stream);
  ~ScopedStream();
  ScopedStream(const ScopedStream&) = delete;
  ScopedStream& operator=(const ScopedStream&) = delete;

 private:
  Device previous_device_;
  void* previous_stream_;
};

// A stream owned by its holder (a Session), on one device; null for the CPU.
class OwnedStream {
 public:
  OwnedStream() = default;
  explicit OwnedStream(Device device);
  ~OwnedStream();
  OwnedStream(OwnedStream&& o) noexcept;
  OwnedStream& operator=(OwnedStream&& o) noexcept;
  void* get() const { return stream_; }
  // Waits for the stream's work; RuntimeError when a kernel of it failed.
  void synchronize() const;

 private:
  Device device_ = Device::cpu();
  void* stream_ = nullptr;
};

// Copies `n` bytes between any two devices (CPU included), ordered on the current stream; host
// sides are complete on return. RuntimeError on failure.
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t n);

// Waits for the current stream's work on `d` (a no-op on the CPU); RuntimeError when a kernel
// failed.
void synchronize(Device d);

}  // namespace device
}  // namespace cvm
