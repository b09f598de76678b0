// Scalar reference kernels of the int32-only CVM elementwise ops: relu, cvm_precision, and the
// clamping family clip / cvm_clip / cvm_right_shift / cvm_left_shift (spec section 5).
#include <cstdint>

#include "elem_types.h"
#include "elementwise_map.h"
#include "params/elementwise.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// clamp(v, lo, hi) on int32 (exact: every operand is an int32), with the bounds in locals.
struct Clamp {
  explicit Clamp(const CvmClampParams& p) : lo(p.lo), hi(p.hi) {}
  int32_t operator()(int32_t v) const { return v < lo ? lo : v > hi ? hi : v; }
  int32_t lo, hi;
};

// y[i] = fn(x[i]) over int32 views; rows where both are contiguous run as a plain indexed loop
// the compiler can vectorise (out may be the same memory as x: each element is read first).
template <typename Fn>
void map_i32(const KernelCall& call, const Fn& fn_in) {
  const Fn fn = fn_in;  // a local copy: stores through `out` cannot alias its fields
  const TensorView* const views[2] = {&call.outputs[0], &call.inputs[0]};
  for_each_row(views, [fn](char* const* ptr, int64_t n, const int64_t* step) {
    constexpr int64_t kInt = sizeof(int32_t);
    if (step[0] == kInt && step[1] == kInt) {
      auto* out = reinterpret_cast<int32_t*>(ptr[0]);
      const auto* x = reinterpret_cast<const int32_t*>(ptr[1]);
      for (int64_t i = 0; i < n; ++i) out[i] = fn(x[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      store_elem<int32_t>(ptr[0] + i * step[0], fn(load_elem<int32_t>(ptr[1] + i * step[1])));
    }
  });
}

}  // namespace

KernelStatus relu(const KernelCall& call) {
  map_elements<int32_t, int32_t, 1>(call, [](int32_t x) { return x > 0 ? x : 0; });
  return KernelStatus::kDone;
}

// Bit length of |x|, at least 1; |INT32_MIN| = 2^31 has 32 bits.
KernelStatus cvm_precision(const KernelCall& call) {
  map_elements<int32_t, int32_t, 1>(call, [](int32_t x) {
    uint32_t mag = x < 0 ? 0u - static_cast<uint32_t>(x) : static_cast<uint32_t>(x);
    int32_t bits = 1;
    while (mag > 1) {
      mag >>= 1;
      ++bits;
    }
    return bits;
  });
  return KernelStatus::kDone;
}

KernelStatus clip(const KernelCall& call) {
  const Clamp clamp(*static_cast<const CvmClampParams*>(call.params));
  map_i32(call, [clamp](int32_t x) { return clamp(x); });
  return KernelStatus::kDone;
}

// ((x >> (s-1)) + 1) >> 1 with arithmetic shifts: rounds half toward +infinity. s - 1 <= 31,
// so every shift is in range for int32.
KernelStatus cvm_right_shift(const KernelCall& call) {
  const auto& p = *static_cast<const CvmClampParams*>(call.params);
  const Clamp clamp(p);
  const int32_t s1 = p.shift - 1;
  map_i32(call, [clamp, s1](int32_t x) {
    // In int32 with wrapping, as spec section 1 requires: x = INT32_MAX with shift 1 wraps to
    // INT32_MIN before the last shift, exactly as the CVM runtime computes it.
    const int32_t t = wrap_add<int32_t>(x >> s1, 1);
    return clamp(t >> 1);
  });
  return KernelStatus::kDone;
}

// x << s wrapping to 32 bits (s = 32 gives 0, so no shift is out of range).
KernelStatus cvm_left_shift(const KernelCall& call) {
  const auto& p = *static_cast<const CvmClampParams*>(call.params);
  const Clamp clamp(p);
  const int32_t shift = p.shift;
  map_i32(call, [clamp, shift](int32_t x) {
    const uint32_t v = shift >= 32 ? 0u : static_cast<uint32_t>(x) << shift;
    return clamp(static_cast<int32_t>(v));
  });
  return KernelStatus::kDone;
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
