// SIMD128 int32 reductions: reduce_sum (wrapping) and reduce_max, over the view layout of
// params/reduce.h. Integer sums wrap modulo 2^32 and max is order-free, so any lane order gives
// the reference's bits. Calls that reduce nothing, and layouts without a unit stride along the
// last reduced or the last kept dimension, are declined (the chain's next entry takes them).
#include <cstdint>

#include "params/reduce.h"
#include "simd128.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

struct SumOp {
  static constexpr int32_t kInit = 0;
  static v128_t vec(v128_t a, v128_t b) { return wasm_i32x4_add(a, b); }
  static int32_t one(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
  static int32_t fold(v128_t v) { return static_cast<int32_t>(hsum(v)); }
};

struct MaxOp {
  static constexpr int32_t kInit = INT32_MIN;
  static v128_t vec(v128_t a, v128_t b) { return wasm_i32x4_max(a, b); }
  static int32_t one(int32_t a, int32_t b) { return a < b ? b : a; }
  static int32_t fold(v128_t v) { return hmax(v); }
};

// Odometer over dimensions [first, last) of `shape`: calls fn(offset) for every index in
// row-major order, where offset = sum of index[d] * strides[d]. Nothing when an extent is 0.
template <typename Fn>
void for_each_index(const int64_t* shape, const int64_t* strides, int first, int last, Fn&& fn) {
  for (int d = first; d < last; ++d) {
    if (shape[d] == 0) return;
  }
  int64_t index[kMaxKernelDims] = {};
  for (;;) {
    int64_t off = 0;
    for (int d = first; d < last; ++d) off += index[d] * strides[d];
    fn(off);
    int d = last - 1;
    for (; d >= first; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
    if (d < first) return;
  }
}

// Reduced dimensions ending in a unit-stride one: each output combines whole contiguous rows.
template <typename Op>
void reduce_rows(const TensorView& in, const TensorView& out, int32_t init) {
  const int k = out.ndim, nd = in.ndim;
  const int64_t len = in.shape[nd - 1];
  const auto* base = static_cast<const int32_t*>(in.data);
  auto* obase = static_cast<int32_t*>(out.data);
  int64_t oindex[kMaxKernelDims] = {};
  for (int d = 0; d < k; ++d) {
    if (out.shape[d] == 0) return;
  }
  for (;;) {
    int64_t in_off = 0, out_off = 0;
    for (int d = 0; d < k; ++d) {
      in_off += oindex[d] * in.strides[d];
      out_off += oindex[d] * out.strides[d];
    }
    v128_t acc = wasm_i32x4_splat(Op::kInit);
    int32_t tail = init;
    bool any = false;
    for_each_index(in.shape, in.strides, k, nd - 1, [&](int64_t off) {
      const int32_t* row = base + in_off + off;
      int64_t i = 0;
      for (; i + 4 <= len; i += 4) acc = Op::vec(acc, load4(row + i));
      for (; i < len; ++i) tail = Op::one(tail, row[i]);
      any = any || len > 0;
    });
    // An empty block gives 0 for both ops, as the reference's does.
    obase[out_off] = any ? Op::one(Op::fold(acc), tail) : 0;
    int d = k - 1;
    for (; d >= 0; --d) {
      if (++oindex[d] < out.shape[d]) break;
      oindex[d] = 0;
    }
    if (d < 0) return;
  }
}

// The innermost kept dimension has unit stride in input and output: the output row is the
// accumulator, and each element of the reduced block adds one contiguous input row to it.
template <typename Op>
void reduce_columns(const TensorView& in, const TensorView& out, int32_t init) {
  const int k = out.ndim, nd = in.ndim;
  const int64_t cols = out.shape[k - 1];
  const int64_t len = in.shape[nd - 1], step = in.strides[nd - 1];
  const auto* base = static_cast<const int32_t*>(in.data);
  auto* obase = static_cast<int32_t*>(out.data);
  bool empty_block = false;
  for (int d = k; d < nd; ++d) empty_block = empty_block || in.shape[d] == 0;
  for (int d = 0; d < k; ++d) {
    if (out.shape[d] == 0) return;
  }
  const v128_t vinit = wasm_i32x4_splat(init);
  int64_t oindex[kMaxKernelDims] = {};
  for (;;) {
    int64_t in_off = 0, out_off = 0;
    for (int d = 0; d < k - 1; ++d) {
      in_off += oindex[d] * in.strides[d];
      out_off += oindex[d] * out.strides[d];
    }
    int32_t* dst = obase + out_off;
    int64_t c = 0;
    for (; c + 4 <= cols; c += 4) store4(dst + c, empty_block ? wasm_i32x4_splat(0) : vinit);
    for (; c < cols; ++c) dst[c] = empty_block ? 0 : init;
    if (!empty_block) {
      for_each_index(in.shape, in.strides, k, nd - 1, [&](int64_t off) {
        for (int64_t i = 0; i < len; ++i) {
          const int32_t* src = base + in_off + off + i * step;
          int64_t j = 0;
          for (; j + 4 <= cols; j += 4) store4(dst + j, Op::vec(load4(dst + j), load4(src + j)));
          for (; j < cols; ++j) dst[j] = Op::one(dst[j], src[j]);
        }
      });
    }
    int d = k - 2;
    for (; d >= 0; --d) {
      if (++oindex[d] < out.shape[d]) break;
      oindex[d] = 0;
    }
    if (d < 0) return;
  }
}

// init: the accumulator's start, already combined with Op's identity (0 for sums; INT32_MIN, or
// 0 under max's start-at-zero quirk, for max). Declines, having written nothing, what neither
// path covers.
template <typename Op>
KernelStatus reduce(const KernelCall& call, int32_t init) {
  const TensorView& in = call.inputs[0];
  const TensorView& out = call.outputs[0];
  const int k = out.ndim, nd = in.ndim;
  if (nd == k) return KernelStatus::kDeclined;  // nothing reduced: a copy, the reference's job
  if (in.strides[nd - 1] == 1) {
    reduce_rows<Op>(in, out, init);
    return KernelStatus::kDone;
  }
  if (k >= 1 && in.strides[k - 1] == 1 && out.strides[k - 1] == 1) {
    reduce_columns<Op>(in, out, init);
    return KernelStatus::kDone;
  }
  return KernelStatus::kDeclined;
}

}  // namespace

KernelStatus reduce_sum_i32__wasm_simd128(const KernelCall& call) {
  return reduce<SumOp>(call, 0);
}

KernelStatus reduce_max_i32__wasm_simd128(const KernelCall& call) {
  const auto* params = static_cast<const ReduceParams*>(call.params);
  const int32_t init = params != nullptr && params->max_starts_at_zero ? 0 : INT32_MIN;
  return reduce<MaxOp>(call, init);
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
