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

int32_t clamp(int64_t v, const CvmClampParams& p) {
  return static_cast<int32_t>(v < p.lo ? p.lo : v > p.hi ? p.hi : v);
}

}  // namespace

void relu(const KernelCall& call) {
  map_elements<int32_t, int32_t, 1>(call, [](int32_t x) { return x > 0 ? x : 0; });
}

// Bit length of |x|, at least 1; |INT32_MIN| = 2^31 has 32 bits.
void cvm_precision(const KernelCall& call) {
  map_elements<int32_t, int32_t, 1>(call, [](int32_t x) {
    uint32_t mag = x < 0 ? 0u - static_cast<uint32_t>(x) : static_cast<uint32_t>(x);
    int32_t bits = 1;
    while (mag > 1) {
      mag >>= 1;
      ++bits;
    }
    return bits;
  });
}

void clip(const KernelCall& call) {
  const auto& p = *static_cast<const CvmClampParams*>(call.params);
  map_elements<int32_t, int32_t, 1>(call, [&](int32_t x) { return clamp(x, p); });
}

// ((x >> (s-1)) + 1) >> 1 with arithmetic shifts: rounds half toward +infinity. s - 1 <= 31,
// so every shift is in range for int32.
void cvm_right_shift(const KernelCall& call) {
  const auto& p = *static_cast<const CvmClampParams*>(call.params);
  map_elements<int32_t, int32_t, 1>(call, [&](int32_t x) {
    // In int32 with wrapping, as spec section 1 requires: x = INT32_MAX with shift 1 wraps to
    // INT32_MIN before the last shift, exactly as the CVM runtime computes it.
    const int32_t t = wrap_add<int32_t>(x >> (p.shift - 1), 1);
    return clamp(t >> 1, p);
  });
}

// x << s wrapping to 32 bits (s = 32 gives 0), computed in uint64 so no shift is out of range.
void cvm_left_shift(const KernelCall& call) {
  const auto& p = *static_cast<const CvmClampParams*>(call.params);
  map_elements<int32_t, int32_t, 1>(call, [&](int32_t x) {
    const uint64_t wide = uint64_t{static_cast<uint32_t>(x)} << p.shift;
    return clamp(static_cast<int32_t>(static_cast<uint32_t>(wide)), p);
  });
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
