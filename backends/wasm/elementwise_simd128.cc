// SIMD128 int32 elementwise kernels: add, sub (optionally then a fused clamp), mul, maximum,
// minimum (with NumPy broadcasting as stride-0 views), relu and the CVM clamping family clip /
// cvm_right_shift / cvm_left_shift (their clamp rule in vector form: simd128.h, shared with the
// conv2d / dense kernels). relu, clip, cvm_right_shift and a clamped add / sub also run on
// int8 activation views.
#include <cstdint>
#include <cstring>

#include "params/elementwise.h"
#include "simd128.h"
#include "strided_loop.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

// Each op in vector and scalar form; integer arithmetic wraps (i32x4.add/sub/mul keep the low
// 32 bits, as the reference's uint32 arithmetic does).
struct Add {
  static v128_t vec(v128_t a, v128_t b) { return wasm_i32x4_add(a, b); }
  static v128_t bytes(v128_t a, v128_t b) { return wasm_i8x16_add_sat(a, b); }
  static int32_t one(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
};
struct Sub {
  static v128_t vec(v128_t a, v128_t b) { return wasm_i32x4_sub(a, b); }
  static v128_t bytes(v128_t a, v128_t b) { return wasm_i8x16_sub_sat(a, b); }
  static int32_t one(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
  }
};
struct Mul {
  static v128_t vec(v128_t a, v128_t b) { return wasm_i32x4_mul(a, b); }
  static int32_t one(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }
};
struct Max {
  static v128_t vec(v128_t a, v128_t b) { return wasm_i32x4_max(a, b); }
  static int32_t one(int32_t a, int32_t b) { return a < b ? b : a; }
};
struct Min {
  static v128_t vec(v128_t a, v128_t b) { return wasm_i32x4_min(a, b); }
  static int32_t one(int32_t a, int32_t b) { return b < a ? b : a; }
};

// One element at p as int32: an int32, or an int8 (KernelEntry::takes_int8_activations); and
// one stored there (an int8 takes a value within int8).
template <typename T>
int32_t load_at(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void store_at(char* p, int32_t v) {
  const T t = static_cast<T>(v);
  std::memcpy(p, &t, sizeof t);
}

// How a row's elements meet an op: Lanes4<T> four of them as int32 lanes (int32_t, or int8_t
// sign-extended as loaded and narrowed as stored: load4 / store4) through Op::vec; Bytes16
// sixteen int8 elements as bytes through Op::bytes, for ops whose byte form gives the same
// values on int8 inputs (saturating i8x16 arithmetic, then a clamp within int8).
template <typename T>
struct Lanes4 {
  using Elem = T;
  static constexpr int64_t kLanes = 4;
  static v128_t load(const T* p) { return load4(p); }
  static void store(T* p, v128_t v) { store4(p, v); }
  static v128_t splat(int32_t v) { return wasm_i32x4_splat(v); }
  template <typename Op, typename... V>
  static v128_t apply(const Op& op, V... v) {
    return op.vec(v...);
  }
};
struct Bytes16 {
  using Elem = int8_t;
  static constexpr int64_t kLanes = 16;
  static v128_t load(const int8_t* p) { return wasm_v128_load(p); }
  static void store(int8_t* p, v128_t v) { wasm_v128_store(p, v); }
  static v128_t splat(int32_t v) { return wasm_i8x16_splat(static_cast<int8_t>(v)); }
  template <typename Op, typename... V>
  static v128_t apply(const Op& op, V... v) {
    return op.bytes(v...);
  }
};

// out = Op(a, b) row by row over elements M::Elem, M::kLanes at a time where both operands are
// contiguous, or one is contiguous and the other broadcast (step 0: a bias or a scalar). Every
// vector loads both operands before storing, so out may be the same memory as an input. The op
// is copied into a local (as unary's).
template <typename M, typename Op>
void binary(const KernelCall& call, const Op& op_in) {
  using T = typename M::Elem;
  constexpr int64_t kElem = sizeof(T), kLanes = M::kLanes;
  const TensorView* const views[3] = {&call.outputs[0], &call.inputs[0], &call.inputs[1]};
  for_each_row(views, [&op_in](char* const* ptr, int64_t n, const int64_t* step) {
    const Op op = op_in;
    char* out = ptr[0];
    const char* a = ptr[1];
    const char* b = ptr[2];
    int64_t i = 0;
    if (step[0] == kElem) {
      auto* o = reinterpret_cast<T*>(out);
      const auto* pa = reinterpret_cast<const T*>(a);
      const auto* pb = reinterpret_cast<const T*>(b);
      if (step[1] == kElem && step[2] == kElem) {
        for (; i + kLanes <= n; i += kLanes) {
          M::store(o + i, M::apply(op, M::load(pa + i), M::load(pb + i)));
        }
      } else if (step[1] == kElem && step[2] == 0) {
        const v128_t vb = M::splat(load_at<T>(b));
        for (; i + kLanes <= n; i += kLanes) M::store(o + i, M::apply(op, M::load(pa + i), vb));
      } else if (step[1] == 0 && step[2] == kElem) {
        const v128_t va = M::splat(load_at<T>(a));
        for (; i + kLanes <= n; i += kLanes) M::store(o + i, M::apply(op, va, M::load(pb + i)));
      }
    }
    for (; i < n; ++i) {
      store_at<T>(out + i * step[0],
                  op.one(load_at<T>(a + i * step[1]), load_at<T>(b + i * step[2])));
    }
  });
}

// out = Op(x) row by row over elements M::Elem, M::kLanes at a time where both are contiguous
// (two vectors per step); out may alias x. The op is copied into a local first, so no store
// through `o` can alias its fields (shift counts, splatted bounds) and they may stay in locals
// across the loop.
template <typename M, typename Op>
void unary(const KernelCall& call, const Op& op_in) {
  using T = typename M::Elem;
  constexpr int64_t kElem = sizeof(T), kLanes = M::kLanes;
  const TensorView* const views[2] = {&call.outputs[0], &call.inputs[0]};
  for_each_row(views, [&op_in](char* const* ptr, int64_t n, const int64_t* step) {
    const Op op = op_in;
    int64_t i = 0;
    if (step[0] == kElem && step[1] == kElem) {
      auto* o = reinterpret_cast<T*>(ptr[0]);
      const auto* x = reinterpret_cast<const T*>(ptr[1]);
      for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
        const v128_t a = M::load(x + i), b = M::load(x + i + kLanes);
        M::store(o + i, M::apply(op, a));
        M::store(o + i + kLanes, M::apply(op, b));
      }
      for (; i + kLanes <= n; i += kLanes) M::store(o + i, M::apply(op, M::load(x + i)));
    }
    for (; i < n; ++i) {
      store_at<T>(ptr[0] + i * step[0], op.one(load_at<T>(ptr[1] + i * step[1])));
    }
  });
}

// The element type every view of a call has: int32, int8 (the session's int8 activations:
// KernelEntry::takes_int8_activations), or kAny when they mix (declined).
ElemType views_type(const KernelCall& call) {
  const ElemType t = call.outputs[0].type;
  for (int k = 0; k < call.num_inputs; ++k) {
    if (call.inputs[k].type != t) return ElemType::kAny;
  }
  return t == ElemType::kInt32 || t == ElemType::kInt8 ? t : ElemType::kAny;
}

// Op over int32 views, or over int8 ones holding the values (its results within int8): as
// bytes where the op has a byte form for its parameters (Op::bytes_ok), else widened.
template <typename Op>
KernelStatus unary_int32(const KernelCall& call, const Op& op) {
  switch (views_type(call)) {
    case ElemType::kInt32:
      unary<Lanes4<int32_t>>(call, op);
      return KernelStatus::kDone;
    case ElemType::kInt8:
      if (op.bytes_ok()) {
        unary<Bytes16>(call, op);
      } else {
        unary<Lanes4<int8_t>>(call, op);
      }
      return KernelStatus::kDone;
    default:
      return KernelStatus::kDeclined;
  }
}

// clamp(v) on int8 lanes, for -128 <= lo <= hi <= 127 (in_int8).
struct ByteClamp {
  explicit ByteClamp(const Clamp& c)
      : in_int8(-128 <= c.lo && c.lo <= c.hi && c.hi <= 127),
        lo(wasm_i8x16_splat(static_cast<int8_t>(c.lo))),
        hi(wasm_i8x16_splat(static_cast<int8_t>(c.hi))) {}
  v128_t bytes(v128_t v) const { return wasm_i8x16_min(wasm_i8x16_max(v, lo), hi); }
  bool in_int8;
  v128_t lo, hi;
};

struct Relu {
  v128_t vec(v128_t v) const { return wasm_i32x4_max(v, wasm_i32x4_splat(0)); }
  int32_t one(int32_t v) const { return v > 0 ? v : 0; }
  bool bytes_ok() const { return true; }
  v128_t bytes(v128_t v) const { return wasm_i8x16_max(v, wasm_i8x16_splat(0)); }
};

struct ClipOp {
  explicit ClipOp(const Clamp& clamp) : c(clamp), b(clamp) {}
  v128_t vec(v128_t v) const { return c.vec(v); }
  int32_t one(int32_t v) const { return c.one(v); }
  bool bytes_ok() const { return b.in_int8; }
  v128_t bytes(v128_t v) const { return b.bytes(v); }
  Clamp c;
  ByteClamp b;
};

// round_shift by s in 1..32 (simd128.h), then clamped; apply_clamp_one for one value.
struct RightShift {
  v128_t vec(v128_t v) const { return c.vec(round_shift(v, p.shift)); }
  int32_t one(int32_t v) const { return apply_clamp_one(v, p); }
  bool bytes_ok() const { return false; }  // no byte shifts in SIMD128
  v128_t bytes(v128_t v) const { return v; }
  CvmClampParams p;
  Clamp c;
};

// x << s keeping the low 32 bits (s = 32 gives 0; i32x4.shl would take 32 as 0), clamped.
struct LeftShift {
  v128_t vec(v128_t v) const {
    return c.vec(shift >= 32 ? wasm_i32x4_splat(0) : shl_var(v, shift));
  }
  int32_t one(int32_t v) const {
    return c.one(shift >= 32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(v) << shift));
  }
  int32_t shift;
  Clamp c;
};

const CvmClampParams& clamp_params(const KernelCall& call) {
  return *static_cast<const CvmClampParams*>(call.params);
}

// a + b or a - b (Op), then the stage of a fused clamp run (OutputClamp: the cvm_right_shift /
// clip rule), as the head of that run writes it (KernelEntry::applies_clamp). On int8 lanes
// where that stage is a clip within int8: the sum saturated to int8 (Op::bytes) and clamped is
// the sum clamped, since the clamp lies within the saturation's range.
template <typename Op>
struct ThenClamp {
  explicit ThenClamp(const CvmClampParams* p) : c(p), b(Clamp(*p)), clip(p->shift == 0) {}
  v128_t vec(v128_t x, v128_t y) const { return c.vec(Op::vec(x, y)); }
  int32_t one(int32_t x, int32_t y) const { return c.one(Op::one(x, y)); }
  bool bytes_ok() const { return clip && b.in_int8; }
  v128_t bytes(v128_t x, v128_t y) const { return b.bytes(Op::bytes(x, y)); }
  OutputClamp c;
  ByteClamp b;
  bool clip;
};

// Op, or Op then the clamp in call.params when it is set (a session's fused clamp run); int8
// views only with that clamp within int8.
template <typename Op>
KernelStatus binary_then_clamp(const KernelCall& call) {
  const ElemType t = views_type(call);
  const auto* clamp = static_cast<const CvmClampParams*>(call.params);
  if (t == ElemType::kInt32 && clamp == nullptr) {
    binary<Lanes4<int32_t>>(call, Op{});
  } else if (t == ElemType::kInt32) {
    binary<Lanes4<int32_t>>(call, ThenClamp<Op>(clamp));
  } else if (t == ElemType::kInt8 && clamp != nullptr && clamp->lo >= -128 && clamp->hi <= 127) {
    const ThenClamp<Op> op(clamp);
    if (op.bytes_ok()) {
      binary<Bytes16>(call, op);
    } else {
      binary<Lanes4<int8_t>>(call, op);
    }
  } else {
    return KernelStatus::kDeclined;
  }
  return KernelStatus::kDone;
}

}  // namespace

// Every layout is covered (other strides run the scalar loop of the same ops): never declines
// int32 views.
KernelStatus add_i32__wasm_simd128(const KernelCall& call) {
  return binary_then_clamp<Add>(call);
}
KernelStatus sub_i32__wasm_simd128(const KernelCall& call) {
  return binary_then_clamp<Sub>(call);
}
KernelStatus mul_i32__wasm_simd128(const KernelCall& call) {
  binary<Lanes4<int32_t>>(call, Mul{});
  return KernelStatus::kDone;
}
KernelStatus maximum_i32__wasm_simd128(const KernelCall& call) {
  binary<Lanes4<int32_t>>(call, Max{});
  return KernelStatus::kDone;
}
KernelStatus minimum_i32__wasm_simd128(const KernelCall& call) {
  binary<Lanes4<int32_t>>(call, Min{});
  return KernelStatus::kDone;
}

// relu, clip and the right shift take int8 views too (their results never leave the input's
// range, or lie within the clamp).
KernelStatus relu_i32__wasm_simd128(const KernelCall& call) { return unary_int32(call, Relu{}); }

KernelStatus clip_i32__wasm_simd128(const KernelCall& call) {
  return unary_int32(call, ClipOp(Clamp(clamp_params(call))));
}

KernelStatus cvm_right_shift_i32__wasm_simd128(const KernelCall& call) {
  const CvmClampParams& p = clamp_params(call);
  return unary_int32(call, RightShift{p, Clamp(p)});
}

KernelStatus cvm_left_shift_i32__wasm_simd128(const KernelCall& call) {
  const CvmClampParams& p = clamp_params(call);
  unary<Lanes4<int32_t>>(call, LeftShift{p.shift, Clamp(p)});
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
