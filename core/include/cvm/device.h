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

}  // namespace cvm
