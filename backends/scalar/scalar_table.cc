// The scalar reference backend's kernel table: one line per kernel.
#include "kernel_abi.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace s = scalar;

#define CVM_ARITH(T) \
  {"add", E::T, "ref", s::add<E::T>, kCpuNone}, \
  {"sub", E::T, "ref", s::sub<E::T>, kCpuNone}, \
  {"mul", E::T, "ref", s::mul<E::T>, kCpuNone},

const KernelEntry kEntries[] = {
    {"fill", E::kAny, "ref", s::fill, kCpuNone},
    {"copy", E::kAny, "ref", s::copy, kCpuNone},
    {"cast", E::kAny, "ref", s::cast, kCpuNone},
    CVM_ARITH(kInt8) CVM_ARITH(kInt16) CVM_ARITH(kInt32) CVM_ARITH(kInt64)
    CVM_ARITH(kUInt8) CVM_ARITH(kUInt16) CVM_ARITH(kUInt32) CVM_ARITH(kUInt64)
    CVM_ARITH(kFloat16) CVM_ARITH(kBFloat16) CVM_ARITH(kFloat32) CVM_ARITH(kFloat64)
    // ---- elementwise and broadcast (cvm_elementwise.cc, elementwise.cc) ----
    // ---- reduce (reduce.cc) ----
    // ---- linear algebra (matmul.cc) ----
    // ---- nn (nn.cc) ----
    // ---- vision (vision.cc) ----
    // ---- transform (transform.cc) ----
};
#undef CVM_ARITH

}  // namespace

extern const BackendTable kScalarBackend = {
    "scalar", kEntries, sizeof(kEntries) / sizeof(kEntries[0]), nullptr, 1 /* kDLCPU */};

}  // namespace kernel
}  // namespace cvm
