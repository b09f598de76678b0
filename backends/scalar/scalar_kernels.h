// Declarations of the scalar reference kernels listed in scalar_table.cc.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace scalar {

// The scalar reference takes every call: its kernels return KernelStatus::kDone, never kDeclined.
#include "reference_kernels.inc"

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
