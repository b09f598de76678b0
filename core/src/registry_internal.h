// Kernel lookup for the op layer, built from the backends' tables.
#pragma once

#include <vector>

#include "cvm/dtype.h"
#include "cvm/device.h"
#include "kernel_abi.h"

namespace cvm {

// The kernel element type of a supported DataType.
kernel::ElemType elem_type_of(DataType t);

// The kernel to run `op` on outputs of element type `t` for arrays on `device`: from the
// preferred backend when it has a usable one, else from the scalar reference. LogicError when
// no compiled backend has the op for that type.
kernel::KernelFn find_kernel(const char* op, kernel::ElemType t, Device device);

// The compiled backends' tables, best first (scalar last).
const std::vector<const kernel::BackendTable*>& backend_tables();

}  // namespace cvm
