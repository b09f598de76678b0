// The scalar reference backend's kernel table: one line per key of reference_keys.h.
#include "kernel_abi.h"
#include "reference_keys.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace {

#define CVM_TYPED(op, T, t) \
  {#op "_" #t "__scalar", #op, ElemType::T, scalar::op<ElemType::T>, kCpuNone},
#define CVM_ONE(what, op, T, fn) {what "__scalar", op, ElemType::T, scalar::fn, kCpuNone},
const KernelEntry kEntries[] = {CVM_REFERENCE_TABLE(CVM_TYPED, CVM_ONE)};
#undef CVM_ONE
#undef CVM_TYPED

}  // namespace

extern const BackendTable kScalarBackend = {
    "scalar", kEntries, sizeof(kEntries) / sizeof(kEntries[0]), nullptr, 1 /* kDLCPU */};

}  // namespace kernel
}  // namespace cvm
