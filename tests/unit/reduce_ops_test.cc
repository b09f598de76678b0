// CVM sum/max and the array reductions: hand-computed cases, every axis form and quirk,
// precision and cost, errors, the float summation order, stride invariance, and seeded random
// cases against independent references written here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "cvm/op.h"
#include "float16.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

template <typename T>
NDArray make(const Shape& shape, const std::vector<T>& v, DataType t) {
  REQUIRE(static_cast<int64_t>(v.size()) == shape.numel());
  REQUIRE(sizeof(T) == t.bytes());
  return NDArray::from_bytes(v.data(), v.size() * sizeof(T), shape, t);
}
NDArray i32(const Shape& shape, const std::vector<int32_t>& v) {
  return make(shape, v, DataType::Int(32));
}
NDArray f32(const Shape& shape, const std::vector<float>& v) {
  return make(shape, v, DataType::Float(32));
}

std::vector<int64_t> ints(const NDArray& a) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < a.numel(); ++i) v.push_back(test::int_at(a, i));
  return v;
}

NDArray run1(const std::string& op, const NDArray& x, const AttrMap& attrs = {}) {
  return run_op(op, {x}, attrs).at(0);
}

// Runs `op` and checks the output shape and integer values.
void expect(const std::string& op, const NDArray& x, const AttrMap& attrs, const Shape& shape,
            const std::vector<int64_t>& values) {
  NDArray out = run1(op, x, attrs);
  INFO(op << " on " << x.shape());
  REQUIRE(out.shape() == shape);
  REQUIRE(ints(out) == values);
}

uint32_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// ---- independent references ----

// Which dims a reduction covers: the CVM/TVM rule (empty axis tuple = all) or NumPy's
// (nullopt = all, empty = none). Written separately from core/ops/reduce_shape.cc.
std::vector<bool> ref_reduced(int n, const std::optional<std::vector<int64_t>>& axes,
                              bool cvm_flavor, bool exclude) {
  if (!axes || (cvm_flavor && axes->empty())) return std::vector<bool>(n, true);
  std::vector<bool> r(n, exclude);
  for (int64_t a : *axes) r[a < 0 ? a + n : a] = !exclude;
  return r;
}

Shape ref_out_shape(const Shape& in, const std::vector<bool>& reduced, bool keepdims,
                    bool cvm_flavor) {
  Shape s;
  for (int d = 0; d < in.ndim(); ++d) {
    if (!reduced[d])
      s.push_back(in[d]);
    else if (keepdims)
      s.push_back(1);
  }
  if (s.ndim() == 0 && cvm_flavor) s.push_back(1);
  return s;
}

// The elements of each output block, in input row-major order (which, restricted to one block,
// is row-major over the reduced axes).
std::vector<std::vector<int64_t>> ref_blocks(const Shape& in, const std::vector<bool>& reduced) {
  int64_t out_size = 1;
  for (int d = 0; d < in.ndim(); ++d) {
    if (!reduced[d]) out_size *= in[d];
  }
  std::vector<std::vector<int64_t>> blocks(static_cast<size_t>(out_size));
  for (int64_t i = 0; i < in.numel(); ++i) {
    int64_t rest = i, o = 0, scale = 1;
    for (int d = in.ndim() - 1; d >= 0; --d) {
      const int64_t c = rest % in[d];
      rest /= in[d];
      if (!reduced[d]) {
        o += c * scale;
        scale *= in[d];
      }
    }
    blocks[o].push_back(i);
  }
  return blocks;
}

// The contract's float sum written out literally: 16 lanes, then the fixed pairwise tree.
template <typename A>
A lane_tree_sum(const std::vector<A>& x) {
  A l[16];
  for (A& v : l) v = A(0);
  for (size_t j = 0; j < x.size(); ++j) l[j % 16] = l[j % 16] + x[j];
  return (((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))) +
         (((l[8] + l[9]) + (l[10] + l[11])) + ((l[12] + l[13]) + (l[14] + l[15])));
}

// One element as every representation the references need.
struct Elem {
  std::vector<uint8_t> bytes;
  int64_t s;   // sign-extended (signed ints)
  uint64_t u;  // zero-extended (unsigned ints)
  double f;    // exact value (floats)
};

Elem elem_at(const NDArray& a, int64_t i) {
  Elem e;
  e.bytes = test::element_bytes(a, i);
  e.u = 0;
  std::memcpy(&e.u, e.bytes.data(), e.bytes.size());
  e.s = test::int_at(a, i);
  e.f = a.dtype().is_float() ? test::float_at(a, i) : 0.0;
  return e;
}

std::vector<uint8_t> int_bytes(uint64_t v, size_t n) {
  std::vector<uint8_t> b(n);
  std::memcpy(b.data(), &v, n);
  return b;
}

// Float result `v` (exact in the accumulation type) as the bytes of dtype t.
std::vector<uint8_t> float_bytes(double v, DataType t) {
  std::vector<uint8_t> b(t.bytes());
  if (t == DataType::Float(64)) {
    std::memcpy(b.data(), &v, 8);
  } else if (t == DataType::Float(32)) {
    float f = static_cast<float>(v);
    std::memcpy(b.data(), &f, 4);
  } else {
    uint16_t h = t == DataType::Float(16) ? kernel::double_to_half_bits(v)
                                          : kernel::double_to_bfloat16_bits(v);
    std::memcpy(b.data(), &h, 2);
  }
  return b;
}

// Expected bytes of one output of array reduction `op` over the block `idx` of x.
std::vector<uint8_t> ref_array_reduce(const std::string& op, const NDArray& x,
                                      const std::vector<int64_t>& idx) {
  const DataType t = x.dtype();
  std::vector<Elem> v;
  for (int64_t i : idx) v.push_back(elem_at(x, i));
  const size_t n = v.size();
  if (op == "reduce_sum" || op == "reduce_mean") {
    if (!t.is_float()) {
      uint64_t sum = 0;
      for (const Elem& e : v) sum += t.is_int() ? static_cast<uint64_t>(e.s) : e.u;
      if (op == "reduce_sum") return int_bytes(sum, t.bytes());
      if (t.is_int())
        return int_bytes(static_cast<uint64_t>(static_cast<int64_t>(sum) / static_cast<int64_t>(n)),
                         t.bytes());
      return int_bytes(sum / n, t.bytes());
    }
    // A NaN result is the canonical NaN: sign clear, top mantissa bit only.
    if (t == DataType::Float(64)) {
      std::vector<double> d;
      for (const Elem& e : v) d.push_back(e.f);
      double s = lane_tree_sum(d);
      if (op == "reduce_mean") s = s / static_cast<double>(n);
      return std::isnan(s) ? int_bytes(0x7FF8000000000000ull, 8) : float_bytes(s, t);
    }
    std::vector<float> f;
    for (const Elem& e : v) f.push_back(static_cast<float>(e.f));
    float s = lane_tree_sum(f);
    if (op == "reduce_mean") s = s / static_cast<float>(n);
    if (std::isnan(s)) {
      return int_bytes(t == DataType::Float(32)   ? 0x7FC00000u
                       : t == DataType::Float(16) ? 0x7E00u
                                                  : 0x7FC0u,
                       t.bytes());
    }
    return float_bytes(s, t);
  }
  // max, min, argmax: strict comparison, first wins, NaN beats everything and the first wins.
  const bool want_max = op != "reduce_min";
  size_t best = 0;
  for (size_t j = 1; j < n; ++j) {
    bool better;
    if (t.is_float()) {
      if (std::isnan(v[best].f))
        better = false;
      else if (std::isnan(v[j].f))
        better = true;
      else
        better = want_max ? v[j].f > v[best].f : v[j].f < v[best].f;
    } else if (t.is_int()) {
      better = want_max ? v[j].s > v[best].s : v[j].s < v[best].s;
    } else {
      better = want_max ? v[j].u > v[best].u : v[j].u < v[best].u;
    }
    if (better) best = j;
  }
  if (op == "argmax") return int_bytes(best, 8);
  return v[best].bytes;
}

const std::vector<Shape> kRandomShapes = {
    Shape{1},     Shape{7},       Shape{33},       Shape{3, 5},       Shape{1, 17},
    Shape{16, 1}, Shape{2, 3, 4}, Shape{5, 1, 35}, Shape{2, 2, 1, 3}, Shape{3, 4, 2, 5},
    Shape{40, 3}, Shape{2, 65},   Shape{0, 3},     Shape{4, 0, 2},    Shape{},
};

// A random subset of the axes of an n-d shape, each written as d or d - n.
std::vector<int64_t> random_axes(int n, std::mt19937_64& rng) {
  std::vector<int64_t> axes;
  for (int d = 0; d < n; ++d) {
    if (rng() % 2) axes.push_back(rng() % 2 ? d : d - n);
  }
  std::shuffle(axes.begin(), axes.end(), rng);
  return axes;
}

std::string axes_text(const std::vector<int64_t>& axes) {
  std::string s = "(";
  for (int64_t a : axes) s += std::to_string(a) + ", ";
  return s + ")";
}

// The same logical array with other strides: transposed copy viewed back, then every axis of
// that reversed twice (negative strides).
NDArray transposed_view(const NDArray& x) {
  std::vector<int> perm;
  for (int d = x.ndim() - 1; d >= 0; --d) perm.push_back(d);
  return x.permute(perm).contiguous().permute(perm);
}
NDArray reversed_view(const NDArray& x) {
  NDArray r = x;
  for (int d = 0; d < x.ndim(); ++d) r = r.slice(d, r.shape()[d] - 1, -r.shape()[d] - 1, -1);
  r = r.contiguous();
  for (int d = 0; d < x.ndim(); ++d) r = r.slice(d, r.shape()[d] - 1, -r.shape()[d] - 1, -1);
  return r;
}

}  // namespace

// ---------------------------------------------------------------- CVM sum and max

TEST_CASE("CVM sum: every axis form on hand-computed data", "[ops][reduce]") {
  NDArray x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect("sum", x, {}, Shape{1}, {21});
  expect("sum", x, {{"axis", "()"}}, Shape{1}, {21});
  expect("sum", x, {{"keepdims", "True"}}, Shape{1, 1}, {21});
  expect("sum", x, {{"axis", "(0,)"}}, Shape{3}, {5, 7, 9});
  expect("sum", x, {{"axis", "0"}}, Shape{3}, {5, 7, 9});
  expect("sum", x, {{"axis", "(1,)"}}, Shape{2}, {6, 15});
  expect("sum", x, {{"axis", "(-1,)"}}, Shape{2}, {6, 15});
  expect("sum", x, {{"axis", "[-2]"}}, Shape{3}, {5, 7, 9});
  expect("sum", x, {{"axis", "(1,)"}, {"keepdims", "1"}}, Shape{2, 1}, {6, 15});
  expect("sum", x, {{"axis", "(0, 1)"}}, Shape{1}, {21});
  expect("sum", x, {{"axis", "(1, 0)"}}, Shape{1}, {21});  // unsorted is accepted (sorted)
  expect("sum", x, {{"axis", "(0, -1)"}, {"keepdims", "true"}}, Shape{1, 1}, {21});
  // exclude: the listed axes are kept.
  expect("sum", x, {{"axis", "(0,)"}, {"exclude", "True"}}, Shape{2}, {6, 15});
  expect("sum", x, {{"axis", "(1,)"}, {"exclude", "1"}, {"keepdims", "1"}}, Shape{1, 3}, {5, 7, 9});
  expect("sum", x, {{"axis", "(0, 1)"}, {"exclude", "True"}}, Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  expect("sum", x, {{"axis", "()"}, {"exclude", "True"}}, Shape{1}, {21});
  // dtype is accepted and ignored.
  expect("sum", x, {{"axis", "(1,)"}, {"dtype", "int64"}}, Shape{2}, {6, 15});

  // (2, 3, 4) holding 0..23: summing axes 0 and 2 gives 32j + 60.
  std::vector<int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  NDArray y = i32({2, 3, 4}, v);
  expect("sum", y, {{"axis", "(0, 2)"}}, Shape{3}, {60, 92, 124});
  expect("sum", y, {{"axis", "(-3, -1)"}, {"keepdims", "1"}}, Shape{1, 3, 1}, {60, 92, 124});
  expect("sum", y, {{"axis", "(1,)"}, {"exclude", "1"}}, Shape{3}, {60, 92, 124});
  expect("sum", y, {{"axis", "(1,)"}}, Shape{2, 4}, {12, 15, 18, 21, 48, 51, 54, 57});
}

TEST_CASE("CVM sum wraps in int32", "[ops][reduce]") {
  expect("sum", i32({2}, {kMax32, 1}), {}, Shape{1}, {kMin32});
  expect("sum", i32({2}, {kMin32, -1}), {}, Shape{1}, {kMax32});
  expect("sum", i32({4}, {kMax32, kMax32, kMax32, kMax32}), {}, Shape{1}, {-4});
  expect("sum", i32({2, 2}, {kMin32, kMin32, 5, -5}), {{"axis", "(1,)"}}, Shape{2}, {0, 0});
}

TEST_CASE("CVM max: the axis=() quirk and explicit axes", "[ops][reduce]") {
  NDArray neg = i32({2, 2}, {-5, -3, -7, -4});
  // Quirk: axis=() without exclude starts at 0, so an all-negative input gives 0.
  expect("max", neg, {}, Shape{1}, {0});
  expect("max", neg, {{"axis", "()"}, {"keepdims", "1"}}, Shape{1, 1}, {0});
  expect("max", i32({3}, {kMin32, -1, kMin32}), {}, Shape{1}, {0});
  // Explicit axes start at the first element: the true maximum.
  expect("max", neg, {{"axis", "(0, 1)"}}, Shape{1}, {-3});
  expect("max", neg, {{"axis", "(0,)"}}, Shape{2}, {-5, -3});
  expect("max", neg, {{"axis", "(1,)"}}, Shape{2}, {-3, -4});
  expect("max", neg, {{"axis", "(-1,)"}, {"keepdims", "1"}}, Shape{2, 1}, {-3, -4});
  expect("max", neg, {{"axis", "(0,)"}, {"exclude", "1"}}, Shape{2}, {-3, -4});
  // exclude with axis=() reduces every axis through the explicit path: no quirk.
  expect("max", neg, {{"axis", "()"}, {"exclude", "1"}}, Shape{1}, {-3});
  // exclude listing every axis reduces nothing.
  expect("max", neg, {{"axis", "(0, 1)"}, {"exclude", "1"}}, Shape{2, 2}, {-5, -3, -7, -4});
  expect("max", i32({2}, {kMin32, kMin32}), {{"axis", "(0,)"}}, Shape{1}, {kMin32});
  expect("max", i32({3}, {3, -1, 7}), {}, Shape{1}, {7});
  expect("max", i32({2, 3}, {1, 9, 3, 8, 2, 7}), {{"axis", "(1,)"}}, Shape{2}, {9, 8});
}

TEST_CASE("CVM sum/max accept strided views", "[ops][reduce]") {
  NDArray x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray t = x.transpose();  // (3, 2): [[1,4],[2,5],[3,6]]
  expect("sum", t, {{"axis", "(1,)"}}, Shape{3}, {5, 7, 9});
  expect("max", t, {{"axis", "(0,)"}}, Shape{2}, {3, 6});
  NDArray r = x.slice(1, 2, -4, -1);  // [[3,2,1],[6,5,4]]
  expect("sum", r, {{"axis", "(0,)"}}, Shape{3}, {9, 7, 5});
  expect("max", r.slice(0, 1, -3, -1), {{"axis", "(1,)"}}, Shape{2}, {6, 3});
  // A broadcast view (stride 0): every row is [1, 2, 3].
  NDArray b = i32({3}, {1, 2, 3}).broadcast_to({4, 3});
  expect("sum", b, {{"axis", "(0,)"}}, Shape{3}, {4, 8, 12});
}

TEST_CASE("CVM reduce errors: axes, attributes, dtypes, empty max", "[ops][reduce]") {
  NDArray x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  for (const char* op : {"sum", "max"}) {
    REQUIRE_THROWS_MATCHES(run1(op, x, {{"axis", "(1, 1)"}}), LogicError,
                           Catch::Matchers::Message(std::string("op \"") + op +
                                                    "\": attribute \"axis\": expected distinct "
                                                    "axes, found (1, 1) (dimension 1 named "
                                                    "twice) for input shape (2, 3)"));
    REQUIRE_THROWS_WITH(run1(op, x, {{"axis", "(0, -2)"}}), Contains("distinct axes"));
    REQUIRE_THROWS_WITH(
        run1(op, x, {{"axis", "(2,)"}}),
        Contains("attribute \"axis\": expected each axis in [-2, 1]") && Contains("found (2)"));
    REQUIRE_THROWS_WITH(run1(op, x, {{"axis", "(-3,)"}}), Contains("found (-3)"));
    REQUIRE_THROWS_AS(run1(op, x, {{"axis", "(0,)"}, {"exclude", "1"}, {"keepdims", "x"}}),
                      LogicError);
    REQUIRE_THROWS_WITH(run1(op, x, {{"keepdims", "maybe"}}),
                        Contains("attribute \"keepdims\": expected a bool"));
    REQUIRE_THROWS_WITH(run1(op, x, {{"axis", "(a)"}}), Contains("attribute \"axis\""));
    REQUIRE_THROWS_WITH(run1(op, x, {{"axes", "(0,)"}}), Contains("unknown attribute \"axes\""));
    REQUIRE_THROWS_WITH(run1(op, NDArray::zeros({2}, DataType::Int(8))),
                        Contains("must be int32, found int8"));
    REQUIRE_THROWS_WITH(infer_op(op, {{2, 3}}, {8}, {{"axis", "(5,)"}}), Contains("[-2, 1]"));
  }
  // max over zero elements has no value (except through the quirk's accumulator).
  NDArray empty = NDArray::zeros({2, 0}, DataType::Int(32));
  REQUIRE_THROWS_WITH(run1("max", empty, {{"axis", "(1,)"}}),
                      Contains("op \"max\"") && Contains("found 0"));
  expect("max", empty, {}, Shape{1}, {0});
  expect("max", empty, {{"axis", "(0,)"}}, Shape{0}, {});
  expect("sum", empty, {{"axis", "(1,)"}}, Shape{2}, {0, 0});
}

TEST_CASE("CVM reduce precision p0 + NB(in/out) and cost base", "[ops][reduce]") {
  struct Case {
    std::vector<int64_t> shape;
    AttrMap attrs;
    int sum_precision;  // p0 = 8
    int64_t base;       // in_size / out_size
    std::vector<int64_t> out_shape;
  };
  const std::vector<Case> cases = {
      {{5, 1}, {{"axis", "(1,)"}}, 8 + 1, 1, {5}},                         // NB(1) = 1
      {{1, 3}, {{"axis", "(1,)"}}, 8 + 2, 3, {1}},                         // NB(3) = 2
      {{4}, {}, 8 + 3, 4, {1}},                                            // NB(4) = 3
      {{2, 3}, {}, 8 + 3, 6, {1}},                                         // NB(6) = 3
      {{2, 3}, {{"axis", "(0,)"}}, 8 + 2, 2, {3}},                         // NB(2) = 2
      {{8, 2}, {{"axis", "(0,)"}, {"keepdims", "1"}}, 8 + 4, 8, {1, 2}},   // NB(8) = 4
      {{7, 9}, {{"axis", "(0, 1)"}, {"exclude", "1"}}, 8 + 1, 1, {7, 9}},  // nothing reduced
      {{1024}, {}, 8 + 11, 1024, {1}},                                     // NB(1024) = 11
      {{0, 3}, {{"axis", "(0,)"}}, 8 + 0, 0, {3}},                         // NB(0) = 0
      {{3, 5, 7}, {{"axis", "(1,)"}, {"exclude", "1"}}, 8 + 5, 21, {5}},   // NB(21) = 5
  };
  for (const Case& c : cases) {
    INFO(Shape(c.shape) << " " << c.attrs.size() << " attrs");
    OpInference s = infer_op("sum", {c.shape}, {8}, c.attrs);
    REQUIRE(s.output_shapes == std::vector<std::vector<int64_t>>{c.out_shape});
    REQUIRE(s.output_precisions == std::vector<int>{c.sum_precision});
    REQUIRE(s.cost_base == c.base);
    if (c.base == 0) {  // max over zero elements has no value
      REQUIRE_THROWS_AS(infer_op("max", {c.shape}, {8}, c.attrs), LogicError);
      continue;
    }
    OpInference m = infer_op("max", {c.shape}, {8}, c.attrs);
    REQUIRE(m.output_shapes == s.output_shapes);
    REQUIRE(m.output_precisions == std::vector<int>{8});
    REQUIRE(m.cost_base == 1);
  }
  REQUIRE(infer_op("sum", {{3, 100}}, {20}, {{"axis", "(1,)"}}).output_precisions ==
          std::vector<int>{27});  // NB(100) = 7
  for (const OpInfo& info : list_ops()) {
    if (info.name == "sum" || info.name == "max") {
      REQUIRE(info.cvm);
      REQUIRE_FALSE(info.inplace);
      REQUIRE(info.num_inputs == 1);
    }
  }
}

TEST_CASE("CVM sum/max match an independent reference on random cases", "[ops][reduce]") {
  std::mt19937_64 rng(2024);
  int cases = 0;
  for (int rep = 0; rep < 6; ++rep) {
    for (const Shape& shape : kRandomShapes) {
      if (shape.ndim() == 0 || shape.numel() == 0) continue;
      std::vector<int32_t> v(static_cast<size_t>(shape.numel()));
      const int kind = rep % 3;  // full range, all negative, near the int32 bounds
      for (int32_t& e : v) {
        const uint32_t r = static_cast<uint32_t>(rng());
        e = kind == 0   ? static_cast<int32_t>(r)
            : kind == 1 ? -static_cast<int32_t>(r % 1000) - 1
                        : (r % 2 ? kMax32 - static_cast<int32_t>(r % 4)
                                 : kMin32 + static_cast<int32_t>(r % 4));
      }
      // Also through a transposed (column-major) view of the same logical data.
      NDArray x = i32(shape, v);
      NDArray xt = transposed_view(x);
      std::vector<int64_t> axes = random_axes(shape.ndim(), rng);
      const bool keepdims = rng() % 2, exclude = rng() % 3 == 0;
      AttrMap attrs = {{"axis", axes_text(axes)},
                       {"keepdims", keepdims ? "True" : "False"},
                       {"exclude", exclude ? "True" : "False"}};
      std::vector<bool> red = ref_reduced(shape.ndim(), axes, true, exclude);
      Shape out_shape = ref_out_shape(shape, red, keepdims, true);
      auto blocks = ref_blocks(shape, red);
      const bool quirk = axes.empty() && !exclude;
      std::vector<int64_t> want_sum, want_max;
      for (const auto& b : blocks) {
        uint32_t s = 0;
        int64_t m = quirk ? 0 : v[b[0]];
        for (int64_t i : b) {
          s += static_cast<uint32_t>(v[i]);
          m = std::max<int64_t>(m, v[i]);
        }
        want_sum.push_back(static_cast<int32_t>(s));
        want_max.push_back(m);
      }
      INFO("shape " << shape << " attrs axis=" << attrs["axis"] << " keepdims=" << keepdims
                    << " exclude=" << exclude);
      for (const NDArray& in : {x, xt}) {
        expect("sum", in, attrs, out_shape, want_sum);
        expect("max", in, attrs, out_shape, want_max);
      }
      ++cases;
    }
  }
  REQUIRE(cases > 50);
}

TEST_CASE("reduce views: more than 8 non-mergeable dimensions are a LogicError", "[ops][reduce]") {
  const Shape nine{2, 2, 2, 2, 2, 2, 2, 2, 2};
  NDArray x = NDArray::zeros(nine, DataType::Int(32));
  // Everything reduced: the dimensions merge into one.
  expect("sum", x, {}, Shape{1}, {0});
  // Alternate axes: 4 kept and 5 reduced dimensions, none adjacent in memory.
  REQUIRE_THROWS_WITH(run1("sum", x, {{"axis", "(0, 2, 4, 6, 8)"}}),
                      Contains("kernels support at most 8"));
}

// ---------------------------------------------------------------- array reductions

TEST_CASE("array reductions: hand-computed values and NumPy axis forms", "[ops][reduce]") {
  NDArray x = i32({2, 3}, {1, 5, 5, 7, 2, 7});
  REQUIRE(ints(reduce_sum(x)) == std::vector<int64_t>{27});
  REQUIRE(reduce_sum(x).shape() == Shape{});  // NumPy: every axis -> 0-d
  REQUIRE(reduce_sum(x, {}, true).shape() == Shape{1, 1});
  REQUIRE(ints(reduce_sum(x, {0})) == std::vector<int64_t>{8, 7, 12});
  REQUIRE(ints(reduce_sum(x, {-1})) == std::vector<int64_t>{11, 16});
  REQUIRE(reduce_sum(x, {-1}, true).shape() == Shape{2, 1});
  // An explicitly empty axis list reduces nothing.
  NDArray same = reduce_sum(x, std::vector<int64_t>{});
  REQUIRE(same.shape() == Shape{2, 3});
  REQUIRE(ints(same) == ints(x));
  REQUIRE(ints(run1("reduce_sum", x, {{"axis", "None"}})) == std::vector<int64_t>{27});
  REQUIRE(ints(run1("reduce_sum", x, {{"axis", "()"}})) == ints(x));
  REQUIRE(ints(reduce_max(x, {1})) == std::vector<int64_t>{5, 7});
  REQUIRE(ints(reduce_min(x, {0})) == std::vector<int64_t>{1, 2, 5});
  REQUIRE(ints(reduce_mean(x, {1})) == std::vector<int64_t>{3, 5});  // 11/3, 16/3 truncated
  // argmax: int64, first maximum wins, flat index over the reduced axes.
  NDArray am = argmax(x, {1});
  REQUIRE(am.dtype() == DataType::Int(64));
  REQUIRE(ints(am) == std::vector<int64_t>{1, 0});
  REQUIRE(ints(argmax(x, {0})) == std::vector<int64_t>{1, 0, 1});
  REQUIRE(ints(argmax(x)) == std::vector<int64_t>{3});
  REQUIRE(argmax(x).shape() == Shape{});
  REQUIRE(argmax(x, {0}, true).shape() == Shape{1, 3});
  std::vector<int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = (i * 7) % 24;  // max 23 at i = 17: (1, 1, 1)
  NDArray y = i32({2, 3, 4}, v);
  // Over axes (0, 2), column j's block is y[a, j, c] in order (a, c): flat index a*4 + c.
  REQUIRE(ints(argmax(y, {0, 2})) == std::vector<int64_t>{3, 5, 2});
  REQUIRE(ints(argmax(y)) == std::vector<int64_t>{17});
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax"}) {
    for (const OpInfo& info : list_ops()) {
      if (info.name == op) REQUIRE_FALSE(info.cvm);
    }
  }
}

TEST_CASE("array reductions: integer wrapping and the integer mean rule", "[ops][reduce]") {
  REQUIRE(ints(reduce_sum(make<int8_t>({2}, {100, 100}, DataType::Int(8)))) ==
          std::vector<int64_t>{-56});
  REQUIRE(ints(reduce_sum(make<uint8_t>({2}, {200, 100}, DataType::UInt(8)))) ==
          std::vector<int64_t>{44});
  REQUIRE(ints(reduce_sum(make<int64_t>({2}, {INT64_MAX, 1}, DataType::Int(64)))) ==
          std::vector<int64_t>{INT64_MIN});
  // Means divide the 64-bit sum, truncating toward zero.
  REQUIRE(ints(reduce_mean(i32({2}, {-7, 0}))) == std::vector<int64_t>{-3});
  REQUIRE(ints(reduce_mean(i32({2}, {7, 0}))) == std::vector<int64_t>{3});
  REQUIRE(ints(reduce_mean(i32({2}, {kMax32, kMax32}))) == std::vector<int64_t>{kMax32});
  REQUIRE(ints(reduce_mean(i32({2}, {kMin32, kMin32}))) == std::vector<int64_t>{kMin32});
  REQUIRE(ints(reduce_mean(i32({2}, {kMin32, kMin32 + 1}))) ==
          std::vector<int64_t>{kMin32 + 1});  // -2147483647.5 truncates toward zero
  REQUIRE(ints(reduce_mean(make<int8_t>({4}, {127, 127, 127, 126}, DataType::Int(8)))) ==
          std::vector<int64_t>{126});
  REQUIRE(ints(reduce_mean(make<uint8_t>({2}, {255, 254}, DataType::UInt(8)))) ==
          std::vector<int64_t>{254});
  REQUIRE(test::int_at(
              reduce_mean(make<uint64_t>({2}, {UINT64_MAX, UINT64_MAX - 2}, DataType::UInt(64))),
              0) == static_cast<int64_t>(UINT64_MAX / 2 - 1));  // wrapped sum / 2
  REQUIRE(ints(reduce_mean(make<int64_t>({2}, {INT64_MAX, 1}, DataType::Int(64)))) ==
          std::vector<int64_t>{INT64_MIN / 2});  // the sum wraps first
  REQUIRE(ints(reduce_max(make<uint32_t>({3}, {1, 0xFFFFFFFFu, 7}, DataType::UInt(32)))) ==
          std::vector<int64_t>{0xFFFFFFFFll});
  REQUIRE(ints(reduce_min(make<int16_t>({3}, {1, -32768, 7}, DataType::Int(16)))) ==
          std::vector<int64_t>{-32768});
}

TEST_CASE("array reductions: NaN, signed zeros and ties are deterministic", "[ops][reduce]") {
  const float nan_a = std::nanf("1"), nan_b = -std::nanf("2");
  NDArray x = f32({5}, {1.0f, nan_a, 3.0f, nan_b, -2.0f});
  // The first NaN wins, bit for bit, for max, min and argmax.
  REQUIRE(test::element_bytes(reduce_max(x), 0) == test::element_bytes(x, 1));
  REQUIRE(test::element_bytes(reduce_min(x), 0) == test::element_bytes(x, 1));
  REQUIRE(ints(argmax(x)) == std::vector<int64_t>{1});
  NDArray y = f32({4}, {1.0f, 9.0f, nan_b, nan_a});
  REQUIRE(test::element_bytes(reduce_max(y), 0) == test::element_bytes(y, 2));
  REQUIRE(ints(argmax(y)) == std::vector<int64_t>{2});
  // Equal values: the first one wins, so -0 and +0 are told apart by position.
  NDArray z = f32({2}, {-0.0f, 0.0f});
  REQUIRE(f32_bits(static_cast<float>(test::float_at(reduce_max(z), 0))) == 0x80000000u);
  REQUIRE(f32_bits(static_cast<float>(test::float_at(reduce_min(z), 0))) == 0x80000000u);
  NDArray z2 = f32({2}, {0.0f, -0.0f});
  REQUIRE(f32_bits(static_cast<float>(test::float_at(reduce_max(z2), 0))) == 0u);
  REQUIRE(ints(argmax(f32({3}, {3.0f, 1.0f, 3.0f}))) == std::vector<int64_t>{0});
  // Sums: -0 alone sums to +0 (lanes start at +0); infinities propagate.
  REQUIRE(f32_bits(static_cast<float>(test::float_at(reduce_sum(f32({2}, {-0.0f, -0.0f})), 0))) ==
          0u);
  REQUIRE(std::isinf(test::float_at(reduce_sum(f32({3}, {1.0f, INFINITY, 2.0f})), 0)));
  // A NaN sum or mean is the canonical NaN, whatever NaNs went in or came out of the adds.
  for (const NDArray& in :
       {f32({2}, {nan_b, nan_a}), f32({2}, {INFINITY, -INFINITY}), f32({3}, {1.0f, nan_b, 2.0f})}) {
    REQUIRE(f32_bits(static_cast<float>(test::float_at(reduce_sum(in), 0))) == 0x7FC00000u);
    REQUIRE(test::element_bytes(reduce_mean(in), 0) ==
            std::vector<uint8_t>{0x00, 0x00, 0xC0, 0x7F});
  }
  NDArray h = make<uint16_t>({2}, {0xFE01, 0x7C00}, DataType::Float(16));  // -NaN, +inf
  REQUIRE(test::element_bytes(reduce_sum(h), 0) == std::vector<uint8_t>{0x00, 0x7E});
  NDArray d = make<double>({2}, {-std::nan("3"), 1.0}, DataType::Float(64));
  REQUIRE(test::element_bytes(reduce_sum(d), 0) ==
          std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xF8, 0x7F});
  REQUIRE(test::float_at(reduce_mean(f32({4}, {1.0f, 2.0f, 3.0f, 4.0f})), 0) == 2.5);
}

TEST_CASE("array reductions: empty inputs and errors", "[ops][reduce]") {
  NDArray e = NDArray::zeros({0, 3}, DataType::Float(32));
  NDArray s = reduce_sum(e, {0});
  REQUIRE(s.shape() == Shape{3});
  for (int i = 0; i < 3; ++i) REQUIRE(f32_bits(static_cast<float>(test::float_at(s, i))) == 0u);
  REQUIRE(reduce_max(e, {1}).shape() == Shape{0});  // nothing to compute
  for (const char* op : {"reduce_max", "reduce_min", "reduce_mean", "argmax"}) {
    REQUIRE_THROWS_WITH(run1(op, e, {{"axis", "(0,)"}}),
                        Contains(std::string("op \"") + op + "\"") && Contains("found 0"));
    REQUIRE_THROWS_WITH(run1(op, e), Contains("input shape (0, 3)"));
  }
  NDArray x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  REQUIRE_THROWS_WITH(run1("reduce_sum", x, {{"axis", "(0, 0)"}}), Contains("distinct axes"));
  REQUIRE_THROWS_WITH(run1("reduce_sum", x, {{"axis", "(-1, 1)"}}), Contains("distinct axes"));
  REQUIRE_THROWS_WITH(reduce_sum(x, {2}), Contains("op \"reduce_sum\": attribute \"axis\"") &&
                                              Contains("[-2, 1]") && Contains("found (2)"));
  REQUIRE_THROWS_WITH(reduce_sum(NDArray::zeros({}, DataType::Float(32)), {0}),
                      Contains("expected no axes for a 0-d input"));
  REQUIRE_THROWS_WITH(run1("argmax", x, {{"exclude", "1"}}),
                      Contains("unknown attribute \"exclude\""));
  REQUIRE_THROWS_WITH(reduce_sum(NDArray::zeros({2}, DataType::Bool())),
                      Contains("op \"reduce_sum\": input 0: expected a numeric dtype, found bool"));
  // A 0-d input reduces to itself.
  NDArray scalar = i32({}, {42});
  REQUIRE(ints(reduce_max(scalar)) == std::vector<int64_t>{42});
  REQUIRE(reduce_max(scalar).shape() == Shape{});
}

// ---------------------------------------------------------------- float evaluation order

TEST_CASE("float sums follow the 16-lane tree, not left-to-right order", "[ops][reduce]") {
  // [2^24, then 31 ones]. Left to right every +1 rounds away: 2^24. The contract: lane 0 holds
  // 2^24 + 1 -> 2^24, lanes 1..15 hold 2 each, and the tree adds them exactly: 2^24 + 30.
  std::vector<float> v(32, 1.0f);
  v[0] = 16777216.0f;
  float naive = 0.0f;
  for (float f : v) naive = naive + f;
  REQUIRE(naive == 16777216.0f);
  REQUIRE(test::float_at(reduce_sum(f32({32}, v)), 0) == 16777246.0);
  REQUIRE(test::float_at(reduce_mean(f32({32}, v)), 0) == static_cast<double>(16777246.0f / 32));
  // Same data along axis 0 of a (32, 2) array: the block order is the axis order.
  std::vector<float> w;
  for (float f : v) w.insert(w.end(), {f, -f});
  NDArray s = reduce_sum(f32({32, 2}, w), {0});
  REQUIRE(test::float_at(s, 0) == 16777246.0);
  REQUIRE(test::float_at(s, 1) == -16777246.0);
  // float16 accumulates in float32 and rounds once: 2048 + 16 ones = 2064 (float16-exact),
  // where float16 steps would round every +1 away.
  std::vector<uint16_t> h(17, kernel::double_to_half_bits(1.0));
  h[0] = kernel::double_to_half_bits(2048.0);
  REQUIRE(test::float_at(reduce_sum(make<uint16_t>({17}, h, DataType::Float(16))), 0) == 2064.0);
  // bfloat16 likewise: 256 + 16 ones = 272.
  std::vector<uint16_t> bf(17, kernel::double_to_bfloat16_bits(1.0));
  bf[0] = kernel::double_to_bfloat16_bits(256.0);
  REQUIRE(test::float_at(reduce_sum(make<uint16_t>({17}, bf, DataType::BFloat16())), 0) == 272.0);
  // float64: 2^53 and 31 ones.
  std::vector<double> d(32, 1.0);
  d[0] = 9007199254740992.0;
  REQUIRE(test::float_at(reduce_sum(make<double>({32}, d, DataType::Float(64))), 0) ==
          9007199254741022.0);
}

TEST_CASE("array reductions match independent references on random cases", "[ops][reduce]") {
  std::mt19937_64 rng(77);
  uint64_t seed = 5000;
  int checked = 0;
  const char* kOps[] = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax"};
  for (DataType t : kAllDataTypes) {
    if (t.is_bool()) continue;
    for (const Shape& shape : kRandomShapes) {
      NDArray x = test::random_array(shape, t, seed++);
      if (t.is_float() && shape.numel() > 3 && rng() % 2) {
        // Sprinkle NaNs with distinct payloads.
        NDArray nan = NDArray::empty({}, t);
        for (int k = 0; k < 2; ++k) {
          fill(nan, std::nan(""));
          int64_t at = static_cast<int64_t>(rng() % static_cast<uint64_t>(shape.numel()));
          std::vector<uint8_t> bytes = test::element_bytes(nan, 0);
          bytes[0] ^= static_cast<uint8_t>(k + 1);  // payload
          std::memcpy(static_cast<uint8_t*>(x.mutable_data()) + at * t.bytes(), bytes.data(),
                      t.bytes());
        }
      }
      std::optional<std::vector<int64_t>> axes;
      if (rng() % 4 != 0) axes = random_axes(shape.ndim(), rng);
      const bool keepdims = rng() % 2;
      std::vector<bool> red = ref_reduced(shape.ndim(), axes, false, false);
      Shape out_shape = ref_out_shape(shape, red, keepdims, false);
      auto blocks = ref_blocks(shape, red);
      AttrMap attrs = {{"axis", axes ? axes_text(*axes) : "None"},
                       {"keepdims", keepdims ? "1" : "0"}};
      for (const char* op : kOps) {
        INFO(op << " " << t << " " << shape << " axis=" << attrs["axis"]
                << " keepdims=" << keepdims);
        const bool empty_block = !blocks.empty() && blocks[0].empty();
        if (empty_block && std::string(op) != "reduce_sum") {
          REQUIRE_THROWS_AS(run1(op, x, attrs), LogicError);
          continue;
        }
        for (const NDArray& in : {x, transposed_view(x), reversed_view(x)}) {
          NDArray out = run1(op, in, attrs);
          REQUIRE(out.shape() == out_shape);
          REQUIRE(static_cast<size_t>(out.numel()) == blocks.size());
          for (size_t o = 0; o < blocks.size(); ++o) {
            if (test::element_bytes(out, static_cast<int64_t>(o)) !=
                ref_array_reduce(op, x, blocks[o])) {
              FAIL("output " << o << " differs from the reference");
            }
          }
          ++checked;
        }
      }
    }
  }
  REQUIRE(checked > 500);
}

TEST_CASE("float reductions are independent of strides and view layout", "[ops][reduce]") {
  uint64_t seed = 900;
  for (DataType t :
       {DataType::Float(32), DataType::Float(64), DataType::Float(16), DataType::BFloat16()}) {
    NDArray x = test::random_array({5, 7, 67}, t, seed++);
    NDArray views[] = {transposed_view(x), reversed_view(x)};
    const std::vector<ReduceAxes> axis_sets = {
        ReduceAxes(),     ReduceAxes{0},      ReduceAxes{1},      ReduceAxes{2},
        ReduceAxes{0, 2}, ReduceAxes{-1, -2}, ReduceAxes{0, 1, 2}};
    for (const ReduceAxes& axes : axis_sets) {
      NDArray sum = reduce_sum(x, axes), mean = reduce_mean(x, axes);
      NDArray mx = reduce_max(x, axes), am = argmax(x, axes);
      for (const NDArray& v : views) {
        REQUIRE_FALSE(v.is_contiguous());
        INFO(t << " axes " << axes.axes().size());
        REQUIRE(test::bit_equal(reduce_sum(v, axes), sum));
        REQUIRE(test::bit_equal(reduce_mean(v, axes), mean));
        REQUIRE(test::bit_equal(reduce_max(v, axes), mx));
        REQUIRE(test::bit_equal(argmax(v, axes), am));
      }
    }
  }
}
