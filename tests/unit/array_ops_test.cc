// fill, cast and broadcasting add/sub/mul against independent references and hand-computed cases.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "cvm/allocator.h"
#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "cvm/op.h"
#include "float16.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

// Reference arithmetic: integers in 64-bit unsigned (wraps like any width after truncation),
// floats in double then rounded once to the dtype (exact for add/sub/mul of the narrow types).
std::vector<uint8_t> reference(const char* op, DataType t, const std::vector<uint8_t>& a,
                               const std::vector<uint8_t>& b) {
  std::vector<uint8_t> out(t.bytes());
  if (t.is_float()) {
    NDArray x = NDArray::from_bytes(a.data(), a.size(), Shape{}, t);
    NDArray y = NDArray::from_bytes(b.data(), b.size(), Shape{}, t);
    double u = test::float_at(x, 0), v = test::float_at(y, 0);
    double r = op[0] == 'a' ? u + v : op[0] == 's' ? u - v : u * v;
    NDArray res = NDArray::empty(Shape{}, t);
    if (t == DataType::Float(32)) {
      // float32 add/sub/mul rounded once: compute in float directly.
      float fu = static_cast<float>(u), fv = static_cast<float>(v);
      float fr = op[0] == 'a' ? fu + fv : op[0] == 's' ? fu - fv : fu * fv;
      std::memcpy(out.data(), &fr, 4);
      return out;
    }
    fill(res, r);
    res.copy_to_bytes(out.data(), out.size());
    return out;
  }
  uint64_t u = 0, v = 0;
  std::memcpy(&u, a.data(), a.size());
  std::memcpy(&v, b.data(), b.size());
  uint64_t r = op[0] == 'a' ? u + v : op[0] == 's' ? u - v : u * v;
  std::memcpy(out.data(), &r, out.size());
  return out;
}

using BinaryFn = NDArray (*)(const NDArray&, const NDArray&);

void check_binary(const char* name, BinaryFn fn, const NDArray& a, const NDArray& b) {
  NDArray out = fn(a, b);
  Shape shape = broadcast_shapes(a.shape(), b.shape());
  REQUIRE(out.shape() == shape);
  NDArray ba = a.broadcast_to(shape), bb = b.broadcast_to(shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto expected = reference(name, a.dtype(), test::element_bytes(ba, i), test::element_bytes(bb, i));
    if (test::element_bytes(out, i) != expected) {
      FAIL(name << " " << a.dtype() << " " << a.shape() << " x " << b.shape() << " differs at " << i);
    }
  }
}

const std::vector<std::pair<Shape, Shape>> kShapePairs = {
    {Shape{}, Shape{}},           {Shape{1}, Shape{1}},         {Shape{7}, Shape{7}},
    {Shape{65}, Shape{1}},        {Shape{3, 1}, Shape{1, 5}},   {Shape{2, 3, 33}, Shape{33}},
    {Shape{4, 1, 6}, Shape{5, 1}}, {Shape{0, 3}, Shape{3}},     {Shape{129}, Shape{129}},
    {Shape{2, 1, 1, 3}, Shape{1, 4, 5, 1}},
};

}  // namespace

TEST_CASE("add, sub, mul match the reference for every numeric dtype and broadcast", "[ops]") {
  uint64_t seed = 1;
  for (DataType t : kAllDataTypes) {
    if (t.is_bool()) continue;
    for (const auto& [sa, sb] : kShapePairs) {
      NDArray a = test::random_array(sa, t, seed++);
      NDArray b = test::random_array(sb, t, seed++);
      check_binary("add", add, a, b);
      check_binary("sub", sub, a, b);
      check_binary("mul", mul, a, b);
    }
  }
}

TEST_CASE("arithmetic on strided and reversed views", "[ops]") {
  NDArray base = test::random_array({9, 10}, DataType::Int(32), 77);
  NDArray t = base.transpose();                        // (10, 9), strided
  NDArray r = base.slice(1, 9, -11, -1).transpose();   // reversed columns then transposed
  check_binary("add", add, t, r);
  check_binary("mul", mul, t.slice(0, 1, 10, 3), r.slice(0, 0, 9, 3));
}

TEST_CASE("integer arithmetic wraps (two's complement)", "[ops]") {
  NDArray a = NDArray::empty({3}, DataType::Int(32));
  NDArray b = NDArray::empty({3}, DataType::Int(32));
  int32_t av[] = {INT32_MAX, INT32_MIN, 65536};
  int32_t bv[] = {1, 1, 65536};
  a.copy_from_bytes(av, 12);
  b.copy_from_bytes(bv, 12);
  NDArray s = add(a, b), d = sub(a, b), m = mul(a, b);
  REQUIRE(test::int_at(s, 0) == INT32_MIN);
  REQUIRE(test::int_at(d, 1) == INT32_MAX);
  REQUIRE(test::int_at(m, 2) == 0);
  NDArray u = NDArray::empty({1}, DataType::UInt(16));
  uint16_t big = 65535;
  u.copy_from_bytes(&big, 2);
  REQUIRE(test::int_at(mul(u, u), 0) == 1);  // 65535^2 mod 2^16, with no int overflow UB
}

TEST_CASE("binary ops reject mismatched inputs", "[ops]") {
  NDArray a = NDArray::zeros({2, 3}, DataType::Int(32));
  REQUIRE_THROWS_WITH(add(a, NDArray::zeros({2, 3}, DataType::Int(8))),
                      Contains("op \"add\": dtypes differ (int32 vs int8)"));
  REQUIRE_THROWS_WITH(mul(a, NDArray::zeros({4}, DataType::Int(32))),
                      Contains("shapes (2, 3) and (4) cannot be broadcast"));
  REQUIRE_THROWS_WITH(sub(NDArray::zeros({2}, DataType::Bool()), NDArray::zeros({2}, DataType::Bool())),
                      Contains("bool arrays are not numeric"));
  REQUIRE_THROWS_WITH(add(a, NDArray()), Contains("undefined"));
}

TEST_CASE("fill converts the scalar to the destination dtype", "[ops][fill]") {
  NDArray i8 = NDArray::empty({5}, DataType::Int(8));
  fill(i8, 300);  // wraps: 300 mod 256 = 44
  REQUIRE(test::int_at(i8, 4) == 44);
  NDArray f16 = NDArray::empty({2}, DataType::Float(16));
  fill(f16, 0.1);
  REQUIRE(test::float_at(f16, 1) == 0.0999755859375);  // nearest binary16 to 0.1
  NDArray u64 = NDArray::empty({1}, DataType::UInt(64));
  fill(u64, std::numeric_limits<unsigned long long>::max());
  REQUIRE(static_cast<uint64_t>(test::int_at(u64, 0)) == std::numeric_limits<uint64_t>::max());
  NDArray b = NDArray::empty({2}, DataType::Bool());
  fill(b, 0.5);
  REQUIRE(test::int_at(b, 0) == 1);
}

TEST_CASE("cast: hand-computed conversions", "[ops][cast]") {
  NDArray f = NDArray::empty({8}, DataType::Float(32));
  float fv[] = {-1.9f, 1.9f, 3e9f, -3e9f, NAN, 127.5f, -0.0f, 255.9f};
  f.copy_from_bytes(fv, sizeof(fv));
  NDArray i32 = cast(f, DataType::Int(32));
  std::vector<int64_t> expect{-1, 1, INT32_MAX, INT32_MIN, 0, 127, 0, 255};
  for (int i = 0; i < 8; ++i) REQUIRE(test::int_at(i32, i) == expect[i]);
  NDArray u8 = cast(f, DataType::UInt(8));
  std::vector<int64_t> expect_u8{0, 1, 255, 0, 0, 127, 0, 255};
  for (int i = 0; i < 8; ++i) REQUIRE(test::int_at(u8, i) == expect_u8[i]);
  NDArray bools = cast(f, DataType::Bool());
  std::vector<int64_t> expect_b{1, 1, 1, 1, 1, 1, 0, 1};  // NaN != 0 is true
  for (int i = 0; i < 8; ++i) REQUIRE(test::int_at(bools, i) == expect_b[i]);

  NDArray i = NDArray::empty({5}, DataType::Int(32));
  int32_t iv[] = {2049, 2051, 65519, 65520, -70000};
  i.copy_from_bytes(iv, sizeof(iv));
  NDArray h = cast(i, DataType::Float(16));
  REQUIRE(test::float_at(h, 0) == 2048.0);  // tie rounds to even
  REQUIRE(test::float_at(h, 1) == 2052.0);
  REQUIRE(test::float_at(h, 2) == 65504.0);  // largest finite
  REQUIRE(std::isinf(test::float_at(h, 3)));
  REQUIRE(test::float_at(h, 4) == -INFINITY);
  NDArray i8 = cast(i, DataType::Int(8));
  REQUIRE(test::int_at(i8, 0) == 1);  // 2049 = 0x801 truncates to 0x01

  // int64 -> bfloat16 rounds once from the exact integer, not via double.
  NDArray big = NDArray::empty({1}, DataType::Int(64));
  int64_t bv = (int64_t(1) << 62) + (int64_t(1) << 54) + 1;  // just above a bf16 tie
  big.copy_from_bytes(&bv, 8);
  double up = std::ldexp(1.0, 62) + std::ldexp(1.0, 55);
  REQUIRE(test::float_at(cast(big, DataType::BFloat16()), 0) == up);
  // Subnormal half: 2^-24 is the smallest; 2^-25 ties to even (0), 3*2^-26 rounds up.
  NDArray d = NDArray::empty({3}, DataType::Float(64));
  double dv[] = {std::ldexp(1.0, -24), std::ldexp(1.0, -25), 3 * std::ldexp(1.0, -26)};
  d.copy_from_bytes(dv, sizeof(dv));
  NDArray hs = cast(d, DataType::Float(16));
  REQUIRE(test::float_at(hs, 0) == std::ldexp(1.0, -24));
  REQUIRE(test::float_at(hs, 1) == 0.0);
  REQUIRE(test::float_at(hs, 2) == std::ldexp(1.0, -24));
}

TEST_CASE("cast round-trips every dtype pair that is exact", "[ops][cast]") {
  // Small non-negative integers are exact in every type: casting there and back is identity.
  NDArray src = NDArray::empty({100}, DataType::Int(32));
  for (int i = 0; i < 100; ++i) src.mutable_data_as<int32_t>()[i] = i % 2 ? i : 0;
  for (DataType t : kAllDataTypes) {
    NDArray there = cast(src, t);
    NDArray back = cast(there, DataType::Int(32));
    for (int i = 0; i < 100; ++i) {
      int64_t want = t.is_bool() ? (i % 2 ? 1 : 0) : (i % 2 ? i : 0);
      REQUIRE(test::int_at(back, i) == want);
    }
  }
}

TEST_CASE("copy_into broadcasts and converts", "[ops][cast]") {
  NDArray src = NDArray::empty({3}, DataType::Int(16));
  int16_t sv[] = {-1, 2, 300};
  src.copy_from_bytes(sv, sizeof(sv));
  NDArray dst = NDArray::empty({2, 3}, DataType::Float(64));
  copy_into(dst, src);
  for (int r = 0; r < 2; ++r) {
    REQUIRE(test::float_at(dst, 3 * r + 0) == -1.0);
    REQUIRE(test::float_at(dst, 3 * r + 2) == 300.0);
  }
  REQUIRE_THROWS_WITH(copy_into(src, dst), Contains("cannot broadcast"));
}

// Attributes from an untrusted caller cannot make run_op allocate without bound: an output over
// kMaxOpOutputElements is refused before allocation, one at the limit's scale is not refused.
TEST_CASE("run_op refuses outputs over the per-output element limit", "[ops]") {
  const NDArray x = NDArray::empty({1, 4096}, DataType::Int(32));
  const size_t before = Allocator::cpu().stats().peak_bytes_in_use;
  REQUIRE_THROWS_AS(run_op("tile", {x}, {{"reps", "(4096, 4096)"}}), LogicError);
  REQUIRE_THROWS_WITH(run_op("tile", {x}, {{"reps", "(4096, 4096)"}}),
                      Contains("output 0 of shape (4096, 16777216) would have more than "
                               "1073741824 elements"));
  REQUIRE(Allocator::cpu().stats().peak_bytes_in_use - before < (size_t{1} << 20));
  REQUIRE(run_op("tile", {x}, {{"reps", "(3, 1)"}})[0].shape() == Shape{3, 4096});
}
