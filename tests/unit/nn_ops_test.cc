// conv2d, dense, max_pool2d and upsampling: hand-computed spec cases, precision and cost rules,
// attribute and shape errors, and seeded random cases against naive references written here.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <limits>
#include <random>

#include "cvm/error.h"
#include "cvm/op.h"
#include "kernel_views.h"
#include "params/nn.h"
#include "registry_internal.h"
#include "op_test_util.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;
using test::i32;
using test::vals;

namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

NDArray run1(const std::string& op, const std::vector<NDArray>& in, const AttrMap& attrs) {
  std::vector<NDArray> out = run_op(op, in, attrs);
  REQUIRE(out.size() == 1);
  return out[0];
}

// 1..n (or a given start) in row-major order.
std::vector<int32_t> iota(int64_t n, int32_t start = 1) {
  std::vector<int32_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<int32_t>(i);
  return v;
}

OpInference infer(const std::string& op, const std::vector<std::vector<int64_t>>& shapes,
                  const std::vector<int>& precisions, const AttrMap& attrs) {
  return infer_op(op, shapes, precisions, attrs);
}

const AttrMap kConv3x3 = {{"channels", "1"}, {"kernel_size", "(3, 3)"}, {"use_bias", "False"}};

// ---- naive references: int64 products summed in uint64 (wraps like int32 after truncation) --

int32_t wrap32(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, g;
  bool bias;
};

// Zero-pads the input explicitly, then slides the dilated kernel over it.
std::vector<int32_t> conv_reference(const ConvCase& k, const std::vector<int32_t>& x,
                                    const std::vector<int32_t>& w, const std::vector<int32_t>& b,
                                    int64_t oh_n, int64_t ow_n) {
  const int64_t hp = k.h + 2 * k.ph, wp = k.w + 2 * k.pw;
  std::vector<int64_t> padded(k.n * k.c * hp * wp, 0);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t c = 0; c < k.c; ++c)
      for (int64_t i = 0; i < k.h; ++i)
        for (int64_t j = 0; j < k.w; ++j)
          padded[((n * k.c + c) * hp + i + k.ph) * wp + j + k.pw] =
              x[((n * k.c + c) * k.h + i) * k.w + j];
  const int64_t cg = k.c / k.g, og = k.oc / k.g;
  std::vector<int32_t> y;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.oc; ++o)
      for (int64_t i = 0; i < oh_n; ++i)
        for (int64_t j = 0; j < ow_n; ++j) {
          uint64_t s = 0;
          const int64_t group = o / og;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t a = 0; a < k.kh; ++a)
              for (int64_t e = 0; e < k.kw; ++e) {
                int64_t xv = padded[((n * k.c + group * cg + c) * hp + i * k.sh + a * k.dh) * wp +
                                    j * k.sw + e * k.dw];
                int64_t wv = w[((o * cg + c) * k.kh + a) * k.kw + e];
                s += static_cast<uint64_t>(xv * wv);
              }
          if (k.bias) s += static_cast<uint64_t>(static_cast<int64_t>(b[o]));
          y.push_back(wrap32(s));
        }
  return y;
}

AttrMap conv_attrs(const ConvCase& k) {
  auto pair = [](int64_t a, int64_t b) {
    return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
  };
  return {{"channels", std::to_string(k.oc)},     {"kernel_size", pair(k.kh, k.kw)},
          {"strides", pair(k.sh, k.sw)},          {"padding", pair(k.ph, k.pw)},
          {"dilation", pair(k.dh, k.dw)},         {"groups", std::to_string(k.g)},
          {"use_bias", k.bias ? "True" : "False"}};
}

std::vector<int32_t> random_values(std::mt19937& rng, int64_t n, bool extreme) {
  std::vector<int32_t> v(n);
  std::uniform_int_distribution<int32_t> small(-128, 127), full(kMin, kMax);
  for (auto& e : v) e = extreme ? full(rng) : small(rng);
  return v;
}

}  // namespace

// ------------------------------------------------------------------------------------ conv2d

TEST_CASE("conv2d: hand-computed 2x2 kernel, no padding", "[ops][nn]") {
  NDArray x = i32({1, 1, 3, 3}, iota(9));
  NDArray w = i32({1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray y =
      run1("conv2d", {x, w}, {{"channels", "1"}, {"kernel_size", "(2, 2)"}, {"use_bias", "False"}});
  CHECK(y.shape() == Shape{1, 1, 2, 2});
  // [1 2; 4 5]·[1 2; 3 4] = 1 + 4 + 12 + 20, and so on.
  CHECK(vals(y) == std::vector<int32_t>{37, 47, 67, 77});
}

TEST_CASE("conv2d: padding 1, bias, multi-batch", "[ops][nn]") {
  std::vector<int32_t> xv = iota(9);
  for (int32_t v : iota(9)) xv.push_back(10 * v);  // batch 1 = 10 x batch 0
  NDArray x = i32({2, 1, 3, 3}, xv);
  NDArray w = i32({1, 1, 3, 3}, std::vector<int32_t>(9, 1));
  NDArray b = i32({1}, {100});
  NDArray y = run1("conv2d", {x, w, b},
                   {{"channels", "1"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"}});
  CHECK(y.shape() == Shape{2, 1, 3, 3});
  // Neighbourhood sums of [1..9] (zero padding), then + 100: batch 1 sums are 10x.
  const std::vector<int32_t> sums = {12, 21, 16, 27, 45, 33, 24, 39, 28};
  std::vector<int32_t> want;
  for (int32_t s : sums) want.push_back(s + 100);
  for (int32_t s : sums) want.push_back(10 * s + 100);
  CHECK(vals(y) == want);
  // One padding value means the same on both axes.
  AttrMap one = kConv3x3;
  one["padding"] = "1";
  CHECK(vals(run1("conv2d", {x, w}, one)) == std::vector<int32_t>{12, 21, 16, 27, 45, 33, 24, 39,
                                                                  28, 120, 210, 160, 270, 450, 330,
                                                                  240, 390, 280});
}

TEST_CASE("conv2d: stride 2 with padding, asymmetric padding per axis", "[ops][nn]") {
  NDArray x = i32({1, 1, 3, 3}, iota(9));
  NDArray w = i32({1, 1, 3, 3}, std::vector<int32_t>(9, 1));
  AttrMap a = kConv3x3;
  a["padding"] = "(1, 1)";
  a["strides"] = "(2, 2)";
  NDArray y = run1("conv2d", {x, w}, a);
  CHECK(y.shape() == Shape{1, 1, 2, 2});  // (3 + 2 - 3) / 2 + 1
  CHECK(vals(y) == std::vector<int32_t>{12, 16, 24, 28});
  a["padding"] = "(0, 1)";  // rows unpadded, columns padded
  a["strides"] = "(1, 1)";
  y = run1("conv2d", {x, w}, a);
  CHECK(y.shape() == Shape{1, 1, 1, 3});
  CHECK(vals(y) == std::vector<int32_t>{27, 45, 33});
}

TEST_CASE("conv2d: dilation 2", "[ops][nn]") {
  NDArray x = i32({1, 1, 5, 5}, iota(25, 0));  // x[i][j] = 5i + j
  NDArray w = i32({1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray y = run1("conv2d", {x, w},
                   {{"channels", "1"},
                    {"kernel_size", "(2, 2)"},
                    {"dilation", "(2, 2)"},
                    {"use_bias", "False"}});
  // Span 3, so 3x3 outputs; y = 1 x[i][j] + 2 x[i][j+2] + 3 x[i+2][j] + 4 x[i+2][j+2]
  //                            = 10 (5i + j) + 82.
  CHECK(y.shape() == Shape{1, 1, 3, 3});
  CHECK(vals(y) == std::vector<int32_t>{82, 92, 102, 132, 142, 152, 182, 192, 202});
}

TEST_CASE("conv2d: groups 2 takes each output's channel block", "[ops][nn]") {
  // x[c, h, w] = 10 (c + 1) + 2h + w; 1x1 kernels, 4 outputs, 2 per group.
  std::vector<int32_t> xv;
  for (int c = 0; c < 4; ++c)
    for (int d = 0; d < 4; ++d) xv.push_back(10 * (c + 1) + d);
  NDArray x = i32({1, 4, 2, 2}, xv);
  NDArray w = i32({4, 2, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8});
  NDArray y =
      run1("conv2d", {x, w},
           {{"channels", "4"}, {"kernel_size", "(1, 1)"}, {"groups", "2"}, {"use_bias", "False"}});
  // oc 0, 1 read channels 0, 1; oc 2, 3 read channels 2, 3.
  std::vector<int32_t> want;
  for (auto [base, step] : {std::pair{50, 3}, {110, 7}, {390, 11}, {530, 15}})
    for (int d = 0; d < 4; ++d) want.push_back(base + step * d);
  CHECK(vals(y) == want);
}

TEST_CASE("conv2d: depthwise (groups = C), with a channel multiplier", "[ops][nn]") {
  // x[c] = [[c+1, c+2], [c+3, c+4]], w[c] = (c + 1) everywhere: y[c] = (c + 1)(4c + 10).
  std::vector<int32_t> xv;
  for (int c = 0; c < 3; ++c)
    for (int d = 1; d <= 4; ++d) xv.push_back(c + d);
  NDArray x = i32({1, 3, 2, 2}, xv);
  std::vector<int32_t> wv;
  for (int c = 0; c < 3; ++c)
    for (int d = 0; d < 4; ++d) wv.push_back(c + 1);
  AttrMap a = {{"channels", "3"}, {"kernel_size", "(2, 2)"}, {"groups", "3"}, {"use_bias", "0"}};
  CHECK(vals(run1("conv2d", {x, i32({3, 1, 2, 2}, wv)}, a)) == std::vector<int32_t>{10, 28, 54});
  // Multiplier 2: outputs 2c and 2c + 1 read channel c; the second kernel is doubled.
  std::vector<int32_t> w2;
  for (int c = 0; c < 3; ++c)
    for (int m = 1; m <= 2; ++m)
      for (int d = 0; d < 4; ++d) w2.push_back(m * (c + 1));
  a["channels"] = "6";
  CHECK(vals(run1("conv2d", {x, i32({6, 1, 2, 2}, w2)}, a)) ==
        std::vector<int32_t>{10, 20, 28, 56, 54, 108});
}

TEST_CASE("conv2d: int32 wrapping, whole sum first then bias", "[ops][nn]") {
  NDArray x = i32({1, 1, 1, 2}, {1 << 30, 1 << 30});
  NDArray w = i32({1, 1, 1, 2}, {2, 2});
  AttrMap a = {{"channels", "1"}, {"kernel_size", "(1, 2)"}};
  CHECK(vals(run1("conv2d", {x, w, i32({1}, {-5})}, a)) == std::vector<int32_t>{-5});  // 2^32
  CHECK(vals(run1("conv2d", {x, i32({1, 1, 1, 2}, {1, 1}), i32({1}, {1})}, a)) ==
        std::vector<int32_t>{kMin + 1});  // 2^31 wraps to INT32_MIN
  CHECK(vals(run1("conv2d", {i32({1, 1, 1, 1}, {kMin}), i32({1, 1, 1, 1}, {-1}), i32({1}, {0})},
                  {{"channels", "1"}, {"kernel_size", "(1, 1)"}})) == std::vector<int32_t>{kMin});
}

TEST_CASE("conv2d: the output size formula and the kernel-must-fit edge", "[ops][nn]") {
  // (H + 2P - D(K - 1) - 1) / S + 1, floored.
  AttrMap a = {{"channels", "2"},     {"kernel_size", "(3, 2)"}, {"strides", "(2, 3)"},
               {"padding", "(1, 0)"}, {"dilation", "(2, 1)"},    {"use_bias", "false"}};
  OpInference r = infer("conv2d", {{2, 4, 10, 11}, {2, 4, 3, 2}}, {8, 8}, a);
  CHECK(r.output_shapes == std::vector<std::vector<int64_t>>{{2, 2, 4, 4}});  // 7/2+1, 9/3+1
  // The dilated kernel exactly fills H + 2P: one output row.
  r = infer("conv2d", {{1, 1, 3, 3}, {1, 1, 3, 3}}, {8, 8}, kConv3x3);
  CHECK(r.output_shapes[0] == std::vector<int64_t>{1, 1, 1, 1});
  // One more row than fits.
  CHECK_LOGIC_ERROR(infer("conv2d", {{1, 1, 2, 3}, {1, 1, 3, 3}}, {8, 8}, kConv3x3),
                    Contains("op \"conv2d\"") && Contains("dilated kernel height 3") &&
                        Contains("padded data height 2"));
  AttrMap d = kConv3x3;
  d["dilation"] = "(1, 2)";  // span 5 > 4
  CHECK_THROWS_WITH(infer("conv2d", {{1, 1, 3, 4}, {1, 1, 3, 3}}, {8, 8}, d),
                    Contains("dilated kernel width 5") && Contains("padded data width 4"));
  d["padding"] = "(0, 1)";  // now 4 + 2 = 6 >= 5
  CHECK(infer("conv2d", {{1, 1, 3, 4}, {1, 1, 3, 3}}, {8, 8}, d).output_shapes[0] ==
        std::vector<int64_t>{1, 1, 1, 2});
}

TEST_CASE("conv2d: shape errors name the shapes", "[ops][nn]") {
  AttrMap a = {{"channels", "8"}, {"kernel_size", "(3, 3)"}, {"use_bias", "False"}};
  CHECK_LOGIC_ERROR(
      infer("conv2d", {{1, 3, 8, 8}, {16, 3, 3, 3}}, {8, 8}, a),
      Contains("op \"conv2d\": weight shape (16, 3, 3, 3) does not match channels 8"));
  a["channels"] = "16";
  a["kernel_size"] = "(5, 5)";
  CHECK_THROWS_WITH(infer("conv2d", {{1, 3, 8, 8}, {16, 3, 3, 3}}, {8, 8}, a),
                    Contains("weight shape (16, 3, 3, 3) does not match kernel_size (5, 5)"));
  a["kernel_size"] = "(3, 3)";
  CHECK_THROWS_WITH(infer("conv2d", {{1, 4, 8, 8}, {16, 3, 3, 3}}, {8, 8}, a),
                    Contains("weight shape (16, 3, 3, 3) does not match data shape (1, 4, 8, 8)"));
  a["groups"] = "2";
  CHECK_THROWS_WITH(infer("conv2d", {{1, 3, 8, 8}, {16, 1, 3, 3}}, {8, 8}, a),
                    Contains("data shape (1, 3, 8, 8): 3 input channels are not divisible by "
                             "groups 2"));
  a["groups"] = "3";
  CHECK_THROWS_WITH(infer("conv2d", {{1, 3, 8, 8}, {16, 1, 3, 3}}, {8, 8}, a),
                    Contains("channels 16 are not divisible by groups 3"));
  a["groups"] = "1";
  CHECK_THROWS_WITH(infer("conv2d", {{3, 8, 8}, {16, 3, 3, 3}}, {8, 8}, a),
                    Contains("data shape (3, 8, 8) must be 4-D"));
  CHECK_THROWS_WITH(infer("conv2d", {{1, 3, 8, 8}, {16, 27}}, {8, 8}, a),
                    Contains("weight shape (16, 27) must be 4-D"));
  // The arity follows use_bias.
  a.erase("use_bias");
  CHECK_THROWS_WITH(infer("conv2d", {{1, 3, 8, 8}, {16, 3, 3, 3}}, {8, 8}, a),
                    Contains("expected 3 inputs (data, weight, bias) with use_bias=true, got 2"));
  CHECK_THROWS_WITH(infer("conv2d", {{1, 3, 8, 8}, {16, 3, 3, 3}, {8}}, {8, 8, 8}, a),
                    Contains("bias shape (8) does not match channels 16"));
  CHECK(infer("conv2d", {{1, 3, 8, 8}, {16, 3, 3, 3}, {16}}, {8, 8, 8}, a).output_shapes[0] ==
        std::vector<int64_t>{1, 16, 6, 6});
  a["use_bias"] = "False";
  CHECK_THROWS_WITH(infer("conv2d", {{1, 3, 8, 8}, {16, 3, 3, 3}, {16}}, {8, 8, 8}, a),
                    Contains("expected 2 inputs (data, weight) with use_bias=false, got 3"));
  CHECK_THROWS_WITH(run_op("conv2d", {i32({1, 1, 1, 1}, {1})}, a), Contains("expected 2 inputs"));
  CHECK_THROWS_WITH(run_op("conv2d", {i32({1}, {1}), i32({1}, {1})}, a), Contains("must be 4-D"));
  CHECK_THROWS_WITH(run_op("conv2d",
                           {NDArray::zeros({1, 3, 8, 8}, DataType::Int(8)),
                            NDArray::zeros({16, 3, 3, 3}, DataType::Int(32))},
                           a),
                    Contains("input 0 must be int32"));
}

TEST_CASE("conv2d: attribute ranges and fixed layouts", "[ops][nn]") {
  const std::vector<std::vector<int64_t>> s = {{1, 2, 8, 8}, {2, 2, 3, 3}};
  auto with = [](const std::string& k, const std::string& v) {
    AttrMap a = {{"channels", "2"}, {"kernel_size", "(3, 3)"}, {"use_bias", "false"}};
    a[k] = v;
    return a;
  };
  auto ok = [&](const std::string& k, const std::string& v) {
    CHECK_NOTHROW(infer("conv2d", s, {8, 8}, with(k, v)));
  };
  auto bad = [&](const std::string& k, const std::string& v, const std::string& msg) {
    INFO(k << " = " << v);
    CHECK_LOGIC_ERROR(infer("conv2d", s, {8, 8}, with(k, v)),
                      Contains("op \"conv2d\": attribute \"" + k) && Contains(msg));
  };
  ok("strides", "(4096, 1)");
  bad("strides", "(0, 1)", "[1, 4096]");
  bad("strides", "(4097, 1)", "[1, 4096]");
  bad("strides", "(1, 1, 1)", "expected 2 values, found (1, 1, 1)");
  bad("strides", "2", "expected 2 values");
  ok("padding", "3");
  ok("padding", "(0, 4096)");
  bad("padding", "(-1, 0)", "[0, 4096]");
  bad("padding", "(1, 1, 1, 1)", "expected 1 or 2 values");
  ok("dilation", "(1, 2)");
  bad("dilation", "(0, 1)", "[1, 2147483647]");
  bad("groups", "0", "[1, 2147483647]");
  bad("channels", "-1", "[0, 4096]");
  bad("channels", "4097", "[0, 4096]");
  bad("kernel_size", "(0, 3)", "[1, 4096]");
  bad("kernel_size", "3", "expected 2 values");
  ok("layout", "NCHW");
  bad("layout", "NHWC", "expected \"NCHW\", found \"NHWC\"");
  ok("kernel_layout", "OIHW");
  bad("kernel_layout", "HWIO", "expected \"OIHW\"");
  ok("out_layout", "");
  ok("out_layout", "NCHW");
  ok("out_layout", "__undef__");  // the original runtime's default spelling
  bad("out_layout", "NHWC", "expected \"NCHW\" or \"\" or \"__undef__\", found \"NHWC\"");
  ok("out_dtype", "int8");  // ignored
  bad("use_bias", "maybe", "a bool");
  CHECK_THROWS_WITH(infer("conv2d", s, {8, 8}, with("bogus", "1")),
                    Contains("op \"conv2d\": unknown attribute \"bogus\""));
  CHECK_THROWS_WITH(infer("conv2d", s, {8, 8}, {{"kernel_size", "(3, 3)"}}),
                    Contains("attribute \"channels\"") && Contains("required"));
  CHECK_THROWS_WITH(infer("conv2d", s, {8, 8}, {{"channels", "2"}}),
                    Contains("attribute \"kernel_size\"") && Contains("required"));
}

TEST_CASE("conv2d: precision and cost rules", "[ops][nn]") {
  AttrMap a = {{"channels", "4"}, {"kernel_size", "(3, 3)"}, {"groups", "2"}};
  const std::vector<std::vector<int64_t>> s = {{1, 6, 9, 9}, {4, 3, 3, 3}, {4}};
  // C/g * KH * KW = 27: NB(27) = 5.
  OpInference r = infer("conv2d", s, {8, 8, 1}, a);
  CHECK(r.output_precisions == std::vector<int>{8 + 8 + 5 + 1});  // max(21, 1) + 1
  CHECK(r.cost_base == 27 * 3 + 1);
  CHECK(infer("conv2d", s, {5, 3, 30}, a).output_precisions[0] == 31);  // max(13, 30) + 1
  CHECK(infer("conv2d", s, {1, 1, 7}, a).output_precisions[0] == 8);    // max(7, 7) + 1
  CHECK_THROWS_WITH(infer("conv2d", s, {8, 8, 32}, a), Contains("output precision 33"));
  a["use_bias"] = "false";
  const std::vector<std::vector<int64_t>> nb = {{1, 6, 9, 9}, {4, 3, 3, 3}};
  r = infer("conv2d", nb, {8, 8}, a);
  CHECK(r.output_precisions == std::vector<int>{21});
  CHECK(r.cost_base == 81);
  CHECK(r.output_shapes[0] == std::vector<int64_t>{1, 4, 7, 7});
  CHECK(infer("conv2d", {{1, 1, 4, 4}, {1, 1, 1, 1}}, {3, 4},
              {{"channels", "1"}, {"kernel_size", "(1, 1)"}, {"use_bias", "0"}})
            .output_precisions[0] == 3 + 4 + 1);  // NB(1) = 1
  CHECK_LOGIC_ERROR(infer("conv2d", nb, {9, 8}, a),
                    Contains("op \"conv2d\": data precision must be "
                             "in [1, 8], found 9"));
  CHECK_THROWS_WITH(infer("conv2d", nb, {8, 9}, a),
                    Contains("weight precision must be in [1, 8], found 9"));
}

TEST_CASE("conv2d: seeded random cases against the naive reference", "[ops][nn]") {
  std::mt19937 rng(20240611);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0;
  for (int it = 0; it < 300; ++it) {
    ConvCase k{};
    k.g = pick(1, 3);
    k.n = pick(1, 3);
    k.c = k.g * pick(1, 3);
    k.oc = k.g * pick(1, 3);
    k.h = pick(1, 7);
    k.w = pick(1, 7);
    k.kh = pick(1, 3);
    k.kw = pick(1, 3);
    k.sh = pick(1, 3);
    k.sw = pick(1, 3);
    k.ph = pick(0, 2);
    k.pw = pick(0, 2);
    k.dh = pick(1, 2);
    k.dw = pick(1, 2);
    k.bias = pick(0, 1) == 1;
    const int64_t span_h = k.dh * (k.kh - 1) + 1, span_w = k.dw * (k.kw - 1) + 1;
    const bool fits = span_h <= k.h + 2 * k.ph && span_w <= k.w + 2 * k.pw;
    const bool extreme = it % 3 == 0;
    auto xv = random_values(rng, k.n * k.c * k.h * k.w, extreme);
    auto wv = random_values(rng, k.oc * (k.c / k.g) * k.kh * k.kw, extreme);
    auto bv = random_values(rng, k.oc, extreme);
    std::vector<NDArray> in = {i32({k.n, k.c, k.h, k.w}, xv),
                               i32({k.oc, k.c / k.g, k.kh, k.kw}, wv)};
    if (k.bias) in.push_back(i32({k.oc}, bv));
    INFO("case " << it << ": x " << in[0].shape() << " w " << in[1].shape() << " stride " << k.sh
                 << "," << k.sw << " pad " << k.ph << "," << k.pw << " dil " << k.dh << "," << k.dw
                 << " groups " << k.g);
    if (!fits) {
      CHECK_THROWS_AS(run_op("conv2d", in, conv_attrs(k)), LogicError);
      continue;
    }
    NDArray y = run1("conv2d", in, conv_attrs(k));
    const int64_t oh = (k.h + 2 * k.ph - span_h) / k.sh + 1,
                  ow = (k.w + 2 * k.pw - span_w) / k.sw + 1;
    REQUIRE(y.shape() == Shape{k.n, k.oc, oh, ow});
    CHECK(vals(y) == conv_reference(k, xv, wv, bv, oh, ow));
    ++ran;
  }
  CHECK(ran > 150);
}

TEST_CASE("conv2d: strided (non-contiguous) inputs and an empty batch", "[ops][nn]") {
  std::mt19937 rng(7);
  auto wide = random_values(rng, 2 * 3 * 5 * 12, false);
  NDArray big = i32({2, 3, 5, 12}, wide);
  NDArray x = big.slice(3, 0, 12, 2);  // every other column: (2, 3, 5, 6)
  REQUIRE_FALSE(x.is_contiguous());
  NDArray w = i32({4, 3, 2, 2}, random_values(rng, 48, false)).permute({0, 1, 3, 2});
  AttrMap a = {
      {"channels", "4"}, {"kernel_size", "(2, 2)"}, {"padding", "1"}, {"use_bias", "false"}};
  CHECK(test::bit_equal(run1("conv2d", {x, w}, a),
                        run1("conv2d", {x.contiguous(), w.contiguous()}, a)));
  NDArray empty = run1("conv2d", {NDArray::zeros({0, 3, 5, 6}, DataType::Int(32)), w}, a);
  CHECK(empty.shape() == Shape{0, 4, 6, 7});
}

TEST_CASE("conv2d: 1x64x56x56 by 64x64x3x3 runs in well under a few seconds", "[ops][nn]") {
  NDArray x = test::random_array({1, 64, 56, 56}, DataType::Int(32), 1);
  NDArray w = test::random_array({64, 64, 3, 3}, DataType::Int(32), 2);
  auto start = std::chrono::steady_clock::now();
  NDArray y = run1("conv2d", {x, w},
                   {{"channels", "64"},
                    {"kernel_size", "(3, 3)"},
                    {"padding", "(1, 1)"},
                    {"use_bias", "false"}});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(y.shape() == Shape{1, 64, 56, 56});
#ifdef CVMRT_SANITIZER_BUILD
  const double limit = 30.0;  // instrumented builds run several times slower
#else
  const double limit = 3.0;
#endif
  CHECK(seconds < limit);
}

// ------------------------------------------------------------------------------------- dense

TEST_CASE("dense: hand-computed with and without bias", "[ops][nn]") {
  NDArray x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray w = i32({2, 3}, {1, 0, -1, 2, 1, 0});
  CHECK(vals(run1("dense", {x, w}, {{"units", "2"}, {"use_bias", "False"}})) ==
        std::vector<int32_t>{-2, 4, -2, 13});
  NDArray y = run1("dense", {x, w, i32({2}, {10, -10})}, {{"units", "2"}});
  CHECK(y.shape() == Shape{2, 2});
  CHECK(vals(y) == std::vector<int32_t>{8, -6, 8, 3});
  // Wrapping: 2^30 * 2 + 2^30 * 2 = 2^32 -> 0, then the bias.
  CHECK(vals(run1("dense", {i32({1, 2}, {1 << 30, 1 << 30}), i32({1, 2}, {2, 2}), i32({1}, {7})},
                  {{"units", "1"}})) == std::vector<int32_t>{7});
  CHECK(vals(run1("dense", {i32({1, 1}, {kMin}), i32({1, 1}, {-1}), i32({1}, {kMax})},
                  {{"units", "1"}})) == std::vector<int32_t>{-1});  // INT32_MIN + INT32_MAX
}

TEST_CASE("dense: the spec's worked cost example, precision rule", "[ops][nn]") {
  // data (1, 4) p 8, w (3, 4) p 8, units 3: base 4 * 3 = 12, ops 12 * 3 = 36; with bias 13, 39.
  OpInference r = infer("dense", {{1, 4}, {3, 4}}, {8, 8}, {{"units", "3"}, {"use_bias", "False"}});
  CHECK(r.output_shapes == std::vector<std::vector<int64_t>>{{1, 3}});
  CHECK(r.cost_base * 3 == 36);
  CHECK(r.output_precisions == std::vector<int>{8 + 8 + 3});  // NB(4) = 3
  r = infer("dense", {{1, 4}, {3, 4}, {3}}, {8, 8, 8}, {{"units", "3"}});
  CHECK(r.cost_base * 3 == 39);
  CHECK(r.output_precisions == std::vector<int>{20});  // max(19, 8) + 1
  CHECK(infer("dense", {{5, 7}, {2, 7}, {2}}, {2, 3, 25}, {{"units", "2"}}).output_precisions[0] ==
        26);  // max(2 + 3 + 3, 25) + 1
  CHECK(infer("dense", {{5, 8}, {2, 8}}, {1, 1}, {{"units", "2"}, {"use_bias", "0"}})
            .output_precisions[0] == 6);  // NB(8) = 4
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {3, 4}, {3}}, {8, 9, 8}, {{"units", "3"}}),
                    Contains("op \"dense\": weight precision must be in [1, 8], found 9"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {3, 4}, {3}}, {0, 8, 8}, {{"units", "3"}}),
                    Contains("data precision must be in [1, 8], found 0"));
}

TEST_CASE("dense: shape and attribute errors", "[ops][nn]") {
  AttrMap a = {{"units", "3"}, {"use_bias", "false"}};
  CHECK_LOGIC_ERROR(infer("dense", {{4}, {3, 4}}, {8, 8}, a),
                    Contains("op \"dense\": data shape (4) must be 2-D (M, K)"));
  CHECK_THROWS_WITH(infer("dense", {{1, 1, 4}, {3, 4}}, {8, 8}, a), Contains("must be 2-D"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {3, 5}}, {8, 8}, a),
                    Contains("weight shape (3, 5) does not match units 3 and data shape (1, 4): "
                             "expected (3, 4)"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {2, 4}}, {8, 8}, a), Contains("expected (3, 4)"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {3, 4}, {3}}, {8, 8, 8}, a),
                    Contains("expected 2 inputs (data, weight) with use_bias=false, got 3"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {3, 4}}, {8, 8}, {{"units", "3"}}),
                    Contains("expected 3 inputs (data, weight, bias) with use_bias=true, got 2"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {3, 4}, {1, 3}}, {8, 8, 8}, {{"units", "3"}}),
                    Contains("bias shape (1, 3) does not match units 3"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {3, 4}}, {8, 8}, {{"use_bias", "0"}}),
                    Contains("attribute \"units\"") && Contains("required"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {0, 4}}, {8, 8}, {{"units", "0"}, {"use_bias", "0"}}),
                    Contains("attribute \"units\": expected an integer in [1, 2147483647]"));
  CHECK_THROWS_WITH(infer("dense", {{1, 4}, {3, 4}}, {8, 8}, {{"units", "3"}, {"flatten", "1"}}),
                    Contains("unknown attribute \"flatten\""));
  CHECK(infer("dense", {{1, 4}, {5000, 4}}, {8, 8}, {{"units", "5000"}, {"use_bias", "0"}})
            .output_shapes[0] == std::vector<int64_t>{1, 5000});
}

TEST_CASE("dense: seeded random cases, empty depth and rows, strided inputs", "[ops][nn]") {
  std::mt19937 rng(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 100; ++it) {
    const int64_t m = pick(0, 5), k = pick(0, 9), units = pick(1, 6);
    const bool bias = pick(0, 1) == 1, extreme = it % 2 == 0;
    auto xv = random_values(rng, m * k, extreme), wv = random_values(rng, units * k, extreme);
    auto bv = random_values(rng, units, extreme);
    std::vector<NDArray> in = {i32({m, k}, xv), i32({units, k}, wv)};
    if (bias) in.push_back(i32({units}, bv));
    NDArray y =
        run1("dense", in, {{"units", std::to_string(units)}, {"use_bias", bias ? "1" : "0"}});
    std::vector<int32_t> want;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t u = 0; u < units; ++u) {
        uint64_t s = bias ? static_cast<uint64_t>(static_cast<int64_t>(bv[u])) : 0;
        for (int64_t j = 0; j < k; ++j)
          s += static_cast<uint64_t>(int64_t{xv[i * k + j]} * wv[u * k + j]);
        want.push_back(wrap32(s));
      }
    INFO("M " << m << " K " << k << " units " << units << " bias " << bias);
    REQUIRE(y.shape() == Shape{m, units});
    CHECK(vals(y) == want);
  }
  NDArray x = i32({3, 4}, iota(12)), w = i32({4, 2}, iota(8, -3));
  NDArray wt = w.transpose();  // (2, 4), strided
  CHECK(test::bit_equal(run1("dense", {x, wt}, {{"units", "2"}, {"use_bias", "0"}}),
                        run1("dense", {x, wt.contiguous()}, {{"units", "2"}, {"use_bias", "0"}})));
}

// -------------------------------------------------------------------------------- max_pool2d

TEST_CASE("max_pool2d: hand-computed, padding cells are INT32_MIN", "[ops][nn]") {
  NDArray x = i32({1, 1, 4, 4}, iota(16));
  AttrMap a = {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}};
  CHECK(vals(run1("max_pool2d", {x}, a)) == std::vector<int32_t>{6, 8, 14, 16});
  a["padding"] = "1";  // windows start at -1, 1, 3
  NDArray y = run1("max_pool2d", {x}, a);
  CHECK(y.shape() == Shape{1, 1, 3, 3});
  CHECK(vals(y) == std::vector<int32_t>{1, 3, 4, 9, 11, 12, 13, 15, 16});
  // All-negative input: padding never wins (it is INT32_MIN, not 0).
  std::vector<int32_t> neg;
  for (int32_t v : iota(16)) neg.push_back(-v);
  CHECK(vals(run1("max_pool2d", {i32({1, 1, 4, 4}, neg)}, a)) ==
        std::vector<int32_t>{-1, -2, -4, -5, -6, -8, -13, -14, -16});
  CHECK(vals(run1("max_pool2d", {i32({1, 1, 1, 1}, {kMin})},
                  {{"pool_size", "(2, 2)"}, {"padding", "1"}})) ==
        std::vector<int32_t>{kMin, kMin, kMin, kMin});
  // Per-axis padding; strides default to 1; several batches and channels.
  NDArray x2 = i32({2, 2, 2, 3}, iota(24));
  y = run1("max_pool2d", {x2}, {{"pool_size", "(2, 2)"}, {"padding", "(0, 1)"}});
  CHECK(y.shape() == Shape{2, 2, 1, 4});
  CHECK(vals(y) ==
        std::vector<int32_t>{4, 5, 6, 6, 10, 11, 12, 12, 16, 17, 18, 18, 22, 23, 24, 24});
}

TEST_CASE("max_pool2d: a window entirely in padding gives INT32_MIN (kernel level)", "[ops][nn]") {
  // The op layer never plans such a window (padding < pool size); the kernel still defines it.
  NDArray x = i32({1, 1, 1, 1}, {5});
  NDArray y = NDArray::empty({1, 1, 1, 2}, DataType::Int(32));
  kernel::MaxPool2dParams p{2, 2, 1, 2, 2, 0};  // window rows -2, -1: all padding
  ops::run_kernel(resolve_chain(chain_policy(), {"max_pool2d", kernel::ElemType::kInt32}, Device::cpu()),
                  ops::plain_views({y}, {x}), 1, &p);
  CHECK(vals(y) == std::vector<int32_t>{kMin, kMin});
  p = {2, 2, 1, 1, 1, 0};  // rows -1, 0; columns 0, 1 then 1, 2: the second misses the input
  ops::run_kernel(resolve_chain(chain_policy(), {"max_pool2d", kernel::ElemType::kInt32}, Device::cpu()),
                  ops::plain_views({y}, {x}), 1, &p);
  CHECK(vals(y) == std::vector<int32_t>{5, kMin});
}

TEST_CASE("max_pool2d: ceil_mode and the last-window rule", "[ops][nn]") {
  NDArray x = i32({1, 1, 5, 5}, iota(25));
  AttrMap a = {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}};
  CHECK(run1("max_pool2d", {x}, a).shape() == Shape{1, 1, 2, 2});
  a["ceil_mode"] = "True";
  NDArray y = run1("max_pool2d", {x}, a);
  CHECK(y.shape() == Shape{1, 1, 3, 3});  // the last window starts at 4 < 5
  CHECK(vals(y) == std::vector<int32_t>{7, 9, 10, 17, 19, 20, 22, 24, 25});
  // H 4, pool 2, stride 3, padding 1: ceil((4 + 2 - 2) / 3) + 1 = 3, but window 2 would start at
  // 2 * 3 - 1 = 5 >= 4 (all padding), so it is dropped: 2, same as floor.
  AttrMap b = {
      {"pool_size", "(2, 2)"}, {"strides", "(3, 3)"}, {"padding", "1"}, {"ceil_mode", "1"}};
  y = run1("max_pool2d", {i32({1, 1, 4, 4}, iota(16))}, b);
  CHECK(y.shape() == Shape{1, 1, 2, 2});
  CHECK(vals(y) == std::vector<int32_t>{1, 4, 13, 16});
  // H 6, pool 3, stride 2, padding 1, ceil: (6 + 2 - 3 + 1) / 2 + 1 = 4; last start 5 < 6: kept.
  CHECK(
      infer(
          "max_pool2d", {{1, 1, 6, 6}}, {8},
          {{"pool_size", "(3, 3)"}, {"strides", "(2, 2)"}, {"padding", "1"}, {"ceil_mode", "true"}})
          .output_shapes[0] == std::vector<int64_t>{1, 1, 4, 4});
  CHECK(infer("max_pool2d", {{1, 1, 6, 6}}, {8},
              {{"pool_size", "(3, 3)"}, {"strides", "(2, 2)"}, {"padding", "1"}})
            .output_shapes[0] == std::vector<int64_t>{1, 1, 3, 3});
}

TEST_CASE("max_pool2d: precision, cost and errors", "[ops][nn]") {
  OpInference r = infer("max_pool2d", {{1, 2, 7, 7}}, {13}, {{"pool_size", "(2, 3)"}});
  CHECK(r.output_precisions == std::vector<int>{13});
  CHECK(r.cost_base == 6);
  CHECK(r.output_shapes[0] == std::vector<int64_t>{1, 2, 6, 5});
  auto bad = [&](const AttrMap& a, const std::string& msg) {
    CHECK_LOGIC_ERROR(infer("max_pool2d", {{1, 2, 7, 7}}, {8}, a),
                      Contains("op \"max_pool2d\"") && Contains(msg));
  };
  bad({}, "attribute \"pool_size\"");
  bad({{"pool_size", "2"}}, "expected 2 values");
  bad({{"pool_size", "(0, 2)"}}, "[1, 4096]");
  bad({{"pool_size", "(2, 2)"}, {"padding", "2"}},
      "attribute \"padding\": expected values below pool_size (2, 2), found (2)");
  bad({{"pool_size", "(3, 2)"}, {"padding", "(1, 2)"}}, "below pool_size (3, 2)");
  bad({{"pool_size", "(2, 2)"}, {"padding", "(1, 1, 1)"}}, "expected 1 or 2 values");
  bad({{"pool_size", "(2, 2)"}, {"strides", "(0, 1)"}}, "[1, 4096]");
  bad({{"pool_size", "(2, 2)"}, {"layout", "NHWC"}}, "expected \"NCHW\"");
  bad({{"pool_size", "(2, 2)"}, {"ceil_mode", "2"}}, "a bool");
  bad({{"pool_size", "(2, 2)"}, {"count_include_pad", "1"}}, "unknown attribute");
  bad({{"pool_size", "(9, 2)"}}, "pool height 9 does not fit in the padded data height 7");
  CHECK_NOTHROW(
      infer("max_pool2d", {{1, 2, 7, 7}}, {8}, {{"pool_size", "(9, 2)"}, {"padding", "(1, 0)"}}));
  CHECK_THROWS_WITH(infer("max_pool2d", {{2, 7, 7}}, {8}, {{"pool_size", "(2, 2)"}}),
                    Contains("data shape (2, 7, 7) must be 4-D"));
}

TEST_CASE("max_pool2d: seeded random cases against the padded reference", "[ops][nn]") {
  std::mt19937 rng(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 200; ++it) {
    const int64_t n = pick(1, 2), c = pick(1, 3), h = pick(1, 8), w = pick(1, 8);
    const int64_t kh = pick(1, 3), kw = pick(1, 3), sh = pick(1, 3), sw = pick(1, 3);
    const int64_t ph = pick(0, static_cast<int>(kh) - 1), pw = pick(0, static_cast<int>(kw) - 1);
    const bool ceil = pick(0, 1) == 1;
    if (kh > h + 2 * ph || kw > w + 2 * pw) continue;
    auto xv = random_values(rng, n * c * h * w, true);
    auto extent = [&](int64_t in, int64_t k, int64_t s, int64_t p) {
      int64_t o = ceil ? (in + 2 * p - k + s - 1) / s + 1 : (in + 2 * p - k) / s + 1;
      if (ceil && (o - 1) * s >= in + p) --o;
      return o;
    };
    const int64_t oh = extent(h, kh, sh, ph), ow = extent(w, kw, sw, pw);
    std::vector<int32_t> want;
    for (int64_t b = 0; b < n * c; ++b)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int32_t m = kMin;
          for (int64_t a = i * sh - ph; a < i * sh - ph + kh; ++a)
            for (int64_t e = j * sw - pw; e < j * sw - pw + kw; ++e)
              if (a >= 0 && a < h && e >= 0 && e < w) m = std::max(m, xv[(b * h + a) * w + e]);
          want.push_back(m);
        }
    AttrMap attrs = {{"pool_size", "(" + std::to_string(kh) + "," + std::to_string(kw) + ")"},
                     {"strides", "(" + std::to_string(sh) + "," + std::to_string(sw) + ")"},
                     {"padding", "(" + std::to_string(ph) + "," + std::to_string(pw) + ")"},
                     {"ceil_mode", ceil ? "true" : "false"}};
    NDArray y = run1("max_pool2d", {i32({n, c, h, w}, xv)}, attrs);
    INFO("case " << it << " x (" << h << "," << w << ") pool " << kh << "," << kw);
    REQUIRE(y.shape() == Shape{n, c, oh, ow});
    CHECK(vals(y) == want);
  }
}

// -------------------------------------------------------------------------------- upsampling

TEST_CASE("upsampling: scale 2 and 3, nearest neighbour", "[ops][nn]") {
  NDArray y = run1("upsampling", {i32({1, 1, 2, 2}, {1, 2, 3, 4})}, {{"scale", "2"}});
  CHECK(y.shape() == Shape{1, 1, 4, 4});
  CHECK(vals(y) == std::vector<int32_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  y = run1("upsampling", {i32({1, 2, 1, 2}, {5, 6, kMin, kMax})},
           {{"scale", "3"}, {"method", "NEAREST_NEIGHBOR"}, {"layout", "NCHW"}});
  CHECK(y.shape() == Shape{1, 2, 3, 6});
  std::vector<int32_t> want;
  for (int r = 0; r < 3; ++r) want.insert(want.end(), {5, 5, 5, 6, 6, 6});
  for (int r = 0; r < 3; ++r) want.insert(want.end(), {kMin, kMin, kMin, kMax, kMax, kMax});
  CHECK(vals(y) == want);
  NDArray x = i32({2, 1, 2, 3}, iota(12));
  CHECK(test::bit_equal(run1("upsampling", {x}, {{"scale", "1"}}), x));
  OpInference r = infer("upsampling", {{1, 3, 5, 7}}, {11}, {{"scale", "4"}});
  CHECK(r.output_shapes[0] == std::vector<int64_t>{1, 3, 20, 28});
  CHECK(r.output_precisions == std::vector<int>{11});
  CHECK(r.cost_base == 1);
}

TEST_CASE("max_pool2d and upsampling read strided views", "[ops][nn]") {
  NDArray x = i32({2, 3, 4, 5}, iota(120, -60)).permute({1, 0, 3, 2});  // (3, 2, 5, 4)
  REQUIRE_FALSE(x.is_contiguous());
  AttrMap pool = {{"pool_size", "(2, 3)"}, {"padding", "(1, 1)"}, {"strides", "(2, 1)"}};
  CHECK(test::bit_equal(run1("max_pool2d", {x}, pool), run1("max_pool2d", {x.contiguous()}, pool)));
  CHECK(test::bit_equal(run1("upsampling", {x}, {{"scale", "2"}}),
                        run1("upsampling", {x.contiguous()}, {{"scale", "2"}})));
}

TEST_CASE("upsampling: errors", "[ops][nn]") {
  const std::vector<std::vector<int64_t>> s = {{1, 1, 2, 2}};
  CHECK_THROWS_WITH(infer("upsampling", s, {8}, {}),
                    Contains("op \"upsampling\": attribute \"scale\"") && Contains("required"));
  CHECK_THROWS_WITH(infer("upsampling", s, {8}, {{"scale", "0"}}),
                    Contains("attribute \"scale\": expected an integer in [1, 2147483647]"));
  CHECK_THROWS_WITH(infer("upsampling", s, {8}, {{"scale", "2"}, {"method", "BILINEAR"}}),
                    Contains("attribute \"method\": expected \"NEAREST_NEIGHBOR\", found "
                             "\"BILINEAR\""));
  CHECK_THROWS_WITH(infer("upsampling", s, {8}, {{"scale", "2"}, {"layout", "NHWC"}}),
                    Contains("attribute \"layout\""));
  CHECK_THROWS_WITH(infer("upsampling", {{1, 2, 2}}, {8}, {{"scale", "2"}}),
                    Contains("data shape (1, 2, 2) must be 4-D"));
  CHECK_THROWS_WITH(
      infer("upsampling", {{1, 1, int64_t{1} << 40, 1}}, {8}, {{"scale", "2147483647"}}),
      Contains("upsampling output height"));
}

TEST_CASE("nn ops are registered with their arity", "[ops][nn]") {
  int found = 0;
  for (const OpInfo& info : list_ops()) {
    if (info.name == "conv2d" || info.name == "dense") {
      CHECK(info.num_inputs == -1);  // 2 or 3, by use_bias
      ++found;
    } else if (info.name == "max_pool2d" || info.name == "upsampling") {
      CHECK(info.num_inputs == 1);
      ++found;
    } else {
      continue;
    }
    CHECK(info.num_outputs == 1);
    CHECK(info.cvm);
    CHECK_FALSE(info.inplace);
  }
  CHECK(found == 4);
}
