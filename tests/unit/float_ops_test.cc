// Tests of the CVM operators on float32 (imported float models), and their evaluation order.
//
// conv2d, dense, max_pool2d, relu and the transforms: hand cases pin the order of
// docs/determinism.md; seeded cases check it against an independent float loop and a double sum.
// The new float ops are in float_nn_ops_test.cc.
//
// The op-layer headers bring the library's CHECK/VERIFY macros: included first, then dropped for
// Catch2's.
#include "op_def.h"
#include "prepack.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "cvm/op.h"
#include "float_test_util.h"
#include "kernel_views.h"
#include "op_test_util.h"
#include "params/nn.h"
#include "registry_internal.h"
#include "test_util.h"

using namespace cvm;
using namespace cvm::test;  // the float test helpers: f32, bits, fvals, run1, iota, uniform, ...
using Catch::Matchers::Contains;

namespace {

constexpr float k2p24 = 16777216.0f;           // 2^24: adding 1 to it rounds back to it
const float kNegNan = from_bits(0xFFC00001u);  // a NaN with the sign and a payload

std::string pair(int64_t a, int64_t b) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

// ---- seeded references: the contract's float order, and a double sum with its
// error bound ----

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, g;
  bool bias;
};

struct Reference {
  std::vector<float> exact;   // the documented float order, computed here independently
  std::vector<double> value;  // the sum in double
  std::vector<double> bound;  // |float - double| allowed: (terms + 1) * 2^-24 * sum |term|
};

Reference conv_reference(const ConvCase& k, const std::vector<float>& x,
                         const std::vector<float>& w, const std::vector<float>& b, int64_t oh_n,
                         int64_t ow_n) {
  const int64_t cg = k.c / k.g, og = k.oc / k.g;
  Reference r;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.oc; ++o)
      for (int64_t i = 0; i < oh_n; ++i)
        for (int64_t j = 0; j < ow_n; ++j) {
          float acc = 0.0f;
          double sum = 0, mag = 0;
          int64_t terms = 1;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t a = 0; a < k.kh; ++a)
              for (int64_t e = 0; e < k.kw; ++e) {
                const int64_t y = i * k.sh - k.ph + a * k.dh, z = j * k.sw - k.pw + e * k.dw;
                if (y < 0 || y >= k.h || z < 0 || z >= k.w) continue;
                const float xv = x[((n * k.c + o / og * cg + c) * k.h + y) * k.w + z];
                const float wv = w[((o * cg + c) * k.kh + a) * k.kw + e];
                const float product = xv * wv;
                acc = acc + product;
                sum += static_cast<double>(xv) * wv;
                mag += std::fabs(static_cast<double>(xv) * wv);
                ++terms;
              }
          if (k.bias) {
            acc = acc + b[o];
            sum += b[o];
            mag += std::fabs(b[o]);
          }
          r.exact.push_back(acc);
          r.value.push_back(sum);
          r.bound.push_back(static_cast<double>(terms + 1) * std::ldexp(mag, -24) + 1e-30);
        }
  return r;
}

AttrMap conv_attrs(const ConvCase& k) {
  return {{"channels", std::to_string(k.oc)},     {"kernel_size", pair(k.kh, k.kw)},
          {"strides", pair(k.sh, k.sw)},          {"padding", pair(k.ph, k.pw)},
          {"dilation", pair(k.dh, k.dw)},         {"groups", std::to_string(k.g)},
          {"use_bias", k.bias ? "True" : "False"}};
}

void check_reference(const NDArray& y, const Reference& r) {
  const std::vector<float> got = fvals(y);
  REQUIRE(got.size() == r.exact.size());
  CHECK(bits(got) == bits(r.exact));
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs double " << r.value[i]);
    CHECK(std::fabs(got[i] - r.value[i]) <= r.bound[i]);
  }
}

}  // namespace

// -------------------------------------------------------------------------
// conv2d and dense

TEST_CASE("float conv2d: hand-computed, padding, bias after the taps", "[ops][float]") {
  const AttrMap a = {{"channels", "1"}, {"kernel_size", "(2, 2)"}, {"use_bias", "False"}};
  NDArray y = run1("conv2d", {f32({1, 1, 3, 3}, iota(9)), f32({1, 1, 2, 2}, {1, 2, 3, 4})}, a);
  CHECK(y.dtype() == DataType::Float(32));
  CHECK(y.shape() == Shape{1, 1, 2, 2});
  CHECK(fvals(y) == std::vector<float>{37, 47, 67, 77});
  // Padding 1, 3x3 ones: each output sums the input cells its window covers, then + 0.5.
  NDArray yp = run1("conv2d",
                    {f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 3, 3}, std::vector<float>(9, 1)),
                     f32({1}, {0.5f})},
                    {{"channels", "1"}, {"kernel_size", "(3, 3)"}, {"padding", "1"}});
  CHECK(fvals(yp) == std::vector<float>{10.5f, 10.5f, 10.5f, 10.5f});
}

TEST_CASE(
    "float conv2d and dense: sequential sum in (ic, kh, kw) order, then "
    "the bias",
    "[ops][float]") {
  // 8 input channels, 1x1 kernel of ones: the taps are the channel values in order.
  const AttrMap conv = {{"channels", "1"}, {"kernel_size", "(1, 1)"}, {"use_bias", "False"}};
  const NDArray ones = f32({1, 8, 1, 1}, std::vector<float>(8, 1));
  // 2^24 first: every +1 rounds away (a pairwise or reversed order would keep some).
  std::vector<float> big_first = {k2p24, 1, 1, 1, 1, 1, 1, 1};
  CHECK(fvals(run1("conv2d", {f32({1, 8, 1, 1}, big_first), ones}, conv))[0] == k2p24);
  // 2^24 last: the seven ones sum exactly to 7, and 2^24 + 7 rounds to even, 2^24 + 8.
  std::vector<float> big_last = {1, 1, 1, 1, 1, 1, 1, k2p24};
  CHECK(fvals(run1("conv2d", {f32({1, 8, 1, 1}, big_last), ones}, conv))[0] == k2p24 + 8);
  // The bias comes after every tap: 1 + 1 = 2, then 2 + 2^24 is exact (bias first would lose both
  // ones).
  CHECK(fvals(run1("conv2d",
                   {f32({1, 2, 1, 1}, {1, 1}), f32({1, 2, 1, 1}, {1, 1}), f32({1}, {k2p24})},
                   {{"channels", "1"}, {"kernel_size", "(1, 1)"}}))[0] == k2p24 + 2);
  // kh before kw before nothing else: a 2x2 kernel in row-major tap order.
  CHECK(fvals(run1("conv2d", {f32({1, 1, 2, 2}, {k2p24, 1, 1, 1}), f32({1, 1, 2, 2}, {1, 1, 1, 1})},
                   {{"channels", "1"}, {"kernel_size", "(2, 2)"}, {"use_bias", "0"}}))[0] == k2p24);
  // dense: k ascending, then the bias.
  const NDArray w = f32({1, 8}, std::vector<float>(8, 1));
  CHECK(fvals(run1("dense", {f32({1, 8}, big_first), w}, {{"units", "1"}, {"use_bias", "0"}}))[0] ==
        k2p24);
  CHECK(fvals(run1("dense", {f32({1, 8}, big_last), w}, {{"units", "1"}, {"use_bias", "0"}}))[0] ==
        k2p24 + 8);
  CHECK(fvals(run1("dense", {f32({1, 2}, {1, 1}), f32({1, 2}, {1, 1}), f32({1}, {k2p24})},
                   {{"units", "1"}}))[0] == k2p24 + 2);
}

TEST_CASE(
    "float conv2d and dense: padding taps are skipped, signed zeros, "
    "canonical NaN",
    "[ops][float]") {
  // An infinite weight on the tap that lies in the padding: skipping it keeps the sum finite
  // (adding 0 * inf would make it NaN).
  std::vector<float> wv(9, 1);
  wv[0] = kInf;
  NDArray y =
      run1("conv2d", {f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 3, 3}, wv)},
           {{"channels", "1"}, {"kernel_size", "(3, 3)"}, {"padding", "1"}, {"use_bias", "False"}});
  const std::vector<float> got = fvals(y);
  CHECK(got[0] == 10);  // the window of output (0, 0) has its (0, 0) tap at (-1, -1)
  CHECK(std::isinf(got[3]));
  // Products -0.0: +0 + -0 = +0, so the result is +0.0.
  const AttrMap one = {{"channels", "1"}, {"kernel_size", "(1, 1)"}, {"use_bias", "False"}};
  CHECK(bits(run1("conv2d", {f32({1, 2, 1, 1}, {-1, -2}), f32({1, 2, 1, 1}, {0, 0})}, one)) ==
        std::vector<uint32_t>{0});
  CHECK(bits(run1("dense", {f32({1, 2}, {-1, -2}), f32({1, 2}, {0, 0})},
                  {{"units", "1"}, {"use_bias", "False"}})) == std::vector<uint32_t>{0});
  // Any NaN result is written as 0x7FC00000, whatever NaN went in or came out.
  CHECK(bits(run1("conv2d", {f32({1, 2, 1, 1}, {kNegNan, 1}), f32({1, 2, 1, 1}, {1, 1})}, one)) ==
        std::vector<uint32_t>{kCanonicalNan});
  CHECK(bits(run1("dense", {f32({1, 2}, {kInf, 1}), f32({1, 2}, {1, 1}), f32({1}, {-kInf})},
                  {{"units", "1"}})) == std::vector<uint32_t>{kCanonicalNan});
  // K = 0: +0.0, or the bias.
  CHECK(bits(run1("dense",
                  {NDArray::zeros({2, 0}, DataType::Float(32)),
                   NDArray::zeros({1, 0}, DataType::Float(32))},
                  {{"units", "1"}, {"use_bias", "0"}})) == std::vector<uint32_t>{0, 0});
}

TEST_CASE(
    "float conv2d: seeded random cases against the float order and a "
    "double sum",
    "[ops][float]") {
  std::mt19937 rng(2024);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0;
  for (int iter = 0; iter < 160; ++iter) {
    ConvCase k{};
    const int kind = pick(0, 3);  // plain, grouped, depthwise, depthwise with a multiplier
    k.g = kind == 0 ? 1 : kind == 1 ? pick(2, 3) : pick(1, 5);
    const int64_t cg = kind >= 2 ? 1 : pick(1, 4);
    k.c = cg * k.g;
    k.oc = k.g * (kind == 2 ? 1 : pick(1, 3));
    k.n = pick(1, 2);
    k.kh = pick(1, 4);
    k.kw = pick(1, 4);
    k.sh = pick(1, 3);
    k.sw = pick(1, 3);
    k.dh = pick(1, 2);
    k.dw = pick(1, 2);
    k.ph = pick(0, 2);
    k.pw = pick(0, 2);
    k.h = pick(1, 9);
    k.w = pick(1, 9);
    k.bias = pick(0, 1) == 1;
    const int64_t span_h = k.dh * (k.kh - 1) + 1, span_w = k.dw * (k.kw - 1) + 1;
    k.h = std::max(k.h, span_h - 2 * k.ph);
    k.w = std::max(k.w, span_w - 2 * k.pw);
    const int64_t oh = (k.h + 2 * k.ph - span_h) / k.sh + 1;
    const int64_t ow = (k.w + 2 * k.pw - span_w) / k.sw + 1;
    const std::vector<float> x = uniform(rng, k.n * k.c * k.h * k.w);
    const std::vector<float> w = uniform(rng, k.oc * cg * k.kh * k.kw);
    const std::vector<float> b = uniform(rng, k.oc);
    std::vector<NDArray> in = {f32({k.n, k.c, k.h, k.w}, x), f32({k.oc, cg, k.kh, k.kw}, w)};
    if (k.bias) in.push_back(f32({k.oc}, b));
    NDArray y = run1("conv2d", in, conv_attrs(k));
    REQUIRE(y.shape() == Shape{k.n, k.oc, oh, ow});
    check_reference(y, conv_reference(k, x, w, b, oh, ow));
    ++ran;
  }
  CHECK(ran == 160);
}

TEST_CASE("float dense: seeded random cases against the float order and a double sum",
          "[ops][float]") {
  std::mt19937 rng(77);
  for (int64_t m : {1, 3, 17}) {
    for (int64_t depth : {1, 2, 15, 16, 17, 100}) {
      for (int64_t units : {1, 5, 33}) {
        const bool use_bias = (m + depth + units) % 2 == 0;
        const std::vector<float> x = uniform(rng, m * depth), w = uniform(rng, units * depth);
        const std::vector<float> b = uniform(rng, units);
        std::vector<NDArray> in = {f32({m, depth}, x), f32({units, depth}, w)};
        if (use_bias) in.push_back(f32({units}, b));
        NDArray y = run1("dense", in,
                         {{"units", std::to_string(units)}, {"use_bias", use_bias ? "1" : "0"}});
        // dense is conv2d with 1x1 spatial extent and K input channels.
        ConvCase k{m, depth, 1, 1, units, 1, 1, 1, 1, 0, 0, 1, 1, 1, use_bias};
        check_reference(y, conv_reference(k, x, w, b, 1, 1));
      }
    }
  }
}

TEST_CASE("float conv2d, dense, max_pool2d and relu read strided views", "[ops][float]") {
  std::mt19937 rng(5);
  NDArray big = f32({2, 3, 5, 12}, uniform(rng, 2 * 3 * 5 * 12));
  NDArray x = big.slice(3, 0, 12, 2);  // every other column: (2, 3, 5, 6)
  REQUIRE_FALSE(x.is_contiguous());
  NDArray w = f32({4, 3, 2, 2}, uniform(rng, 48)).permute({0, 1, 3, 2});
  const AttrMap a = {
      {"channels", "4"}, {"kernel_size", "(2, 2)"}, {"padding", "1"}, {"use_bias", "false"}};
  CHECK(test::bit_equal(run1("conv2d", {x, w}, a),
                        run1("conv2d", {x.contiguous(), w.contiguous()}, a)));
  NDArray dx = f32({4, 14}, uniform(rng, 56)).slice(1, 0, 14, 2);
  NDArray dw = f32({7, 3}, uniform(rng, 21)).permute({1, 0});
  CHECK(test::bit_equal(
      run1("dense", {dx, dw}, {{"units", "3"}, {"use_bias", "0"}}),
      run1("dense", {dx.contiguous(), dw.contiguous()}, {{"units", "3"}, {"use_bias", "0"}})));
  const AttrMap pool = {{"pool_size", "(2, 2)"}, {"padding", "1"}, {"ceil_mode", "1"}};
  CHECK(test::bit_equal(run1("max_pool2d", {x}, pool), run1("max_pool2d", {x.contiguous()}, pool)));
  CHECK(test::bit_equal(run1("relu", {x}), run1("relu", {x.contiguous()})));
}

TEST_CASE("float conv2d and dense: dtype errors name the input", "[ops][float]") {
  const AttrMap conv = {{"channels", "1"}, {"kernel_size", "(1, 1)"}};
  const NDArray xf = NDArray::zeros({1, 1, 2, 2}, DataType::Float(32));
  const NDArray wf = NDArray::zeros({1, 1, 1, 1}, DataType::Float(32));
  const NDArray bf = NDArray::zeros({1}, DataType::Float(32));
  const NDArray xi = NDArray::zeros({1, 1, 2, 2}, DataType::Int(32));
  const NDArray wi = NDArray::zeros({1, 1, 1, 1}, DataType::Int(32));
  const NDArray bi = NDArray::zeros({1}, DataType::Int(32));
  CHECK_LOGIC_ERROR(run1("conv2d", {xf, wi, bf}, conv),
                    Contains("op \"conv2d\": expected every input float32 like data, found "
                             "weight int32"));
  CHECK_LOGIC_ERROR(run1("conv2d", {xf, wf, bi}, conv),
                    Contains("op \"conv2d\": expected every input float32 like data, found "
                             "bias int32"));
  CHECK_LOGIC_ERROR(run1("conv2d", {xi, wf, bi}, conv),
                    Contains("op \"conv2d\": expected every input int32 like data, found weight "
                             "float32"));
  CHECK_LOGIC_ERROR(
      run1("conv2d", {NDArray::zeros({1, 1, 2, 2}, DataType::Float(64)), wf, bf}, conv),
      Contains("op \"conv2d\": input 0 must be int32 or float32, found float64"));
  const NDArray d = NDArray::zeros({1, 1}, DataType::Float(32));
  CHECK_LOGIC_ERROR(run1("dense", {d, NDArray::zeros({1, 1}, DataType::Int(32))},
                         {{"units", "1"}, {"use_bias", "0"}}),
                    Contains("op \"dense\": expected every input float32 like data, found "
                             "weight int32"));
  CHECK_LOGIC_ERROR(run1("max_pool2d", {NDArray::zeros({1, 1, 2, 2}, DataType::Float(16))},
                         {{"pool_size", "(1, 1)"}}),
                    Contains("op \"max_pool2d\": input 0 must be int32 or "
                             "float32, found float16"));
  CHECK_LOGIC_ERROR(run1("relu", {NDArray::zeros({2}, DataType::Float(64))}),
                    Contains("op \"relu\": input 0 must be int32 or float32, found float64"));
  // int32 keeps its precision rules; inference never sees dtypes.
  CHECK(infer_op("conv2d", {{1, 1, 2, 2}, {1, 1, 1, 1}, {1}}, {8, 8, 8}, conv).cost_base == 4);
}

TEST_CASE("float conv2d and dense never prepack: no float32 weight reaches a packer",
          "[ops][float]") {
  const ops::OpDef* conv = ops::find_op("conv2d");
  const ops::OpDef* dense = ops::find_op("dense");
  REQUIRE(conv != nullptr);
  REQUIRE(dense != nullptr);
  const auto conv_attrs = conv->parse({{"channels", "2"}, {"kernel_size", "(3, 3)"}});
  const auto dense_attrs = dense->parse({{"units", "2"}});
  const std::vector<NDArray> conv_in = {NDArray::zeros({1, 3, 5, 5}, DataType::Float(32)),
                                        NDArray::zeros({2, 3, 3, 3}, DataType::Float(32)),
                                        NDArray::zeros({2}, DataType::Float(32))};
  const std::vector<NDArray> dense_in = {NDArray::zeros({1, 3}, DataType::Float(32)),
                                         NDArray::zeros({2, 3}, DataType::Float(32)),
                                         NDArray::zeros({2}, DataType::Float(32))};
  for (auto [op, attrs, in] : {std::tuple{conv, conv_attrs.get(), &conv_in},
                               std::tuple{dense, dense_attrs.get(), &dense_in}}) {
    INFO(op->name());
    const Shape out_shape = op == conv ? Shape{1, 2, 3, 3} : Shape{1, 2};
    const ops::NodeKernels bound =
        ops::bind_kernels(*op, *attrs, *in, {DataType::Float(32)}, chain_policy());
    for (const kernel::KernelEntry* e : bound[0].entries) {
      CHECK(e->prepack == nullptr);
      CHECK(ops::prepack_weight(*op, *attrs, *in, *e).data == nullptr);
    }
    // Even asked for an int32 kernel that has a packer, a float32 weight is declined.
    int packers = 0;
    for (const kernel::BackendTable* t : backend_tables()) {
      for (size_t i = 0; i < t->count; ++i) {
        const kernel::KernelEntry& e = t->entries[i];
        if (e.prepack == nullptr || std::string(e.op) != op->name()) continue;
        CHECK(ops::prepack_weight(*op, *attrs, *in, e).data == nullptr);
        ++packers;
      }
    }
    INFO(packers << " packers asked");
    // A pack tagged for another entry is never handed to the float kernel that runs.
    std::vector<NDArray> out = {NDArray::empty(out_shape, DataType::Float(32))};
    const int dummy = 0;
    ops::NodeKernels tagged = bound;
    tagged.packed_for = &kernel::kScalarBackend.entries[0];
    tagged.packed = &dummy;
    op->compute(*attrs, *in, out, tagged);
    CHECK(bits(out[0]) == std::vector<uint32_t>(out[0].numel(), 0));
  }
}

// ------------------------------------------------------------------------
// max_pool2d, relu

TEST_CASE("float max_pool2d: padding takes no part, first of equals, NaN canonical",
          "[ops][float]") {
  // All negative: a padding cell read as 0 (or anything) would show; it takes no part.
  NDArray x = f32({1, 1, 2, 2}, {-1, -2, -3, -4});
  NDArray y = run1("max_pool2d", {x}, {{"pool_size", "(2, 2)"}, {"padding", "1"}});
  CHECK(y.shape() == Shape{1, 1, 3, 3});
  CHECK(fvals(y) == std::vector<float>{-1, -1, -2, -1, -1, -2, -3, -3, -4});
  // -0.0 then +0.0: the first wins (strictly greater replaces); then +0.0 first.
  CHECK(bits(run1("max_pool2d", {f32({1, 1, 1, 2}, {-0.0f, 0.0f})}, {{"pool_size", "(1, 2)"}})) ==
        std::vector<uint32_t>{0x80000000u});
  CHECK(bits(run1("max_pool2d", {f32({1, 1, 1, 2}, {0.0f, -0.0f})}, {{"pool_size", "(1, 2)"}})) ==
        std::vector<uint32_t>{0});
  // A NaN anywhere in the window gives the canonical NaN; other windows are unaffected.
  CHECK(bits(run1("max_pool2d", {f32({1, 1, 1, 4}, {1, kNegNan, 5, 2})},
                  {{"pool_size", "(1, 2)"}, {"strides", "(1, 2)"}})) ==
        std::vector<uint32_t>{kCanonicalNan, bits_of(5)});
  CHECK(fvals(run1("max_pool2d", {f32({1, 1, 1, 3}, {-kInf, -kInf, 3})},
                   {{"pool_size", "(1, 2)"}})) == std::vector<float>{-kInf, 3});
  // ceil_mode follows the int32 rule (last window kept only when it starts inside).
  NDArray c = run1("max_pool2d", {f32({1, 1, 5, 5}, iota(25))},
                   {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}, {"ceil_mode", "True"}});
  CHECK(fvals(c) == std::vector<float>{7, 9, 10, 17, 19, 20, 22, 24, 25});
}

TEST_CASE("float max_pool2d: a window entirely in padding gives -inf (kernel level)",
          "[ops][float]") {
  NDArray x = f32({1, 1, 1, 1}, {5});
  NDArray y = NDArray::empty({1, 1, 1, 2}, DataType::Float(32));
  kernel::MaxPool2dParams p{2, 2, 1, 2, 2, 0};  // window rows -2, -1: all padding
  ops::run_kernel(resolve_chain(chain_policy(), {"max_pool2d", kernel::ElemType::kFloat32}, Device::cpu()),
                  ops::plain_views({y}, {x}), 1, &p);
  CHECK(fvals(y) == std::vector<float>{-kInf, -kInf});
}

TEST_CASE("float relu: x > 0 ? x : +0, relu(-0) = +0, NaN canonical, in place", "[ops][float]") {
  const float sub = from_bits(1);  // the smallest subnormal
  NDArray y = run1("relu", {f32({7}, {1, -2, -0.0f, kInf, -kInf, kNegNan, sub})});
  CHECK(bits(y) == bits(std::vector<float>{1, 0, 0, kInf, 0, from_bits(kCanonicalNan), sub}));
  const auto info = infer_op("relu", {{7}}, {8});  // int32 precision rules unchanged
  CHECK(info.output_precisions == std::vector<int>{8});
}

// -----------------------------------------------------------------------------
// transforms

TEST_CASE("transforms move float32 bits unchanged; mixed dtypes are rejected", "[ops][float]") {
  const std::vector<float> v = {1, -0.0f, kNegNan, from_bits(0x7F800001u), kInf, 6};
  const NDArray x = f32({2, 3}, v);
  CHECK(bits(run1("flatten", {x.reshape({1, 2, 3})})) == bits(v));
  CHECK(bits(run1("reshape", {x}, {{"shape", "(3, -1)"}})) == bits(v));
  CHECK(run1("reshape", {x}, {{"shape", "(3, -1)"}}).shape() == Shape{3, 2});
  CHECK(run1("expand_dims", {x}, {{"axis", "1"}}).shape() == Shape{2, 1, 3});
  CHECK(bits(run1("squeeze", {x.reshape({2, 1, 3})})) == bits(v));
  NDArray t = run1("transpose", {x});
  CHECK(t.dtype() == DataType::Float(32));
  CHECK(bits(t) == bits(std::vector<float>{v[0], v[3], v[1], v[4], v[2], v[5]}));
  CHECK(bits(run1("strided_slice", {x},
                  {{"begin", "(0, 2)"}, {"end", "(2, -4)"}, {"stride", "(1, -2)"}})) ==
        bits(std::vector<float>{v[2], v[0], v[5], v[3]}));
  NDArray cat = run1("concatenate", {x, x.slice(1, 0, 1)}, {{"axis", "1"}});
  CHECK(bits(cat) == bits(std::vector<float>{v[0], v[1], v[2], v[0], v[3], v[4], v[5], v[3]}));
  // Other dtypes too (they only move elements), one dtype per call.
  const NDArray h = NDArray::zeros({2, 2}, DataType::Float(16));
  CHECK(run1("transpose", {h}).dtype() == DataType::Float(16));
  CHECK_LOGIC_ERROR(run1("concatenate", {x, i32({2, 1}, {1, 2})}, {{"axis", "1"}}),
                    Contains("op \"concatenate\": expected every input float32 like input 0, "
                             "found input 1 int32"));
  // The rest of the family stays int32.
  CHECK_LOGIC_ERROR(run1("tile", {x}, {{"reps", "(2)"}}),
                    Contains("op \"tile\": input 0 must be int32, found float32"));
}

TEST_CASE("reduce_mean over (2, 3) with keepdims is a float32 global average pool",
          "[ops][float]") {
  NDArray x = f32({1, 2, 2, 2}, {1, 2, 3, 4, -1, -1, -1, 5});
  NDArray y = run1("reduce_mean", {x}, {{"axis", "(2, 3)"}, {"keepdims", "True"}});
  CHECK(y.shape() == Shape{1, 2, 1, 1});
  CHECK(fvals(y) == std::vector<float>{2.5f, 0.5f});
}
