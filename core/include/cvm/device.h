// Device: where a tensor's memory lives (a DLDevice; CPU also stands for the wasm heap).
#pragma once

#include <dlpack/dlpack.h>

#include <string>

#include "cvm/export.h"

namespace cvm {

struct CVM_EXPORT Device {
  DLDeviceType type = kDLCPU;
  int id = 0;

  static Device cpu() { return Device{kDLCPU, 0}; }
  static Device cuda(int id = 0) { return Device{kDLCUDA, id}; }
  static Device from_dl(DLDevice d) { return Device{d.device_type, d.device_id}; }

  DLDevice dl() const { return DLDevice{type, id}; }
  bool is_cpu() const { return type == kDLCPU; }
  bool operator==(const Device& o) const { return type == o.type && id == o.id; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string name() const;  // "cpu", "cuda:0"
};

// Devices of `type` this process can use: 1 for kDLCPU; for kDLCUDA the GPUs the CUDA driver
// reports (0 in a build without the CUDA backend, or without a driver or a device). When it is
// 0 and `why` is given, *why says why ("this build has no CUDA backend ...", "the CUDA runtime
// found no usable device: cudaErrorInsufficientDriver ..."). Asked once per process.
CVM_EXPORT int device_count(DLDeviceType type, std::string* why = nullptr);

// Why `device` cannot be used by this process, "" when it can: device_count's reason when there
// are none of its kind, or "it does not exist: this machine has 2 CUDA devices" for an id past
// the last. Never throws, whatever the build.
CVM_EXPORT std::string device_unavailable_reason(Device device);

// One line about a device: "cpu", or for a GPU its name, architecture and memory
// ("NVIDIA H100 80GB HBM3, sm_90, 79.1 GiB, 132 SMs"). RuntimeError when it is unavailable.
CVM_EXPORT std::string describe_device(Device device);

// Waits until the work this thread enqueued on `device` is done (no-op for the CPU). Runs and
// copies that return results to the host already wait; this is for timing device-only work.
// RuntimeError when a kernel failed or the device is unavailable.
CVM_EXPORT void synchronize(Device device);

}  // namespace cvm
