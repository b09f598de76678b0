// The portable backend's Winograd F(2x2, 3x3) entry (backends/portable/winograd.cc) against the
// scalar reference: the 3x3 stride-1 layers it takes, with and without its pack, at the edges of
// its exact block depth, and the layers and ranges it declines.
#include "portable_test_util.h"

#ifdef CVMRT_HAVE_BACKEND_PORTABLE

using namespace cvm;
using namespace cvm::portable_test;

TEST_CASE("portable conv2d Winograd F(2x2, 3x3) equals the reference", "[backend][portable]") {
  // conv2d_i32__portable_winograd (winograd.cc) takes 3x3 stride-1 single-group layers on int8
  // operands: with its pack (the transformed filters, "PF8W") always, without one from 128
  // tiles on. Channel counts around its GEMM's block depth (56, the exact depth of its pair
  // lanes), odd outputs (tiles cut by the edge), paddings 0 to 2, two images, 4 to 13 output
  // channels; x or w beyond int8, other strides, dilations, groups and fewer than 4 output
  // channels are declined (the general entry takes them) with the output untouched.
  const std::string kWinograd = "conv2d_i32__portable_winograd";
  constexpr uint32_t kMagic = 0x57384650u;
  auto magic_of = [](const Pack& pack) {
    uint32_t m = 0;
    if (pack.bytes >= 4) std::memcpy(&m, pack.get(), 4);
    return m;
  };
  Rng rng(2028);
  const std::vector<Conv> cases = {
      {1, 1, 6, 6, 4, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},
      {2, 3, 9, 7, 5, 3, 3, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},    // 7x5 out: odd both ways
      {1, 55, 5, 8, 8, 3, 3, {1, 1, 2, 1, 1, 1, 1, nullptr}, false},
      {1, 56, 7, 5, 9, 3, 3, {1, 1, 1, 2, 1, 1, 1, nullptr}, true},
      {1, 57, 4, 4, 13, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},  // blocks of 29 and 28
      {1, 113, 3, 6, 4, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},
      {1, 64, 3, 3, 7, 3, 3, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},   // one output pixel
      {1, 9, 24, 22, 6, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},  // 132 tiles
      {2, 5, 16, 14, 4, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, false}, // 2 x 56 tiles
  };
  for (const Conv& k : cases) {
    const kernel::Conv2dParams pack_params = k.p;
    std::vector<int32_t> w = rng.values(k.oc * k.c * 9, Range::kInt8);
    const Pack pack = make_pack(kWinograd, view(w.data(), {k.oc, k.c, 3, 3},
                                                compact({k.oc, k.c, 3, 3})), &pack_params);
    CHECK(magic_of(pack) == kMagic);
    const int64_t tiles = k.n * ((k.h + 2 * k.p.pad_h - 1) / 2) * ((k.w + 2 * k.p.pad_w - 1) / 2);
    for (Range r : {Range::kInt8, Range::kInt8Edges}) {
      for (int64_t pitch : {0, 3}) {  // x rows with a pitch
        bool packed_took = false;
        CHECK(check_conv(rng, k, r, pitch, true, nullptr, kWinograd, &packed_took) ==
              (tiles >= 128));
        CHECK(packed_took);
      }
    }
    for (Range rx : {Range::kNearInt8, Range::kInt32}) {
      CHECK_FALSE(check_conv(rng, k, Range::kInt8, 0, true, &rx, kWinograd));
    }
    CHECK_FALSE(check_conv(rng, k, Range::kInt32, 0, true, nullptr, kWinograd));
  }
  // The largest sums the pair lanes hold: x and w all -128 make U[5] = -1152 and V[5] = -512,
  // so each channel adds 589824 to M[5]; 56 channels fill one block to its bound, 113 make two.
  for (int64_t c : {56, 113}) {
    for (int32_t xv : {-128, 127}) {
      INFO("channels " << c << " x " << xv);
      std::vector<int32_t> x(static_cast<size_t>(c * 36), xv);
      std::vector<int32_t> w(static_cast<size_t>(4 * c * 9), -128);
      std::vector<int32_t> y(4 * 16, 0);
      kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 1, nullptr};
      const std::vector<TensorView> in = {view(x.data(), {1, c, 6, 6}, compact({1, c, 6, 6})),
                                          view(w.data(), {4, c, 3, 3}, compact({4, c, 3, 3}))};
      const Pack pack = make_pack(kWinograd, in[1], &p);
      test::PoisonedScratch scratch;
      p.scratch = scratch.get();
      CHECK(same_as_reference(kWinograd, in, view(y.data(), {1, 4, 4, 4}, compact({1, 4, 4, 4})),
                              y, &p, pack.get()));
    }
  }
  // Layers it does not take (stride 2, dilation 2, two groups, three output channels): no pack,
  // the general entry packs them, and calls decline, even given the Winograd pack of the same
  // weight and with enough tiles to run unpacked.
  const std::vector<Conv> others = {
      {1, 8, 26, 26, 8, 3, 3, {2, 2, 1, 1, 1, 1, 1, nullptr}, true},
      {1, 8, 26, 26, 8, 3, 3, {1, 1, 2, 2, 2, 2, 1, nullptr}, false},
      {1, 8, 26, 26, 8, 3, 3, {1, 1, 1, 1, 1, 1, 2, nullptr}, true},
      {1, 5, 26, 26, 3, 3, 3, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},
  };
  for (const Conv& k : others) {
    const int64_t gc = k.c / k.p.groups;
    const int64_t oh = extent(k.h, k.p.pad_h, k.p.dilation_h, 3, k.p.stride_h);
    const int64_t ow = extent(k.w, k.p.pad_w, k.p.dilation_w, 3, k.p.stride_w);
    std::vector<int32_t> x = rng.values(k.c * k.h * k.w, Range::kInt8);
    std::vector<int32_t> w = rng.values(k.oc * gc * 9, Range::kInt8);
    std::vector<int32_t> y = rng.values(k.oc * oh * ow, Range::kInt32);
    const std::vector<TensorView> in = {
        view(x.data(), {1, k.c, k.h, k.w}, compact({1, k.c, k.h, k.w})),
        view(w.data(), {k.oc, gc, 3, 3}, compact({k.oc, gc, 3, 3}))};
    const TensorView out = view(y.data(), {1, k.oc, oh, ow}, compact({1, k.oc, oh, ow}));
    CHECK(make_pack(kWinograd, in[1], &k.p).bytes == 0);
    const Pack general = make_pack("conv2d", in[1], &k.p);
    CHECK(general.bytes > 0);
    CHECK(magic_of(general) != kMagic);
    const kernel::Conv2dParams s1{1, 1, 1, 1, 1, 1, 1, nullptr};
    const Pack same_weight = make_pack(kWinograd, in[1], &s1);
    CHECK(magic_of(same_weight) == (k.oc >= 4 ? kMagic : 0u));
    test::PoisonedScratch scratch;
    kernel::Conv2dParams p = k.p;
    p.scratch = scratch.get();
    CHECK_FALSE(same_as_reference(kWinograd, in, out, y, &p, same_weight.get()));
    CHECK_FALSE(same_as_reference(kWinograd, in, out, y, &p));
  }
}

#endif  // CVMRT_HAVE_BACKEND_PORTABLE
