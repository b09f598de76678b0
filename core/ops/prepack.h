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

// The kernel that compute() of `op` (takes_prepacked_weight) would run now on `inputs` (the
// backend and ISA choice of this thread at this moment).
kernel::KernelFn current_kernel(const OpDef& op, const std::vector<NDArray>& inputs);

// inputs[1] packed by the prepack function of kernel `fn` (current_kernel) for a call of `op`
// with `attrs` and `inputs`; PrepackedWeight{fn, null} when it has none or declines.
PrepackedWeight prepack_weight(const OpDef& op, const OpAttrs& attrs,
                               const std::vector<NDArray>& inputs, kernel::KernelFn fn);

}  // namespace ops
}  // namespace cvm
