// Tests of the transform operators (spec section 5 "Transform").
//
// Spec examples and MXNet reshape codes, precision rules, attribute errors, in-place aliasing,
// and seeded random cases against references written here.
//
// op_def.h (for find_op and OpDef::compute) brings the library's CHECK/VERIFY macros: it is
// included first and they are dropped before Catch defines its own CHECK.
#include "op_def.h"
#undef CHECK
#undef VERIFY

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <tuple>

#include "cvm/error.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
using Dims = std::vector<int64_t>;
using Values = std::vector<int64_t>;

NDArray i32(const std::vector<int32_t>& v, const Shape& shape) {
  return NDArray::from_bytes(v.data(), v.size() * 4, shape, DataType::Int(32));
}
NDArray i32(const std::vector<int32_t>& v) { return i32(v, Shape{static_cast<int64_t>(v.size())}); }

// 1, 2, 3, ... in `shape`.
NDArray iota(const Shape& shape) {
  std::vector<int32_t> v(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i + 1);
  return i32(v, shape);
}

Values ints(const NDArray& a) {
  Values v;
  for (int64_t i = 0; i < a.numel(); ++i) v.push_back(test::int_at(a, i));
  return v;
}

NDArray run1(const std::string& op, const std::vector<NDArray>& in, const AttrMap& attrs = {}) {
  return run_op(op, in, attrs).at(0);
}

Dims shape_of(const std::string& op, const std::vector<Dims>& in, const AttrMap& attrs = {}) {
  OpInference r = infer_op(op, in, std::vector<int>(in.size(), 8), attrs);
  REQUIRE(r.output_shapes.size() == 1);
  return r.output_shapes[0];
}

// The message of the LogicError `fn` raises ("" if it raises none).
std::string logic_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const LogicError& e) {
    return e.what();
  }
  return "";
}

std::string run_error(const std::string& op, const std::vector<NDArray>& in,
                      const AttrMap& attrs = {}) {
  return logic_error([&] { run_op(op, in, attrs); });
}

std::string infer_error(const std::string& op, const std::vector<Dims>& in,
                        const AttrMap& attrs = {}) {
  return logic_error([&] { infer_op(op, in, std::vector<int>(in.size(), 8), attrs); });
}

Dims unravel(int64_t i, const Shape& s) {
  Dims idx(s.ndim());
  for (int d = s.ndim() - 1; d >= 0; --d) {
    idx[d] = i % s[d];
    i /= s[d];
  }
  return idx;
}

int64_t ravel(const Dims& idx, const Shape& s) {
  int64_t i = 0;
  for (int d = 0; d < s.ndim(); ++d) i = i * s[d] + idx[d];
  return i;
}

// Checks every element of `out` against x at the index `source` maps each output index to.
void check_gather(const NDArray& out, const NDArray& x,
                  const std::function<Dims(const Dims&)>& source) {
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t expected = test::int_at(x, ravel(source(unravel(i, out.shape())), x.shape()));
    if (test::int_at(out, i) != expected) {
      FAIL("output " << out.shape() << " element " << i << ": " << test::int_at(out, i)
                     << " != " << expected);
    }
  }
}

Shape random_shape(std::mt19937_64& rng, int min_ndim, int max_ndim, int64_t max_dim) {
  Shape s;
  const int n = min_ndim + static_cast<int>(rng() % (max_ndim - min_ndim + 1));
  for (int d = 0; d < n; ++d) s.push_back(1 + static_cast<int64_t>(rng() % max_dim));
  return s;
}

std::string tuple(const Dims& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

}  // namespace

TEST_CASE("flatten and expand_dims shapes and values", "[ops][transform]") {
  NDArray x = iota({2, 3, 4});
  NDArray f = run1("flatten", {x});
  CHECK(f.shape() == Shape{2, 12});
  CHECK(ints(f) == ints(x));
  CHECK(shape_of("flatten", {{5}}) == Dims{5, 1});
  CHECK_THAT(infer_error("flatten", {Dims{}}),
             Contains("op \"flatten\": input 0 must have at least 1"));
  CHECK_THAT(infer_error("flatten", {{2}}, {{"axis", "1"}}),
             Contains("unknown attribute \"axis\""));

  CHECK(shape_of("expand_dims", {{2, 3}}, {{"axis", "1"}}) == Dims{2, 1, 3});
  CHECK(shape_of("expand_dims", {{2, 3}}, {{"axis", "2"}}) == Dims{2, 3, 1});
  CHECK(shape_of("expand_dims", {{2, 3}}, {{"axis", "-1"}}) == Dims{2, 3, 1});
  CHECK(shape_of("expand_dims", {{2, 3}}, {{"axis", "-3"}}) == Dims{1, 2, 3});
  CHECK(shape_of("expand_dims", {{2, 3}}, {{"axis", "0"}, {"num_newaxis", "3"}}) ==
        Dims{1, 1, 1, 2, 3});
  CHECK(shape_of("expand_dims", {{2, 3}}, {{"axis", "1"}, {"num_newaxis", "0"}}) == Dims{2, 3});
  NDArray e = run1("expand_dims", {x}, {{"axis", "1"}, {"num_newaxis", "2"}});
  CHECK(e.shape() == Shape{2, 1, 1, 3, 4});
  CHECK(ints(e) == ints(x));
  CHECK_THAT(infer_error("expand_dims", {{2, 3}}, {{"axis", "3"}}),
             Contains("attribute \"axis\": expected an axis in [-3, 2], found 3"));
  CHECK_THAT(infer_error("expand_dims", {{2, 3}}, {{"axis", "-4"}}), Contains("found -4"));
  CHECK_THAT(infer_error("expand_dims", {{2, 3}}), Contains("\"axis\": expected"));
  CHECK_THAT(infer_error("expand_dims", {{2, 3}}, {{"axis", "0"}, {"num_newaxis", "-1"}}),
             Contains("\"num_newaxis\": expected an integer in [0, 4096], found -1"));
}

TEST_CASE("reshape implements every MXNet shape code", "[ops][transform]") {
  const Dims x{2, 3, 4};
  auto reshaped = [&](const char* codes, const Dims& in = {2, 3, 4}) {
    return shape_of("reshape", {in}, {{"shape", codes}});
  };
  CHECK(reshaped("(4, 6)") == Dims{4, 6});
  CHECK(reshaped("(4, 0, 2)") == Dims{4, 3, 2});  // 0 copies
  CHECK(reshaped("(2, 0, 0)") == x);
  CHECK(reshaped("(6, 1, -1)") == Dims{6, 1, 4});  // -1 infers
  CHECK(reshaped("(3, -1, 8)") == Dims{3, 1, 8});
  CHECK(reshaped("(-1,)") == Dims{24});
  CHECK(reshaped("(-2,)") == x);  // -2 copies the rest
  CHECK(reshaped("(2, -2)") == x);
  CHECK(reshaped("(-2, 1, 1)") == Dims{2, 3, 4, 1, 1});
  CHECK(reshaped("(-3, 4)") == Dims{6, 4});  // -3 merges two
  CHECK(reshaped("(-3, -3)", {2, 3, 4, 5}) == Dims{6, 20});
  CHECK(reshaped("(0, -3)") == Dims{2, 12});
  CHECK(reshaped("(-3, -2)") == Dims{6, 4});
  CHECK(reshaped("(-4, 1, 2, -2)") == Dims{1, 2, 3, 4});  // -4 splits one
  CHECK(reshaped("(2, -4, -1, 3, -2)") == Dims{2, 1, 3, 4});
  CHECK(reshaped("(-4, 2, -1, 0, 0)") == Dims{2, 1, 3, 4});
  CHECK(reshaped("[-4, -1, 1, -3]") == Dims{2, 1, 12});
  // The inferred extent sits where the -1 is in the output, also after -2 and -4.
  CHECK(reshaped("(-2, -1)") == Dims{2, 3, 4, 1});
  CHECK(reshaped("(-4, 1, 2, -1)") == Dims{1, 2, 12});
  CHECK(reshaped("(-1, 4)", {0, 4}) == Dims{0, 4});
  NDArray r = run1("reshape", {iota({2, 3, 4})}, {{"shape", "(-3, -1)"}});
  CHECK(r.shape() == Shape{6, 4});
  CHECK(ints(r) == ints(iota({24})));

  const std::vector<std::pair<const char*, const char*>> errors = {
      {"(-1, -1)", "at most one -1"},
      {"(0, 0, 0, 0)", "code 0 only where an input dim is left"},
      {"(2, 3, -3)", "code -3 only where two input dims are left"},
      {"(-4, 2)", "code -4 followed by two split extents"},
      {"(2, 3, 4, -4, 1, 1)", "code -4 only where an input dim is left"},
      {"(-4, 3, -1, -2)", "whose product is the input dim 2"},
      {"(-4, -1, -1, -2)", "positive or one -1"},
      {"(-4, 0, 2, -2)", "positive or one -1"},
      {"(-4, 1, -2, -2)", "positive or one -1"},
      {"(5, -1)", "a -1 that can be inferred for 24 elements"},
      {"(5, 5)", "expected a shape of 24 elements, found (5, 5) for input shape (2, 3, 4)"},
      {"(2, -5)", "values in [-4,"},
      {"()", "expected a non-empty tuple"},
      {"(2, x)", "expected a tuple"},
  };
  for (const auto& [codes, message] : errors) {
    CAPTURE(codes);
    CHECK_THAT(infer_error("reshape", {x}, {{"shape", codes}}),
               Contains("op \"reshape\": attribute \"shape\"") && Contains(message));
  }
  CHECK_THAT(infer_error("reshape", {x}), Contains("\"shape\": expected a tuple, found nothing"));
}

TEST_CASE("squeeze and transpose", "[ops][transform]") {
  CHECK(shape_of("squeeze", {{1, 3, 1}}) == Dims{3});
  CHECK(shape_of("squeeze", {{1, 3, 1}}, {{"axis", "None"}}) == Dims{3});
  CHECK(shape_of("squeeze", {{1, 3, 1}}, {{"axis", "()"}}) == Dims{3});
  CHECK(shape_of("squeeze", {{1, 3, 1}}, {{"axis", "0"}}) == Dims{3, 1});
  CHECK(shape_of("squeeze", {{1, 3, 1}}, {{"axis", "(0, 2)"}}) == Dims{3});
  CHECK(shape_of("squeeze", {{1, 3, 1}}, {{"axis", "(-1,)"}}) == Dims{1, 3});
  CHECK(shape_of("squeeze", {{1, 3, 1}}, {{"axis", "(0, 0)"}}) == Dims{3, 1});
  CHECK(shape_of("squeeze", {{1, 1}}) == Dims{1});  // squeezing everything gives (1,)
  CHECK(shape_of("squeeze", {{4, 2}}) == Dims{4, 2});
  CHECK(ints(run1("squeeze", {iota({1, 3, 1})})) == Values{1, 2, 3});
  CHECK_THAT(infer_error("squeeze", {{1, 3, 1}}, {{"axis", "1"}}),
             Contains("op \"squeeze\": attribute \"axis\": expected axes of extent 1, found "
                      "axis 1 of extent 3 in input shape (1, 3, 1)"));
  CHECK_THAT(infer_error("squeeze", {{1, 3, 1}}, {{"axis", "3"}}),
             Contains("expected an axis in [-3, 2], found 3"));

  NDArray m = i32({1, 2, 3, 4}, {2, 2});
  CHECK(ints(run1("transpose", {m})) == Values{1, 3, 2, 4});
  NDArray c = iota({2, 2, 2});
  CHECK(ints(run1("transpose", {c})) == Values{1, 5, 3, 7, 2, 6, 4, 8});
  CHECK(ints(run1("transpose", {c}, {{"axes", "(1, 0, 2)"}})) == Values{1, 2, 5, 6, 3, 4, 7, 8});
  CHECK(ints(run1("transpose", {c}, {{"axes", "(-2, -3, -1)"}})) == Values{1, 2, 5, 6, 3, 4, 7, 8});
  CHECK(shape_of("transpose", {{2, 3, 4}}, {{"axes", "(2, 0, 1)"}}) == Dims{4, 2, 3});
  CHECK(shape_of("transpose", {{2, 3, 4}}, {{"axes", "None"}}) == Dims{4, 3, 2});
  CHECK_THAT(infer_error("transpose", {{2, 3, 4}}, {{"axes", "(0, 0, 1)"}}),
             Contains("attribute \"axes\": expected a permutation of the 3 input axes, found "
                      "(0, 0, 1)"));
  CHECK_THAT(infer_error("transpose", {{2, 3, 4}}, {{"axes", "(1, 0)"}}),
             Contains("permutation of the 3 input axes, found (1, 0)"));
  CHECK_THAT(infer_error("transpose", {{2, 3, 4}}, {{"axes", "(0, 1, 3)"}}),
             Contains("expected an axis in [-3, 2], found 3"));
}

TEST_CASE("strided_slice follows the spec's clamping rules", "[ops][transform]") {
  NDArray x = iota({2, 4});  // [[1..4], [5..8]]
  NDArray s =
      run1("strided_slice", {x}, {{"begin", "(0, -1)"}, {"end", "(2, -5)"}, {"stride", "(1, -2)"}});
  CHECK(s.shape() == Shape{2, 2});
  CHECK(ints(s) == Values{4, 2, 8, 6});
  NDArray t = i32({1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12}, {3, 4});
  CHECK(ints(run1("strided_slice", {t}, {{"begin", "(0, 1)"}, {"end", "(2, 4)"}})) ==
        Values{4, 7, 10, 5, 8, 11});
  // Defaults begin (0,), end (1,): the first entry of axis 0, the other axes whole.
  NDArray d = run1("strided_slice", {t});
  CHECK(d.shape() == Shape{1, 4});
  CHECK(ints(d) == Values{1, 4, 7, 10});
  NDArray v = iota({5});
  auto slice = [&](const char* b, const char* e, const char* st) {
    return ints(run1("strided_slice", {v}, {{"begin", b}, {"end", e}, {"stride", st}}));
  };
  CHECK(slice("(-100,)", "(100,)", "(1,)") == Values{1, 2, 3, 4, 5});   // clamp to [0, dim]
  CHECK(slice("(0,)", "(5,)", "(2,)") == Values{1, 3, 5});              // ceil(5 / 2)
  CHECK(slice("(1,)", "(5,)", "(7,)") == Values{2});                    // step beyond dim
  CHECK(slice("(100,)", "(-100,)", "(-1,)") == Values{5, 4, 3, 2, 1});  // clamp to [-1, dim-1]
  CHECK(slice("(-1,)", "(-6,)", "(-2,)") == Values{5, 3, 1});
  CHECK(slice("(3,)", "(0,)", "(-9223372036854775807,)") == Values{4});
  CHECK(slice("(4,)", "(0,)", "(-3,)") == Values{5, 2});
  CHECK_THAT(run_error("strided_slice", {v}, {{"begin", "(2,)"}, {"end", "(2,)"}}),
             Contains("op \"strided_slice\": axis 0 of input shape (5): expected begin < end "
                      "after clamping for stride 1, found begin 2, end 2"));
  CHECK_THAT(run_error("strided_slice", {v}, {{"begin", "(6,)"}, {"end", "(9,)"}}),
             Contains("found begin 5, end 5"));
  CHECK_THAT(infer_error("strided_slice", {{5}},
                         {{"begin", "(1,)"}, {"end", "(3,)"}, {"stride", "(-1,)"}}),
             Contains("expected begin > end after clamping for stride -1, found begin 1, end 3"));
  CHECK_THAT(infer_error("strided_slice", {{5}}, {{"stride", "(0,)"}}),
             Contains("attribute \"stride\": expected non-zero strides, found (0)"));
  CHECK_THAT(infer_error("strided_slice", {{5}}, {{"begin", "(0, 0)"}, {"end", "(1,)"}}),
             Contains("attribute \"begin\": expected at most 1 values (one per input axis), found "
                      "(0, 0)"));
  CHECK_THAT(infer_error("strided_slice", {Dims{}}),
             Contains("\"begin\": expected at most 0 values"));
}

TEST_CASE("take and cvm_lut clamp their indices", "[ops][transform]") {
  NDArray x = i32({10, 20, 30, 40});
  CHECK(ints(run1("take", {x, i32({-5, 2, 9})})) == Values{10, 30, 40});
  NDArray a = i32({1, 2, 3, 4}, {2, 2});
  NDArray flat = run1("take", {a, i32({3, 0, 2, kMin, kMax}, {5})});
  CHECK(ints(flat) == Values{4, 1, 3, 1, 4});
  NDArray by_col = run1("take", {a, i32({1, 0})}, {{"axis", "1"}});
  CHECK(by_col.shape() == Shape{2, 2});
  CHECK(ints(by_col) == Values{2, 1, 4, 3});
  NDArray b = iota({2, 3});
  NDArray clamped = run1("take", {b, i32({-1, 7, kMin, kMax, 1}, {5})}, {{"axis", "-1"}});
  CHECK(ints(clamped) == Values{1, 3, 1, 3, 2, 4, 6, 4, 6, 5});
  NDArray rows = run1("take", {b, i32({1, 0, 5, -2}, {2, 2})}, {{"axis", "0"}});
  CHECK(rows.shape() == Shape{2, 2, 3});
  CHECK(ints(rows) == Values{4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3});
  CHECK(shape_of("take", {{2, 3, 4}, {5, 6}}, {{"axis", "1"}}) == Dims{2, 5, 6, 4});
  CHECK(shape_of("take", {{2, 3, 4}, {}}, {{"axis", "1"}}) == Dims{2, 4});
  CHECK(shape_of("take", {{2, 3, 4}, {5, 6}}, {{"axis", "None"}}) == Dims{5, 6});
  CHECK_THAT(infer_error("take", {{2, 3}, {4}}, {{"axis", "2"}}),
             Contains("op \"take\": attribute \"axis\": expected an axis in [-2, 1], found 2"));
  CHECK_THAT(infer_error("take", {{2, 0}, {4}}, {{"axis", "1"}}),
             Contains("cannot take elements from an empty axis of input 0 shape (2, 0)"));
  CHECK(shape_of("take", {{2, 0}, {0}}) == Dims{0});
  NDArray i8 = NDArray::zeros({2}, DataType::Int(8));
  CHECK_THAT(run_error("take", {x, i8}),
             Contains("op \"take\": input 1 must be int32, found int8"));

  NDArray table = i32({100, 200, 300, 400});
  NDArray data = i32({-3, 0, 1, 3, 4, 99, kMin, kMax}, {2, 4});
  NDArray y = run1("cvm_lut", {data, table}, {{"in_dim", "4"}});
  CHECK(y.shape() == Shape{2, 4});
  CHECK(ints(y) == Values{100, 100, 200, 400, 400, 400, 100, 400});
  CHECK(ints(run1("cvm_lut", {i32({3, 1}), i32({7, 8, 9, 10}, {2, 2})}, {{"in_dim", "4"}})) ==
        Values{10, 8});
  CHECK_THAT(run_error("cvm_lut", {data, table}, {{"in_dim", "5"}}),
             Contains("op \"cvm_lut\": attribute \"in_dim\": expected the table size 4 (input 1 "
                      "shape (4)), found 5"));
  CHECK_THAT(run_error("cvm_lut", {data, table}), Contains("\"in_dim\": expected an integer"));
  CHECK_THAT(infer_error("cvm_lut", {{2}, {0}}, {{"in_dim", "0"}}),
             Contains("empty axis of input 1 (table) shape (0)"));
  CHECK_THAT(infer_error("cvm_lut", {{2}, {5000}}, {{"in_dim", "5000"}}),
             Contains("expected an integer in [0, 4096], found 5000"));
}

TEST_CASE("concatenate, repeat and tile", "[ops][transform]") {
  NDArray p = i32({1, 2}, {2, 1}), q = i32({3, 4, 5, 6}, {2, 2}),
          r = i32({7, 8, 9, 10, 11, 12}, {2, 3});
  NDArray c = run1("concatenate", {p, q, r}, {{"axis", "-1"}});
  CHECK(c.shape() == Shape{2, 6});
  CHECK(ints(c) == Values{1, 3, 4, 7, 8, 9, 2, 5, 6, 10, 11, 12});
  CHECK(ints(run1("concatenate", {p, q})) == Values{1, 3, 4, 2, 5, 6});  // default axis 1
  NDArray x = i32({1, 1, 2, 2}, {2, 2}), y = i32({3, 3, 4, 4, 5, 5}, {3, 2});
  NDArray rows =
      run1("concatenate", {x, y, NDArray::empty({0, 2}, DataType::Int(32))}, {{"axis", "0"}});
  CHECK(rows.shape() == Shape{5, 2});
  CHECK(ints(rows) == Values{1, 1, 2, 2, 3, 3, 4, 4, 5, 5});
  CHECK(ints(run1("concatenate", {q})) == ints(q));
  CHECK_THAT(run_error("concatenate", {p, x, y}, {{"axis", "1"}}),
             Contains("op \"concatenate\": input 2 shape (3, 2) does not match input 0 shape "
                      "(2, 1) outside axis 1"));
  CHECK_THAT(infer_error("concatenate", {{2, 3}, {2, 3, 1}}, {{"axis", "0"}}),
             Contains("input 1 shape (2, 3, 1) does not match"));
  CHECK_THAT(infer_error("concatenate", {{4}, {4}}),
             Contains("expected an axis in [-1, 0], found 1"));
  CHECK_THAT(run_error("concatenate", {}), Contains("expected at least 1 input"));

  NDArray m = i32({1, 2, 3, 4}, {2, 2});
  CHECK(ints(run1("repeat", {m}, {{"repeats", "2"}})) == Values{1, 2, 1, 2, 3, 4, 3, 4});
  NDArray rc = run1("repeat", {m}, {{"repeats", "3"}, {"axis", "-1"}});
  CHECK(rc.shape() == Shape{2, 6});
  CHECK(ints(rc) == Values{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4});
  CHECK_THAT(
      infer_error("repeat", {{2}}, {{"repeats", "0"}}),
      Contains("op \"repeat\": attribute \"repeats\": expected an integer in [1, 4096], found 0"));
  CHECK_THAT(infer_error("repeat", {{2}}), Contains("\"repeats\": expected"));
  CHECK_THAT(infer_error("repeat", {{2}}, {{"repeats", "2"}, {"axis", "1"}}),
             Contains("expected an axis in [-1, 0], found 1"));

  CHECK(ints(run1("tile", {m}, {{"reps", "(2,)"}})) == Values{1, 2, 1, 2, 3, 4, 3, 4});
  NDArray t = run1("tile", {i32({1, 2})}, {{"reps", "(2, 3)"}});  // x promoted to (1, 2)
  CHECK(t.shape() == Shape{2, 6});
  CHECK(ints(t) == Values{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2});
  NDArray t3 = run1("tile", {m}, {{"reps", "(2, 1, 2)"}});
  CHECK(t3.shape() == Shape{2, 2, 4});
  CHECK(ints(t3) == Values{1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4});
  CHECK_THAT(infer_error("tile", {{2}}, {{"reps", "()"}}),
             Contains("op \"tile\": attribute \"reps\": expected a non-empty tuple"));
  CHECK_THAT(infer_error("tile", {{2}}, {{"reps", "(2, 0)"}}), Contains("values in [1, 4096]"));
}

TEST_CASE("slice_like and where", "[ops][transform]") {
  NDArray x = iota({3, 4});
  NDArray s = run1("slice_like", {x, NDArray::zeros({2, 2}, DataType::Int(32))});
  CHECK(s.shape() == Shape{2, 2});
  CHECK(ints(s) == Values{1, 2, 5, 6});
  NDArray cols =
      run1("slice_like", {x, NDArray::zeros({9, 3}, DataType::Int(32))}, {{"axis", "(1,)"}});
  CHECK(ints(cols) == Values{1, 2, 3, 5, 6, 7, 9, 10, 11});
  CHECK(shape_of("slice_like", {{2, 3, 4}, {1, 2}}, {{"axis", "(0, 1)"}}) == Dims{1, 2, 4});
  CHECK(shape_of("slice_like", {{2, 3, 4}, {1, 2, 9, 9}}, {{"axis", "-2"}}) == Dims{2, 2, 4});
  CHECK_THAT(infer_error("slice_like", {{2, 3, 4}, {1, 2}}),
             Contains("op \"slice_like\": without \"axis\", input 1 (like) must have the ndim"));
  CHECK_THAT(infer_error("slice_like", {{3, 4}, {2, 5}}),
             Contains("input 1 (like) shape (2, 5) is larger than input 0 shape (3, 4) on axis 1: "
                      "expected at most 4, found 5"));
  CHECK_THAT(
      infer_error("slice_like", {{3, 4}, {2}}, {{"axis", "(1,)"}}),
      Contains(
          "attribute \"axis\": expected axes that exist in input 1 (like) shape (2), found 1"));
  CHECK_THAT(infer_error("slice_like", {{3, 4}, {2, 2}}, {{"axis", "(2,)"}}),
             Contains("expected an axis in [-2, 1], found 2"));

  NDArray w = run1("where", {i32({1, 0, -5, 0}), i32({1, 2, 3, 4}), i32({10, 20, 30, 40})});
  CHECK(ints(w) == Values{1, 20, 3, 40});
  // The 1-d cond form selects whole rows (fixed: the original copied a quarter of each row).
  NDArray a = iota({4, 5}), b = NDArray::zeros({4, 5}, DataType::Int(32));
  NDArray rows = run1("where", {i32({0, 1, 0, 7}), a, b});
  CHECK(ints(rows) == Values{0, 0, 0, 0, 0, 6, 7, 8, 9, 10, 0, 0, 0, 0, 0, 16, 17, 18, 19, 20});
  CHECK_THAT(infer_error("where", {{4, 5}, {4, 5}, {4, 4}}),
             Contains("op \"where\": input 2 (y) shape (4, 4) does not match input 1 (x) shape"));
  CHECK_THAT(
      infer_error("where", {{5}, {4, 5}, {4, 5}}),
      Contains("input 0 (cond) shape (5) is neither input 1 (x) shape (4, 5) nor 1-d of length"));
  CHECK_THAT(infer_error("where", {{4, 1}, {4, 5}, {4, 5}}),
             Contains("input 0 (cond) shape (4, 1)"));
}

TEST_CASE("transform precision rules, cost bases and the in-place list", "[ops][transform]") {
  auto infer = [](const std::string& op, const std::vector<Dims>& shapes,
                  const std::vector<int>& precisions,
                  const AttrMap& attrs = {}) { return infer_op(op, shapes, precisions, attrs); };
  const std::vector<std::pair<std::string, AttrMap>> p0_ops = {{"flatten", {}},
                                                               {"reshape", {{"shape", "(-1,)"}}},
                                                               {"expand_dims", {{"axis", "0"}}},
                                                               {"squeeze", {}},
                                                               {"transpose", {}},
                                                               {"strided_slice", {}},
                                                               {"repeat", {{"repeats", "2"}}},
                                                               {"tile", {{"reps", "(3,)"}}}};
  for (const auto& [op, attrs] : p0_ops) {
    CAPTURE(op);
    OpInference r = infer(op, {{4, 1}}, {13}, attrs);
    CHECK(r.output_precisions == std::vector<int>{13});
    CHECK(r.cost_base == 1);
  }
  CHECK(infer("take", {{4}, {2}}, {11, 30}).output_precisions == std::vector<int>{11});
  CHECK(infer("slice_like", {{4}, {2}}, {11, 30}).output_precisions == std::vector<int>{11});
  CHECK(infer("cvm_lut", {{4}, {16}}, {30, 7}, {{"in_dim", "16"}}).output_precisions ==
        std::vector<int>{7});
  OpInference w = infer("where", {{4}, {4}, {4}}, {3, 20, 31});
  CHECK(w.output_precisions == std::vector<int>{3});  // quirk: cond's precision
  CHECK(w.cost_base == 1);
  OpInference c = infer("concatenate", {{2}, {3}, {1}}, {5, 17, 9}, {{"axis", "0"}});
  CHECK(c.output_precisions == std::vector<int>{17});
  CHECK(c.output_shapes == std::vector<Dims>{{6}});

  std::map<std::string, OpInfo> info;
  for (const OpInfo& op : list_ops()) info[op.name] = op;
  for (const char* name : {"flatten", "expand_dims", "reshape", "squeeze"}) {
    CAPTURE(name);
    CHECK(info.at(name).inplace);
  }
  for (const char* name : {"transpose", "strided_slice", "take", "cvm_lut", "concatenate", "repeat",
                           "tile", "slice_like", "where"}) {
    CAPTURE(name);
    CHECK_FALSE(info.at(name).inplace);
    CHECK(info.at(name).cvm);
  }
  CHECK(info.at("concatenate").num_inputs == -1);
  CHECK(info.at("take").num_inputs == 2);
  CHECK(info.at("cvm_lut").num_inputs == 2);
  CHECK(info.at("slice_like").num_inputs == 2);
  CHECK(info.at("where").num_inputs == 3);
}

TEST_CASE("in-place ops compute with the output aliasing the input", "[ops][transform]") {
  const std::vector<std::tuple<std::string, AttrMap, Shape>> cases = {
      {"reshape", {{"shape", "(6, -1)"}}, Shape{6, 4}},
      {"flatten", {}, Shape{2, 12}},
      {"squeeze", {}, Shape{2, 3, 4}},
      {"expand_dims", {{"axis", "1"}, {"num_newaxis", "2"}}, Shape{2, 1, 1, 1, 3, 4}}};
  for (const auto& [name, attrs, out_shape] : cases) {
    CAPTURE(name);
    const ops::OpDef* op = ops::find_op(name);
    REQUIRE(op != nullptr);
    REQUIRE(op->inplace());
    auto parsed = op->parse(attrs);
    NDArray in = test::random_array({2, 1, 3, 4}, DataType::Int(32), 7);
    const Values before = ints(in);
    REQUIRE(op->infer_shapes(*parsed, {in.shape()}).at(0) == out_shape);
    NDArray out = in.reshape(out_shape);
    ops::compute_now(*op, *parsed, {in}, {out});
    CHECK(out.shares_memory_with(in));
    CHECK(ints(out) == before);
    NDArray fresh = NDArray::empty(out_shape, DataType::Int(32));
    ops::compute_now(*op, *parsed, {in}, {fresh});
    CHECK(ints(fresh) == before);
  }
  // Output and input overlapping in reverse order: the copy must read before it writes.
  const ops::OpDef* squeeze = ops::find_op("squeeze");
  NDArray base = iota({6, 1});
  NDArray reversed = base.slice(0, -1, -7, -1);
  REQUIRE(ints(reversed) == Values{6, 5, 4, 3, 2, 1});
  ops::compute_now(*squeeze, *squeeze->parse({}), {reversed}, {base.reshape({6})});
  CHECK(ints(base) == Values{6, 5, 4, 3, 2, 1});
  // Same start address, another layout: flatten of a transposed view into its own storage.
  const ops::OpDef* flatten = ops::find_op("flatten");
  NDArray m = iota({2, 3});
  ops::compute_now(*flatten, *flatten->parse({}), {m.transpose()}, {m.reshape({3, 2})});
  CHECK(ints(m) == Values{1, 4, 2, 5, 3, 6});
}

TEST_CASE("transform ops on empty arrays", "[ops][transform]") {
  auto empty = [](const Shape& s) { return NDArray::empty(s, DataType::Int(32)); };
  CHECK(run1("transpose", {empty({0, 3})}).shape() == Shape{3, 0});
  CHECK(run1("reshape", {empty({0, 4})}, {{"shape", "(-1, 2)"}}).shape() == Shape{0, 2});
  CHECK(run1("flatten", {empty({2, 0, 3})}).shape() == Shape{2, 0});
  CHECK(run1("tile", {empty({0, 2})}, {{"reps", "(2, 2)"}}).shape() == Shape{0, 4});
  CHECK(run1("repeat", {empty({2, 0})}, {{"repeats", "3"}, {"axis", "1"}}).shape() == Shape{2, 0});
  CHECK(run1("slice_like", {iota({3, 2}), empty({0, 2})}).shape() == Shape{0, 2});
  CHECK(run1("where", {empty({0}), empty({0, 3}), empty({0, 3})}).shape() == Shape{0, 3});
  CHECK(run1("take", {empty({0, 3}), i32({1, 2})}, {{"axis", "1"}}).shape() == Shape{0, 2});
  CHECK(run1("concatenate", {empty({2, 0}), empty({2, 0})}).shape() == Shape{2, 0});
  CHECK_THAT(run_error("strided_slice", {empty({0, 3})}),
             Contains("axis 0 of input shape (0, 3): expected begin < end"));
}

TEST_CASE("transform ops match independent references on random shapes", "[ops][transform]") {
  std::mt19937_64 rng(20240611);
  auto random_int32 = [&](const Shape& s) {
    return test::random_array(s, DataType::Int(32), rng());
  };
  for (int iter = 0; iter < 40; ++iter) {
    CAPTURE(iter);
    // transpose of a random permutation, on a (sometimes non-contiguous) input.
    Shape s = random_shape(rng, 1, 5, 4);
    NDArray x = random_int32(s);
    if (iter % 3 == 0) x = x.slice(0, -1, -100, -1);  // reversed rows
    std::vector<int> perm(s.ndim());
    for (int d = 0; d < s.ndim(); ++d) perm[d] = d;
    std::shuffle(perm.begin(), perm.end(), rng);
    Dims axes(perm.begin(), perm.end());
    NDArray t = run1("transpose", {x}, {{"axes", tuple(axes)}});
    check_gather(t, x, [&](const Dims& o) {
      Dims i(o.size());
      for (size_t k = 0; k < o.size(); ++k) i[perm[k]] = o[k];
      return i;
    });

    // strided_slice with random begin/end/stride per axis; an empty range must be an error.
    Dims begin, end, stride, first, step;
    Shape expected;
    bool empty = false;
    for (int d = 0; d < s.ndim(); ++d) {
      const int64_t dim = s[d];
      int64_t st = static_cast<int64_t>(rng() % 7) - 3;
      if (st == 0) st = 1;
      int64_t b = static_cast<int64_t>(rng() % (2 * dim + 5)) - dim - 2;
      int64_t e = static_cast<int64_t>(rng() % (2 * dim + 5)) - dim - 2;
      begin.push_back(b);
      end.push_back(e);
      stride.push_back(st);
      b = b < 0 ? b + dim : b;
      e = e < 0 ? e + dim : e;
      const int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? dim : dim - 1;
      b = std::clamp(b, lo, hi);
      e = std::clamp(e, lo, hi);
      int64_t count = 0;
      for (int64_t k = b; st > 0 ? k < e : k > e; k += st) ++count;
      empty = empty || count == 0;
      expected.push_back(count);
      first.push_back(b);
      step.push_back(st);
    }
    const AttrMap sa = {{"begin", tuple(begin)}, {"end", tuple(end)}, {"stride", tuple(stride)}};
    if (empty) {
      CHECK_THAT(run_error("strided_slice", {x}, sa), Contains("after clamping"));
    } else {
      NDArray sl = run1("strided_slice", {x}, sa);
      REQUIRE(sl.shape() == expected);
      check_gather(sl, x, [&](const Dims& o) {
        Dims i(o.size());
        for (size_t k = 0; k < o.size(); ++k) i[k] = first[k] + o[k] * step[k];
        return i;
      });
    }

    // take, with and without an axis, indices around and far outside the valid range.
    Shape is = random_shape(rng, 0, 2, 4);
    if (iter % 5 == 0) is = Shape{0};
    const bool with_axis = iter % 2 == 0;
    const int axis = static_cast<int>(rng() % s.ndim());
    const int64_t dim = with_axis ? s[axis] : s.numel();
    std::vector<int32_t> idx(static_cast<size_t>(is.numel()));
    for (int32_t& v : idx) {
      const uint64_t pick = rng() % 8;
      v = pick == 0 ? kMin : pick == 1 ? kMax : static_cast<int32_t>(rng() % (dim + 6)) - 3;
    }
    NDArray indices = i32(idx, is);
    auto clamp_index = [&](int64_t j) { return std::clamp<int64_t>(idx[j], 0, dim - 1); };
    if (with_axis) {
      NDArray tk = run1("take", {x, indices}, {{"axis", std::to_string(axis - s.ndim())}});
      check_gather(tk, x, [&](const Dims& o) {
        Dims i(o.begin(), o.begin() + axis);
        Dims jdx(o.begin() + axis, o.begin() + axis + is.ndim());
        i.push_back(clamp_index(ravel(jdx, is)));
        i.insert(i.end(), o.begin() + axis + is.ndim(), o.end());
        return i;
      });
    } else {
      NDArray tk = run1("take", {x, indices});
      REQUIRE(tk.shape() == is);
      check_gather(tk, x, [&](const Dims& o) { return unravel(clamp_index(ravel(o, is)), s); });
    }

    // concatenate 1..4 inputs along a random axis (pieces may be empty).
    const int cat_axis = static_cast<int>(rng() % s.ndim());
    std::vector<NDArray> parts;
    Dims offsets{0};
    for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
      Shape ps = s;
      ps[cat_axis] = static_cast<int64_t>(rng() % 4);
      parts.push_back(random_int32(ps));
      offsets.push_back(offsets.back() + ps[cat_axis]);
    }
    NDArray cat = run1("concatenate", parts, {{"axis", std::to_string(cat_axis)}});
    REQUIRE(cat.shape()[cat_axis] == offsets.back());
    for (int64_t i = 0; i < cat.numel(); ++i) {
      Dims o = unravel(i, cat.shape());
      size_t k = 0;
      while (o[cat_axis] >= offsets[k + 1]) ++k;
      o[cat_axis] -= offsets[k];
      REQUIRE(test::int_at(cat, i) == test::int_at(parts[k], ravel(o, parts[k].shape())));
    }

    // repeat: output index along the axis divided by repeats.
    const int64_t repeats = 1 + static_cast<int64_t>(rng() % 3);
    NDArray rp =
        run1("repeat", {x}, {{"repeats", std::to_string(repeats)}, {"axis", std::to_string(axis)}});
    check_gather(rp, x, [&](Dims o) {
      o[axis] /= repeats;
      return o;
    });

    // tile: Y[k] = X[k mod shape], right-aligned, reps longer or shorter than ndim.
    Dims reps;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 6); k < n; ++k) reps.push_back(1 + rng() % 3);
    NDArray tl = run1("tile", {x}, {{"reps", tuple(reps)}});
    REQUIRE(tl.ndim() == std::max<int>(s.ndim(), static_cast<int>(reps.size())));
    check_gather(tl, x, [&](const Dims& o) {
      Dims i(s.ndim());
      for (int d = 0; d < s.ndim(); ++d) i[d] = o[o.size() - s.ndim() + d] % s[d];
      return i;
    });

    // slice_like on all axes, and where with both cond forms.
    Shape like = s;
    for (int d = 0; d < s.ndim(); ++d) like[d] = 1 + static_cast<int64_t>(rng() % s[d]);
    NDArray sl = run1("slice_like", {x, NDArray::zeros(like, DataType::Int(32))});
    REQUIRE(sl.shape() == like);
    check_gather(sl, x, [](const Dims& o) { return o; });
    const bool rows = iter % 2 == 1;
    NDArray cond = test::random_array(rows ? Shape{s[0]} : s, DataType::Int(32), rng());
    int32_t* cd = cond.mutable_data_as<int32_t>();
    for (int64_t i = 0; i < cond.numel(); ++i) cd[i] = rng() % 3 == 0 ? 0 : cd[i];
    NDArray other = random_int32(s);
    NDArray wh = run1("where", {cond, x, other});
    for (int64_t i = 0; i < wh.numel(); ++i) {
      const int64_t c = test::int_at(cond, rows ? unravel(i, s)[0] : i);
      REQUIRE(test::int_at(wh, i) == test::int_at(c != 0 ? x : other, i));
    }
  }
}

TEST_CASE("tile and reshape beyond the kernels' view dims", "[ops][transform]") {
  // Five tiled dims interleave into ten non-mergeable ones: more than a kernel view takes.
  NDArray x = test::random_array({2, 3, 2, 3, 2}, DataType::Int(32), 99);
  NDArray t = run1("tile", {x}, {{"reps", "(2, 2, 3, 2, 2)"}});
  REQUIRE(t.shape() == Shape{4, 6, 6, 6, 4});
  check_gather(t, x, [&](const Dims& o) {
    Dims i(o.size());
    for (size_t d = 0; d < o.size(); ++d) i[d] = o[d] % x.shape()[static_cast<int>(d)];
    return i;
  });
  NDArray r = run1("repeat", {x}, {{"repeats", "2"}, {"axis", "2"}});
  check_gather(r, x, [](Dims o) {
    o[2] /= 2;
    return o;
  });
  NDArray deep =
      run1("reshape", {x.permute({4, 3, 2, 1, 0})}, {{"shape", "(2, 1, 3, 1, 2, 3, 2)"}});
  CHECK(ints(deep) == ints(x.permute({4, 3, 2, 1, 0})));
}
