// Catch2 helpers for the float32 operator tests: float inputs, element bits, special values.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "test_util.h"

namespace cvm {
namespace test {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kCanonicalNan = 0x7FC00000u;

inline float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// n floats start, start + 1, ... (exact below 2^24).
inline std::vector<float> iota(int64_t n, float start = 1) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// n floats drawn uniformly from [lo, hi).
inline std::vector<float> uniform(std::mt19937& rng, int64_t n, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& e : v) e = d(rng);
  return v;
}

// Value mixes of the float kernel tests: kPlain, values over many magnitudes (the order of the
// sums shows); kSpecials, with NaNs of several payloads and signs, infinities, -0, subnormals,
// the largest finite and values whose products overflow; kZerosAndInf, mostly signed zeros,
// infinities and the smallest subnormals (skipped padding taps versus 0 * inf); kExp, the range
// where det_exp's branches and edges show (sigmoid, softmax).
enum class FloatMix { kPlain, kSpecials, kZerosAndInf, kExp };

inline const char* float_mix_name(FloatMix m) {
  switch (m) {
    case FloatMix::kPlain: return "plain";
    case FloatMix::kSpecials: return "specials";
    case FloatMix::kZerosAndInf: return "zeros/inf";
    case FloatMix::kExp: return "exp edges";
  }
  return "?";
}

// One value of mix `mix`, drawn from `rng`.
inline float random_float(std::mt19937_64& rng, FloatMix mix) {
  std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
  static const uint32_t kSpecial[] = {0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x7F800000u,
                                      0xFF800000u, 0x80000000u, 0x00000000u, 0x00000001u,
                                      0x807FFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x00400000u};
  const uint64_t r = rng() % 64;
  float v = std::ldexp(mant(rng), static_cast<int>(rng() % 60) - 30);
  if (mix == FloatMix::kSpecials && r < 6) {
    v = from_bits(kSpecial[rng() % 12]);
  } else if (mix == FloatMix::kSpecials && r < 8) {
    v = std::ldexp(mant(rng), 100 + static_cast<int>(rng() % 27));  // products overflow
  } else if (mix == FloatMix::kZerosAndInf && r < 40) {
    static const float kZ[] = {0.0f, -0.0f, -0.0f, kInf, -kInf, 1e-45f, -1e-45f};
    v = kZ[rng() % 7];
  } else if (mix == FloatMix::kExp) {
    static const float kEdge[] = {708.3f, 708.4f, 709.0f,  709.7f,  709.79f, 710.0f,
                                  710.1f, 744.0f, 745.1f,  745.14f, 745.5f,  745.6f,
                                  88.7f,  103.9f, 0.0f,    -0.0f,   1e-30f,  kInf,
                                  NAN,    16.63f, 17.33f,  0.3466f};
    if (r < 32) {
      v = 30.0f * mant(rng);
    } else if (r < 48) {
      v = 800.0f * mant(rng);
    } else {
      v = kEdge[rng() % 22] * (rng() % 2 == 0 ? 1.0f : -1.0f);
    }
  }
  return v;
}

// Row-major element bits of a float32 array (any strides), or of a list of floats.
inline std::vector<uint32_t> bits(const NDArray& a) {
  REQUIRE(a.dtype() == DataType::Float(32));
  std::vector<uint32_t> out;
  for (int64_t i = 0; i < a.numel(); ++i) {
    uint32_t u;
    std::memcpy(&u, element_bytes(a, i).data(), 4);
    out.push_back(u);
  }
  return out;
}
inline std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> out;
  for (float f : v) out.push_back(bits_of(f));
  return out;
}
inline std::vector<float> fvals(const NDArray& a) {
  std::vector<float> out;
  for (uint32_t u : bits(a)) out.push_back(from_bits(u));
  return out;
}

// The single output of `op`.
inline NDArray run1(const std::string& op, const std::vector<NDArray>& in,
                    const AttrMap& attrs = {}) {
  std::vector<NDArray> out = run_op(op, in, attrs);
  REQUIRE(out.size() == 1);
  return out[0];
}

}  // namespace test
}  // namespace cvm
