// The output-row walk of constant padding (4-byte elements), shared by every backend's pad kernel.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernel_abi.h"
#include "params/float_nn.h"

namespace cvm {
namespace kernel {

// One output row of a pad: y_len elements at `y` (byte step ys); elements [lo, hi) come from
// `x` (byte step xs, x points at the input element of output column lo), the others are the
// fill value. A row whose outer index lies in the padding has lo == hi (x is then null).
struct PadRow {
  char* y;
  int64_t ys;
  const char* x;
  int64_t xs;
  int64_t lo, hi, y_len;
};

// Calls row(PadRow) once per output row (the last dimension), in row-major order. A 0-d pad is
// one row of one element; an empty output calls nothing.
template <class RowFn>
void for_each_pad_row(const KernelCall& call, RowFn&& row) {
  const auto& p = *static_cast<const PadParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  constexpr int64_t kBytes = 4;
  const int nd = y.ndim;
  const auto* xb = static_cast<const char*>(x.data);
  auto* yb = static_cast<char*>(y.data);
  if (nd == 0) {
    row(PadRow{yb, kBytes, xb, kBytes, 0, 1, 1});
    return;
  }
  for (int d = 0; d < nd; ++d) {
    if (y.shape[d] == 0) return;
  }
  const int last = nd - 1;
  const int64_t begin = p.begin[last], row_in = x.shape[last], y_len = y.shape[last];
  // Output columns [lo, hi) hold input columns [lo - begin, hi - begin).
  const int64_t lo = begin < 0 ? 0 : (begin > y_len ? y_len : begin);
  int64_t hi = begin + row_in;
  hi = hi < lo ? lo : (hi > y_len ? y_len : hi);
  const int64_t xs = x.strides[last] * kBytes, ys = y.strides[last] * kBytes;
  int64_t index[kMaxKernelDims] = {};
  for (;;) {
    bool inside = true;
    int64_t x_off = 0, y_off = 0;
    for (int d = 0; d < last; ++d) {
      const int64_t i = index[d] - p.begin[d];
      inside = inside && i >= 0 && i < x.shape[d];
      x_off += i * x.strides[d];
      y_off += index[d] * y.strides[d];
    }
    if (inside && lo < hi) {
      row(PadRow{yb + y_off * kBytes, ys, xb + x_off * kBytes + (lo - begin) * xs, xs, lo, hi,
                 y_len});
    } else {
      row(PadRow{yb + y_off * kBytes, ys, nullptr, xs, 0, 0, y_len});
    }
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++index[d] < y.shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Element by element, any strides: the reference row (and the strided case of the vector ones).
inline void pad_row_elements(const PadRow& r, uint32_t value_bits) {
  for (int64_t j = 0; j < r.y_len; ++j) {
    const void* src = j >= r.lo && j < r.hi ? static_cast<const void*>(r.x + (j - r.lo) * r.xs)
                                            : static_cast<const void*>(&value_bits);
    std::memcpy(r.y + j * r.ys, src, 4);
  }
}

// A row as runs: fill [0, lo), one copy of [lo, hi), fill [hi, y_len) when both views are
// contiguous along the row; element by element otherwise. fill(dst, count, value_bits) writes
// `count` 4-byte copies of the value (a backend's vector stores).
template <class FillFn>
void pad_row_runs(const PadRow& r, uint32_t value_bits, FillFn&& fill) {
  if (r.ys != 4 || (r.hi > r.lo && r.xs != 4)) {
    pad_row_elements(r, value_bits);
    return;
  }
  fill(r.y, r.lo, value_bits);
  if (r.hi > r.lo) std::memcpy(r.y + 4 * r.lo, r.x, static_cast<size_t>(4 * (r.hi - r.lo)));
  fill(r.y + 4 * r.hi, r.y_len - r.hi, value_bits);
}

// A whole pad kernel over one backend's vector store: store_lanes(dst) writes kLanes copies of
// the fill value (the backend splats it once), the tail is filled element by element.
template <int kLanes, class StoreLanes>
void pad_b32_with(const KernelCall& call, StoreLanes&& store_lanes) {
  const uint32_t value = static_cast<const PadParams*>(call.params)->value_bits;
  auto fill = [&](char* y, int64_t n, uint32_t v) {
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) store_lanes(y + 4 * i);
    for (; i < n; ++i) std::memcpy(y + 4 * i, &v, 4);
  };
  for_each_pad_row(call, [&](const PadRow& r) { pad_row_runs(r, value, fill); });
}

}  // namespace kernel
}  // namespace cvm
