// The portable backend's kernels called directly against the scalar reference on seeded random
// shapes: conv2d (1x1, kxk, strides, padding, dilation, groups, depthwise with channel
// multipliers, odd and size-1 extents), dense (GEMM and direct rows, depths around the GEMM's
// block depth), operands in int8 range (the pair lanes) and far outside it (int32 lanes,
// wrapping), hand-computed wrapping sums, declined calls that leave their output untouched,
// and where the registry places the backend; and the same with the weights their packers
// (KernelEntry::prepack) made: every packed path (dense one row, two rows, GEMM rows, no
// scratch; conv2d GEMMs) against the reference and against the unpacked call, strided operands,
// int8 edges, packers declining out-of-int8 and depthwise weights, packs of another weight
// (read: the kernel computes with them) and of another shape (ignored). The Winograd entry has
// its own file (portable_winograd_test.cc); the helpers both use: portable_test_util.h.
#include "portable_test_util.h"

#ifdef CVMRT_HAVE_BACKEND_PORTABLE

using namespace cvm;
using namespace cvm::portable_test;

namespace {

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

// Dense with its weight packed (dense_i32__portable_prepack) against the reference and the
// unpacked call. Strides: x with a row pitch (x_pitch) and a column step (x_step), w with a row
// pitch, y with a row pitch and a column step.
struct DenseCase {
  int64_t m, depth, units;
  Range rx, rw;
  bool bias;
  int64_t x_pitch = 0, x_step = 1, w_pitch = 0, y_pitch = 0, y_step = 1;
};

// Returns whether the portable kernel took the call with and without the pack (with no scratch,
// or a refusing one, only the packed call may). The packer must decline exactly when w holds a
// value outside int8.
bool check_dense_packed(Rng& rng, const DenseCase& c, const kernel::DenseParams* params,
                        bool* packed_took = nullptr) {
  const int64_t xp = c.depth * c.x_step + c.x_pitch, wp = c.depth + c.w_pitch;
  const int64_t yp = c.units * c.y_step + c.y_pitch;
  std::vector<int32_t> x = rng.values(std::max<int64_t>(c.m * xp, 1), c.rx);
  std::vector<int32_t> w = rng.values(c.units * wp, c.rw);
  std::vector<int32_t> b = rng.values(c.units, Range::kInt32);
  std::vector<int32_t> y = rng.values(std::max<int64_t>(c.m * yp, 1), Range::kInt32);
  std::vector<TensorView> in = {view(x.data(), {c.m, c.depth}, {xp, c.x_step}),
                                view(w.data(), {c.units, c.depth}, {wp, 1})};
  if (c.bias) in.push_back(view(b.data(), {c.units}, {1}));
  INFO("dense " << c.m << "x" << c.depth << " units " << c.units << " bias " << c.bias
                << " x range " << static_cast<int>(c.rx) << " w range " << static_cast<int>(c.rw)
                << " x pitch " << xp << " step " << c.x_step << " w pitch " << wp << " y pitch "
                << yp << " step " << c.y_step);
  std::vector<int32_t> wv;  // the values of the view (not the pitch's padding)
  for (int64_t u = 0; u < c.units; ++u) {
    wv.insert(wv.end(), w.begin() + u * wp, w.begin() + u * wp + c.depth);
  }
  const kernel::DenseParams pack_params{nullptr};
  const Pack pack = make_pack("dense", in[1], &pack_params);
  INFO("packed " << pack.bytes << " bytes");
  CHECK((pack.bytes > 0) == (all_int8(wv) && c.units > 0 && c.depth > 0));
  const TensorView out_view = view(y.data(), {c.m, c.units}, {yp, c.y_step});
  std::vector<int32_t> y_unpacked = y;
  const bool took = same_as_reference("dense", in, out_view, y, params, pack.get());
  TensorView out_unpacked = out_view;
  out_unpacked.data = y_unpacked.data();
  const bool took_unpacked = same_as_reference("dense", in, out_unpacked, y_unpacked, params);
  CHECK(y == y_unpacked);
  CHECK((took || !took_unpacked));  // a pack never makes the kernel decline
  if (packed_took != nullptr) *packed_took = took;
  return took && took_unpacked;
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

TEST_CASE("portable dense with prepacked weights equals the reference", "[backend][portable]") {
  Rng rng(20260521);
  test::PoisonedScratch scratch;
  const kernel::DenseParams params{scratch.get()};
  SECTION("shapes: one, two and GEMM rows, tile and block edges") {
    // Units around the 8-unit B panels (and pairs of panels of the one-row path), depths around
    // the 1024 block depth; rows 1 and 2 (direct before), 3 and more (GEMM, 2-row tiles).
    const Range ranges[] = {Range::kInt8, Range::kInt8Edges};
    int i = 0;
    for (int64_t m : {1, 2, 3, 4, 5, 9}) {
      for (int64_t depth : {1, 2, 3, 17, 1023, 1024, 1025, 2049}) {
        for (int64_t units : {1, 2, 7, 8, 9, 16, 17, 24, 33}) {
          const Range r = ranges[i % 2];
          CHECK(check_dense_packed(rng, {m, depth, units, r, r, i % 3 != 0}, &params));
          ++i;
        }
      }
    }
  }
  SECTION("random shapes, strides and ranges") {
    for (int i = 0; i < 250; ++i) {
      DenseCase c{rng.uniform(0, 2) == 0 ? rng.uniform(1, 3) : rng.uniform(1, 24),
                  rng.uniform(1, 300),
                  rng.uniform(1, 40),
                  rng.range(),
                  rng.uniform(0, 3) == 0 ? rng.range() : Range::kInt8,
                  rng.uniform(0, 1) == 1};
      if (rng.uniform(0, 2) == 0) c.x_pitch = rng.uniform(1, 5);
      if (rng.uniform(0, 3) == 0) c.x_step = rng.uniform(2, 3);
      if (rng.uniform(0, 2) == 0) c.w_pitch = rng.uniform(1, 5);
      if (rng.uniform(0, 3) == 0) c.y_pitch = rng.uniform(1, 5);
      if (rng.uniform(0, 3) == 0) c.y_step = 2;
      CHECK(check_dense_packed(rng, c, &params));
    }
  }
  SECTION("int8 edges, values just outside int8 (the packer declines), x outside int8") {
    for (int64_t m : {1, 2, 3, 6}) {
      for (int64_t depth : {5, 1024, 2500}) {
        // w at the edges; x at the edges, then x beyond int8 with a packed w (int32 fallback).
        CHECK(check_dense_packed(rng, {m, depth, 11, Range::kInt8Edges, Range::kInt8Edges, true},
                                 &params));
        CHECK(check_dense_packed(rng, {m, depth, 11, Range::kInt32, Range::kInt8, true}, &params));
        CHECK(check_dense_packed(rng, {m, depth, 11, Range::kNearInt8, Range::kInt8, false},
                                 &params));
        CHECK(check_dense_packed(rng, {m, depth, 11, Range::kInt8, Range::kNearInt8, true},
                                 &params));
        CHECK(check_dense_packed(rng, {m, depth, 11, Range::kInt8, Range::kInt32, false},
                                 &params));
      }
    }
    // One value of w at 128 or -129 among int8 ones: declined.
    for (int32_t bad : {128, -129, INT32_MIN, INT32_MAX}) {
      std::vector<int32_t> w = rng.values(5 * 7, Range::kInt8);
      w[17] = bad;
      const kernel::DenseParams none{nullptr};
      CHECK(make_pack("dense", view(w.data(), {5, 7}, {7, 1}), &none).bytes == 0);
      w[17] = bad < 0 ? -128 : 127;
      CHECK(make_pack("dense", view(w.data(), {5, 7}, {7, 1}), &none).bytes > 0);
    }
  }
  SECTION("empty and size-1 extents") {
    for (int64_t m : {0, 1, 2, 5}) {
      for (int64_t units : {1, 2, 9}) {
        for (int64_t depth : {1, 2}) {
          CHECK(check_dense_packed(rng, {m, depth, units, Range::kInt8, Range::kInt8, true},
                                   &params));
        }
      }
    }
    const kernel::DenseParams none{nullptr};
    std::vector<int32_t> w(4, 1);
    CHECK(make_pack("dense", view(w.data(), {0, 4}, {4, 1}), &none).bytes == 0);
    CHECK(make_pack("dense", view(w.data(), {4, 0}, {1, 1}), &none).bytes == 0);
  }
  SECTION("without scratch a packed call still runs, every row count") {
    for (int lend : {0, 1}) {
      test::PoisonedScratch refused(false);
      const kernel::DenseParams no_scratch{nullptr}, refusing{refused.get()};
      const kernel::DenseParams* p = lend == 0 ? &no_scratch : &refusing;
      for (int64_t m : {1, 2, 3, 7}) {
        bool packed_took = false;
        const bool took = check_dense_packed(
            rng, {m, 300, 19, Range::kInt8, Range::kInt8, true}, p, &packed_took);
        CHECK(packed_took);       // the packed rows run direct
        CHECK(took == (m <= 2));  // the unpacked GEMM rows decline
      }
    }
  }
  SECTION("wrapping int8 pair sums: 140000 products of (-128)^2, one row and GEMM rows") {
    for (int64_t m : {1, 3}) {
      const int64_t depth = 140000, units = 5;
      std::vector<int32_t> x(static_cast<size_t>(m * depth), -128);
      std::vector<int32_t> w(static_cast<size_t>(units * depth), -128);
      std::vector<int32_t> y(static_cast<size_t>(m * units), 7);
      const std::vector<TensorView> in = {view(x.data(), {m, depth}, {depth, 1}),
                                          view(w.data(), {units, depth}, {depth, 1})};
      const kernel::DenseParams none{nullptr};
      const Pack pack = make_pack("dense", in[1], &none);
      REQUIRE(pack.bytes > 0);
      REQUIRE(same_as_reference("dense", in, view(y.data(), {m, units}, {units, 1}), y, &params,
                                pack.get()));
      REQUIRE(y[0] == -2001207296);
    }
  }
}

// A pack is what the kernel computes with: given the pack of w2 with w1 in the call, a dense
// or conv2d equals the reference on w2 on every packed path (so the pack is read), and a pack
// of another shape is ignored (the reference on w1).
TEST_CASE("portable kernels compute with the pack they are given", "[backend][portable]") {
  Rng rng(99);
  const KernelFn fn = table_kernel(kernel::kPortableBackend, "dense");
  const KernelFn ref = table_kernel(kernel::kScalarBackend, "dense");
  test::PoisonedScratch scratch;
  const kernel::DenseParams with{scratch.get()}, without{nullptr};
  for (int64_t m : {1, 2, 3, 8}) {
    for (const kernel::DenseParams* p : {&with, &without}) {
      INFO("rows " << m << (p == &with ? " scratch" : " no scratch"));
      const int64_t depth = 37, units = 13;
      std::vector<int32_t> x = rng.values(m * depth, Range::kInt8);
      std::vector<int32_t> w1 = rng.values(units * depth, Range::kInt8);
      std::vector<int32_t> w2 = rng.values(units * depth, Range::kInt8);
      std::vector<int32_t> w3 = rng.values((units + 1) * depth, Range::kInt8);
      const TensorView xv = view(x.data(), {m, depth}, {depth, 1});
      const TensorView v1 = view(w1.data(), {units, depth}, {depth, 1});
      const TensorView v2 = view(w2.data(), {units, depth}, {depth, 1});
      const TensorView v3 = view(w3.data(), {units + 1, depth}, {depth, 1});
      const Pack pack2 = make_pack("dense", v2, &without), pack3 = make_pack("dense", v3, &without);
      REQUIRE(pack2.bytes > 0);
      REQUIRE(pack3.bytes > 0);
      auto run = [&](KernelFn f, const TensorView& w, const void* packed) {
        std::vector<int32_t> y(static_cast<size_t>(m * units), 0);
        const TensorView in[2] = {xv, w};
        const TensorView out = view(y.data(), {m, units}, {units, 1});
        KernelCall call{};
        call.inputs = in;
        call.num_inputs = 2;
        call.outputs = &out;
        call.num_outputs = 1;
        call.params = p;
        call.prepacked = packed;
        const KernelStatus st = f(call);
        if (st == KernelStatus::kDeclined) y.assign(y.size(), -1);
        return y;
      };
      const std::vector<int32_t> want1 = run(ref, v1, nullptr), want2 = run(ref, v2, nullptr);
      REQUIRE(want1 != want2);
      CHECK(run(fn, v1, pack2.get()) == want2);
      CHECK(run(fn, v1, pack3.get()) == (m <= 2 || p == &with ? want1
                                                              : std::vector<int32_t>(
                                                                    want1.size(), -1)));
    }
  }
  // conv2d: plain and grouped GEMMs.
  const KernelFn cfn = table_kernel(kernel::kPortableBackend, "conv2d");
  const KernelFn cref = table_kernel(kernel::kScalarBackend, "conv2d");
  for (int64_t groups : {1, 2}) {
    INFO("groups " << groups);
    const int64_t c = 4, h = 6, wd = 7, oc = 6, gc = c / groups;
    std::vector<int32_t> x = rng.values(c * h * wd, Range::kInt8);
    std::vector<int32_t> w1 = rng.values(oc * gc * 9, Range::kInt8);
    std::vector<int32_t> w2 = rng.values(oc * gc * 9, Range::kInt8);
    const TensorView xv = view(x.data(), {1, c, h, wd}, compact({1, c, h, wd}));
    const TensorView v1 = view(w1.data(), {oc, gc, 3, 3}, compact({oc, gc, 3, 3}));
    const TensorView v2 = view(w2.data(), {oc, gc, 3, 3}, compact({oc, gc, 3, 3}));
    kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, groups, nullptr};
    const Pack pack2 = make_pack("conv2d", v2, &p);
    kernel::Conv2dParams other = p;
    other.groups = groups == 1 ? 2 : 1;  // same weight shape, other groups: not this call's
    const Pack pack_other = make_pack("conv2d", v2, &other);
    REQUIRE(pack2.bytes > 0);
    REQUIRE(pack_other.bytes > 0);
    p.scratch = scratch.get();
    auto run = [&](KernelFn f, const TensorView& w, const void* packed) {
      std::vector<int32_t> y(static_cast<size_t>(oc * h * wd), 0);
      const TensorView in[2] = {xv, w};
      const TensorView out = view(y.data(), {1, oc, h, wd}, compact({1, oc, h, wd}));
      KernelCall call{};
      call.inputs = in;
      call.num_inputs = 2;
      call.outputs = &out;
      call.num_outputs = 1;
      call.params = &p;
      call.prepacked = packed;
      REQUIRE(f(call) == KernelStatus::kDone);
      return y;
    };
    const std::vector<int32_t> want1 = run(cref, v1, nullptr), want2 = run(cref, v2, nullptr);
    REQUIRE(want1 != want2);
    CHECK(run(cfn, v1, pack2.get()) == want2);
    CHECK(run(cfn, v1, pack_other.get()) == want1);
    // A dense pack is not a conv2d pack, nor the reverse.
    std::vector<int32_t> wd2 = rng.values(oc * gc * 9, Range::kInt8);
    const kernel::DenseParams none{nullptr};
    const Pack dense_pack =
        make_pack("dense", view(wd2.data(), {oc, gc * 9}, {gc * 9, 1}), &none);
    CHECK(run(cfn, v1, dense_pack.get()) == want1);
  }
}

TEST_CASE("portable conv2d with prepacked weights equals the reference", "[backend][portable]") {
  Rng rng(4242);
  SECTION("common layers, tile and block edges, every range") {
    const std::vector<Conv> cases = {
        {1, 64, 9, 10, 64, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},   // 3x3, K = 576
        {1, 3, 31, 29, 8, 7, 7, {2, 2, 3, 3, 1, 1, 1, nullptr}, true},     // 7x7 stride 2 stem
        {1, 3, 17, 18, 7, 3, 3, {2, 2, 1, 1, 1, 1, 1, nullptr}, true},     // 3x3 stride 2
        {2, 33, 7, 9, 20, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},     // 1x1, two images
        {1, 120, 3, 5, 4, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},    // K = 1080: 2 blocks
        {1, 114, 3, 3, 5, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},     // K = 1026
        {1, 1024, 1, 2, 3, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},    // K = 1024
        {1, 1025, 2, 1, 4, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, false},   // K = 1025
        {1, 2100, 1, 1, 3, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},    // K = 2100: 3 blocks
        {1, 12, 9, 14, 16, 3, 3, {1, 1, 1, 1, 1, 1, 2, nullptr}, true},    // 2 groups
        {2, 12, 5, 6, 9, 3, 3, {1, 1, 1, 1, 1, 1, 3, nullptr}, false},     // 3 groups of 3
        {1, 16, 12, 13, 16, 3, 3, {1, 1, 1, 1, 1, 1, 16, nullptr}, true},  // depthwise: no pack
        {1, 4, 11, 9, 12, 3, 3, {1, 2, 1, 1, 1, 1, 4, nullptr}, false},    // multiplier 3
        {1, 1, 1, 1, 1, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},       // one of everything
        {1, 1, 4, 4, 2, 2, 2, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},       // one in channel
        {1, 5, 1, 9, 3, 1, 3, {1, 2, 0, 1, 1, 2, 1, nullptr}, false},      // one row, dilated
        {1, 7, 8, 1, 5, 3, 1, {2, 1, 1, 0, 1, 1, 1, nullptr}, true},       // one column
    };
    for (const Conv& k : cases) {
      for (Range r : {Range::kInt8, Range::kInt8Edges, Range::kNearInt8, Range::kInt32}) {
        CHECK(check_conv(rng, k, r, 0, true));
        CHECK(check_conv(rng, k, r, 2, true));  // x rows with a pitch
      }
      // An int8 weight packed, x beyond int8: the call packs nothing and takes int32 lanes.
      for (Range rx : {Range::kNearInt8, Range::kInt32}) {
        CHECK(check_conv(rng, k, Range::kInt8, 0, true, &rx));
      }
    }
  }
  SECTION("random shapes and ranges") {
    int took = 0;
    for (int i = 0; i < 200; ++i) {
      const Conv k = random_conv(rng);
      took += check_conv(rng, k, rng.range(), i % 4 == 0 ? rng.uniform(1, 3) : 0, true) ? 1 : 0;
    }
    CHECK(took == 200);
  }
  SECTION("a weight with strides, and one value just outside int8") {
    const int64_t oc = 5, gc = 3;
    std::vector<int32_t> w = rng.values(oc * gc * 3 * 3 * 2, Range::kInt8);
    // Every other element of a (5, 3, 3, 6) block: w[o, c, h, 2 * v].
    const TensorView strided = view(w.data(), {oc, gc, 3, 3}, {gc * 18, 18, 6, 2});
    std::vector<int32_t> dense_w;
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t c = 0; c < gc; ++c)
        for (int64_t h = 0; h < 3; ++h)
          for (int64_t v = 0; v < 3; ++v) dense_w.push_back(w[o * gc * 18 + c * 18 + h * 6 + 2 * v]);
    const kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 1, nullptr};
    const Pack a = make_pack("conv2d", strided, &p);
    const Pack b = make_pack("conv2d", view(dense_w.data(), {oc, gc, 3, 3}, compact({oc, gc, 3, 3})),
                             &p);
    REQUIRE(a.bytes == b.bytes);
    CHECK(std::memcmp(a.get(), b.get(), a.bytes) == 0);
    w[58] = 128;  // w[1, 0, 0, 2 * 2]: in the view
    CHECK(make_pack("conv2d", strided, &p).bytes == 0);
  }
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
