// Catch2 helpers shared by the operator tests: the values of integer arrays, and a check that an
// expression throws a cvm::LogicError with a matching message.
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

// The values of an integer array in row-major order, as int32.
inline std::vector<int32_t> vals(const NDArray& a) {
  std::vector<int32_t> v;
  for (int64_t i = 0; i < a.numel(); ++i) v.push_back(static_cast<int32_t>(int_at(a, i)));
  return v;
}

}  // namespace test
}  // namespace cvm
