// The portable backend's kernels called directly against the scalar reference on seeded random
// shapes: conv2d (1x1, kxk, strides, padding, dilation, groups, depthwise with channel
// multipliers, odd and size-1 extents), dense (GEMM and direct rows, depths around the GEMM's
// block depth), operands in int8 range (the pair lanes) and far outside it (int32 lanes,
// wrapping), hand-computed wrapping sums, declined calls that leave their output untouched,
// and where the registry places the backend.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cvm/registry.h"
#include "kernel_abi.h"
#include "kernel_test_util.h"
#include "params/nn.h"

using namespace cvm;

#ifdef CVMRT_HAVE_BACKEND_PORTABLE

namespace {

using kernel::ElemType;
using kernel::KernelCall;
using kernel::KernelFn;
using kernel::KernelStatus;
using kernel::TensorView;

KernelFn table_kernel(const kernel::BackendTable& table, const std::string& op) {
  const kernel::KernelEntry* e = test::find_int32_entry(table, op);
  if (e == nullptr) FAIL("no int32 kernel " << op << " in backend " << table.name);
  return e->fn;
}

constexpr auto view = test::int32_view;
constexpr auto compact = test::compact_strides;

// Value ranges: int8 (the pair lanes), its bounds only (products of (-128)^2), int8 but for a
// few values just outside, and any int32 (sums that wrap).
enum class Range { kInt8, kInt8Edges, kNearInt8, kInt32 };

struct Rng {
  explicit Rng(uint64_t seed) : gen(seed) {}
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen);
  }
  int32_t value(Range r) {
    switch (r) {
      case Range::kInt8:
        return static_cast<int32_t>(uniform(-128, 127));
      case Range::kInt8Edges:
        return uniform(0, 3) == 0 ? 127 : -128;
      case Range::kNearInt8:
        return uniform(0, 50) == 0 ? (uniform(0, 1) == 0 ? 128 : -129)
                                   : static_cast<int32_t>(uniform(-128, 127));
      case Range::kInt32:
        break;
    }
    static const int32_t kEdges[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, -1, 0, 1, 65536};
    return uniform(0, 3) == 0 ? kEdges[uniform(0, 6)]
                              : static_cast<int32_t>(uniform(INT32_MIN, INT32_MAX));
  }
  Range range() { return static_cast<Range>(uniform(0, 3)); }
  std::vector<int32_t> values(int64_t n, Range r) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int32_t& x : v) x = value(r);
    return v;
  }
  std::mt19937_64 gen;
};

// Runs `op` of the portable backend and of the scalar reference, each into its own copy of
// the output storage (garbage, so unwritten outputs show), and requires equal bytes. A declined
// call must leave the output untouched (the reference then runs it, as a node's chain would);
// returns whether the portable kernel took the call.
bool same_as_reference(const std::string& op, const std::vector<TensorView>& inputs,
                       TensorView out, std::vector<int32_t>& storage, const void* params) {
  const std::vector<int32_t> init = storage;
  const ptrdiff_t offset = static_cast<int32_t*>(out.data) - storage.data();
  const KernelFn fns[2] = {table_kernel(kernel::kPortableBackend, op),
                           table_kernel(kernel::kScalarBackend, op)};
  std::vector<int32_t> results[2];
  bool took = true;
  for (int i = 0; i < 2; ++i) {
    storage = init;
    out.data = storage.data() + offset;
    KernelCall call{};
    call.inputs = inputs.data();
    call.num_inputs = static_cast<int32_t>(inputs.size());
    call.outputs = &out;
    call.num_outputs = 1;
    call.params = params;
    const KernelStatus status = fns[i](call);
    if (i == 0 && status == KernelStatus::kDeclined) {
      took = false;
      REQUIRE(storage == init);
      REQUIRE(fns[1](call) == KernelStatus::kDone);
    } else {
      REQUIRE(status == KernelStatus::kDone);
    }
    results[i] = storage;
  }
  REQUIRE(results[0] == results[1]);
  return took;
}

struct Conv {
  int64_t n, c, h, w, oc, kh, kw;
  kernel::Conv2dParams p;
  bool bias;
};

int64_t extent(int64_t in, int64_t pad, int64_t dil, int64_t k, int64_t stride) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

// Conv k on x and w of range r (bias any int32), with scratch lent; returns whether the
// portable kernel took it. pitch_extra > 0: x rows with a padded pitch.
bool check_conv(Rng& rng, const Conv& k, Range r, int64_t pitch_extra = 0) {
  const int64_t oh = extent(k.h, k.p.pad_h, k.p.dilation_h, k.kh, k.p.stride_h);
  const int64_t ow = extent(k.w, k.p.pad_w, k.p.dilation_w, k.kw, k.p.stride_w);
  REQUIRE(oh > 0);
  REQUIRE(ow > 0);
  const int64_t gc = k.c / k.p.groups, pitch = k.w + pitch_extra;
  std::vector<int32_t> x = rng.values(k.n * k.c * k.h * pitch, r);
  std::vector<int32_t> w = rng.values(k.oc * gc * k.kh * k.kw, r);
  std::vector<int32_t> b = rng.values(k.oc, Range::kInt32);
  std::vector<int32_t> y = rng.values(k.n * k.oc * oh * ow, Range::kInt32);
  std::vector<TensorView> in = {
      view(x.data(), {k.n, k.c, k.h, k.w}, {k.c * k.h * pitch, k.h * pitch, pitch, 1}),
      view(w.data(), {k.oc, gc, k.kh, k.kw}, compact({k.oc, gc, k.kh, k.kw}))};
  if (k.bias) in.push_back(view(b.data(), {k.oc}, {1}));
  INFO("conv x (" << k.n << ", " << k.c << ", " << k.h << ", " << k.w << ") oc " << k.oc
                  << " kernel " << k.kh << "x" << k.kw << " stride " << k.p.stride_h << ","
                  << k.p.stride_w << " pad " << k.p.pad_h << "," << k.p.pad_w << " dilation "
                  << k.p.dilation_h << "," << k.p.dilation_w << " groups " << k.p.groups
                  << " bias " << k.bias << " range " << static_cast<int>(r));
  test::PoisonedScratch scratch;
  kernel::Conv2dParams p = k.p;
  p.scratch = scratch.get();
  return same_as_reference("conv2d", in, view(y.data(), {k.n, k.oc, oh, ow},
                                              compact({k.n, k.oc, oh, ow})),
                           y, &p);
}

// A random conv: plain, grouped or depthwise (channel multiplier 1 or 2).
Conv random_conv(Rng& rng) {
  Conv k{};
  const int64_t kind = rng.uniform(0, 3);
  k.p.groups = kind == 0 ? rng.uniform(2, 4) : kind == 1 ? rng.uniform(2, 9) : 1;
  const int64_t gc = kind == 1 ? 1 : rng.uniform(1, 12);
  k.c = k.p.groups * gc;
  k.oc = k.p.groups * (kind == 1 ? rng.uniform(1, 2) : rng.uniform(1, 13));
  k.kh = rng.uniform(1, 5);
  k.kw = rng.uniform(1, 5);
  k.p.stride_h = rng.uniform(1, 3);
  k.p.stride_w = rng.uniform(1, 3);
  k.p.dilation_h = rng.uniform(1, 2);
  k.p.dilation_w = rng.uniform(1, 2);
  k.p.pad_h = rng.uniform(0, 3);
  k.p.pad_w = rng.uniform(0, 3);
  k.h = std::max<int64_t>(k.p.dilation_h * (k.kh - 1) + 1 - 2 * k.p.pad_h, 1) + rng.uniform(0, 9);
  k.w = std::max<int64_t>(k.p.dilation_w * (k.kw - 1) + 1 - 2 * k.p.pad_w, 1) + rng.uniform(0, 19);
  k.n = rng.uniform(1, 2);
  k.bias = rng.uniform(0, 1) == 1;
  return k;
}

// Dense m x depth -> units on operands of range r; returns whether the portable kernel took it.
bool check_dense(Rng& rng, int64_t m, int64_t depth, int64_t units, Range r, bool bias,
                 const kernel::DenseParams* params) {
  std::vector<int32_t> x = rng.values(m * depth, r);
  std::vector<int32_t> w = rng.values(units * depth, r);
  std::vector<int32_t> b = rng.values(units, Range::kInt32);
  std::vector<int32_t> y = rng.values(m * units, Range::kInt32);
  std::vector<TensorView> in = {view(x.data(), {m, depth}, {depth, 1}),
                                view(w.data(), {units, depth}, {depth, 1})};
  if (bias) in.push_back(view(b.data(), {units}, {1}));
  INFO("dense " << m << "x" << depth << " units " << units << " bias " << bias << " range "
                << static_cast<int>(r));
  return same_as_reference("dense", in, view(y.data(), {m, units}, {units, 1}), y, params);
}

}  // namespace

TEST_CASE("portable conv2d equals the reference on random shapes and values",
          "[backend][portable]") {
  Rng rng(20261127);
  int took = 0;
  for (int i = 0; i < 300; ++i) {
    const Conv k = random_conv(rng);
    took += check_conv(rng, k, rng.range(), i % 5 == 0 ? rng.uniform(1, 3) : 0) ? 1 : 0;
  }
  CHECK(took == 300);  // scratch lent: nothing declined
}

TEST_CASE("portable conv2d: common layers and tile edges", "[backend][portable]") {
  Rng rng(7);
  const std::vector<Conv> cases = {
      {1, 64, 9, 10, 64, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},   // 3x3, K = 576
      {1, 3, 31, 29, 8, 7, 7, {2, 2, 3, 3, 1, 1, 1, nullptr}, true},     // 7x7 stride 2 stem
      {1, 3, 17, 18, 7, 3, 3, {2, 2, 1, 1, 1, 1, 1, nullptr}, true},     // 3x3 stride 2
      {2, 33, 7, 9, 20, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},     // 1x1
      {1, 120, 3, 5, 4, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},    // K = 1080: two blocks
      {1, 114, 3, 3, 5, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},     // K = 1026
      {1, 1024, 1, 2, 3, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},    // K = 1024
      {1, 1025, 2, 1, 4, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, false},   // K = 1025
      {1, 12, 9, 14, 16, 3, 3, {1, 1, 1, 1, 1, 1, 2, nullptr}, true},    // 2 groups
      {1, 16, 12, 13, 16, 3, 3, {1, 1, 1, 1, 1, 1, 16, nullptr}, true},  // depthwise
      {1, 16, 13, 12, 16, 3, 3, {2, 2, 1, 1, 1, 1, 16, nullptr}, true},  // depthwise stride 2
      {1, 4, 11, 9, 12, 3, 3, {1, 2, 1, 1, 1, 1, 4, nullptr}, false},    // multiplier 3
      {1, 1, 1, 1, 1, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},       // one of everything
      {1, 2, 1, 1, 2, 3, 3, {1, 1, 1, 1, 1, 1, 2, nullptr}, false},      // depthwise, one pixel
  };
  for (const Conv& k : cases) {
    for (Range r : {Range::kInt8, Range::kInt8Edges, Range::kNearInt8, Range::kInt32}) {
      CHECK(check_conv(rng, k, r));
    }
  }
}

TEST_CASE("portable dense equals the reference on random shapes and values",
          "[backend][portable]") {
  Rng rng(31);
  test::PoisonedScratch scratch;
  const kernel::DenseParams params{scratch.get()};
  for (int i = 0; i < 300; ++i) {
    const int64_t m = rng.uniform(0, 3) == 0 ? rng.uniform(1, 2) : rng.uniform(1, 40);
    CHECK(check_dense(rng, m, rng.uniform(1, 300), rng.uniform(1, 40), rng.range(),
                      rng.uniform(0, 1) == 1, &params));
  }
  // Depths around the GEMM's block depth (1024), size-1 and empty extents.
  for (int64_t depth : {1, 1023, 1024, 1025, 2047, 2048, 2049, 3073}) {
    for (int64_t m : {1, 3, 7}) {
      for (Range r : {Range::kInt8, Range::kInt8Edges, Range::kInt32}) {
        CHECK(check_dense(rng, m, depth, 9, r, m != 3, &params));
      }
    }
  }
  for (int64_t m : {0, 1, 5}) {
    for (int64_t units : {0, 1, 8, 9}) {
      for (int64_t depth : {0, 1}) {
        CHECK(check_dense(rng, m, depth, units, Range::kInt8, true, &params));
      }
    }
  }
}

TEST_CASE("portable kernels wrap int32 sums exactly as the reference does",
          "[backend][portable]") {
  test::PoisonedScratch scratch;
  SECTION("int8 pairs: 140000 products of (-128)^2 wrap past 2^31") {
    // 140000 * 2^14 = 2293760000 = 2^32 - 2001207296.
    const int64_t m = 3, depth = 140000, units = 5;
    std::vector<int32_t> x(static_cast<size_t>(m * depth), -128);
    std::vector<int32_t> w(static_cast<size_t>(units * depth), -128);
    std::vector<int32_t> y(static_cast<size_t>(m * units), 7);
    const kernel::DenseParams params{scratch.get()};
    REQUIRE(same_as_reference("dense",
                              {view(x.data(), {m, depth}, {depth, 1}),
                               view(w.data(), {units, depth}, {depth, 1})},
                              view(y.data(), {m, units}, {units, 1}), y, &params));
    REQUIRE(y[0] == -2001207296);
  }
  SECTION("int32 lanes: products of INT32_MIN") {
    // INT32_MIN^2 = 2^62 wraps to 0; INT32_MIN * -1 wraps to INT32_MIN.
    const int64_t c = 3, h = 4, w = 5, oc = 4;
    std::vector<int32_t> x(static_cast<size_t>(c * h * w), INT32_MIN);
    std::vector<int32_t> wt(static_cast<size_t>(oc * c * 9), -1);
    wt[0] = INT32_MIN;
    std::vector<int32_t> y(static_cast<size_t>(oc * h * w), 7);
    const kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 1, scratch.get()};
    REQUIRE(same_as_reference("conv2d",
                              {view(x.data(), {1, c, h, w}, compact({1, c, h, w})),
                               view(wt.data(), {oc, c, 3, 3}, compact({oc, c, 3, 3}))},
                              view(y.data(), {1, oc, h, w}, compact({1, oc, h, w})), y, &p));
    REQUIRE(y[static_cast<size_t>(h * w)] == 0);  // oc 1, corner: 12 taps of 2^31, wraps to 0
  }
}

TEST_CASE("portable kernels decline without scratch and leave the output untouched",
          "[backend][portable]") {
  Rng rng(5);
  for (int lend : {0, 1}) {
    test::PoisonedScratch refused(false);
    const kernel::DenseParams no_scratch{nullptr}, refusing{refused.get()};
    const kernel::DenseParams* params = lend == 0 ? &no_scratch : &refusing;
    CHECK_FALSE(check_dense(rng, 5, 17, 9, Range::kInt8, true, params));
    CHECK(check_dense(rng, 2, 17, 9, Range::kInt32, true, params));  // direct rows: no scratch
    const Conv convs[] = {{1, 6, 7, 8, 5, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},
                          {1, 6, 7, 8, 6, 3, 3, {1, 1, 1, 1, 1, 1, 6, nullptr}, true}};
    for (const Conv& k : convs) {
      const int64_t oh = extent(k.h, 1, 1, 3, 1), ow = extent(k.w, 1, 1, 3, 1);
      std::vector<int32_t> x = rng.values(k.c * k.h * k.w, Range::kInt8);
      std::vector<int32_t> w = rng.values(k.oc * (k.c / k.p.groups) * 9, Range::kInt8);
      std::vector<int32_t> b = rng.values(k.oc, Range::kInt32);
      std::vector<int32_t> y = rng.values(k.oc * oh * ow, Range::kInt32);
      kernel::Conv2dParams p = k.p;
      p.scratch = lend == 0 ? nullptr : refused.get();
      CHECK_FALSE(same_as_reference(
          "conv2d",
          {view(x.data(), {1, k.c, k.h, k.w}, compact({1, k.c, k.h, k.w})),
           view(w.data(), {k.oc, k.c / k.p.groups, 3, 3}, compact({k.oc, k.c / k.p.groups, 3, 3})),
           view(b.data(), {k.oc}, {1})},
          view(y.data(), {1, k.oc, oh, ow}, compact({1, k.oc, oh, ow})), y, &p));
    }
  }
  // An output whose rows are not packed one after another (a row pitch): declined.
  std::vector<int32_t> x = rng.values(2 * 4 * 6, Range::kInt8);
  std::vector<int32_t> w = rng.values(3 * 2 * 9, Range::kInt8);
  std::vector<int32_t> y = rng.values(3 * 4 * 8, Range::kInt32);
  test::PoisonedScratch scratch;
  const kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 1, scratch.get()};
  CHECK_FALSE(same_as_reference("conv2d",
                                {view(x.data(), {1, 2, 4, 6}, compact({1, 2, 4, 6})),
                                 view(w.data(), {3, 2, 3, 3}, compact({3, 2, 3, 3}))},
                                view(y.data(), {1, 3, 4, 6}, {96, 32, 8, 1}), y, &p));
}

TEST_CASE("the registry puts portable behind the ISA backends and before scalar",
          "[backend][portable]") {
  const std::vector<std::string> names = compiled_backends();
  const auto at = std::find(names.begin(), names.end(), "portable");
  REQUIRE(at != names.end());
  REQUIRE(at + 1 == names.end() - 1);  // right before scalar, which is last
  REQUIRE(names.back() == "scalar");
  const bool isa = std::find(names.begin(), names.end(), "simd") != names.end() ||
                   std::find(names.begin(), names.end(), "wasm") != names.end();
  CHECK((names.front() == "portable") == !isa);
}

#endif  // CVMRT_HAVE_BACKEND_PORTABLE
