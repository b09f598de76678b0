// Turns NDArrays into kernel views and runs kernels: the bridge from the op layer to backends.
#pragma once

#include <vector>

#include "cvm/ndarray.h"
#include "kernel_abi.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {

// Operands of one elementwise kernel call: arrays of the same shape (inputs already broadcast)
// and the data pointer to use for each (mutable for outputs, taken by the caller first).
struct Operand {
  const NDArray* array;
  void* data;
};

// Kernel views of same-shaped operands with size-1 dimensions dropped and dimensions merged
// wherever every operand's strides allow, so kernels see the fewest, longest rows. LogicError
// when more than kMaxKernelDims dimensions remain.
std::vector<kernel::TensorView> elementwise_views(const std::vector<Operand>& operands);

// For kernels whose elements do not depend on each other's order (copy, cast): when another
// dimension along which some view is contiguous is longer than the last one, swaps the two in
// every view, so that row walks get long rows (a transpose from NCHW to NHWC with two channels
// is otherwise a row of two elements per pixel).
void longest_contiguous_rows_last(std::vector<kernel::TensorView>& views);

// The kernel view of `array` exactly as it is (no dimension dropped or merged), over `data`:
// the array's data(), or for an output its mutable_data() taken by the caller first. For ops
// whose kernels index dimensions themselves (conv2d, pooling, ...). LogicError when the array
// has more than kMaxKernelDims dimensions.
kernel::TensorView plain_view(const NDArray& array, void* data);
// plain_view() of every output (over its mutable_data(), taken before any input's data(), as
// in-place ops need) followed by every input: the view order run_kernel() expects.
std::vector<kernel::TensorView> plain_views(const std::vector<NDArray>& outputs,
                                            const std::vector<NDArray>& inputs);

// Runs `chain` over views [0, num_outputs) as outputs and the rest as inputs: its entries in
// order until one takes the call (the last, the scalar reference, takes every call), with the
// thread pool's ParallelFor when cvm::num_threads() > 1. `packed` goes to entry `packed_for`
// only, as its KernelCall::prepacked. Records the entry that ran in chain.last_ran.
void run_kernel(const KernelChain& chain, const std::vector<kernel::TensorView>& views,
                int num_outputs, const void* params,
                const kernel::KernelEntry* packed_for = nullptr, const void* packed = nullptr);
// As run_kernel, but tries only the entries `admit` accepts (every entry when null) and
// returns false, with nothing run, when each of them declines.
bool try_run_kernel(const KernelChain& chain, const std::vector<kernel::TensorView>& views,
                    int num_outputs, const void* params, const kernel::KernelEntry* packed_for,
                    const void* packed, bool (*admit)(const kernel::KernelEntry&));

// The kernels copying dtype `from` into dtype `to` calls: {"copy", from}, then {"cast", to} when
// the dtypes differ — the chains copy_into() takes, in that order.
std::vector<KernelKey> copy_kernel_keys(DataType from, DataType to);
// cvm::copy_into (array_ops.h) through bound chains of copy_kernel_keys(src dtype, dst dtype):
// `copy`, and `cast`, needed only when the dtypes differ.
void copy_into(NDArray& dst, const NDArray& src, const KernelChain& copy, const KernelChain* cast);

// LogicError unless `dst` can be written element by element: defined and not a broadcast view
// (a stride of 0 on a dimension longer than 1). `what` names the operation.
void verify_writable(const NDArray& dst, const char* what);

}  // namespace ops
}  // namespace cvm
