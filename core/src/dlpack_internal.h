// Internal DLPack helpers: import with a read-only flag, and validated wrapping of a DLTensor.
#pragma once

#include <dlpack/dlpack.h>

#include <memory>

#include "cvm/ndarray.h"

namespace cvm {
namespace detail {

// NDArray::from_dlpack with the producer's read-only flag: a read-only import copies itself on
// the first mutable_data() instead of writing into the producer's memory. Takes ownership of
// `managed` in every path (its deleter, when not null, runs exactly once; before this returns
// when validation fails or the memory had to be copied).
NDArray from_dlpack(DLManagedTensor* managed, bool read_only);

// Validates `t` as a tensor cvmrt can use (CPU device, supported dtype with lanes 1, 0..32 dims,
// extents >= 0, element count and byte span within int64, data non-null unless empty) and wraps
// the memory at `t.data + t.byte_offset` without copying (misaligned memory is copied, see
// NDArray::from_external). `t.strides` null means compact row-major. `what` prefixes error
// messages, e.g. "CVMSaveParamsDict: tensor \"w\"". Throws LogicError; `keepalive` is a by-value
// parameter, so it is released while the exception unwinds.
NDArray wrap_dltensor(const DLTensor& t, std::shared_ptr<const void> keepalive, bool read_only,
                      const char* what);

}  // namespace detail
}  // namespace cvm
