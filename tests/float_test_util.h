// Catch2 helpers for the float32 operator tests: float inputs, element bits, special values.
#pragma once

#include <catch2/catch.hpp>
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
