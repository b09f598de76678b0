// Weight prepacking for conv2d and dense: packing a constant weight once for the chain entry
// that will run it (KernelEntry::prepack) and handing the packed bytes to that entry's calls.
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

// A weight packed by, and only for, the kernel entry `entry`. `data` null: that entry declined
// (or has no prepack), so its calls run without.
struct PrepackedWeight {
  const kernel::KernelEntry* entry = nullptr;
  std::shared_ptr<const void> data;
  size_t bytes = 0;
};

// inputs[1] packed by the prepack function of `entry` for a call of `op` with `attrs` and
// `inputs`; PrepackedWeight{&entry, null} when it has none or declines.
PrepackedWeight prepack_weight(const OpDef& op, const OpAttrs& attrs,
                               const std::vector<NDArray>& inputs,
                               const kernel::KernelEntry& entry);

}  // namespace ops
}  // namespace cvm
