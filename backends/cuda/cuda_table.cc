// The CUDA backend's kernel table: the int8 fast paths, then one line per key of reference_keys.h.
#include "cuda_kernels.h"
#include "cuda_nn_kernels.h"
#include "kernel_abi.h"
#include "reference_keys.h"

namespace cvm {
namespace kernel {
namespace {

#define CVM_TYPED(op, T, t) \
  {#op "_" #t "__cuda", #op, ElemType::T, cuda::op<ElemType::T>, kCpuNone},
#define CVM_ONE(what, op, T, fn) {what "__cuda", op, ElemType::T, cuda::fn, kCpuNone},
const KernelEntry kEntries[] = {
    // int8 operands (decided on the device, exact fallback there); decline without scratch.
    // Before the general conv2d_i32 / dense_i32 lines: a chain follows table order, and a node
    // whose shapes they do not suit moves them behind (cuda_nn_kernels.h).
    {"conv2d_i8i32__cuda_dp4a", "conv2d", ElemType::kInt32, cuda::conv2d_i8i32_dp4a, kCpuNone,
     nullptr, cuda::conv2d_dp4a_suits},
    {"dense_i8i32__cuda_dp4a", "dense", ElemType::kInt32, cuda::dense_i8i32_dp4a, kCpuNone,
     nullptr, cuda::dense_dp4a_suits},
    CVM_REFERENCE_TABLE(CVM_TYPED, CVM_ONE)};
#undef CVM_ONE
#undef CVM_TYPED

}  // namespace

extern const BackendTable kCudaBackend = {
    "cuda", kEntries, sizeof(kEntries) / sizeof(kEntries[0]), nullptr, 2 /* kDLCUDA */};

}  // namespace kernel
}  // namespace cvm
