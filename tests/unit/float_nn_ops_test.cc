// Tests of the float32 operators of float_nn.cc and of det_exp.
//
// avg_pool2d, leaky_relu, clamp, sigmoid, softmax, pad: hand cases from the definitions in
// docs/operators.md and docs/determinism.md, edge values (-0.0, infinities, NaN), attribute
// errors, and seeded double-precision references.
//
// The op-layer headers bring the library's CHECK/VERIFY macros: included first, then dropped for
// Catch2's.
#include "op_def.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "cvm/error.h"
#include "cvm/op.h"
#include "float_math.h"
#include "float_test_util.h"
#include "op_test_util.h"
#include "test_util.h"

using namespace cvm;
using namespace cvm::test;  // the float test helpers: f32, bits, fvals, run1, iota, uniform, ...
using Catch::Matchers::Contains;
using kernel::det_exp;

namespace {

const float kNan = from_bits(0xFFC00001u);  // a NaN with the sign and a payload
const float kCNan = from_bits(kCanonicalNan);

int64_t cost(const char* op, const AttrMap& attrs, const std::vector<Shape>& shapes) {
  const ops::OpDef* def = ops::find_op(op);
  REQUIRE(def != nullptr);
  return def->cost_base(*def->parse(attrs), shapes);
}

// |got - want| within `rel` of |want| or one float32 subnormal step.
bool near(float got, double want, double rel) {
  return std::fabs(got - want) <= std::max(std::fabs(want) * rel, 1.5e-45);
}

// avg_pool2d straight from the ONNX definition, in double: the sum of the window's cells inside the
// input over the count of those cells, or of the cells inside the padded area.
std::vector<double> avg_pool_reference(const std::vector<float>& x, int64_t h, int64_t w,
                                       int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                       const int64_t pad[4], bool include_pad, int64_t oh_n,
                                       int64_t ow_n) {
  std::vector<double> y;
  for (int64_t oh = 0; oh < oh_n; ++oh) {
    for (int64_t ow = 0; ow < ow_n; ++ow) {
      double sum = 0;
      int64_t inside = 0, padded = 0;
      for (int64_t a = 0; a < kh; ++a) {
        for (int64_t b = 0; b < kw; ++b) {
          const int64_t r = oh * sh - pad[0] + a, c = ow * sw - pad[1] + b;
          if (r >= -pad[0] && r < h + pad[2] && c >= -pad[1] && c < w + pad[3]) ++padded;
          if (r < 0 || r >= h || c < 0 || c >= w) continue;
          sum += x[r * w + c];
          ++inside;
        }
      }
      const int64_t divisor = include_pad ? padded : inside;
      y.push_back(divisor == 0 ? 0.0 : sum / static_cast<double>(divisor));
    }
  }
  return y;
}

}  // namespace

// -----------------------------------------------------------------------------
// avg_pool2d

TEST_CASE("avg_pool2d: hand-computed, no padding", "[ops][float]") {
  NDArray y = run1("avg_pool2d", {f32({1, 1, 3, 3}, iota(9))}, {{"pool_size", "(2, 2)"}});
  CHECK(y.shape() == Shape{1, 1, 2, 2});
  CHECK(fvals(y) == std::vector<float>{3, 4, 6, 7});  // (1 + 2 + 4 + 5) / 4, ...
  CHECK(cost("avg_pool2d", {{"pool_size", "(2, 3)"}}, {Shape{1, 1, 3, 3}}) == 6);
}

TEST_CASE("avg_pool2d: padding with and without count_include_pad", "[ops][float]") {
  // 3x3 window, stride 2, padding 1 on 3x3: windows over rows {-1, 0, 1} and {1, 2, 3}.
  const NDArray x = f32({1, 1, 3, 3}, iota(9));
  AttrMap a = {{"pool_size", "(3, 3)"}, {"strides", "(2, 2)"}, {"padding", "1"}};
  NDArray y = run1("avg_pool2d", {x}, a);
  CHECK(y.shape() == Shape{1, 1, 2, 2});
  CHECK(fvals(y) == std::vector<float>{12.0f / 4, 16.0f / 4, 24.0f / 4, 28.0f / 4});
  a["count_include_pad"] = "True";  // every window has 9 cells inside the padded area
  CHECK(fvals(run1("avg_pool2d", {x}, a)) ==
        std::vector<float>{12.0f / 9, 16.0f / 9, 24.0f / 9, 28.0f / 9});
  // Asymmetric (top, left, bottom, right) = (1, 0, 0, 1), 2x2 windows, stride 1.
  AttrMap b = {{"pool_size", "(2, 2)"}, {"padding", "(1, 0, 0, 1)"}};
  NDArray z = run1("avg_pool2d", {x}, b);
  CHECK(z.shape() == Shape{1, 1, 3, 3});
  CHECK(fvals(z) == std::vector<float>{1.5f, 2.5f, 3, 3, 4, 4.5f, 6, 7, 7.5f});
  b["count_include_pad"] = "1";
  CHECK(fvals(run1("avg_pool2d", {x}, b)) ==
        std::vector<float>{0.75f, 1.25f, 0.75f, 3, 4, 2.25f, 6, 7, 3.75f});
  // (ph, pw) form: padding only along W.
  CHECK(run1("avg_pool2d", {x}, {{"pool_size", "(1, 2)"}, {"padding", "(0, 1)"}}).shape() ==
        Shape{1, 1, 3, 4});
}

TEST_CASE("avg_pool2d: ceil_mode and the last-window rule", "[ops][float]") {
  // 4x4, 3x3 windows, stride 2: floor gives 1, ceil 2; the second window reaches past the input,
  // where nothing is padding, so both divisors count 6 or 4 cells.
  const NDArray x = f32({1, 1, 4, 4}, iota(16));
  AttrMap a = {{"pool_size", "(3, 3)"}, {"strides", "(2, 2)"}};
  CHECK(run1("avg_pool2d", {x}, a).shape() == Shape{1, 1, 1, 1});
  a["ceil_mode"] = "True";
  CHECK(fvals(run1("avg_pool2d", {x}, a)) == std::vector<float>{6, 7.5f, 12, 13.5f});
  a["count_include_pad"] = "True";
  CHECK(fvals(run1("avg_pool2d", {x}, a)) == std::vector<float>{6, 7.5f, 12, 13.5f});
  // 5x5, 2x2 windows, stride 2, padding 1: ceil(5 / 2) + 1 = 4 windows, but the fourth would start
  // at 6 >= H + top = 6 (in the bottom padding): 3, as with floor.
  const AttrMap c = {
      {"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}, {"padding", "1"}, {"ceil_mode", "True"}};
  CHECK(run1("avg_pool2d", {f32({1, 1, 5, 5}, iota(25))}, c).shape() == Shape{1, 1, 3, 3});
  // 5 wide, no padding: floor gives 2 windows, ceil a third starting at 4, inside the input, with
  // one cell to average (count_include_pad counts none beyond the input either).
  AttrMap e = {{"pool_size", "(1, 2)"}, {"strides", "(1, 2)"}};
  const NDArray x5 = f32({1, 1, 1, 5}, iota(5));
  CHECK(fvals(run1("avg_pool2d", {x5}, e)) == std::vector<float>{1.5f, 3.5f});
  e["ceil_mode"] = "True";
  CHECK(fvals(run1("avg_pool2d", {x5}, e)) == std::vector<float>{1.5f, 3.5f, 5});
  e["count_include_pad"] = "True";
  CHECK(fvals(run1("avg_pool2d", {x5}, e)) == std::vector<float>{1.5f, 3.5f, 5});
  // Padding (0, 1) on 6 wide: windows from -1 step 2; the ends have one input cell each.
  NDArray y = run1("avg_pool2d", {f32({1, 1, 1, 6}, iota(6))},
                   {{"pool_size", "(1, 2)"},
                    {"strides", "(1, 2)"},
                    {"padding", "(0, 1)"},
                    {"ceil_mode", "True"}});
  CHECK(fvals(y) == std::vector<float>{1, 2.5f, 4.5f, 6});
}

TEST_CASE("avg_pool2d: row-major sequential sum, one division, -0.0 and NaN", "[ops][float]") {
  const float big = 16777216.0f;  // 2^24: the three ones after it round away
  CHECK(fvals(run1("avg_pool2d", {f32({1, 1, 2, 2}, {big, 1, 1, 1})}, {{"pool_size", "(2, 2)"}})) ==
        std::vector<float>{big / 4});
  CHECK(fvals(run1("avg_pool2d", {f32({1, 1, 2, 2}, {1, 1, 1, big})}, {{"pool_size", "(2, 2)"}})) ==
        std::vector<float>{(big + 4) / 4});  // 3 + 2^24 rounds to even: 2^24 + 4
  // One division of the float sum: 1/3 + 1/3 + 1/3 = 1 in float, then / 3.
  const float third = 1.0f / 3;
  CHECK(bits(run1("avg_pool2d", {f32({1, 1, 1, 3}, {third, third, third})},
                  {{"pool_size", "(1, 3)"}})) ==
        bits(std::vector<float>{(third + third + third) / 3}));
  CHECK(bits(run1("avg_pool2d", {f32({1, 1, 2, 2}, {-0.0f, -0.0f, -0.0f, -0.0f})},
                  {{"pool_size", "(2, 2)"}})) == std::vector<uint32_t>{0});  // +0 + -0 = +0
  CHECK(bits(run1("avg_pool2d", {f32({1, 1, 1, 4}, {1, kNan, kInf, -kInf})},
                  {{"pool_size", "(1, 2)"}, {"strides", "(1, 2)"}})) ==
        std::vector<uint32_t>{kCanonicalNan, kCanonicalNan});
}

TEST_CASE("avg_pool2d: seeded cases against the ONNX definition in double", "[ops][float]") {
  std::mt19937 rng(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 120; ++iter) {
    const int64_t kh = pick(1, 4), kw = pick(1, 4), sh = pick(1, 3), sw = pick(1, 3);
    const int64_t pad[4] = {pick(0, static_cast<int>(kh) - 1), pick(0, static_cast<int>(kw) - 1),
                            pick(0, static_cast<int>(kh) - 1), pick(0, static_cast<int>(kw) - 1)};
    const int64_t h = std::max<int64_t>(pick(1, 9), kh), w = std::max<int64_t>(pick(1, 9), kw);
    const bool ceil_mode = pick(0, 1) == 1, include_pad = pick(0, 1) == 1;
    const std::vector<float> x = uniform(rng, h * w, -4, 4);
    const AttrMap a = {
        {"pool_size", "(" + std::to_string(kh) + ", " + std::to_string(kw) + ")"},
        {"strides", "(" + std::to_string(sh) + ", " + std::to_string(sw) + ")"},
        {"padding", "(" + std::to_string(pad[0]) + ", " + std::to_string(pad[1]) + ", " +
                        std::to_string(pad[2]) + ", " + std::to_string(pad[3]) + ")"},
        {"ceil_mode", ceil_mode ? "1" : "0"},
        {"count_include_pad", include_pad ? "1" : "0"}};
    NDArray y = run1("avg_pool2d", {f32({1, 1, h, w}, x)}, a);
    const int64_t oh = y.shape()[2], ow = y.shape()[3];
    // Every window starts inside the input or its top/left padding.
    CHECK((oh - 1) * sh < h + pad[0]);
    CHECK((ow - 1) * sw < w + pad[1]);
    const std::vector<double> want =
        avg_pool_reference(x, h, w, kh, kw, sh, sw, pad, include_pad, oh, ow);
    const std::vector<float> got = fvals(y);
    for (size_t i = 0; i < got.size(); ++i) {
      INFO(iter << " element " << i << ": " << got[i] << " vs " << want[i]);
      CHECK(std::fabs(got[i] - want[i]) <= 1e-5);
    }
  }
}

TEST_CASE("avg_pool2d: attribute, shape and dtype errors", "[ops][float]") {
  const NDArray x = f32({1, 1, 3, 3}, iota(9));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {x}, {}),
                    Contains("op \"avg_pool2d\": attribute \"pool_size\": expected a tuple"));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {x}, {{"pool_size", "(2, 2)"}, {"padding", "(1, 1, 1)"}}),
                    Contains("attribute \"padding\": expected 1, 2 or 4 values, found (1, 1, 1)"));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {x}, {{"pool_size", "(2, 3)"}, {"padding", "(0, 0, 2, 0)"}}),
                    Contains("attribute \"padding\": expected values below pool_size (2, 3)"));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {x}, {{"pool_size", "(2, 2)"}, {"strides", "(0, 1)"}}),
                    Contains("attribute \"strides\": expected values in [1, 4096]"));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {x}, {{"pool_size", "(4, 1)"}}),
                    Contains("pool height 4 does not fit in the padded data height 3"));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {x}, {{"pool_size", "(1, 1)"}, {"layout", "NHWC"}}),
                    Contains("attribute \"layout\": expected \"NCHW\""));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {x}, {{"pool_size", "(1, 1)"}, {"count", "1"}}),
                    Contains("unknown attribute \"count\""));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {f32({3, 3}, iota(9))}, {{"pool_size", "(1, 1)"}}),
                    Contains("data shape (3, 3) must be 4-D (N, C, H, W)"));
  CHECK_LOGIC_ERROR(run1("avg_pool2d", {i32({1, 1, 1, 1}, {1})}, {{"pool_size", "(1, 1)"}}),
                    Contains("op \"avg_pool2d\": input 0 must be float32, found int32"));
}

// --------------------------------------------------------------- leaky_relu,
// clamp, sigmoid

TEST_CASE("leaky_relu: x < 0 ? x * alpha : x, -0.0 kept, NaN canonical", "[ops][float]") {
  const NDArray x = f32({7}, {-1, 2, -0.0f, kNan, -kInf, 0, -3});
  const float a = 0.01f;
  CHECK(bits(run1("leaky_relu", {x})) ==
        bits(std::vector<float>{-1 * a, 2, -0.0f, kCNan, -kInf, 0, -3 * a}));
  const float b = 0.2f;
  CHECK(bits(run1("leaky_relu", {x}, {{"alpha", "0.2"}})) ==
        bits(std::vector<float>{-1 * b, 2, -0.0f, kCNan, -kInf, 0, -3 * b}));
  CHECK(bits(run1("leaky_relu", {x}, {{"alpha", " 1e-2 "}})) == bits(run1("leaky_relu", {x})));
  // alpha 0: -inf * 0 is NaN, written canonical; -3 * 0 = -0.0.
  CHECK(bits(run1("leaky_relu", {x}, {{"alpha", "0"}})) ==
        bits(std::vector<float>{-0.0f, 2, -0.0f, kCNan, kCNan, 0, -0.0f}));
  for (const char* bad : {"inf", "-inf", "nan", "abc", "0.1f", "", "1e"}) {
    INFO(bad);
    CHECK_LOGIC_ERROR(run1("leaky_relu", {x}, {{"alpha", bad}}),
                      Contains("op \"leaky_relu\": attribute \"alpha\": "
                               "expected a finite number"));
  }
  CHECK_LOGIC_ERROR(run1("leaky_relu", {x}, {{"alpha", "1e39"}}),
                    Contains("attribute \"alpha\": expected a number within the float32 range"));
  CHECK_LOGIC_ERROR(run1("leaky_relu", {i32({1}, {1})}),
                    Contains("op \"leaky_relu\": input 0 must be float32, found int32"));
}

TEST_CASE("clamp: bounds, infinities, -0.0 and NaN", "[ops][float]") {
  const NDArray x = f32({9}, {-2, -1, 0.5f, 1, 3, -0.0f, kNan, kInf, -kInf});
  CHECK(bits(run1("clamp", {x})) ==
        bits(std::vector<float>{-2, -1, 0.5f, 1, 3, -0.0f, kCNan, kInf, -kInf}));
  CHECK(bits(run1("clamp", {x}, {{"a_min", "-1"}, {"a_max", "1"}})) ==
        bits(std::vector<float>{-1, -1, 0.5f, 1, 1, -0.0f, kCNan, 1, -1}));
  CHECK(bits(run1("clamp", {x}, {{"a_min", "-inf"}, {"a_max", "0"}})) ==
        bits(std::vector<float>{-2, -1, 0, 0, 0, -0.0f, kCNan, 0, -kInf}));
  // -0.0 < +0 is false: with a_min = 0, -0.0 passes through unchanged.
  CHECK(bits(run1("clamp", {x}, {{"a_min", "0"}, {"a_max", "INF"}})) ==
        bits(std::vector<float>{0, 0, 0.5f, 1, 3, -0.0f, kCNan, kInf, 0}));
  CHECK(fvals(run1("clamp", {f32({3}, {0, 5, 2})}, {{"a_min", "2"}, {"a_max", "2"}})) ==
        std::vector<float>{2, 2, 2});
  CHECK(fvals(run1("clamp", {f32({1}, {0})}, {{"a_min", "0.1"}})) == std::vector<float>{0.1f});
  CHECK_LOGIC_ERROR(run1("clamp", {x}, {{"a_min", "1"}, {"a_max", "0"}}),
                    Contains("op \"clamp\": attribute \"a_max\": expected a value >= a_min (1), "
                             "found 0"));
  CHECK_LOGIC_ERROR(run1("clamp", {x}, {{"a_min", "inf"}, {"a_max", "5"}}),
                    Contains("attribute \"a_max\": expected a value >= a_min (inf), found 5"));
  CHECK(fvals(run1("clamp", {f32({1}, {0})}, {{"a_min", "inf"}})) == std::vector<float>{kInf});
  CHECK_LOGIC_ERROR(run1("clamp", {x}, {{"a_min", "nan"}}),
                    Contains("attribute \"a_min\": expected a number, \"inf\" or \"-inf\", found "
                             "\"nan\""));
  CHECK_LOGIC_ERROR(run1("clamp", {x}, {{"a_max", "-1e39"}}),
                    Contains("attribute \"a_max\": expected a number within the float32 range"));
}

TEST_CASE("sigmoid: 1 / (1 + det_exp(-x)) in double, rounded once", "[ops][float]") {
  const float tiny = static_cast<float>(1.0 / (1.0 + std::exp(100.0)));  // a float subnormal
  CHECK(tiny > 0);
  CHECK(bits(run1("sigmoid", {f32({8}, {0, -0.0f, kInf, -kInf, kNan, 100, -100, 1})})) ==
        bits(std::vector<float>{0.5f, 0.5f, 1, 0, kCNan, 1, tiny,
                                static_cast<float>(1 / (1 + std::exp(-1.0)))}));
  std::mt19937 rng(3);
  for (const auto& [lo, hi] : {std::pair{-20.0f, 20.0f}, std::pair{-110.0f, 95.0f}}) {
    const std::vector<float> x = uniform(rng, 5000, lo, hi);
    const std::vector<float> y = fvals(run1("sigmoid", {f32({5000}, x)}));
    for (size_t i = 0; i < x.size(); ++i) {
      INFO(x[i]);
      // Exactly the documented expression, and within one float step of libm's value.
      const double e = det_exp(-static_cast<double>(x[i]));
      CHECK(bits_of(y[i]) == bits_of(static_cast<float>(1.0 / (1.0 + e))));
      CHECK(near(y[i], 1.0 / (1.0 + std::exp(-static_cast<double>(x[i]))), 1.2e-7));
    }
  }
}

// --------------------------------------------------------------------------------
// softmax

TEST_CASE("softmax: hand cases, max subtracted, NaN slices", "[ops][float]") {
  CHECK(fvals(run1("softmax", {f32({2, 2}, {1, 1, 1000, 1000})})) ==
        std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f});
  CHECK(fvals(run1("softmax", {f32({4}, {0, 0, 0, 0})})) == std::vector<float>(4, 0.25f));
  CHECK(bits(run1("softmax", {f32({2}, {-kInf, 0})})) == bits(std::vector<float>{0, 1}));
  // axis 0 of a (2, 2): columns.
  CHECK(fvals(run1("softmax", {f32({2, 2}, {1, 5, 1, 5})}, {{"axis", "0"}})) ==
        std::vector<float>(4, 0.5f));
  // A NaN makes its whole slice canonical NaN; the others are untouched.
  CHECK(bits(run1("softmax", {f32({2, 3}, {1, kNan, 2, 3, 3, 3})})) ==
        bits(std::vector<float>{kCNan, kCNan, kCNan, 1.0f / 3, 1.0f / 3, 1.0f / 3}));
  std::vector<float> by_column =
      fvals(run1("softmax", {f32({2, 2}, {1, kNan, 1, 2})}, {{"axis", "-2"}}));
  CHECK(bits(by_column) == bits(std::vector<float>{0.5f, kCNan, 0.5f, kCNan}));
  // +inf in a slice: inf - inf is NaN, and so is the slice.
  CHECK(bits(run1("softmax", {f32({2}, {kInf, 0})})) == bits(std::vector<float>{kCNan, kCNan}));
  CHECK(cost("softmax", {}, {Shape{2, 7}}) == 7);
  CHECK(cost("softmax", {{"axis", "-2"}}, {Shape{2, 7}}) == 2);
}

TEST_CASE("softmax: seeded slices sum to 1 and match a double reference", "[ops][float]") {
  std::mt19937 rng(11);
  for (int64_t n : {1, 2, 7, 16, 17, 100, 1000}) {
    const int64_t rows = 3;
    const std::vector<float> x = uniform(rng, rows * n, -30, 30);
    const std::vector<float> y = fvals(run1("softmax", {f32({rows, n}, x)}));
    for (int64_t r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0, total = 0;
      for (int64_t i = 0; i < n; ++i) m = std::max<double>(m, x[r * n + i]);
      for (int64_t i = 0; i < n; ++i) s += std::exp(x[r * n + i] - m);
      for (int64_t i = 0; i < n; ++i) {
        const float got = y[r * n + i];
        total += got;
        INFO("n " << n << " row " << r << " i " << i);
        CHECK(near(got, std::exp(x[r * n + i] - m) / s, 2.4e-7));
      }
      CHECK(std::fabs(total - 1) <= 1e-5);
    }
  }
  // A strided (transposed) input gives the bits of its contiguous copy, on every axis.
  NDArray t = f32({3, 4, 5}, uniform(rng, 60, -5, 5)).permute({1, 0, 2});
  REQUIRE_FALSE(t.is_contiguous());
  for (const char* axis : {"0", "1", "2", "-1"}) {
    INFO("axis " << axis);
    CHECK(test::bit_equal(run1("softmax", {t}, {{"axis", axis}}),
                          run1("softmax", {t.contiguous()}, {{"axis", axis}})));
  }
}

TEST_CASE("softmax: axis and dtype errors", "[ops][float]") {
  const NDArray x = f32({2, 3}, iota(6));
  CHECK_LOGIC_ERROR(run1("softmax", {x}, {{"axis", "2"}}),
                    Contains("op \"softmax\": attribute \"axis\": expected an axis in [-2, 1], "
                             "found 2 for 2-d input"));
  CHECK_LOGIC_ERROR(run1("softmax", {x}, {{"axis", "-3"}}), Contains("found -3 for 2-d input"));
  CHECK_LOGIC_ERROR(run1("softmax", {f32({}, {1})}), Contains("for 0-d input"));
  CHECK_LOGIC_ERROR(run1("softmax", {NDArray::zeros({2}, DataType::Float(64))}),
                    Contains("op \"softmax\": input 0 must be float32, found float64"));
  CHECK(run1("softmax", {NDArray::zeros({0, 3}, DataType::Float(32))}).shape() == Shape{0, 3});
}

// ------------------------------------------------------------------------------------
// pad

TEST_CASE("pad: begin of every axis, then the end, constant value", "[ops][float]") {
  const NDArray x = f32({2, 2}, {1, 2, 3, 4});
  NDArray y = run1("pad", {x}, {{"pads", "(1, 0, 0, 2)"}, {"value", "-1.5"}});
  CHECK(y.shape() == Shape{3, 4});
  const float v = -1.5f;
  CHECK(fvals(y) == std::vector<float>{v, v, v, v, 1, 2, v, v, 3, 4, v, v});
  CHECK(fvals(run1("pad", {x}, {{"pads", "(0, 1, 0, 0)"}})) ==
        std::vector<float>{0, 1, 2, 0, 3, 4});
  CHECK(fvals(run1("pad", {x}, {{"pads", "(0, 0, 1, 0)"}, {"value", "-inf"}})) ==
        std::vector<float>{1, 2, 3, 4, -kInf, -kInf});
  // Elements move bit for bit (a NaN payload survives); a 0-d array takes "()".
  CHECK(bits(run1("pad", {f32({1}, {kNan})}, {{"pads", "(1, 0)"}})) ==
        bits(std::vector<float>{0, kNan}));
  CHECK(fvals(run1("pad", {f32({}, {7})}, {{"pads", "()"}})) == std::vector<float>{7});
  // int32 with an integral value.
  NDArray yi = run1("pad", {i32({2}, {5, 6})}, {{"pads", "(1, 1)"}, {"value", "-7"}});
  CHECK(yi.dtype() == DataType::Int(32));
  CHECK(test::vals(yi) == std::vector<int32_t>{-7, 5, 6, -7});
  // A strided input gives the bits of its contiguous copy; an empty axis pads to the fill.
  std::mt19937 rng(1);
  NDArray s = f32({3, 4, 5}, uniform(rng, 60, -1, 1)).permute({2, 0, 1}).slice(1, 0, 3, 2);
  REQUIRE_FALSE(s.is_contiguous());
  const AttrMap p3 = {{"pads", "(1, 0, 2, 0, 3, 1)"}, {"value", "9"}};
  CHECK(test::bit_equal(run1("pad", {s}, p3), run1("pad", {s.contiguous()}, p3)));
  CHECK(fvals(run1("pad", {NDArray::zeros({0, 1}, DataType::Float(32))},
                   {{"pads", "(1, 0, 0, 0)"}})) == std::vector<float>{0});
}

TEST_CASE("pad: attribute and dtype errors", "[ops][float]") {
  const NDArray x = f32({2, 2}, {1, 2, 3, 4});
  CHECK_LOGIC_ERROR(run1("pad", {x}, {{"pads", "(1, 1)"}}),
                    Contains("op \"pad\": attribute \"pads\": expected 4 values (the begin of "
                             "each axis, then the end of each axis) for input shape (2, 2), found "
                             "(1, 1)"));
  CHECK_LOGIC_ERROR(run1("pad", {x}, {{"pads", "(0, -1, 0, 0)"}}),
                    Contains("attribute \"pads\": expected values in [0, 4096]"));
  CHECK_LOGIC_ERROR(run1("pad", {x}, {}), Contains("attribute \"pads\": expected a tuple"));
  CHECK_LOGIC_ERROR(run1("pad", {x}, {{"pads", "(0, 0, 0, 0)"}, {"value", "nan"}}),
                    Contains("attribute \"value\": expected a number"));
  CHECK_LOGIC_ERROR(run1("pad", {x}, {{"pads", "(0, 0, 0, 0)"}, {"value", "1e300"}}),
                    Contains("attribute \"value\": expected a number within the float32 range"));
  CHECK_LOGIC_ERROR(run1("pad", {i32({1}, {1})}, {{"pads", "(1, 0)"}, {"value", "0.5"}}),
                    Contains("op \"pad\": attribute \"value\": expected an integer within int32 "
                             "for int32 data, found \"0.5\""));
  CHECK_LOGIC_ERROR(run1("pad", {i32({1}, {1})}, {{"pads", "(1, 0)"}, {"value", "3e9"}}),
                    Contains("expected an integer within int32"));
  CHECK_LOGIC_ERROR(run1("pad", {NDArray::zeros({1}, DataType::Int(8))}, {{"pads", "(1, 0)"}}),
                    Contains("op \"pad\": input 0 must be float32 or int32, found int8"));
}

TEST_CASE("float model ops are registered, non-CVM, with their arity", "[ops][float]") {
  int found = 0;
  for (const OpInfo& info : list_ops()) {
    for (const char* name : {"avg_pool2d", "leaky_relu", "clamp", "sigmoid", "softmax", "pad"}) {
      if (info.name != name) continue;
      INFO(name);
      CHECK(info.num_inputs == 1);
      CHECK(info.num_outputs == 1);
      CHECK_FALSE(info.cvm);
      CHECK_FALSE(info.inplace);
      ++found;
    }
  }
  CHECK(found == 6);
  // Shape inference works without precisions; precision inference does not apply.
  const OpInference inf = infer_op("avg_pool2d", {{1, 2, 5, 5}}, {}, {{"pool_size", "(2, 2)"}});
  CHECK(inf.output_shapes == std::vector<std::vector<int64_t>>{{1, 2, 4, 4}});
  CHECK(inf.output_precisions.empty());
}

// --------------------------------------------------------------------------------
// det_exp

TEST_CASE("det_exp: special values and the overflow and underflow edges", "[ops][float]") {
  CHECK(det_exp(0.0) == 1.0);
  CHECK(det_exp(-0.0) == 1.0);
  CHECK(det_exp(INFINITY) == INFINITY);
  CHECK(det_exp(-INFINITY) == 0.0);
  CHECK_FALSE(std::signbit(det_exp(-INFINITY)));
  CHECK(std::isnan(det_exp(NAN)));
  CHECK(det_exp(745.0) == INFINITY);
  CHECK(det_exp(709.8) == INFINITY);
  CHECK(std::isfinite(det_exp(709.78)));  // close to DBL_MAX
  CHECK(std::fabs(det_exp(709.78) - std::exp(709.78)) <= std::exp(709.78) * 2e-15);
  CHECK(det_exp(-745.0) == std::exp(-745.0));  // the smallest subnormal, 2^-1074
  CHECK(det_exp(-745.0) > 0);
  CHECK(det_exp(-746.0) == 0.0);
  const double sub = std::exp(-709.8);  // subnormal: rounded once, within one step
  CHECK(std::fabs(det_exp(-709.8) - sub) <= 4.95e-324 + sub * 2e-15);
  CHECK(det_exp(1.0) == Approx(2.718281828459045).epsilon(2e-15));
  for (int k = -1022; k <= 1023; k += 97) {
    INFO(k);
    const double x = k * 0.6931471805599453;
    CHECK(std::fabs(det_exp(x) - std::exp(x)) <= std::exp(x) * 2e-15);
  }
}

TEST_CASE("det_exp: within 2e-15 of std::exp over the whole range", "[ops][float]") {
  std::mt19937_64 rng(12345);
  double worst = 0;
  for (const auto& [lo, hi] : {std::pair{-708.3, 709.7}, std::pair{-1.0, 1.0},
                               std::pair{-0.35, 0.35}, std::pair{-40.0, 40.0}}) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (int i = 0; i < 50000; ++i) {
      const double x = d(rng);
      const double want = std::exp(x);
      worst = std::max(worst, std::fabs(det_exp(x) - want) / want);
    }
  }
  INFO("worst relative error " << worst);
  CHECK(worst <= 2e-15);
  // Subnormal results: within 2e-15 relative or one subnormal step.
  std::uniform_real_distribution<double> sub(-745.0, -708.5);
  for (int i = 0; i < 20000; ++i) {
    const double x = sub(rng), want = std::exp(x);
    INFO(x);
    CHECK(std::fabs(det_exp(x) - want) <= std::max(want * 2e-15, 4.95e-324));
  }
}
