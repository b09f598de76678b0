// Catch2 helpers shared by the operator tests: int32 arrays from literals, their values back, and
// a check that an expression throws a cvm::LogicError with a matching message.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "test_util.h"

// A cvm::LogicError whose message matches.
#define CHECK_LOGIC_ERROR(expr, matcher)    \
  do {                                      \
    CHECK_THROWS_AS(expr, cvm::LogicError); \
    CHECK_THROWS_WITH(expr, matcher);       \
  } while (0)

namespace cvm {
namespace test {

// An int32 array of `shape` holding `v` (row-major; sizes must agree).
inline NDArray i32(const Shape& shape, const std::vector<int32_t>& v) {
  REQUIRE(static_cast<int64_t>(v.size()) == shape.numel());
  return NDArray::from_bytes(v.data(), v.size() * 4, shape, DataType::Int(32));
}

// The values of an integer array in row-major order, as int32.
inline std::vector<int32_t> vals(const NDArray& a) {
  std::vector<int32_t> v;
  for (int64_t i = 0; i < a.numel(); ++i) v.push_back(static_cast<int32_t>(int_at(a, i)));
  return v;
}

}  // namespace test
}  // namespace cvm
