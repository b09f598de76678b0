// The spec's precision notation, once: NB (bit length), NP (its +1 quirk) and α (clip bound).
#pragma once

#include <cstdint>

namespace cvm {
namespace ops {

// NB(n): the bit length of n, ceil(log2(n + 1)); NB(0) = 0.
constexpr int bit_length(uint64_t n) {
  int bits = 0;
  for (; n != 0; n >>= 1) ++bits;
  return bits;
}

// NP(n) = NB(n + 1) + 1 (quirk: one too many when n + 1 is a power of two, so NP(127) = 9).
constexpr int number_precision(uint64_t n) { return bit_length(n + 1) + 1; }

// α(p) = 2^(p-1) - 1: the symmetric clip bound of precision p in 1..32.
constexpr int32_t alpha(int64_t p) { return static_cast<int32_t>((int64_t{1} << (p - 1)) - 1); }

static_assert(bit_length(0) == 0 && bit_length(3) == 2 && bit_length(4) == 3, "NB");
static_assert(number_precision(127) == 9 && number_precision(126) == 8, "NP quirk");
static_assert(alpha(8) == 127 && alpha(32) == 2147483647, "alpha");

}  // namespace ops
}  // namespace cvm
