// The elementwise and broadcast operators (CVM and array): spec examples, precision rules,
// attribute errors, in-place aliasing, and seeded random cases against references written here.
//
// op_def.h (for find_op and OpDef::compute) brings the library's CHECK/VERIFY macros: it is
// included first and they are dropped before Catch defines its own CHECK.
#include "op_def.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "float16.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

__extension__ typedef __int128 Int128;

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

NDArray i32(const std::vector<int32_t>& v, Shape shape = {}) {
  if (shape.empty()) shape = Shape{static_cast<int64_t>(v.size())};
  return NDArray::from_bytes(v.data(), v.size() * 4, shape, DataType::Int(32));
}

std::vector<int64_t> ints(const NDArray& a) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < a.numel(); ++i) v.push_back(test::int_at(a, i));
  return v;
}

NDArray run1(const std::string& op, const std::vector<NDArray>& in, const AttrMap& attrs = {}) {
  return run_op(op, in, attrs).at(0);
}

int precision(const std::string& op, const std::vector<int>& p, const AttrMap& attrs = {},
              const std::vector<std::vector<int64_t>>& shapes = {}) {
  std::vector<std::vector<int64_t>> s = shapes;
  if (s.empty()) s.assign(p.size(), {4});
  OpInference r = infer_op(op, s, p, attrs);
  REQUIRE(r.output_precisions.size() == 1);
  return r.output_precisions[0];
}

// Raw element bytes of `dtype` for a double (floats, rounded once) or an integer (wrapped).
std::vector<uint8_t> encode(DataType t, Int128 iv, double fv) {
  std::vector<uint8_t> out(t.bytes());
  if (t == DataType::Float(64)) {
    std::memcpy(out.data(), &fv, 8);
  } else if (t == DataType::Float(32)) {
    float f = static_cast<float>(fv);
    std::memcpy(out.data(), &f, 4);
  } else if (t.is_float()) {
    uint16_t h = t == DataType::Float(16) ? kernel::double_to_half_bits(fv)
                                          : kernel::double_to_bfloat16_bits(fv);
    std::memcpy(out.data(), &h, 2);
  } else {
    uint64_t u = static_cast<uint64_t>(iv);  // two's complement truncation
    std::memcpy(out.data(), &u, out.size());
  }
  return out;
}

// Seeded values that hit the interesting cases: for integers the type's bounds, -1, 0, 1 and
// random bytes; for floats ±0, small integers and random values; bools 0/1.
NDArray mixed_array(const Shape& shape, DataType t, uint64_t seed) {
  NDArray a = test::random_array(shape, t, seed);
  std::mt19937_64 rng(seed * 7919 + 1);
  uint8_t* p = static_cast<uint8_t*>(a.mutable_data());
  const int bits = t.bits();
  const Int128 lo = t.is_int() ? -(Int128(1) << (bits - 1)) : 0;
  const Int128 hi = t.is_int() ? (Int128(1) << (bits - 1)) - 1 : (Int128(1) << bits) - 1;
  const Int128 ispecial[] = {lo, lo + 1, hi, hi - 1, -1, 0, 1, 2};
  const double fspecial[] = {0.0, -0.0, 1.0, -1.0, 2.5, -7.0, 3.0, 0.5};
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (t.is_bool() || rng() % 2) continue;
    auto bytes = encode(t, ispecial[rng() % 8], fspecial[rng() % 8]);
    std::memcpy(p + i * t.bytes(), bytes.data(), bytes.size());
  }
  return a;
}

// One element decoded exactly: floats as double, integers and bools as a 128-bit integer.
struct Val {
  bool is_float;
  double f;
  Int128 i;
};
Val val_at(const NDArray& a, int64_t k) {
  if (a.dtype().is_float()) return {true, test::float_at(a, k), 0};
  if (a.dtype() == DataType::UInt(64)) {
    return {false, 0, static_cast<Int128>(static_cast<uint64_t>(test::int_at(a, k)))};
  }
  return {false, 0, a.dtype().is_bool() ? Int128(test::int_at(a, k) != 0) : test::int_at(a, k)};
}

// The row-major index into `in` of output element k of the broadcast `out` shape.
int64_t source_index(const Shape& out, const Shape& in, int64_t k) {
  int64_t idx = 0, stride = 1;
  for (int d = out.ndim() - 1, e = in.ndim() - 1; e >= 0; --d, --e) {
    const int64_t coord = k % out[d];
    k /= out[d];
    idx += (in[e] == 1 ? 0 : coord) * stride;
    stride *= in[e];
  }
  return idx;
}

const std::vector<std::pair<Shape, Shape>> kShapePairs = {
    {Shape{}, Shape{}},           {Shape{1}, Shape{1}},
    {Shape{7}, Shape{7}},         {Shape{65}, Shape{1}},
    {Shape{1}, Shape{65}},        {Shape{3, 1}, Shape{1, 5}},
    {Shape{2, 3, 33}, Shape{33}}, {Shape{4, 1, 6}, Shape{5, 1}},
    {Shape{0, 3}, Shape{3}},      {Shape{1}, Shape{0}},
    {Shape{}, Shape{2, 3}},       {Shape{2, 1, 1, 3}, Shape{1, 4, 5, 1}},
};
const std::vector<Shape> kUnaryShapes = {Shape{},        Shape{1},    Shape{7},    Shape{65},
                                         Shape{3, 1, 5}, Shape{0, 4}, Shape{2, 0}, Shape{4, 33}};

// Wraps an exact integer result to int32.
int64_t wrap32(Int128 v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Spec examples and hand-computed cases.

TEST_CASE("cvm_right_shift: spec examples and rounding half up", "[ops][elementwise]") {
  AttrMap s1 = {{"precision", "8"}, {"shift_bit", "1"}};
  CHECK(ints(run1("cvm_right_shift", {i32({-3, -2, -1, 0, 1, 2, 3, 5})}, s1)) ==
        std::vector<int64_t>{-1, -1, 0, 0, 1, 1, 2, 3});
  AttrMap s3 = {{"precision", "8"}, {"shift_bit", "3"}, {"is_sign", "True"}};
  CHECK(ints(run1("cvm_right_shift", {i32({-12, -13})}, s3)) == std::vector<int64_t>{-1, -2});
  // Clamped to ±α(8) = ±127 after the shift: 1000 / 2 = 500, -1001 / 2 = -500.5 -> -500.
  CHECK(ints(run1("cvm_right_shift", {i32({1000, -1001, 254, 255})}, s1)) ==
        std::vector<int64_t>{127, -127, 127, 127});
}

TEST_CASE("cvm_right_shift: shifts of 1, 31 and 32 at the int32 bounds", "[ops][elementwise]") {
  const NDArray x = i32({kMax, kMin, 1 << 30, (1 << 30) - 1, -(1 << 30), -(1 << 30) - 1, -1, 0});
  // s = 1: (x + 1) >> 1 in wrapping int32 (spec section 1): kMax + 1 wraps to kMin, so kMax
  // gives -2^30 as in the CVM runtime; kMin -> floor((-2^31 + 1) / 2) = -2^30.
  CHECK(ints(run1("cvm_right_shift", {x}, {{"precision", "32"}, {"shift_bit", "1"}})) ==
        std::vector<int64_t>{-(1 << 30), -(1 << 30), 1 << 29, 1 << 29, -(1 << 29), -(1 << 29), 0, 0});
  // s = 31: x / 2^31 rounded half up.
  CHECK(ints(run1("cvm_right_shift", {x}, {{"precision", "32"}, {"shift_bit", "31"}})) ==
        std::vector<int64_t>{1, -1, 1, 0, 0, -1, 0, 0});
  // Same with precision 1: α(1) = 0, everything clamps to 0.
  CHECK(ints(run1("cvm_right_shift", {x}, {{"precision", "1"}, {"shift_bit", "31"}})) ==
        std::vector<int64_t>(8, 0));
  // s = 32: |x| / 2^32 < 1/2 always rounds to 0 (-2^31 / 2^32 = -0.5 rounds up to 0).
  CHECK(ints(run1("cvm_right_shift", {x}, {{"precision", "32"}, {"shift_bit", "32"}})) ==
        std::vector<int64_t>(8, 0));
}

TEST_CASE("cvm_left_shift: wrapping shifts, 31 and 32, then the clamp", "[ops][elementwise]") {
  const NDArray x = i32({1, 2, -1, 3, kMax, 0x12345678});
  // s = 4, precision 32: wraps to 32 bits (0x7FFFFFFF << 4 = 0xFFFFFFF0 = -16), clamp ±(2^31-1).
  CHECK(ints(run1("cvm_left_shift", {x}, {{"precision", "32"}, {"shift_bit", "4"}})) ==
        std::vector<int64_t>{16, 32, -16, 48, -16, 0x23456780});
  // s = 31: 1 << 31 = INT32_MIN is clamped to -α(32); 2 << 31 wraps to 0; 3 << 31 = INT32_MIN.
  CHECK(ints(run1("cvm_left_shift", {x}, {{"precision", "32"}, {"shift_bit", "31"}})) ==
        std::vector<int64_t>{-kMax, 0, -kMax, -kMax, -kMax, 0});
  // s = 32 wraps every value to 0.
  CHECK(ints(run1("cvm_left_shift", {x}, {{"precision", "32"}, {"shift_bit", "32"}})) ==
        std::vector<int64_t>(6, 0));
  // precision 4 clamps to ±7.
  CHECK(ints(run1("cvm_left_shift", {i32({1, 2, -1, -2, 0})},
                  {{"precision", "4"}, {"shift_bit", "2"}})) ==
        std::vector<int64_t>{4, 7, -4, -7, 0});
}

TEST_CASE("cvm_left_shift accepts and ignores is_sign, as the original runtime does",
          "[ops][elementwise]") {
  // The original declares is_sign (default true) for cvm_left_shift as for cvm_clip and
  // cvm_right_shift; models that carry it must load. Every clip is symmetric whatever its value.
  const NDArray x = i32({1, 2, -1, -2, 0});
  for (const char* v : {"True", "False", "1", "0"}) {
    INFO("is_sign = " << v);
    CHECK(ints(run1("cvm_left_shift", {x},
                    {{"precision", "4"}, {"shift_bit", "2"}, {"is_sign", v}})) ==
          std::vector<int64_t>{4, 7, -4, -7, 0});
    CHECK(precision("cvm_left_shift", {3},
                    {{"precision", "4"}, {"shift_bit", "2"}, {"is_sign", v}}) == 4);
  }
}

TEST_CASE("cvm_precision, relu, abs, negative: hand-computed", "[ops][elementwise]") {
  CHECK(ints(run1("cvm_precision", {i32({0, 1, -1, 2, 3, 4, -255, 256, kMax, kMin, -kMax})})) ==
        std::vector<int64_t>{1, 1, 1, 2, 2, 3, 8, 9, 31, 32, 31});
  CHECK(ints(run1("relu", {i32({kMin, -1, 0, 1, kMax})})) ==
        std::vector<int64_t>{0, 0, 0, 1, kMax});
  CHECK(ints(run1("abs", {i32({kMin, -kMax, -1, 0, 5})})) ==
        std::vector<int64_t>{kMin, kMax, 1, 0, 5});
  CHECK(ints(run1("negative", {i32({kMin, kMax, -1, 0, 5})})) ==
        std::vector<int64_t>{kMin, -kMax, 1, 0, -5});
}

TEST_CASE("clip and cvm_clip clamp symmetrically or to [a_min, a_max]", "[ops][elementwise]") {
  const NDArray x = i32({kMin, -128, -127, -5, 0, 5, 127, 128, kMax});
  CHECK(ints(run1("clip", {x}, {{"a_min", "-5"}, {"a_max", "100"}})) ==
        std::vector<int64_t>{-5, -5, -5, -5, 0, 5, 100, 100, 100});
  CHECK(ints(run1("cvm_clip", {x}, {{"precision", "8"}, {"is_sign", "false"}})) ==
        std::vector<int64_t>{-127, -127, -127, -5, 0, 5, 127, 127, 127});
  CHECK(ints(run1("cvm_clip", {x}, {{"precision", "32"}})) ==
        std::vector<int64_t>{-kMax, -128, -127, -5, 0, 5, 127, 128, kMax});
  CHECK(ints(run1("cvm_clip", {x}, {{"precision", "1"}})) == std::vector<int64_t>(9, 0));
}

TEST_CASE("broadcast ops: hand-computed, division rules", "[ops][elementwise]") {
  const NDArray a = i32({7, -7, 7, -7, 7, kMin, kMin, 0});
  const NDArray b = i32({2, 2, -2, -2, 0, -1, 1, 0});
  CHECK(ints(run1("broadcast_div", {a, b})) ==
        std::vector<int64_t>{3, -3, -3, 3, 0, kMin, kMin, 0});
  CHECK(ints(run1("broadcast_max", {a, b})) == std::vector<int64_t>{7, 2, 7, -2, 7, -1, 1, 0});
  NDArray g = run1("broadcast_greater", {a, b});
  CHECK(g.dtype() == DataType::Int(32));
  CHECK(ints(g) == std::vector<int64_t>{1, 0, 1, 0, 1, 0, 0, 0});
  CHECK(ints(run1("broadcast_add", {i32({kMax, 1}), i32({1})})) == std::vector<int64_t>{kMin, 2});
  CHECK(ints(run1("broadcast_sub", {i32({kMin}), i32({1, 2})})) ==
        std::vector<int64_t>{kMax, kMax - 1});
  CHECK(ints(run1("broadcast_mul", {i32({65536, -3}), i32({65536, 5})})) ==
        std::vector<int64_t>{0, -15});
  // (2, 1) x (3): rows of a against the row of b.
  NDArray m = run1("broadcast_sub", {i32({10, 20}, {2, 1}), i32({1, 2, 3})});
  CHECK(m.shape() == Shape{2, 3});
  CHECK(ints(m) == std::vector<int64_t>{9, 8, 7, 19, 18, 17});
}

TEST_CASE("broadcast shapes: size-1, missing and empty dims", "[ops][elementwise]") {
  auto shape_of = [](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    return infer_op("broadcast_add", {a, b}, {8, 8}).output_shapes.at(0);
  };
  CHECK(shape_of({3, 1}, {1, 4}) == std::vector<int64_t>{3, 4});
  CHECK(shape_of({2, 3, 4}, {4}) == std::vector<int64_t>{2, 3, 4});
  CHECK(shape_of({}, {5}) == std::vector<int64_t>{5});
  CHECK(shape_of({0, 3}, {3}) == std::vector<int64_t>{0, 3});
  CHECK(shape_of({1}, {0}) == std::vector<int64_t>{0});
  CHECK(shape_of({5, 1, 1}, {1, 6, 1}) == std::vector<int64_t>{5, 6, 1});
  REQUIRE_THROWS_MATCHES(
      shape_of({2, 3}, {4}), LogicError,
      Catch::Matchers::Message("op \"broadcast_add\": shapes (2, 3) and (4) cannot be broadcast "
                               "(dim 1: 3 vs 4)"));
  REQUIRE_THROWS_WITH(shape_of({0}, {2}), Contains("cannot be broadcast"));
  NDArray e = run1("broadcast_mul", {NDArray::zeros({0, 3}, DataType::Int(32)), i32({1, 2, 3})});
  CHECK(e.shape() == Shape{0, 3});
  REQUIRE_THROWS_WITH(
      infer_op("elemwise_add", {{2, 3}, {3, 2}}, {8, 8}),
      Contains("op \"elemwise_add\": input shapes must be equal, found (2, 3) and (3, 2)"));
  REQUIRE_THROWS_WITH(infer_op("elemwise_sub", {{3}, {1}}, {8, 8}), Contains("must be equal"));
}

// ---------------------------------------------------------------------------------------------
// Precision, cost and registry flags.

TEST_CASE("precision rules of every elementwise and broadcast op", "[ops][elementwise]") {
  CHECK(precision("relu", {7}) == 7);
  CHECK(precision("abs", {13}) == 13);
  CHECK(precision("negative", {32}) == 32);
  CHECK(precision("cvm_precision", {20}) == 6);
  CHECK(precision("elemwise_add", {8, 12}) == 13);
  CHECK(precision("elemwise_sub", {12, 8}) == 13);
  // clip: NP(max(|a_min|, |a_max|)) with NP(n) = NB(n + 1) + 1.
  CHECK(precision("clip", {20}, {{"a_min", "-127"}, {"a_max", "127"}}) == 9);  // quirk: NP(127)
  CHECK(precision("clip", {20}, {{"a_min", "-100"}, {"a_max", "50"}}) == 8);   // NB(101) = 7
  CHECK(precision("clip", {20}, {{"a_min", "-3"}, {"a_max", "126"}}) == 8);    // NB(127) = 7
  CHECK(precision("clip", {20}, {{"a_min", "0"}, {"a_max", "1"}}) == 3);       // NB(2) = 2
  CHECK(precision("clip", {20}, {{"a_min", "-1"}, {"a_max", "0"}}) == 3);
  CHECK(precision("clip", {20}, {{"a_min", "-2147483647"}, {"a_max", "0"}}) == 33);
  CHECK(precision("cvm_clip", {30}, {{"precision", "5"}}) == 5);
  CHECK(precision("cvm_right_shift", {30}, {{"precision", "8"}, {"shift_bit", "20"}}) == 8);
  CHECK(precision("cvm_left_shift", {29}, {{"precision", "12"}, {"shift_bit", "3"}}) == 12);
  CHECK(precision("broadcast_add", {8, 3}) == 9);
  CHECK(precision("broadcast_sub", {3, 8}) == 9);
  CHECK(precision("broadcast_mul", {8, 7}) == 15);
  CHECK(precision("broadcast_max", {5, 9}) == 9);
  CHECK(precision("broadcast_max", {9, 5}) == 9);
  CHECK(precision("broadcast_div", {5, 9}) == 5);
  CHECK(precision("broadcast_greater", {5, 9}) == 5);
}

TEST_CASE("cvm_left_shift is rejected when p0 + shift_bit > 32", "[ops][elementwise]") {
  const AttrMap a = {{"precision", "8"}, {"shift_bit", "3"}};
  CHECK(precision("cvm_left_shift", {29}, a) == 8);
  REQUIRE_THROWS_MATCHES(precision("cvm_left_shift", {30}, a), LogicError,
                         Catch::Matchers::Message("op \"cvm_left_shift\": input precision 30 + "
                                                  "shift_bit 3 must be at most 32, found 33"));
  REQUIRE_THROWS_AS(precision("cvm_left_shift", {1}, {{"precision", "8"}, {"shift_bit", "32"}}),
                    LogicError);
}

TEST_CASE("cost base, cvm and in-place flags", "[ops][elementwise]") {
  const std::vector<std::string> unary = {"relu", "abs", "negative", "cvm_precision"};
  const std::vector<std::string> inplace = {
      "relu", "abs",      "cvm_precision",   "elemwise_add",  "elemwise_sub",
      "clip", "cvm_clip", "cvm_right_shift", "cvm_left_shift"};
  const std::vector<std::string> not_inplace = {
      "negative",      "broadcast_add", "broadcast_sub",    "broadcast_mul",
      "broadcast_max", "broadcast_div", "broadcast_greater"};
  const std::vector<std::string> arrays = {"add",     "sub",        "mul",     "div",
                                           "maximum", "minimum",    "equal",   "not_equal",
                                           "less",    "less_equal", "greater", "greater_equal"};
  for (const auto& n : inplace) {
    INFO(n);
    REQUIRE(ops::find_op(n) != nullptr);
    CHECK(ops::find_op(n)->inplace());
    CHECK(ops::find_op(n)->is_cvm());
  }
  for (const auto& n : not_inplace) {
    INFO(n);
    REQUIRE(ops::find_op(n) != nullptr);
    CHECK_FALSE(ops::find_op(n)->inplace());
    CHECK(ops::find_op(n)->is_cvm());
    if (n != "negative") CHECK(infer_op(n, {{3, 5}, {5}}, {8, 8}).cost_base == 1);
  }
  for (const auto& n : arrays) {
    INFO(n);
    REQUIRE(ops::find_op(n) != nullptr);
    CHECK_FALSE(ops::find_op(n)->inplace());
    CHECK_FALSE(ops::find_op(n)->is_cvm());
    OpInference r = infer_op(n, {{2, 1}, {3}}, {});
    CHECK(r.output_shapes == std::vector<std::vector<int64_t>>{{2, 3}});
    CHECK(r.output_precisions.empty());
  }
  for (const auto& n : unary) CHECK(infer_op(n, {{4, 4}}, {8}).cost_base == 1);
  CHECK(infer_op("elemwise_add", {{4}, {4}}, {8, 8}).cost_base == 1);
  CHECK(infer_op("clip", {{4}}, {8}, {{"a_min", "0"}, {"a_max", "3"}}).cost_base == 1);
  int listed = 0;
  for (const OpInfo& info : list_ops()) {
    if (info.name == "negative") CHECK_FALSE(info.inplace);
    if (info.name == "cvm_clip") CHECK(info.inplace);
    listed += info.name == "greater_equal" || info.name == "broadcast_greater";
  }
  CHECK(listed == 2);
}

// ---------------------------------------------------------------------------------------------
// Errors.

TEST_CASE("elementwise ops reject bad arity, dtypes, attributes and ranges", "[ops][elementwise]") {
  const NDArray x = i32({1, 2, 3});
  const NDArray i8 = NDArray::zeros({3}, DataType::Int(8));
  REQUIRE_THROWS_WITH(run1("relu", {x, x}), Contains("op \"relu\": expected 1 input(s), got 2"));
  REQUIRE_THROWS_WITH(run1("broadcast_add", {x}),
                      Contains("op \"broadcast_add\": expected 2 input(s), got 1"));
  REQUIRE_THROWS_WITH(infer_op("elemwise_add", {{3}}, {8}), Contains("expected 2 input(s), got 1"));
  REQUIRE_THROWS_WITH(infer_op("relu", {{3}}, {}),
                      Contains("expected 1 input precision(s), got 0"));
  // dtypes
  REQUIRE_THROWS_WITH(run1("relu", {i8}),
                      Contains("op \"relu\": input 0 must be int32 or float32, found int8"));
  REQUIRE_THROWS_WITH(run1("elemwise_add", {x, i8}), Contains("input 1 must be int32, found int8"));
  REQUIRE_THROWS_WITH(run1("broadcast_div", {NDArray::zeros({3}, DataType::Float(32)), x}),
                      Contains("op \"broadcast_div\": input 0 must be int32, found float32"));
  REQUIRE_THROWS_WITH(run1("cvm_clip", {i8}, {{"precision", "4"}}), Contains("must be int32"));
  REQUIRE_THROWS_WITH(run1("add", {x, i8}), Contains("op \"add\": dtypes differ (int32 vs int8)"));
  REQUIRE_THROWS_WITH(run1("less", {x, i8}),
                      Contains("op \"less\": dtypes differ (int32 vs int8)"));
  const NDArray flags = NDArray::zeros({3}, DataType::Bool());
  REQUIRE_THROWS_WITH(run1("div", {flags, flags}),
                      Contains("op \"div\": input dtype is bool; bool arrays are not numeric"));
  REQUIRE_THROWS_WITH(run1("maximum", {flags, flags}), Contains("not numeric"));
  REQUIRE_THROWS_WITH(run1("negative", {NDArray::zeros({3}, DataType::UInt(8))}),
                      Contains("op \"negative\": input 0 must be a signed integer or float, "
                               "found uint8"));
  REQUIRE_THROWS_WITH(run1("abs", {flags}), Contains("signed integer or float, found bool"));
  REQUIRE_THROWS_WITH(add(x, NDArray()), Contains("input 1 is undefined"));
  // attributes: unknown, missing, out of range
  REQUIRE_THROWS_WITH(run1("relu", {x}, {{"alpha", "1"}}),
                      Contains("op \"relu\": unknown attribute \"alpha\""));
  REQUIRE_THROWS_WITH(run1("broadcast_add", {x, x}, {{"axis", "1"}}),
                      Contains("unknown attribute"));
  REQUIRE_THROWS_WITH(
      run1("cvm_left_shift", {x}, {{"precision", "8"}, {"shift_bit", "1"}, {"sign", "true"}}),
      Contains("op \"cvm_left_shift\": unknown attribute \"sign\""));
  CHECK_NOTHROW(run1("relu", {x}, {{"__shape__", "(3,)"}}));
  REQUIRE_THROWS_WITH(run1("cvm_clip", {x}),
                      Contains("op \"cvm_clip\": attribute \"precision\": expected an integer in "
                               "[1, 32], found nothing (it is required)"));
  REQUIRE_THROWS_WITH(run1("clip", {x}, {{"a_min", "1"}}),
                      Contains("attribute \"a_max\": expected an integer in [-2147483647, "
                               "2147483647], found nothing"));
  REQUIRE_THROWS_WITH(run1("cvm_right_shift", {x}, {{"precision", "8"}}),
                      Contains("attribute \"shift_bit\": expected an integer in [1, 32], found "
                               "nothing"));
  REQUIRE_THROWS_WITH(run1("cvm_left_shift", {x}, {{"shift_bit", "2"}}),
                      Contains("attribute \"precision\""));
  for (const char* p : {"0", "33", "-1"}) {
    REQUIRE_THROWS_WITH(run1("cvm_clip", {x}, {{"precision", p}}),
                        Contains(std::string("[1, 32], found ") + p));
    REQUIRE_THROWS_WITH(
        run1("cvm_right_shift", {x}, {{"precision", "8"}, {"shift_bit", p}}),
        Contains(std::string("\"shift_bit\": expected an integer in [1, 32], found ") + p));
    REQUIRE_THROWS_WITH(
        run1("cvm_left_shift", {x}, {{"precision", p}, {"shift_bit", "1"}}),
        Contains(std::string("\"precision\": expected an integer in [1, 32], found ") + p));
  }
  REQUIRE_THROWS_WITH(run1("cvm_clip", {x}, {{"precision", "eight"}}), Contains("found \"eight\""));
  REQUIRE_THROWS_WITH(run1("clip", {x}, {{"a_min", "-2147483648"}, {"a_max", "1"}}),
                      Contains("\"a_min\": expected an integer in [-2147483647, 2147483647], "
                               "found -2147483648"));
  REQUIRE_THROWS_WITH(run1("clip", {x}, {{"a_min", "0"}, {"a_max", "2147483648"}}),
                      Contains("found 2147483648"));
  REQUIRE_THROWS_WITH(run1("clip", {x}, {{"a_min", "5"}, {"a_max", "5"}}),
                      Contains("op \"clip\": attribute \"a_max\": expected a value greater than "
                               "a_min (5), found 5"));
  REQUIRE_THROWS_WITH(run1("clip", {x}, {{"a_min", "6"}, {"a_max", "-6"}}),
                      Contains("greater than a_min (6), found -6"));
  CHECK(ints(run1("clip", {x}, {{"a_min", "-2147483647"}, {"a_max", "2147483647"}})) ==
        std::vector<int64_t>{1, 2, 3});
  REQUIRE_THROWS_WITH(run1("no_such_elementwise_op", {x}), Contains("unknown operator"));
}

// ---------------------------------------------------------------------------------------------
// In place: OpDef::compute with the output being input 0.

TEST_CASE("in-place ops compute correctly with output == input 0", "[ops][elementwise]") {
  const std::vector<std::pair<std::string, AttrMap>> unary = {
      {"relu", {}},
      {"abs", {}},
      {"negative", {}},
      {"cvm_precision", {}},
      {"clip", {{"a_min", "-1000"}, {"a_max", "100000"}}},
      {"cvm_clip", {{"precision", "12"}}},
      {"cvm_right_shift", {{"precision", "16"}, {"shift_bit", "7"}}},
      {"cvm_left_shift", {{"precision", "24"}, {"shift_bit", "5"}}}};
  uint64_t seed = 500;
  for (const auto& [name, attrs] : unary) {
    INFO(name);
    const ops::OpDef* op = ops::find_op(name);
    REQUIRE(op != nullptr);
    auto parsed = op->parse(attrs);
    for (const Shape& shape : {Shape{37}, Shape{4, 9}}) {
      NDArray x = mixed_array(shape, DataType::Int(32), seed++);
      const NDArray expected = run1(name, {x.copy()}, attrs);
      ops::compute_now(*op, *parsed, {x}, {x});
      CHECK(test::bit_equal(x, expected));
      // In place on a strided view (every other column of a larger buffer).
      NDArray base = mixed_array({6, 10}, DataType::Int(32), seed++);
      NDArray view = base.slice(1, 0, 10, 2);
      const NDArray want = run1(name, {view.contiguous()}, attrs);
      ops::compute_now(*op, *parsed, {view}, {view});
      CHECK(test::bit_equal(view, want));
    }
  }
  for (const char* name : {"elemwise_add", "elemwise_sub"}) {
    INFO(name);
    const ops::OpDef* op = ops::find_op(name);
    auto parsed = op->parse({});
    NDArray a = mixed_array({5, 7}, DataType::Int(32), seed++);
    NDArray b = mixed_array({5, 7}, DataType::Int(32), seed++);
    const NDArray expected = run1(name, {a.copy(), b});
    ops::compute_now(*op, *parsed, {a, b}, {a});
    CHECK(test::bit_equal(a, expected));
    // Both inputs and the output are one array: x + x and x - x.
    NDArray c = mixed_array({9}, DataType::Int(32), seed++);
    const NDArray twice = run1(name, {c.copy(), c.copy()});
    ops::compute_now(*op, *parsed, {c, c}, {c});
    CHECK(test::bit_equal(c, twice));
  }
}

// ---------------------------------------------------------------------------------------------
// Seeded random cases against references written here.

namespace {

// Reference of a unary CVM op on one int32 value.
int64_t unary_reference(const std::string& op, int64_t x, int64_t p, int64_t s, int64_t lo,
                        int64_t hi) {
  const int64_t alpha = (int64_t{1} << (p - 1)) - 1;
  auto clamp = [](int64_t v, int64_t l, int64_t h) { return v < l ? l : v > h ? h : v; };
  if (op == "relu") return x > 0 ? x : 0;
  if (op == "abs") return wrap32(x < 0 ? -x : x);
  if (op == "negative") return wrap32(-x);
  if (op == "cvm_precision") {
    const int64_t mag = x < 0 ? -x : x;
    int64_t bits = 1;
    while ((int64_t{1} << bits) <= mag) ++bits;  // smallest b >= 1 with |x| < 2^b
    return bits;
  }
  if (op == "clip") return clamp(x, lo, hi);
  if (op == "cvm_clip") return clamp(x, -alpha, alpha);
  if (op == "cvm_right_shift") {
    // t = floor(x / 2^(s-1)), t + 1 wrapping in int32 (only INT32_MAX with s = 1 wraps), then
    // floor(/ 2).
    int64_t t = floor_div(x, int64_t{1} << (s - 1)) + 1;
    if (t > INT32_MAX) t -= int64_t{1} << 32;
    return clamp(floor_div(t, 2), -alpha, alpha);
  }
  // cvm_left_shift: double s times, wrapping to 32 bits each time.
  uint32_t v = static_cast<uint32_t>(x);
  for (int64_t k = 0; k < s; ++k) v = static_cast<uint32_t>(v * 2u);
  return clamp(static_cast<int32_t>(v), -alpha, alpha);
}

// Reference of a binary int32 CVM op.
int64_t binary_reference(const std::string& op, int64_t a, int64_t b) {
  if (op == "elemwise_add" || op == "broadcast_add") return wrap32(a + b);
  if (op == "elemwise_sub" || op == "broadcast_sub") return wrap32(a - b);
  if (op == "broadcast_mul") return wrap32(Int128(a) * b);
  if (op == "broadcast_max") return a > b ? a : b;
  if (op == "broadcast_div") return b == 0 ? 0 : wrap32(a / b);  // int64: kMin / -1 is fine
  return a > b ? 1 : 0;                                          // broadcast_greater
}

}  // namespace

TEST_CASE("unary CVM ops match the reference on random int32 data", "[ops][elementwise]") {
  std::mt19937_64 rng(2024);
  uint64_t seed = 1000;
  for (const char* op : {"relu", "abs", "negative", "cvm_precision", "clip", "cvm_clip",
                         "cvm_right_shift", "cvm_left_shift"}) {
    for (int round = 0; round < 6; ++round) {
      const int64_t p = 1 + static_cast<int64_t>(rng() % 32);
      const int64_t s = round == 0 ? 32 : round == 1 ? 31 : 1 + static_cast<int64_t>(rng() % 32);
      int64_t lo = static_cast<int32_t>(rng()), hi = static_cast<int32_t>(rng());
      if (lo > hi) std::swap(lo, hi);
      if (lo == kMin) lo = -kMax;
      if (lo == hi) ++hi;
      AttrMap attrs;
      if (std::string(op) == "clip")
        attrs = {{"a_min", std::to_string(lo)}, {"a_max", std::to_string(hi)}};
      if (std::string(op) == "cvm_clip") attrs = {{"precision", std::to_string(p)}};
      if (std::string(op).find("shift") != std::string::npos) {
        attrs = {{"precision", std::to_string(p)}, {"shift_bit", std::to_string(s)}};
      }
      for (const Shape& shape : kUnaryShapes) {
        NDArray x = mixed_array(shape, DataType::Int(32), seed++);
        NDArray y = run1(op, {x}, attrs);
        REQUIRE(y.shape() == shape);
        REQUIRE(y.dtype() == DataType::Int(32));
        for (int64_t i = 0; i < x.numel(); ++i) {
          const int64_t want = unary_reference(op, test::int_at(x, i), p, s, lo, hi);
          if (test::int_at(y, i) != want) {
            FAIL(op << " p=" << p << " s=" << s << " [" << lo << ", " << hi << "] x="
                    << test::int_at(x, i) << ": got " << test::int_at(y, i) << ", want " << want);
          }
        }
      }
    }
  }
}

TEST_CASE("binary CVM ops match the reference with broadcasting", "[ops][elementwise]") {
  uint64_t seed = 3000;
  for (const char* op : {"elemwise_add", "elemwise_sub", "broadcast_add", "broadcast_sub",
                         "broadcast_mul", "broadcast_max", "broadcast_div", "broadcast_greater"}) {
    const bool same = std::string(op).rfind("elemwise", 0) == 0;
    for (const auto& [sa, sb] : kShapePairs) {
      if (same && sa != sb) continue;
      NDArray a = mixed_array(sa, DataType::Int(32), seed++);
      NDArray b = mixed_array(sb, DataType::Int(32), seed++);
      NDArray y = run1(op, {a, b});
      const Shape out = y.shape();
      REQUIRE(out.ndim() == std::max(sa.ndim(), sb.ndim()));
      for (int64_t i = 0; i < y.numel(); ++i) {
        const int64_t x0 = test::int_at(a, source_index(out, sa, i));
        const int64_t x1 = test::int_at(b, source_index(out, sb, i));
        if (test::int_at(y, i) != binary_reference(op, x0, x1)) {
          FAIL(op << " " << sa << " x " << sb << " at " << i << ": " << x0 << ", " << x1 << " gave "
                  << test::int_at(y, i));
        }
      }
    }
  }
}

namespace {

// Reference bytes of a dtype-generic binary array op on two decoded elements.
std::vector<uint8_t> array_reference(const std::string& op, DataType t, const Val& a, const Val& b,
                                     const std::vector<uint8_t>& ab,
                                     const std::vector<uint8_t>& bb) {
  const bool is_cmp = op != "div" && op != "maximum" && op != "minimum";
  if (is_cmp) {
    const bool lt = a.is_float ? a.f < b.f : a.i < b.i;
    const bool gt = a.is_float ? a.f > b.f : a.i > b.i;
    const bool eq = a.is_float ? a.f == b.f : a.i == b.i;
    const bool r = op == "equal"        ? eq
                   : op == "not_equal"  ? !eq
                   : op == "less"       ? lt
                   : op == "less_equal" ? lt || eq
                   : op == "greater"    ? gt
                                        : gt || eq;
    return {static_cast<uint8_t>(r)};
  }
  if (op == "maximum" || op == "minimum") {
    const bool take_b = a.is_float ? (op == "maximum" ? b.f > a.f : b.f < a.f)
                                   : (op == "maximum" ? b.i > a.i : b.i < a.i);
    return take_b ? bb : ab;
  }
  if (!a.is_float) return encode(t, b.i == 0 ? 0 : a.i / b.i, 0);  // 128-bit: MIN / -1 wraps
  if (t == DataType::Float(32)) {
    return encode(t, 0, static_cast<float>(a.f) / static_cast<float>(b.f));
  }
  return encode(t, 0, a.f / b.f);  // float64 exact, 16-bit floats rounded once from double
}

}  // namespace

TEST_CASE("array ops match the reference for every dtype and broadcast", "[ops][elementwise]") {
  uint64_t seed = 7000;
  const std::vector<std::string> numeric = {"div", "maximum", "minimum"};
  const std::vector<std::string> compare = {"equal",      "not_equal", "less",
                                            "less_equal", "greater",   "greater_equal"};
  for (DataType t : kAllDataTypes) {
    for (const auto& [sa, sb] : kShapePairs) {
      NDArray a = mixed_array(sa, t, seed++);
      NDArray b = mixed_array(sb, t, seed++);
      std::vector<std::string> names = compare;
      if (!t.is_bool()) names.insert(names.end(), numeric.begin(), numeric.end());
      for (const std::string& op : names) {
        NDArray y = run1(op, {a, b});
        const bool is_cmp = op != "div" && op != "maximum" && op != "minimum";
        REQUIRE(y.dtype() == (is_cmp ? DataType::Bool() : t));
        const Shape out = y.shape();
        for (int64_t i = 0; i < y.numel(); ++i) {
          const int64_t ia = source_index(out, sa, i), ib = source_index(out, sb, i);
          auto want = array_reference(op, t, val_at(a, ia), val_at(b, ib),
                                      test::element_bytes(a, ia), test::element_bytes(b, ib));
          auto got = test::element_bytes(y, i);
          // A NaN quotient (0 / 0) may be any NaN; every other result is bit-exact.
          const bool nan_ok = op == "div" && t.is_float() && std::isnan(test::float_at(y, i)) &&
                              std::isnan(val_at(a, ia).f / val_at(b, ib).f);
          if (got != want && !nan_ok) {
            FAIL(op << " " << t << " " << sa << " x " << sb << " differs at " << i);
          }
        }
      }
    }
  }
}

TEST_CASE("negative and abs on every signed integer and float dtype", "[ops][elementwise]") {
  uint64_t seed = 9000;
  for (DataType t : kAllDataTypes) {
    if (t.is_uint() || t.is_bool()) continue;
    for (const Shape& shape : kUnaryShapes) {
      NDArray x = mixed_array(shape, t, seed++);
      NDArray neg = negative(x), mag = abs(x);
      REQUIRE(neg.dtype() == t);
      for (int64_t i = 0; i < x.numel(); ++i) {
        std::vector<uint8_t> want_neg, want_abs;
        if (t.is_float()) {  // IEEE negate / abs: the sign bit (top bit, little-endian) only
          want_neg = want_abs = test::element_bytes(x, i);
          want_neg.back() ^= 0x80;
          want_abs.back() &= 0x7F;
        } else {
          const Int128 v = val_at(x, i).i;
          want_neg = encode(t, -v, 0);
          want_abs = encode(t, v < 0 ? -v : v, 0);
        }
        if (test::element_bytes(neg, i) != want_neg || test::element_bytes(mag, i) != want_abs) {
          FAIL("negative/abs " << t << " at " << i);
        }
      }
    }
  }
  // Hand-computed: wrapping at the bounds, float signs.
  const int8_t m8 = -128;
  NDArray x8 = NDArray::from_bytes(&m8, 1, Shape{1}, DataType::Int(8));
  CHECK(test::int_at(abs(x8), 0) == -128);
  CHECK(test::int_at(negative(x8), 0) == -128);
  const int64_t m64 = std::numeric_limits<int64_t>::min();
  NDArray x64 = NDArray::from_bytes(&m64, 8, Shape{1}, DataType::Int(64));
  CHECK(test::int_at(negative(x64), 0) == m64);
  const float f[] = {-0.0f, 0.0f, -INFINITY, 1.5f};
  NDArray xf = NDArray::from_bytes(f, sizeof f, Shape{4}, DataType::Float(32));
  NDArray af = abs(xf), nf = negative(xf);
  CHECK_FALSE(std::signbit(test::float_at(af, 0)));
  CHECK(test::float_at(af, 2) == INFINITY);
  CHECK(std::signbit(test::float_at(nf, 1)));
  CHECK(test::float_at(nf, 3) == -1.5);
  const uint16_t one_half = 0x3C00;  // float16 1.0
  NDArray xh = NDArray::from_bytes(&one_half, 2, Shape{1}, DataType::Float(16));
  CHECK(test::element_bytes(negative(xh), 0) == std::vector<uint8_t>{0x00, 0xBC});
}

TEST_CASE("maximum/minimum NaN and signed-zero rule, float comparisons", "[ops][elementwise]") {
  const uint32_t nan_a = 0x7FC00001, nan_b = 0xFFC00002, neg_zero = 0x80000000, one = 0x3F800000;
  auto f32 = [](std::vector<uint32_t> bits) {
    return NDArray::from_bytes(bits.data(), bits.size() * 4, Shape{int64_t(bits.size())},
                               DataType::Float(32));
  };
  auto bits_of = [](const NDArray& a) {
    std::vector<uint32_t> v(a.numel());
    a.copy_to_bytes(v.data(), v.size() * 4);
    return v;
  };
  const NDArray a = f32({nan_a, one, nan_a, neg_zero, 0, one, 0x40000000});
  const NDArray b = f32({one, nan_b, nan_b, 0, neg_zero, one, one});
  CHECK(bits_of(maximum(a, b)) ==
        std::vector<uint32_t>{nan_a, nan_b, nan_a, neg_zero, 0, one, 0x40000000});
  CHECK(bits_of(minimum(a, b)) ==
        std::vector<uint32_t>{nan_a, nan_b, nan_a, neg_zero, 0, one, one});
  CHECK(ints(equal(a, b)) == std::vector<int64_t>{0, 0, 0, 1, 1, 1, 0});
  CHECK(ints(not_equal(a, b)) == std::vector<int64_t>{1, 1, 1, 0, 0, 0, 1});
  CHECK(ints(less(a, b)) == std::vector<int64_t>{0, 0, 0, 0, 0, 0, 0});
  CHECK(ints(less_equal(a, b)) == std::vector<int64_t>{0, 0, 0, 1, 1, 1, 0});
  CHECK(ints(greater(a, b)) == std::vector<int64_t>{0, 0, 0, 0, 0, 0, 1});
  CHECK(ints(greater_equal(a, b)) == std::vector<int64_t>{0, 0, 0, 1, 1, 1, 1});
  // float16: the NaN operand's own bits, and the first operand on a ±0 tie.
  const uint16_t h[] = {0x7E01, 0x3C00, 0x8000};
  const uint16_t g[] = {0x3C00, 0xFE02, 0x0000};
  NDArray ha = NDArray::from_bytes(h, 6, Shape{3}, DataType::Float(16));
  NDArray hb = NDArray::from_bytes(g, 6, Shape{3}, DataType::Float(16));
  std::vector<uint16_t> hm(3);
  maximum(ha, hb).copy_to_bytes(hm.data(), 6);
  CHECK(hm == std::vector<uint16_t>{0x7E01, 0xFE02, 0x8000});
  minimum(hb, ha).copy_to_bytes(hm.data(), 6);
  CHECK(hm == std::vector<uint16_t>{0x7E01, 0xFE02, 0x0000});
}

TEST_CASE("public div, comparisons on bool and integer dtypes", "[ops][elementwise]") {
  const int32_t av[] = {7, -7, 7, kMin, 9};
  const int32_t bv[] = {2, 2, 0, -1, -3};
  NDArray a = NDArray::from_bytes(av, 20, Shape{5}, DataType::Int(32));
  NDArray b = NDArray::from_bytes(bv, 20, Shape{5}, DataType::Int(32));
  CHECK(ints(div(a, b)) == std::vector<int64_t>{3, -3, 0, kMin, -3});
  CHECK(test::bit_equal(div(a, b), run1("broadcast_div", {a, b})));
  CHECK(ints(maximum(a, b)) == std::vector<int64_t>{7, 2, 7, -1, 9});
  CHECK(ints(minimum(a, b)) == std::vector<int64_t>{2, -7, 0, kMin, -3});
  const uint8_t u[] = {200, 3, 0};
  const uint8_t v[] = {7, 0, 5};
  NDArray ua = NDArray::from_bytes(u, 3, Shape{3}, DataType::UInt(8));
  NDArray ub = NDArray::from_bytes(v, 3, Shape{3}, DataType::UInt(8));
  CHECK(ints(div(ua, ub)) == std::vector<int64_t>{28, 0, 0});  // unsigned: 200 is not -56
  CHECK(ints(greater(ua, ub)) == std::vector<int64_t>{1, 1, 0});
  const bool p[] = {false, true, true, false};
  const bool q[] = {true, true, false, false};
  NDArray ba = NDArray::from_bytes(p, 4, Shape{4}, DataType::Bool());
  NDArray bb = NDArray::from_bytes(q, 4, Shape{4}, DataType::Bool());
  NDArray lt = less(ba, bb);
  CHECK(lt.dtype() == DataType::Bool());
  CHECK(ints(lt) == std::vector<int64_t>{1, 0, 0, 0});
  CHECK(ints(equal(ba, bb)) == std::vector<int64_t>{0, 1, 0, 1});
  CHECK(ints(greater_equal(ba, bb)) == std::vector<int64_t>{0, 1, 1, 1});
  // A broadcast comparison: (3, 1) against (2).
  NDArray col = NDArray::from_bytes(av, 12, Shape{3, 1}, DataType::Int(32));
  NDArray row = NDArray::from_bytes(bv, 8, Shape{2}, DataType::Int(32));
  NDArray ne = not_equal(col, row);
  CHECK(ne.shape() == Shape{3, 2});
  CHECK(ints(ne) == std::vector<int64_t>{1, 1, 1, 1, 1, 1});
  CHECK(ints(less_equal(col, row)) == std::vector<int64_t>{0, 0, 1, 1, 0, 0});
}

TEST_CASE("elementwise views: merged dimensions, and more than 8 unmergeable ones an error",
          "[ops][elementwise]") {
  // Nine dims, contiguous in both operands: one row of 512 for the kernel.
  const Shape nine{2, 2, 2, 2, 2, 2, 2, 2, 2};
  NDArray x = test::random_array(nine, DataType::Int(32), 17);
  NDArray twice = add(x, x);
  for (int64_t i = 0; i < x.numel(); ++i) {
    REQUIRE(test::int_at(twice, i) == static_cast<int32_t>(2 * test::int_at(x, i)));
  }
  // Against its reversed-axes view nothing merges: nine kernel dims, a LogicError naming them.
  std::vector<int> reverse(9);
  for (int d = 0; d < 9; ++d) reverse[d] = 8 - d;
  const NDArray flipped = x.permute(reverse);
  REQUIRE_THROWS_MATCHES(add(x, flipped), LogicError,
                         Catch::Message("shape (2, 2, 2, 2, 2, 2, 2, 2, 2) has 9 non-mergeable "
                                        "dimensions; kernels support at most 8"));
  // Eight unmergeable dims still run: the reversed axes of an 8-d view.
  NDArray y = x.reshape(Shape{2, 2, 2, 2, 2, 2, 2, 4}).permute({7, 6, 5, 4, 3, 2, 1, 0});
  NDArray sum = add(y, y);
  for (int64_t i = 0; i < y.numel(); ++i) {
    REQUIRE(test::int_at(sum, i) == static_cast<int32_t>(2 * test::int_at(y, i)));
  }
}
