// Declarations of the CUDA int8 conv2d and dense paths (nn_dp4a.cu), listed in cuda_table.cc.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace cuda {

// int32 conv2d / dense whose operands may fit int8: packed to int8 in the params' scratch and
// summed with __dp4a when every x and w value lies in [-128, 127], else the exact general path
// (nn.cu), decided on the device; the same bits as conv2d_i32 / dense_i32 either way. They
// decline (before enqueuing anything) without scratch or for shapes they do not suit.
KernelStatus conv2d_i8i32_dp4a(const KernelCall& call);  // Conv2dParams; inputs x, w[, bias]
KernelStatus dense_i8i32_dp4a(const KernelCall& call);   // DenseParams; inputs x, w[, bias]

// Their KernelEntry::suits, which the kernels also decline by: a conv2d group of at least 3
// input channels whose kernel window fits the staged weights; a dense of at least 5 rows (with
// fewer, packing w costs what __dp4a saves).
bool conv2d_dp4a_suits(const TensorView* inputs, int32_t num_inputs);
bool dense_dp4a_suits(const TensorView* inputs, int32_t num_inputs);

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
