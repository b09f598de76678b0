// CUDA kernels of the reductions (sum, mean, max, min, argmax), bit for bit the scalar reference.
//
// A group of G threads computes one output element. Thread t of the group walks the block's
// elements j = t, t + G, t + 2G, ... in increasing j (row-major over the reduced dimensions, as
// for_each_reduced in backends/scalar/reduce.cc), then the group combines its threads' states.
// Float sums use G = 16, so thread t holds exactly lane t of docs/determinism.md and the
// shuffle tree below is its balanced tree ((l0+l1)+(l2+l3))+...; the other reductions are
// order-free (wrapping integer sums; extremes tie-broken by block position), so any G gives the
// same bits and large blocks with few outputs take a whole 256-thread block per output.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "convert.h"
#include "reference_keys.h"
#include "cuda_common.cuh"
#include "cuda_kernels.h"
#include "elem_types.h"
#include "params/reduce.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

constexpr int kThreads = 256;   // threads per block of every reduction launch
constexpr int kSumLanes = 16;   // the float sum's partial sums (docs/determinism.md)
constexpr int kWarp = 32;

// Float accumulation type: double for float64, float for float32, float16 and bfloat16.
template <typename T>
using FloatAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename A, typename T>
__host__ __device__ A widen(T x) {
  if constexpr (is_small_float_v<T>) {
    return static_cast<A>(to_double(x));  // exact: every float16/bfloat16 is a float
  } else {
    return x;
  }
}

// The accumulator as an element: NaN becomes the canonical NaN; float16/bfloat16 round once.
template <typename T, typename A>
__host__ __device__ T narrow(A x) {
  if (std::isnan(x)) x = canonical_nan<A>();
  if constexpr (is_small_float_v<T>) {
    return from_double<T>(x);
  } else {
    return x;
  }
}

// Calls op.add(state, x[j], j) for the block elements j = first, first + step, ... < n, in
// increasing j. `base` is the block's first element; the reduced dimensions are [k, in.ndim).
template <typename T, typename Op, typename State>
__host__ __device__ void walk_lane(const TensorView& in, int k, int64_t n, const T* base,
                                   int64_t first, int64_t step, const Op& op, State& state) {
  if (first >= n) return;
  const int nd = in.ndim;
  if (nd == k) {  // nothing reduced: the block is the one element at base (n == 1)
    op.add(state, base[0], 0);
    return;
  }
  if (nd == k + 1) {
    const int64_t s = in.strides[nd - 1];
    for (int64_t j = first; j < n; j += step) op.add(state, base[j * s], j);
    return;
  }
  // n > 0, so every reduced extent is >= 1. idx: the reduced coordinates of j.
  int64_t idx[kMaxKernelDims];
  int64_t rem = first;
  for (int d = nd - 1; d >= k; --d) {
    const int64_t q = rem / in.shape[d];
    idx[d] = rem - q * in.shape[d];
    rem = q;
  }
  for (int64_t j = first;;) {
    int64_t off = 0;
    for (int d = k; d < nd; ++d) off += idx[d] * in.strides[d];
    op.add(state, base[off], j);
    j += step;
    if (j >= n) return;
    idx[nd - 1] += step;
    for (int d = nd - 1; d > k && idx[d] >= in.shape[d]; --d) {
      const int64_t q = idx[d] / in.shape[d];
      idx[d] -= q * in.shape[d];
      idx[d - 1] += q;
    }
  }
}

// ---- the reductions: init / add / combine / finish ----

// Float sum (kMean: divided by n). combine(lo, hi) adds the higher lane's partial on the right.
template <typename T, bool kMean>
struct FloatSumOp {
  using A = FloatAcc<T>;
  using State = A;
  using Out = T;
  static constexpr bool kOrderFree = false;
  __host__ __device__ State init() const { return A(0); }
  __host__ __device__ void add(State& s, T x, int64_t) const { s = s + widen<A>(x); }
  __host__ __device__ void combine(State& lo, const State& hi) const { lo = lo + hi; }
  __host__ __device__ Out finish(State s, int64_t n) const {
    if constexpr (kMean) {
      return narrow<T>(s / static_cast<A>(n));
    } else {
      return narrow<T>(s);
    }
  }
};

// Integer sum wrapping in W: the element type for sums, 64-bit for means (divided by n,
// truncating toward zero; n == 0 gives 0).
template <typename T, bool kMean>
struct IntSumOp {
  using W = std::conditional_t<!kMean, T,
                               std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
  using State = W;
  using Out = T;
  static constexpr bool kOrderFree = true;
  __host__ __device__ State init() const { return W(0); }
  __host__ __device__ void add(State& s, T x, int64_t) const {
    s = wrap_add(s, static_cast<W>(x));
  }
  __host__ __device__ void combine(State& lo, const State& hi) const { lo = wrap_add(lo, hi); }
  __host__ __device__ Out finish(State s, int64_t n) const {
    if constexpr (kMean) {
      return n == 0 ? T(0) : static_cast<T>(s / static_cast<W>(n));
    } else {
      return s;
    }
  }
};

// Is x strictly more extreme than best? NaN beats every number and nothing beats a NaN.
template <bool kMax, typename T>
__host__ __device__ bool more_extreme(T x, T best) {
  if constexpr (std::is_integral_v<T>) {
    return kMax ? x > best : x < best;
  } else {
    const double vx = to_double(x), vb = to_double(best);
    if (std::isnan(vb)) return false;
    if (std::isnan(vx)) return true;
    return kMax ? vx > vb : vx < vb;
  }
}

template <typename T>
struct Extreme {
  T best;
  int64_t pos;  // position of best in the block's walk (-1: the start value)
  int32_t have;
};

// The first most extreme element of the block: the most extreme value, the smallest position
// among equals (what the scalar's strict-replacement walk keeps). kArg: write the position.
template <typename T, bool kMax, bool kArg>
struct ExtremeOp {
  using State = Extreme<T>;
  using Out = std::conditional_t<kArg, int64_t, T>;
  static constexpr bool kOrderFree = true;
  int32_t starts_at_zero;  // reduce_max of integers: 0 competes first, at position -1
  __host__ __device__ State init() const { return State{T{}, -1, 0}; }
  __host__ __device__ void add(State& s, T x, int64_t j) const {
    if (!s.have || more_extreme<kMax>(x, s.best)) s = State{x, j, 1};
  }
  __host__ __device__ void combine(State& lo, const State& hi) const {
    if (!hi.have) return;
    if (!lo.have || more_extreme<kMax>(hi.best, lo.best) ||
        (!more_extreme<kMax>(lo.best, hi.best) && hi.pos < lo.pos)) {
      lo = hi;
    }
  }
  __host__ __device__ Out finish(State s, int64_t) const {
    if (starts_at_zero) {
      State start{T{}, -1, 1};
      combine(start, s);
      s = start;
    }
    if constexpr (kArg) {
      return s.pos < 0 ? int64_t(0) : s.pos;
    } else {
      return s.best;  // T{} for an empty block without a start value
    }
  }
};

// ---- the group combine ----

// __shfl_down_sync of any trivially copyable state, word by word.
template <typename S>
__device__ S shfl_down(const S& v, int delta, int width) {
  constexpr int kWords = static_cast<int>((sizeof(S) + 3) / 4);
  uint32_t w[kWords] = {};
  std::memcpy(w, &v, sizeof(S));
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], delta, width);
  S r;
  std::memcpy(&r, w, sizeof(S));
  return r;
}

// Combines the states of the G threads of each group into the group's thread 0. Within a warp
// a tree: at offset o, thread t (a multiple of 2o) combines thread t + o's state on the right;
// for G = 16 that is the balanced lane tree. G = 256: warps 1..7 then join warp 0's, in order.
template <int G, typename Op>
__device__ typename Op::State group_combine(const Op& op, typename Op::State s) {
  constexpr int kWidth = G < kWarp ? G : kWarp;
#pragma unroll
  for (int o = 1; o < kWidth; o *= 2) op.combine(s, shfl_down(s, o, kWidth));
  if constexpr (G > kWarp) {
    static_assert(G == kThreads, "a group larger than a warp is the whole block");
    __shared__ typename Op::State part[kThreads / kWarp];
    const int warp = threadIdx.x / kWarp;
    if (threadIdx.x % kWarp == 0) part[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < kThreads / kWarp; ++w) op.combine(s, part[w]);
    }
    __syncthreads();  // part is reused by the next output
  }
  return s;
}

// Grid-stride over the outputs, kThreads / G outputs per block and round; every thread of a
// block runs the same rounds (the shuffles and barriers need the whole warp / block).
template <int G, typename T, typename Op>
__global__ void reduce_kernel(TensorView in, TensorView out, int64_t num_out, int64_t n, Op op) {
  static_assert(kThreads % G == 0 && (G <= kWarp || G == kThreads), "group size");
  static_assert(Op::kOrderFree || G == kSumLanes, "a float sum's group is its 16 lanes");
  constexpr int64_t kGroups = kThreads / G;
  const int t = static_cast<int>(threadIdx.x) % G;
  const int64_t group = threadIdx.x / G;
  const int k = out.ndim;
  const T* in_data = static_cast<const T*>(in.data);
  auto* out_data = static_cast<typename Op::Out*>(out.data);
  for (int64_t g0 = static_cast<int64_t>(blockIdx.x) * kGroups; g0 < num_out;
       g0 += static_cast<int64_t>(gridDim.x) * kGroups) {
    const int64_t g = g0 + group;
    typename Op::State s = op.init();
    int64_t out_off = 0;
    if (g < num_out) {
      // The kept coordinates of output g (row-major), through both views' strides.
      int64_t in_off = 0, rem = g;
      for (int d = k - 1; d >= 0; --d) {
        const int64_t q = rem / out.shape[d];
        const int64_t i = rem - q * out.shape[d];
        in_off += i * in.strides[d];
        out_off += i * out.strides[d];
        rem = q;
      }
      walk_lane(in, k, n, in_data + in_off, t, G, op, s);
    }
    s = group_combine<G>(op, s);
    if (g < num_out && t == 0) out_data[out_off] = op.finish(s, n);
  }
}

template <int G, typename T, typename Op>
KernelStatus launch(const KernelCall& call, const Op& op, const char* name) {
  const TensorView& in = call.inputs[0];
  const TensorView& out = call.outputs[0];
  const int64_t num_out = out.numel();
  if (num_out == 0) return KernelStatus::kDone;
  int64_t n = 1;  // block size
  for (int d = out.ndim; d < in.ndim; ++d) n *= in.shape[d];
  constexpr int64_t kGroups = kThreads / G;
  int64_t blocks = (num_out + kGroups - 1) / kGroups;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  reduce_kernel<G, T, Op><<<static_cast<unsigned>(blocks), kThreads, 0, stream_of(call)>>>(
      in, out, num_out, n, op);
  return launched(name);
}

// Order-free reductions: a whole block per output when blocks are large and outputs few.
template <typename T, typename Op>
KernelStatus launch_order_free(const KernelCall& call, const Op& op, const char* name) {
  const TensorView& in = call.inputs[0];
  const TensorView& out = call.outputs[0];
  int64_t n = 1;
  for (int d = out.ndim; d < in.ndim; ++d) n *= in.shape[d];
  if (n >= 4 * kThreads && out.numel() <= 4 * kMaxBlocks) {
    return launch<kThreads, T>(call, op, name);
  }
  return launch<kSumLanes, T>(call, op, name);
}

template <ElemType E, bool kMean>
KernelStatus sum_kernel(const KernelCall& call, const char* name) {
  using T = ElemT<E>;
  if constexpr (std::is_integral_v<T>) {
    return launch_order_free<T>(call, IntSumOp<T, kMean>{}, name);
  } else {
    return launch<kSumLanes, T>(call, FloatSumOp<T, kMean>{}, name);
  }
}

template <ElemType E, bool kMax, bool kArg>
KernelStatus extreme_kernel(const KernelCall& call, const char* name) {
  using T = ElemT<E>;
  ExtremeOp<T, kMax, kArg> op{0};
  if constexpr (kMax && !kArg && std::is_integral_v<T>) {
    const auto* params = static_cast<const ReduceParams*>(call.params);
    op.starts_at_zero = params != nullptr && params->max_starts_at_zero ? 1 : 0;
  }
  return launch_order_free<T>(call, op, name);
}

}  // namespace

template <ElemType E>
KernelStatus reduce_sum(const KernelCall& call) {
  return sum_kernel<E, false>(call, "reduce_sum");
}

template <ElemType E>
KernelStatus reduce_mean(const KernelCall& call) {
  return sum_kernel<E, true>(call, "reduce_mean");
}

template <ElemType E>
KernelStatus reduce_max(const KernelCall& call) {
  return extreme_kernel<E, true, false>(call, "reduce_max");
}

template <ElemType E>
KernelStatus reduce_min(const KernelCall& call) {
  return extreme_kernel<E, false, false>(call, "reduce_min");
}

template <ElemType E>
KernelStatus argmax(const KernelCall& call) {
  return extreme_kernel<E, true, true>(call, "argmax");
}

CVM_REFERENCE_REDUCE(CVM_INSTANTIATE_KERNEL)

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
