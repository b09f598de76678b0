// Walks N same-shaped strided views row by row (innermost dimension), for elementwise kernels.
#pragma once

#include <cstdint>

#include "kernel_abi.h"

namespace cvm {
namespace kernel {

// Calls row(ptrs, length, byte_strides) once per innermost row of the common shape, where
// ptrs[k] is view k's address of the row's first element and byte_strides[k] its step in
// bytes. All views must have the same ndim and shape. A 0-d shape is one row of length 1;
// an empty shape calls nothing.
template <int N, typename RowFn>
void for_each_row(const TensorView* const (&views)[N], RowFn&& row) {
  const TensorView& ref = *views[0];
  const int ndim = ref.ndim;
  for (int d = 0; d < ndim; ++d) {
    if (ref.shape[d] == 0) return;
  }
  char* base[N];
  int64_t esize[N];
  for (int k = 0; k < N; ++k) {
    base[k] = static_cast<char*>(views[k]->data);
    esize[k] = kElemSizes[static_cast<int>(views[k]->type)];
  }
  const int64_t length = ndim == 0 ? 1 : ref.shape[ndim - 1];
  int64_t inner[N];
  for (int k = 0; k < N; ++k) inner[k] = ndim == 0 ? 0 : views[k]->strides[ndim - 1] * esize[k];
  const int outer_dims = ndim == 0 ? 0 : ndim - 1;
  int64_t index[kMaxKernelDims] = {};
  char* ptr[N];
  for (;;) {
    for (int k = 0; k < N; ++k) {
      int64_t off = 0;
      for (int d = 0; d < outer_dims; ++d) off += index[d] * views[k]->strides[d];
      ptr[k] = base[k] + off * esize[k];
    }
    row(ptr, length, inner);
    int d = outer_dims - 1;
    for (; d >= 0; --d) {
      if (++index[d] < ref.shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace kernel
}  // namespace cvm
