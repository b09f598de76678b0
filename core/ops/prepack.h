// Weight prepacking for conv2d and dense: packing a constant weight once for the kernel that
// runs it (KernelEntry::prepack) and handing the packed bytes to that kernel's calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cvm/ndarray.h"
#include "kernel_abi.h"
#include "op_def.h"

namespace cvm {
namespace ops {

// A weight packed by, and only for, the kernel `fn`. `data` null: that kernel declined (or has
// no prepack), so its calls run without.
struct PrepackedWeight {
  kernel::KernelFn fn = nullptr;
  std::shared_ptr<const void> data;
  size_t bytes = 0;
};

// Whether `op` is one whose weight (inputs[1]) can be prepacked: conv2d and dense.
bool op_takes_prepacked(const OpDef& op);

// The kernel that compute() of `op` (op_takes_prepacked) would run now on `inputs` (the
// backend and ISA choice of this thread at this moment).
kernel::KernelFn current_kernel(const OpDef& op, const std::vector<NDArray>& inputs);

// inputs[1] packed by the prepack function of kernel `fn` (current_kernel) for a call of `op`
// with `attrs` and `inputs`; PrepackedWeight{fn, null} when it has none or declines.
PrepackedWeight prepack_weight(const OpDef& op, const OpAttrs& attrs,
                               const std::vector<NDArray>& inputs, kernel::KernelFn fn);

// While it lives, run_kernel() calls of kernel `fn` on this thread get `data` as
// KernelCall::prepacked (calls of any other kernel get null). Not nestable across threads.
class ScopedPrepacked {
 public:
  ScopedPrepacked(kernel::KernelFn fn, const void* data);
  ~ScopedPrepacked();
  ScopedPrepacked(const ScopedPrepacked&) = delete;
  ScopedPrepacked& operator=(const ScopedPrepacked&) = delete;

 private:
  kernel::KernelFn prev_fn_;
  const void* prev_data_;
};

}  // namespace ops
}  // namespace cvm
