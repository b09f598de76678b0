// Small SIMD128 helpers shared by the wasm kernel sources (all compiled with -msimd128),
// among them the CVM clamp rule in vector form (Clamp, round_shift, OutputClamp) and a conv2d's
// fused output stage (OutputStage).
#pragma once

#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>

#include "params/elementwise.h"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace wasm {

// Four int32 at p (any alignment).
inline v128_t load4(const int32_t* p) { return wasm_v128_load(p); }
inline void store4(int32_t* p, v128_t v) { wasm_v128_store(p, v); }

// p[0], p[S], p[2S], p[3S]. Reads only those elements' span: the stride-2 form loads p[0..3]
// and p[3..6], never p[7], so a window ending at the last element of an array stays inside it.
template <int S>
inline v128_t load4_strided(const int32_t* p, int64_t step) {
  if constexpr (S == 1) {
    return wasm_v128_load(p);
  } else if constexpr (S == 2) {
    return wasm_i32x4_shuffle(wasm_v128_load(p), wasm_v128_load(p + 3), 0, 2, 5, 7);
  } else {
    return wasm_i32x4_make(p[0], p[step], p[2 * step], p[3 * step]);
  }
}

// i32x4.shr_s / i32x4.shl by a run-time count (taken modulo 32). LLVM 14 hoists the count's
// splat out of a loop and then lowers the shift as four extract_lane / i32.shr_s / replace_lane
// sequences; an opaque copy of the count made next to the shift keeps the splat in the loop
// body, where it lowers to the one instruction.
inline v128_t shr_var(v128_t v, uint32_t count) {
  __asm__ volatile("" : "+r"(count));
  return wasm_i32x4_shr(v, count);
}
inline v128_t shl_var(v128_t v, uint32_t count) {
  __asm__ volatile("" : "+r"(count));
  return wasm_i32x4_shl(v, count);
}

// clamp(v, lo, hi) of the CVM clamping ops (lo <= hi, validated by the op layer).
struct Clamp {
  Clamp(int32_t lo_in, int32_t hi_in)
      : lo(lo_in), hi(hi_in), vlo(wasm_i32x4_splat(lo_in)), vhi(wasm_i32x4_splat(hi_in)) {}
  explicit Clamp(const CvmClampParams& p) : Clamp(p.lo, p.hi) {}
  v128_t vec(v128_t v) const { return wasm_i32x4_min(wasm_i32x4_max(v, vlo), vhi); }
  int32_t one(int32_t v) const { return v < lo ? lo : v > hi ? hi : v; }
  int32_t lo, hi;
  v128_t vlo, vhi;
};

// The rounding shift of cvm_right_shift by s in 1..32: ((v >> (s - 1)) + 1) >> 1 with arithmetic
// shifts and a wrapping add (both counts in 0..31; i32x4.shr_s takes its count modulo 32). The
// scalar form, with the clamp after it: apply_clamp_one (params/elementwise.h).
inline v128_t round_shift(v128_t v, int32_t s) {
  const v128_t t = wasm_i32x4_add(shr_var(v, static_cast<uint32_t>(s - 1)), wasm_i32x4_splat(1));
  return wasm_i32x4_shr(t, 1);
}

// The clamp a conv2d / dense kernel applies to its outputs (after the bias) just before it
// stores them: Conv2dParams::clamp / DenseParams::clamp, or none when null. round_shift when
// shift > 0, then Clamp: the cvm_right_shift / clip kernels' rule, so the bits equal the
// separate pass. one(): the same for one value (apply_clamp_one).
class OutputClamp {
 public:
  OutputClamp() : OutputClamp(nullptr) {}
  explicit OutputClamp(const CvmClampParams* p)
      : on_(p != nullptr), p_(p != nullptr ? *p : CvmClampParams{0, 0, 0}), c_(p_) {}
  v128_t vec(v128_t v) const {
    if (!on_) return v;
    return c_.vec(p_.shift > 0 ? round_shift(v, p_.shift) : v);
  }
  int32_t one(int32_t v) const { return on_ ? apply_clamp_one(v, p_) : v; }

 private:
  bool on_;
  CvmClampParams p_;
  Clamp c_;
};

// What a conv2d kernel applies to its outputs (after the bias) just before it stores them:
// Conv2dParams::clamp (OutputClamp), then Conv2dParams::scale when set: times the output
// channel's multiplier with wrapping i32x4.mul (the low 32 bits of the product), then the
// scale's clamp (OutputClamp again). Either may be null. channel(oc): the stage of output
// channel oc, to keep in a local for that channel's stores (vec(), one()).
class OutputStage {
 public:
  class Channel {
   public:
    v128_t vec(v128_t v) const {
      v = clamp_.vec(v);
      return scaled_ ? then_.vec(wasm_i32x4_mul(v, m_)) : v;
    }
    int32_t one(int32_t v) const {
      v = clamp_.one(v);
      if (!scaled_) return v;
      const uint32_t prod = static_cast<uint32_t>(v) * static_cast<uint32_t>(m1_);
      return then_.one(static_cast<int32_t>(prod));
    }

   private:
    friend class OutputStage;
    Channel(const OutputClamp& clamp, const OutputClamp& then, bool scaled, int32_t m)
        : clamp_(clamp), then_(then), scaled_(scaled), m1_(m), m_(wasm_i32x4_splat(m)) {}
    OutputClamp clamp_, then_;
    bool scaled_;
    int32_t m1_;
    v128_t m_;
  };

  OutputStage() : OutputStage(nullptr, nullptr) {}
  OutputStage(const CvmClampParams* clamp, const ChannelScale* scale)
      : clamp_(clamp),
        then_(scale != nullptr ? &scale->clamp : nullptr),
        multiplier_(scale != nullptr ? scale->multiplier : nullptr) {}
  Channel channel(int64_t oc) const {
    const bool scaled = multiplier_ != nullptr;
    return Channel(clamp_, then_, scaled, scaled ? multiplier_[oc] : 0);
  }

 private:
  OutputClamp clamp_, then_;
  const int32_t* multiplier_;
};

// Lane sum with two's-complement wrapping (lane order is irrelevant modulo 2^32).
inline uint32_t hsum(v128_t v) {
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return static_cast<uint32_t>(wasm_i32x4_extract_lane(v, 0));
}

inline int32_t hmax(v128_t v) {
  v = wasm_i32x4_max(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_max(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_i32x4_extract_lane(v, 0);
}

inline int32_t hmin(v128_t v) {
  v = wasm_i32x4_min(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_min(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_i32x4_extract_lane(v, 0);
}

// The int16 halves of a's and b's lanes interleaved: lanes (a0, b0, a1, b1, ...). Exact when
// every lane of a and b is in int16 range (the low half of such an int32 is its value).
inline v128_t interleave_low16(v128_t a, v128_t b) {
  return wasm_i8x16_shuffle(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
}

// ---- int8 activations (KernelEntry::takes_int8_activations) ----
// conv2d and dense may read x and write y as int8 views of the values int32 ones would hold:
// x when its values fit int8, y when the call's clamp keeps every output within int8.

// Four int8 at p as int32 lanes (sign-extended).
inline v128_t load4(const int8_t* p) {
  return wasm_i32x4_extend_low_i16x8(wasm_i16x8_extend_low_i8x16(wasm_v128_load32_zero(p)));
}

// load4_strided of int8 elements, as int32 lanes (reads only the four elements).
template <int S>
inline v128_t load4_strided(const int8_t* p, int64_t step) {
  if constexpr (S == 1) {
    return load4(p);
  } else {
    const int64_t s = S == 0 ? step : S;
    return wasm_i32x4_make(p[0], p[s], p[2 * s], p[3 * s]);
  }
}

// The four lanes of v (each within int8) as int8 at p.
inline void store4(int8_t* p, v128_t v) {
  const v128_t h = wasm_i16x8_narrow_i32x4(v, v);
  wasm_v128_store32_lane(p, wasm_i8x16_narrow_i16x8(h, h), 0);
}

// Whether a conv2d / dense call's x (inputs[0]) and y (outputs[0]) have element types its
// paths take: int32 or int8 x; int32 y, or int8 y when `clamp` is set and the last clamp of
// the stage (the channel scale's, if any) lies within [-128, 127]. A call that fails this is
// declined.
inline bool act_types_ok(const KernelCall& call, const CvmClampParams* clamp,
                         const ChannelScale* scale) {
  const ElemType xt = call.inputs[0].type, yt = call.outputs[0].type;
  if (xt != ElemType::kInt32 && xt != ElemType::kInt8) return false;
  if (yt == ElemType::kInt32) return true;
  const CvmClampParams* last = scale != nullptr ? &scale->clamp : clamp;
  return yt == ElemType::kInt8 && clamp != nullptr && last->lo >= -128 && last->hi <= 127;
}

// Elements of an activation view (x or y of conv2d / dense), int32 or int8 as its type says,
// addressed by element index from `data`: the paths test `i8` where they load or store.
struct Act {
  void* data;
  bool i8;

  explicit Act(const TensorView& v) : data(v.data), i8(v.type == ElemType::kInt8) {}
  Act(void* d, bool is_i8) : data(d), i8(is_i8) {}
  Act at(ptrdiff_t i) const {
    return {static_cast<char*>(data) + (i8 ? i : 4 * i), i8};
  }
  const int32_t* s32() const { return static_cast<const int32_t*>(data); }
  const int8_t* s8() const { return static_cast<const int8_t*>(data); }
  int32_t get(ptrdiff_t i) const { return i8 ? s8()[i] : s32()[i]; }
  void set(ptrdiff_t i, int32_t v) const {
    if (i8) {
      static_cast<int8_t*>(data)[i] = static_cast<int8_t>(v);
    } else {
      static_cast<int32_t*>(data)[i] = v;
    }
  }
  template <int S>
  v128_t load4(ptrdiff_t i, int64_t step) const {
    return i8 ? load4_strided<S>(s8() + i, step) : load4_strided<S>(s32() + i, step);
  }
  void store4(ptrdiff_t i, v128_t v) const {
    if (i8) {
      wasm::store4(static_cast<int8_t*>(data) + i, v);
    } else {
      wasm_v128_store(static_cast<int32_t*>(data) + i, v);
    }
  }
  // The first n lanes of v (all four when n >= 4) at element i.
  void store_n(ptrdiff_t i, v128_t v, ptrdiff_t n) const {
    if (n >= 4) {
      store4(i, v);
      return;
    }
    int32_t lane[4];
    wasm_v128_store(lane, v);
    for (ptrdiff_t l = 0; l < n; ++l) set(i + l, lane[l]);
  }
};

// How many tasks parallel_tasks splits `items` into: at most the call's threads and items, and
// no task under the ParallelFor's min_task_work (work_per_item element operations an item); 1
// without a ParallelFor (a module without pthreads has none).
inline int64_t task_count(const KernelCall& call, int64_t items, int64_t work_per_item) {
  const ParallelFor* pf = call.parallel;
  if (items <= 0 || pf == nullptr || pf->num_threads < 2) return 1;
  const int64_t per_item = work_per_item < 1 ? 1 : work_per_item;
  const int64_t per_task = pf->min_task_work < 1 ? 1 : pf->min_task_work;
  const int64_t work = items > INT64_MAX / per_item ? INT64_MAX : items * per_item;
  int64_t tasks = items < pf->num_threads ? items : pf->num_threads;
  if (work / per_task < tasks) tasks = work / per_task;
  return tasks < 1 ? 1 : tasks;
}

// Runs fn(task, begin, end) for task in [0, tasks) over contiguous ranges of [0, items), the
// tasks spread over the call's threads (tasks = task_count(...)): task i may use resources of
// its own (a scratch slice i). Items must be independent (each writes outputs of its own,
// computed whole), so the split never shows in the bits.
template <typename Fn>
void parallel_tasks(const KernelCall& call, int64_t items, int64_t tasks, Fn&& fn) {
  if (items <= 0) return;
  if (tasks < 2) {
    fn(int64_t{0}, int64_t{0}, items);
    return;
  }
  struct Ctx {
    Fn* fn;
    int64_t items, tasks;
  } ctx{&fn, items, tasks};
  call.parallel->run(
      call.parallel->ctx, tasks,
      [](void* user, int64_t begin, int64_t end) {
        const Ctx& c = *static_cast<const Ctx*>(user);
        const int64_t q = c.items / c.tasks, r = c.items % c.tasks;
        for (int64_t t = begin; t < end; ++t) {
          (*c.fn)(t, q * t + (t < r ? t : r), q * (t + 1) + (t + 1 < r ? t + 1 : r));
        }
      },
      &ctx);
}

// fn(begin, end) over [0, items) in parallel_tasks' ranges.
template <typename Fn>
void parallel_items(const KernelCall& call, int64_t items, int64_t work_per_item, Fn&& fn) {
  parallel_tasks(call, items, task_count(call, items, work_per_item),
                 [&](int64_t, int64_t begin, int64_t end) { fn(begin, end); });
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
