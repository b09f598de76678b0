// Scalar reference kernels of the reductions (sum, mean, max, min, argmax) over strided views,
// in the evaluation order fixed by docs/determinism.md.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "convert.h"
#include "reference_keys.h"
#include "params/reduce.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// Float sums use this many interleaved partial sums, combined by a balanced binary tree.
constexpr int kLanes = 16;

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void store(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Calls per_output(out_address, in_address) for every output element, in row-major order over
// the kept (leading) dimensions; in_address is the first input element of that output's block.
template <typename Fn>
void for_each_output(const KernelCall& call, Fn&& per_output) {
  const TensorView& out = call.outputs[0];
  const TensorView& in = call.inputs[0];
  const int k = out.ndim;
  for (int d = 0; d < k; ++d) {
    if (out.shape[d] == 0) return;
  }
  const int64_t in_es = static_cast<int64_t>(elem_size(in.type));
  const int64_t out_es = static_cast<int64_t>(elem_size(out.type));
  int64_t index[kMaxKernelDims] = {};
  for (;;) {
    int64_t in_off = 0, out_off = 0;
    for (int d = 0; d < k; ++d) {
      in_off += index[d] * in.strides[d];
      out_off += index[d] * out.strides[d];
    }
    per_output(static_cast<char*>(out.data) + out_off * out_es,
               static_cast<const char*>(in.data) + in_off * in_es);
    int d = k - 1;
    for (; d >= 0; --d) {
      if (++index[d] < out.shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Calls fn(address) for every element of one output's block: input dimensions [k, ndim) walked
// in row-major order, starting from `base`.
template <typename Fn>
void for_each_reduced(const TensorView& in, int k, const char* base, Fn&& fn) {
  const int nd = in.ndim;
  if (nd == k) {
    fn(base);
    return;
  }
  for (int d = k; d < nd; ++d) {
    if (in.shape[d] == 0) return;
  }
  const int64_t es = static_cast<int64_t>(elem_size(in.type));
  const int64_t len = in.shape[nd - 1];
  const int64_t step = in.strides[nd - 1] * es;
  int64_t index[kMaxKernelDims] = {};
  for (;;) {
    int64_t off = 0;
    for (int d = k; d < nd - 1; ++d) off += index[d] * in.strides[d];
    const char* p = base + off * es;
    for (int64_t i = 0; i < len; ++i, p += step) fn(p);
    int d = nd - 2;
    for (; d >= k; --d) {
      if (++index[d] < in.shape[d]) break;
      index[d] = 0;
    }
    if (d < k) return;
  }
}

int64_t block_size(const KernelCall& call) {
  const TensorView& in = call.inputs[0];
  int64_t n = 1;
  for (int d = call.outputs[0].ndim; d < in.ndim; ++d) n *= in.shape[d];
  return n;
}

// Float accumulation type: double for float64, float for float32, float16 and bfloat16.
template <typename T>
using FloatAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename A, typename T>
A widen(T x) {
  if constexpr (is_small_float_v<T>) {
    return static_cast<A>(to_double(x));  // exact: every float16/bfloat16 is a float
  } else {
    return x;
  }
}

// The accumulator's value as an element: NaN becomes the canonical quiet NaN (sign clear, only
// the top mantissa bit set), since the bits of a NaN produced by additions depend on operand
// order and hardware; float16/bfloat16 round once from the exact accumulator value.
template <typename T, typename A>
T narrow(A x) {
  if (std::isnan(x)) x = canonical_nan<A>();
  if constexpr (is_small_float_v<T>) {
    return from_double<T>(x);
  } else {
    return x;
  }
}

// The float sum of one block: lane i adds elements i, i+16, i+32, ... in order from +0.0,
// then the lanes combine as a balanced binary tree ((l0+l1)+(l2+l3))+... One rounding per add.
template <typename T>
FloatAcc<T> float_sum(const KernelCall& call, const char* base) {
  using A = FloatAcc<T>;
  A lane[kLanes];
  for (A& l : lane) l = A(0);
  uint64_t j = 0;
  for_each_reduced(call.inputs[0], call.outputs[0].ndim, base, [&](const char* p) {
    A& l = lane[j++ % kLanes];
    l = l + widen<A>(load<T>(p));
  });
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int i = 0; i < width; ++i) lane[i] = lane[2 * i] + lane[2 * i + 1];
  }
  return lane[0];
}

// Integer sum of one block in the wrapping type W (the element type, or 64-bit for means).
template <typename T, typename W>
W int_sum(const KernelCall& call, const char* base) {
  W acc = 0;
  for_each_reduced(call.inputs[0], call.outputs[0].ndim, base,
                   [&](const char* p) { acc = wrap_add(acc, static_cast<W>(load<T>(p))); });
  return acc;
}

// Is x strictly more extreme than best? NaN beats every number and nothing beats a NaN, so the
// first NaN of a block wins; among equal numbers the first one wins.
template <bool kMax, typename T>
bool more_extreme(T x, T best) {
  if constexpr (std::is_integral_v<T>) {
    return kMax ? x > best : x < best;
  } else {
    const double vx = to_double(x), vb = to_double(best);
    if (std::isnan(vb)) return false;
    if (std::isnan(vx)) return true;
    return kMax ? vx > vb : vx < vb;
  }
}

// The first most extreme element of one block and its position in the block's walk. With
// `start`, that value competes first (position -1). An empty block gives position -1 and
// *start (T{} without it); the op layer rejects empty blocks except for CVM max's quirk.
template <bool kMax, typename T>
void find_extreme(const KernelCall& call, const char* base, const T* start, int64_t* pos,
                  T* value) {
  int64_t j = 0, best_j = -1;
  bool have = start != nullptr;
  T best = have ? *start : T{};
  for_each_reduced(call.inputs[0], call.outputs[0].ndim, base, [&](const char* p) {
    const T x = load<T>(p);
    if (!have || more_extreme<kMax>(x, best)) {
      best = x;
      best_j = j;
      have = true;
    }
    ++j;
  });
  *pos = best_j;
  *value = best;
}

template <ElemType E, bool kMax>
void extreme_kernel(const KernelCall& call) {
  using T = ElemT<E>;
  [[maybe_unused]] const auto* params = static_cast<const ReduceParams*>(call.params);
  [[maybe_unused]] const T zero{};
  const T* start = nullptr;
  if constexpr (kMax && std::is_integral_v<T>) {
    if (params != nullptr && params->max_starts_at_zero) start = &zero;
  }
  for_each_output(call, [&](char* out, const char* in) {
    int64_t pos;
    T best;
    find_extreme<kMax>(call, in, start, &pos, &best);
    store(out, best);
  });
}

}  // namespace

template <ElemType E>
KernelStatus reduce_sum(const KernelCall& call) {
  using T = ElemT<E>;
  for_each_output(call, [&](char* out, const char* in) {
    if constexpr (std::is_integral_v<T>) {
      store(out, int_sum<T, T>(call, in));
    } else {
      store(out, narrow<T>(float_sum<T>(call, in)));
    }
  });
  return KernelStatus::kDone;
}

template <ElemType E>
KernelStatus reduce_mean(const KernelCall& call) {
  using T = ElemT<E>;
  const int64_t n = block_size(call);
  for_each_output(call, [&](char* out, const char* in) {
    if constexpr (std::is_integral_v<T>) {
      // 64-bit wrapping sum, then division truncating toward zero (unsigned for unsigned T).
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      const W sum = int_sum<T, W>(call, in);
      store(out, n == 0 ? T(0) : static_cast<T>(sum / static_cast<W>(n)));
    } else {
      using A = FloatAcc<T>;
      store(out, narrow<T>(float_sum<T>(call, in) / static_cast<A>(n)));
    }
  });
  return KernelStatus::kDone;
}

template <ElemType E>
KernelStatus reduce_max(const KernelCall& call) {
  extreme_kernel<E, true>(call);
  return KernelStatus::kDone;
}

template <ElemType E>
KernelStatus reduce_min(const KernelCall& call) {
  extreme_kernel<E, false>(call);
  return KernelStatus::kDone;
}

template <ElemType E>
KernelStatus argmax(const KernelCall& call) {
  using T = ElemT<E>;
  for_each_output(call, [&](char* out, const char* in) {
    int64_t pos;
    T best;
    find_extreme<true, T>(call, in, nullptr, &pos, &best);
    store(out, pos < 0 ? int64_t(0) : pos);
  });
  return KernelStatus::kDone;
}

CVM_REFERENCE_REDUCE(CVM_INSTANTIATE_KERNEL)

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
