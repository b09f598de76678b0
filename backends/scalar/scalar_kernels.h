// Declarations of the scalar reference kernels listed in scalar_table.cc.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace scalar {

void fill(const KernelCall& call);  // outputs[0] = params (FillParams), any dtype
void copy(const KernelCall& call);  // outputs[0] = inputs[0], same dtype, moves bytes
void cast(const KernelCall& call);  // outputs[0] = convert(inputs[0]), any dtype pair

template <ElemType T>
void add(const KernelCall& call);
template <ElemType T>
void sub(const KernelCall& call);
template <ElemType T>
void mul(const KernelCall& call);

// ---- elementwise and broadcast (cvm_elementwise.cc, elementwise.cc) ----
// ---- reduce (reduce.cc) ----
// ---- linear algebra (matmul.cc) ----
// ---- nn (nn.cc) ----
// ---- vision (vision.cc) ----
// ---- transform (transform.cc) ----

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
