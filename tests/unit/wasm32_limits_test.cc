// wasm32 specifics of the core: size_t is 32 bits there, so byte counts that fit int64 may not
// fit the address space. (Registers no tests where size_t is 64 bits.)
#include <catch2/catch.hpp>
#include <cstdint>

#include "cvm/c_api.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"

using namespace cvm;
using Catch::Matchers::Contains;

#if SIZE_MAX < UINT64_MAX

TEST_CASE("arrays beyond the 32-bit address space are out of memory, never truncated",
          "[wasm][ndarray]") {
  // 3 Gi int32 elements = 12 GiB, which is 0 modulo 2^32: a truncated size would "succeed".
  const int64_t n = int64_t{3} << 30;
  REQUIRE_THROWS_AS(NDArray::empty(Shape{n}, DataType::Int(32)), RuntimeError);
  REQUIRE_THROWS_WITH(NDArray::empty(Shape{n}, DataType::Int(32)),
                      Contains("exceeds this platform's address space"));
  REQUIRE_THROWS_AS(NDArray::empty(Shape{int64_t{1} << 20, int64_t{1} << 12}, DataType::Int(8)),
                    RuntimeError);  // exactly 4 GiB
  CVMArrayHandle h = nullptr;
  REQUIRE(CVMArrayAlloc(&n, 1, kDLInt, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_RUNTIME_ERROR);
  REQUIRE(h == nullptr);
  REQUIRE_THAT(CVMGetLastError(), Contains("address space"));
  // A broadcast view may describe more bytes than exist; materialising it is the same error.
  NDArray one = NDArray::empty(Shape{1}, DataType::Int(32));
  NDArray wide = one.broadcast_to(Shape{n});
  REQUIRE_THROWS_AS(wide.contiguous(), RuntimeError);
}

#endif
