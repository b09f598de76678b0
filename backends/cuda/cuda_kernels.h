// Declarations of the CUDA kernels listed in cuda_table.cc: the scalar reference's, on the GPU.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace cuda {

// Each kernel enqueues its work on call.stream and returns kDone, or kFailed when the launch
// failed (message: DeviceApi::last_error). These take every call: on a device they end every
// chain (the dp4a entries of cuda_nn_kernels.h may decline before them). Same semantics as the
// scalar reference, bit for bit; views may be strided, broadcast (stride 0) and, for in-place
// operators, the output may be input 0.

#include "reference_kernels.inc"

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
