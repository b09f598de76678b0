// Device names.
#include "cvm/device.h"

namespace cvm {

std::string Device::name() const {
  switch (type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda:" + std::to_string(id);
    default: return "device" + std::to_string(static_cast<int>(type)) + ":" + std::to_string(id);
  }
}

}  // namespace cvm
