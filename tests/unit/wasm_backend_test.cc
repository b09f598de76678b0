// The WebAssembly SIMD128 backend's kernels called directly, where operator calls cannot reach
// (kernel_table_parity_test.cc runs every entry on generated operator calls): conv2d without
// scratch or with scratch refused part way (the op layer lends it whenever it can), the int16
// pairs wrapping exactly at the int16 bounds (hand-computed), a single value beyond the fast
// path's range in x or w (per channel for depthwise), declined calls leaving their output
// untouched, the int16 GEMMs of conv2d and dense with weights packed ahead of time (the
// KernelEntry::prepack path of model runs), and the Winograd path of 3x3 stride-1 conv2d where
// it takes a call and where its range bounds make it decline. Each equals the scalar reference
// bit for bit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_abi.h"
#include "kernel_test_util.h"
#include "params/nn.h"

using namespace cvm;

#ifdef CVMRT_HAVE_BACKEND_WASM

namespace {

using kernel::ElemType;
using kernel::KernelCall;
using kernel::TensorView;

constexpr auto view = test::int32_view;
constexpr auto compact_strides = test::compact_strides;

// Value ranges that pick different paths: int8 and int16 operands take the int16 dot product
// (the int16 bounds included), full int32 operands the exact int32 multiply.
enum class Range { kInt8, kInt16, kInt16Edges, kInt32 };

struct Rng : test::OperandRng {
  using OperandRng::OperandRng;
  int32_t value(Range r) {
    switch (r) {
      case Range::kInt8:
        return static_cast<int32_t>(uniform(-128, 127));
      case Range::kInt16:
        return static_cast<int32_t>(uniform(-32768, 32767));
      case Range::kInt16Edges: {
        static const int32_t kEdges[] = {-32768, -32767, 32767, 32766, -1, 0, 1};
        return kEdges[uniform(0, 6)];
      }
      case Range::kInt32:
        break;
    }
    return any_int32(32768);
  }
  std::vector<int32_t> values(size_t n, Range r) {
    std::vector<int32_t> v(n);
    for (int32_t& x : v) x = value(r);
    return v;
  }
};

// The wasm table's entries these tests call, by name (conv2d has two: Winograd, then the rest).
constexpr const char* kConv = "conv2d_i32__wasm_simd128";
constexpr const char* kWinograd = "conv2d_i32__wasm_winograd";
constexpr const char* kDense = "dense_i32__wasm_simd128";

const kernel::KernelEntry& wasm_entry(const std::string& name) {
  for (size_t i = 0; i < kernel::kWasmBackend.count; ++i) {
    if (name == kernel::kWasmBackend.entries[i].name) return kernel::kWasmBackend.entries[i];
  }
  FAIL("no entry " << name << " in the wasm backend");
  return kernel::kWasmBackend.entries[0];
}

// The wasm entry named `entry` against the scalar reference of its op
// (test::entry_matches_reference).
void require_same(const std::string& entry, const std::vector<TensorView>& inputs, TensorView out,
                  std::vector<int32_t>& out_storage, const void* params,
                  const void* prepacked = nullptr) {
  test::entry_matches_reference(wasm_entry(entry), inputs, out, out_storage, params, prepacked);
}

}  // namespace

namespace {

// Scratch for kernels that ask (kernel_abi.h): lends 64-byte aligned blocks, or refuses every
// request past `limit` blocks so the kernels' no-scratch paths run too.
struct TestScratch {
  explicit TestScratch(int limit) : limit(limit), scratch{&TestScratch::acquire, this} {}
  static void* acquire(void* ctx, int64_t bytes) {
    auto* self = static_cast<TestScratch*>(ctx);
    if (static_cast<int>(self->blocks.size()) >= self->limit) return nullptr;
    self->blocks.emplace_back(static_cast<size_t>(bytes) + 64, 0xA5);
    auto addr = reinterpret_cast<uintptr_t>(self->blocks.back().data());
    return reinterpret_cast<void*>((addr + 63) & ~uintptr_t{63});
  }
  int limit;
  kernel::Scratch scratch;
  std::vector<std::vector<uint8_t>> blocks;
};

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, groups;
  kernel::Conv2dParams p;
  bool bias;
};

using test::conv_extent;

void check_conv(Rng& rng, const ConvCase& k, Range range, bool strided_x, const char* conv_entry) {
  const int64_t oh = conv_extent(k.h, k.p.pad_h, k.p.dilation_h, k.kh, k.p.stride_h);
  const int64_t ow = conv_extent(k.w, k.p.pad_w, k.p.dilation_w, k.kw, k.p.stride_w);
  if (oh <= 0 || ow <= 0) return;
  const int64_t gc = k.c / k.groups;
  // Strided x: every other row and a padded row pitch (inner stride still 1), or an inner
  // stride of 2 (declined: the scalar reference runs it).
  const int64_t pitch = strided_x ? k.w * 2 + 3 : k.w;
  std::vector<int32_t> x = rng.values(static_cast<size_t>(k.n * k.c * k.h * pitch * 2) + 8, range);
  std::vector<int32_t> w = rng.values(static_cast<size_t>(k.oc * gc * k.kh * k.kw), range);
  std::vector<int32_t> b = rng.values(static_cast<size_t>(k.oc), Range::kInt32);
  std::vector<int32_t> y = rng.values(static_cast<size_t>(k.n * k.oc * oh * ow), Range::kInt32);
  std::vector<TensorView> in = {
      view(x.data(), {k.n, k.c, k.h, k.w}, {k.c * k.h * pitch, k.h * pitch, pitch, 1}),
      view(w.data(), {k.oc, gc, k.kh, k.kw}, compact_strides({k.oc, gc, k.kh, k.kw}))};
  if (k.bias) in.push_back(view(b.data(), {k.oc}, {1}));
  INFO(test::conv_case_text(k.n, k.c, k.h, k.w, k.oc, k.kh, k.kw, k.p, k.groups)
       << " bias " << k.bias << " range " << static_cast<int>(range) << " strided " << strided_x);
  const TensorView out = view(y.data(), {k.n, k.oc, oh, ow}, compact_strides({k.n, k.oc, oh, ow}));
  // No scratch, or scratch refused after 0 to 3 blocks (the GEMM takes up to 4), or lent
  // (the operator calls' case).
  for (int limit : {-1, 0, 1, 2, 3, 8}) {
    TestScratch scratch(limit);
    kernel::Conv2dParams p = k.p;
    p.scratch = limit < 0 ? nullptr : &scratch.scratch;
    INFO("scratch blocks allowed " << limit);
    require_same(conv_entry, in, out, y, &p);
    if (limit == 8) {
      // The weight packed ahead of time (a model run's case), when the packer takes it.
      const kernel::KernelEntry& e = wasm_entry(conv_entry);
      REQUIRE(e.prepack != nullptr);
      kernel::Conv2dParams pp = k.p;
      pp.scratch = nullptr;
      const size_t bytes = e.prepack(in[1], &pp, nullptr, 0);
      if (bytes > 0) {
        std::vector<uint64_t> packed((bytes + 7) / 8 + 8);
        auto* aligned = reinterpret_cast<void*>(
            (reinterpret_cast<uintptr_t>(packed.data()) + 63) & ~uintptr_t{63});
        REQUIRE(e.prepack(in[1], &pp, aligned, bytes) == bytes);
        INFO("prepacked");
        TestScratch scratch2(8);
        kernel::Conv2dParams pq = k.p;
        pq.scratch = &scratch2.scratch;
        require_same(conv_entry, in, out, y, &pq, aligned);
      }
    }
    if (strided_x) {
      std::vector<TensorView> in2 = in;
      in2[0] = view(x.data(), {k.n, k.c, k.h, k.w},
                    {k.c * k.h * pitch * 2, k.h * pitch * 2, pitch * 2, 2});
      require_same(conv_entry, in2, out, y, &p);
      // y rows with a pitch (outputs stored row by row, not as one run of pixels)
      std::vector<int32_t> y2 =
          rng.values(static_cast<size_t>(k.n * k.oc * oh * (ow + 5)), Range::kInt32);
      const TensorView out2 =
          view(y2.data(), {k.n, k.oc, oh, ow}, {k.oc * oh * (ow + 5), oh * (ow + 5), ow + 5, 1});
      require_same(conv_entry, in, out2, y2, &p);
    }
  }
}

// check_conv of every case at every value range, with a compact and a strided x (and y), through
// one of the wasm conv2d entries.
void check_convs(Rng& rng, const std::vector<ConvCase>& cases, const char* conv_entry = kConv) {
  for (const ConvCase& k : cases) {
    for (Range r : {Range::kInt8, Range::kInt16, Range::kInt16Edges, Range::kInt32}) {
      check_conv(rng, k, r, false, conv_entry);
      check_conv(rng, k, r, true, conv_entry);
    }
  }
}

}  // namespace

TEST_CASE("wasm conv2d without scratch or with it refused equals the reference",
          "[backend][wasm]") {
  Rng rng(14);
  SECTION("common layers") {
    const std::vector<ConvCase> cases = {
        {1, 3, 8, 8, 4, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},
        {2, 5, 9, 13, 6, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},
        {1, 8, 7, 19, 9, 1, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},
        {1, 4, 16, 16, 8, 3, 3, 1, {2, 2, 1, 1, 1, 1, 1, nullptr}, true},
        {1, 3, 11, 23, 5, 5, 5, 1, {2, 2, 2, 2, 1, 1, 1, nullptr}, false},
        {1, 6, 10, 18, 6, 3, 3, 6, {1, 1, 1, 1, 1, 1, 6, nullptr}, true},  // depthwise
        {1, 8, 9, 17, 4, 3, 3, 2, {1, 1, 1, 1, 1, 1, 2, nullptr}, true},   // grouped
        {1, 2, 12, 21, 3, 3, 3, 1, {1, 3, 2, 2, 2, 2, 1, nullptr}, true},  // dilated, stride 3
        {1, 1, 5, 40, 2, 1, 7, 1, {1, 1, 0, 3, 1, 1, 1, nullptr}, false},  // wide kernel, odd C
        {3, 7, 6, 33, 5, 2, 4, 1, {1, 1, 0, 1, 1, 1, 1, nullptr}, true},
        {1, 4, 3, 3, 4, 3, 3, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},  // one output, no interior
        {1, 2, 4, 4, 3, 5, 5, 1, {1, 1, 2, 2, 1, 1, 1, nullptr}, true},  // kernel wider than the
                                                                         // input
    };
    check_convs(rng, cases);
  }
  SECTION("GEMM shapes: 1x1, kxk with strides, dilation, padding, groups, odd channel counts") {
    // The int16 GEMM takes groups of >= 4 output channels and pairs channels (odd counts leave
    // a half-empty pair); stride_w 1 reads a padded copy of x in place, other strides gather a
    // row tile.
    const std::vector<ConvCase> cases = {
        {1, 33, 7, 9, 20, 1, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},      // 1x1
        {2, 17, 10, 11, 13, 1, 1, 1, {2, 2, 0, 0, 1, 1, 1, nullptr}, false},   // 1x1 stride 2
        // 1x1 with strides pack just the cells they read: padded, odd extents, strides 1 to 3
        {1, 9, 11, 23, 8, 1, 1, 1, {2, 2, 1, 1, 1, 1, 1, nullptr}, true},
        {1, 6, 13, 14, 5, 1, 1, 1, {3, 3, 2, 1, 1, 1, 1, nullptr}, false},
        {1, 8, 9, 21, 12, 1, 1, 1, {1, 2, 0, 3, 1, 1, 1, nullptr}, true},
        {1, 7, 10, 9, 4, 1, 1, 1, {2, 1, 1, 0, 2, 2, 1, nullptr}, true},
        {1, 70, 12, 15, 37, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},    // several tiles
        {2, 24, 13, 17, 12, 3, 3, 1, {2, 1, 2, 1, 2, 1, 1, nullptr}, false},   // stride, dilation
        {1, 10, 14, 29, 8, 3, 2, 1, {3, 3, 1, 0, 1, 2, 1, nullptr}, true},     // stride 3
        {1, 12, 9, 14, 16, 3, 3, 2, {1, 1, 1, 1, 1, 1, 2, nullptr}, true},     // 2 groups of 8
        {1, 9, 8, 10, 15, 3, 3, 3, {1, 2, 1, 1, 1, 1, 3, nullptr}, false},     // 3 groups of 5
        {1, 3, 30, 30, 8, 7, 7, 1, {2, 2, 3, 3, 1, 1, 1, nullptr}, true},      // 7x7 stride 2
        // Few channels, wide kernels: taps kw, kw + 1 paired (column pairs): odd and even kernel
        // widths, dilation and stride along w, padding past the kernel, groups
        {1, 1, 9, 17, 8, 3, 5, 1, {1, 1, 1, 2, 1, 1, 1, nullptr}, true},
        {1, 3, 10, 19, 6, 2, 4, 1, {1, 2, 0, 1, 1, 2, 1, nullptr}, false},
        {2, 6, 8, 13, 8, 3, 5, 2, {2, 1, 1, 3, 1, 1, 2, nullptr}, true},
        {1, 1, 6, 5, 4, 3, 3, 1, {1, 1, 1, 4, 1, 1, 1, nullptr}, true},
        {1, 1, 5, 12, 4, 2, 4, 1, {1, 1, 1, 2, 1, 1, 1, nullptr}, true},  // last vector of cells
                                                                         // ends at the input's end
        {1, 5, 6, 3, 6, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},        // out_w < 4
        {1, 7, 5, 6, 9, 3, 3, 1, {1, 1, 4, 5, 1, 1, 1, nullptr}, false},       // pad > kernel
        {2, 11, 9, 31, 8, 2, 5, 1, {2, 1, 0, 2, 1, 2, 1, nullptr}, true},      // dilation_w 2
        {1, 180, 5, 6, 64, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},     // long k
        {1, 9, 3, 5, 7, 1, 1, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},        // one strip, partial
        {1, 6, 4, 3, 4, 2, 2, 2, {1, 1, 1, 1, 1, 1, 2, nullptr}, false},       // 1 channel a group
        {2, 4, 9, 9, 12, 3, 3, 4, {2, 2, 1, 1, 1, 1, 4, nullptr}, true},       // channel multiplier
    };
    check_convs(rng, cases);
  }
}

TEST_CASE("wasm conv2d GEMM: weights past the A chunk target sum k in chunks",
          "[backend][wasm]") {
  // Packed weights (A) of more than 4 MiB (kChunkABytes) are split along k, the partial sums
  // kept between chunks: 256 output channels of a 1x1 over 8199 input channels (64 blocks x 4100
  // pairs x 16 bytes, the last pair half empty) in 2 chunks, on 2 pixels, int16-range values
  // (the GEMM's range), its own packing and prepacked. (One scratch mode and range only: the
  // section above runs every one, and a call on these weights costs as much as 40 small cases.)
  Rng rng(47);
  const int64_t c = 8199, oc = 256, w = 2;
  std::vector<int32_t> x = rng.values(static_cast<size_t>(c * w), Range::kInt16);
  std::vector<int32_t> wt = rng.values(static_cast<size_t>(oc * c), Range::kInt16);
  std::vector<int32_t> b = rng.values(static_cast<size_t>(oc), Range::kInt32);
  std::vector<int32_t> y(static_cast<size_t>(oc * w));
  const std::vector<TensorView> in = {
      view(x.data(), {1, c, 1, w}, compact_strides({1, c, 1, w})),
      view(wt.data(), {oc, c, 1, 1}, compact_strides({oc, c, 1, 1})),
      view(b.data(), {oc}, {1})};
  const TensorView out = view(y.data(), {1, oc, 1, w}, compact_strides({1, oc, 1, w}));
  kernel::Conv2dParams p{1, 1, 0, 0, 1, 1, 1, nullptr};
  const kernel::KernelEntry& e = wasm_entry(kConv);
  const size_t bytes = e.prepack(in[1], &p, nullptr, 0);
  REQUIRE(bytes > (size_t{4} << 20));
  std::vector<uint64_t> packed(bytes / 8 + 16);
  auto* aligned = reinterpret_cast<void*>(
      (reinterpret_cast<uintptr_t>(packed.data()) + 63) & ~uintptr_t{63});
  REQUIRE(e.prepack(in[1], &p, aligned, bytes) == bytes);
  for (const void* prepacked : {static_cast<const void*>(nullptr),
                                static_cast<const void*>(aligned)}) {
    INFO((prepacked ? "prepacked" : "packing its own weights"));
    TestScratch scratch(8);
    p.scratch = &scratch.scratch;
    require_same(kConv, in, out, y, &p, prepacked);
  }
}

TEST_CASE("wasm conv2d Winograd F(2x2, 3x3) equals the reference", "[backend][wasm]") {
  // 3x3, stride 1, one group of >= 4 output channels: tiles crossing tile rows (odd tile
  // counts), partial last tiles (odd output extents), outputs narrower than a tile quad, output
  // channels not a multiple of 4, odd channel counts, long channel sums, no padding and padding
  // beyond one; prepacked, and (from 128 tiles) transforming its own weights. Values beyond the
  // Winograd bounds (int16, int32) take the GEMM or the direct path.
  Rng rng(41);
  const std::vector<ConvCase> cases = {
      {1, 4, 8, 8, 4, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},
      {2, 7, 11, 13, 6, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},
      {1, 16, 9, 9, 9, 3, 3, 1, {1, 1, 0, 0, 1, 1, 1, nullptr}, true},      // 7x7 out: odd tiles
      {1, 3, 5, 30, 5, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},      // wide, 3 tile rows
      {1, 5, 20, 4, 8, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, false},     // 2 tiles a row
      {1, 130, 6, 7, 12, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},    // 65 channel pairs
      {1, 9, 4, 4, 4, 3, 3, 1, {1, 1, 2, 2, 1, 1, 1, nullptr}, true},       // pad 2: 6x6 out
      {2, 64, 14, 14, 16, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},   // a ResNet shape
      {1, 1, 3, 9, 4, 3, 3, 1, {1, 1, 0, 1, 1, 1, 1, nullptr}, true},       // one output row
      {1, 5, 24, 23, 8, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true},     // 144 tiles: its
                                                                           // own weights too
  };
  check_convs(rng, cases, kWinograd);
}

TEST_CASE("wasm conv2d Winograd: takes calls in its bounds, declines beyond them",
          "[backend][wasm]") {
  // Direct calls of the Winograd path: at max|x| = 8191 and max|w| = 3640 with one channel the
  // transforms reach the int16 bounds (4 * 8191, 9 * 3640) and 9 C max|x| max|w| stays below
  // 2^29: taken, equal to the reference. One value past either bound, or a channel count that
  // lifts the bound to 2^29: declined, nothing written.
  Rng rng(43);
  auto signs = [&](size_t n, int32_t mag) {
    std::vector<int32_t> v(n);
    for (int32_t& e : v) e = rng.uniform(0, 3) == 0 ? static_cast<int32_t>(rng.uniform(-mag, mag))
                                                    : (rng.uniform(0, 1) ? mag : -mag);
    return v;
  };
  struct Probe {
    int64_t c;
    int32_t xmax, wmax;
    bool taken;
  };
  for (const Probe& pr : {Probe{1, 8191, 3640, true}, Probe{1, 8192, 3640, false},
                          Probe{1, 8191, 3641, false}, Probe{3, 8191, 3640, false},
                          Probe{64, 127, 127, true}, Probe{3700, 127, 127, false}}) {
    INFO("channels " << pr.c << " max|x| " << pr.xmax << " max|w| " << pr.wmax);
    const int64_t h = 24, w = 23, oc = 5;  // 144 tiles: taken without packed weights
    std::vector<int32_t> x = signs(static_cast<size_t>(pr.c * h * w), pr.xmax);
    std::vector<int32_t> wt = signs(static_cast<size_t>(oc * pr.c * 9), pr.wmax);
    x[0] = pr.xmax;  // the bound itself is reached
    wt[0] = -pr.wmax;
    std::vector<int32_t> b = rng.values(static_cast<size_t>(oc), Range::kInt8);
    std::vector<int32_t> y(static_cast<size_t>(oc * h * w), 0x5A5A5A5A);
    const std::vector<TensorView> in = {
        view(x.data(), {1, pr.c, h, w}, compact_strides({1, pr.c, h, w})),
        view(wt.data(), {oc, pr.c, 3, 3}, compact_strides({oc, pr.c, 3, 3})),
        view(b.data(), {oc}, {1})};
    const TensorView out = view(y.data(), {1, oc, h, w}, compact_strides({1, oc, h, w}));
    TestScratch scratch(8);
    kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 1, &scratch.scratch};
    KernelCall call{};
    call.inputs = in.data();
    call.num_inputs = 3;
    call.outputs = &out;
    call.num_outputs = 1;
    call.params = &p;
    const std::vector<int32_t> before = y;
    const kernel::KernelEntry& e = wasm_entry(kWinograd);
    REQUIRE((e.fn(call) == kernel::KernelStatus::kDone) == pr.taken);
    if (!pr.taken) REQUIRE(y == before);
    require_same(kWinograd, in, out, y, &p);
    // The weight packer takes exactly the weights the transform keeps in int16.
    REQUIRE((e.prepack(in[1], &p, nullptr, 0) > 0) == (pr.wmax <= 3640));
  }
}

TEST_CASE("wasm conv2d int16 pairs wrap exactly at the int16 bounds", "[backend][wasm]") {
  // Every product (-32768)^2 = 2^30; two per dot lane give 2^31, which wraps to INT32_MIN. Three
  // channels: one full pair and one paired with a zero weight.
  const int64_t c = 3, h = 3, w = 12, oc = 5;
  std::vector<int32_t> x(static_cast<size_t>(c * h * w), -32768);
  std::vector<int32_t> wt(static_cast<size_t>(oc * c * 9), -32768);
  std::vector<int32_t> y(static_cast<size_t>(oc * h * w), 7);
  for (int limit : {-1, 8}) {  // the int32 multiply and the int16 GEMM
    TestScratch scratch(limit);
    const kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 1, limit < 0 ? nullptr : &scratch.scratch};
    require_same(kConv,
                 {view(x.data(), {1, c, h, w}, compact_strides({1, c, h, w})),
                  view(wt.data(), {oc, c, 3, 3}, compact_strides({oc, c, 3, 3}))},
                 view(y.data(), {1, oc, h, w}, compact_strides({1, oc, h, w})), y, &p);
    // An interior output sums 27 products of 2^30: 27 * 2^30 mod 2^32 = 3 * 2^30, i.e. -2^30.
    REQUIRE(y[static_cast<size_t>(1 * w + 5)] == -1073741824);
  }
}

TEST_CASE("wasm conv2d: one value beyond the fast path's range anywhere takes the exact path",
          "[backend][wasm]") {
  // int8 data (as CVM conv inputs are declared) with a single value at or beyond the int8 and
  // int16 bounds, first or last in x or in w. The values up to +-32767/-32768 stay on the int16
  // GEMM; beyond that, truncating to int16 would change the result, so equality with the
  // reference shows the range check saw it.
  const int64_t c = 19, h = 9, w = 11, oc = 6;
  const int32_t outliers[] = {127, -128, 128, -129, 32767, -32768, 32768, -32769, INT32_MAX,
                              INT32_MIN};
  Rng rng(21);
  for (int32_t v : outliers) {
    for (int where = 0; where < 4; ++where) {
      std::vector<int32_t> x = rng.values(static_cast<size_t>(c * h * w), Range::kInt8);
      std::vector<int32_t> wt = rng.values(static_cast<size_t>(oc * c * 9), Range::kInt8);
      std::vector<int32_t>& t = where < 2 ? x : wt;
      t[where % 2 == 0 ? 0 : t.size() - 1] = v;
      std::vector<int32_t> y(static_cast<size_t>(oc * h * w), 7);
      TestScratch scratch(8);
      const kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 1, &scratch.scratch};
      INFO("outlier " << v << " at " << where);
      require_same(kConv,
                   {view(x.data(), {1, c, h, w}, compact_strides({1, c, h, w})),
                    view(wt.data(), {oc, c, 3, 3}, compact_strides({oc, c, 3, 3}))},
                   view(y.data(), {1, oc, h, w}, compact_strides({1, oc, h, w})), y, &p);
    }
  }
}

TEST_CASE("wasm depthwise conv2d without scratch or with it refused equals the reference",
          "[backend][wasm]") {
  // One input and one output channel per group: the packed-plane path when scratch is lent
  // (check_conv also runs it without scratch, the general path), int16 pairs or int32 words.
  Rng rng(17);
  auto dw = [](int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw,
               kernel::Conv2dParams p, bool bias) {
    p.groups = c;
    return ConvCase{n, c, h, w, c, kh, kw, c, p, bias};
  };
  SECTION("every width 1..37 with 3x3 kernels, strides 1 to 3, paddings 0 to 2") {
    for (int64_t w = 1; w <= 37; ++w) {
      for (int64_t s = 1; s <= 3; ++s) {
        const int64_t pad = (w + s) % 3, h = 1 + (w * s) % 6;
        const ConvCase k = dw(1 + w % 2, 3, h, w, 3, 3, {s, s, pad, pad, 1, 1, 0, nullptr},
                              w % 3 != 0);
        for (Range r : {Range::kInt8, Range::kInt16Edges, Range::kInt32}) {
          check_conv(rng, k, r, w % 4 == 0, kConv);
        }
      }
    }
  }
  SECTION("kernel shapes, dilation, mixed strides, MobileNet-like layers") {
    const std::vector<ConvCase> cases = {
        dw(1, 8, 14, 14, 3, 3, {2, 2, 1, 1, 1, 1, 0, nullptr}, true),     // stride 2
        dw(2, 4, 9, 23, 3, 3, {1, 1, 2, 2, 2, 2, 0, nullptr}, false),    // dilation 2
        dw(1, 3, 11, 29, 3, 3, {2, 1, 2, 0, 2, 2, 0, nullptr}, true),    // dilation, stride h 2
        dw(1, 5, 13, 31, 5, 5, {1, 1, 2, 2, 1, 1, 0, nullptr}, true),    // 5x5
        dw(1, 5, 13, 31, 5, 5, {2, 2, 2, 2, 1, 1, 0, nullptr}, false),   // 5x5 stride 2
        dw(1, 6, 7, 17, 1, 1, {1, 1, 0, 0, 1, 1, 0, nullptr}, true),     // 1x1
        dw(1, 6, 7, 17, 1, 1, {2, 2, 1, 0, 1, 1, 0, nullptr}, true),     // 1x1 stride 2, pad
        dw(1, 4, 8, 19, 2, 3, {1, 2, 1, 1, 1, 2, 0, nullptr}, true),     // 2x3
        dw(1, 4, 8, 19, 3, 2, {3, 1, 0, 2, 2, 3, 0, nullptr}, false),    // 3x2, dilation 3
        dw(1, 2, 15, 33, 7, 7, {2, 3, 3, 3, 1, 1, 0, nullptr}, true),    // 7x7 stride 3
        dw(1, 2, 6, 9, 3, 4, {1, 1, 1, 2, 1, 1, 0, nullptr}, true),      // even kernel width
        dw(2, 3, 2, 3, 3, 3, {1, 1, 2, 2, 1, 1, 0, nullptr}, true),      // kernel wider than x
        dw(1, 2, 1, 1, 3, 3, {1, 1, 1, 1, 1, 1, 0, nullptr}, false),     // one pixel
        dw(1, 16, 28, 28, 3, 3, {1, 1, 1, 1, 1, 1, 0, nullptr}, false),  // a real layer
    };
    check_convs(rng, cases);
  }
}

TEST_CASE("wasm depthwise conv2d: each channel takes its own exact path", "[backend][wasm]") {
  // int8 channels with one value at or beyond the int16 bounds in some channel's data or
  // weights: that channel alone leaves the int16 pairs; the channels after it switch back.
  const int64_t c = 5, h = 7, w = 13;
  const int32_t outliers[] = {32767, -32768, 32768, -32769, INT32_MAX, INT32_MIN};
  SECTION("one outlier in a channel's data or weights") {
    Rng rng(22);
    for (int32_t v : outliers) {
      for (int where = 0; where < 4; ++where) {
        std::vector<int32_t> x = rng.values(static_cast<size_t>(2 * c * h * w), Range::kInt8);
        std::vector<int32_t> wt = rng.values(static_cast<size_t>(c * 9), Range::kInt8);
        const size_t plane = static_cast<size_t>(h * w), ch = static_cast<size_t>(where % 3 * 2);
        if (where < 3) {
          x[ch * plane + (where == 1 ? plane - 1 : 0)] = v;
        } else {
          wt[4] = v;
          wt[static_cast<size_t>(c * 9 - 1)] = v;
        }
        std::vector<int32_t> y(static_cast<size_t>(2 * c * h * w), 7);
        TestScratch scratch(8);
        const kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, c, &scratch.scratch};
        INFO("outlier " << v << " at " << where);
        require_same(kConv,
                     {view(x.data(), {2, c, h, w}, compact_strides({2, c, h, w})),
                      view(wt.data(), {c, 1, 3, 3}, compact_strides({c, 1, 3, 3}))},
                     view(y.data(), {2, c, h, w}, compact_strides({2, c, h, w})), y, &p);
      }
    }
  }
  SECTION("int16 pairs wrap exactly at the int16 bounds") {
    // (-32768)^2 = 2^30 per tap; an interior output sums 9: 9 * 2^30 mod 2^32 = 2^30.
    std::vector<int32_t> x(static_cast<size_t>(c * h * w), -32768);
    std::vector<int32_t> wt(static_cast<size_t>(c * 9), -32768);
    std::vector<int32_t> y(static_cast<size_t>(c * h * w), 7);
    TestScratch scratch(8);
    const kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, c, &scratch.scratch};
    require_same(kConv,
                 {view(x.data(), {1, c, h, w}, compact_strides({1, c, h, w})),
                  view(wt.data(), {c, 1, 3, 3}, compact_strides({c, 1, 3, 3}))},
                 view(y.data(), {1, c, h, w}, compact_strides({1, c, h, w})), y, &p);
    REQUIRE(y[static_cast<size_t>(3 * w + 5)] == 1073741824);
    REQUIRE(y[0] == 0);  // corner: 4 taps, 4 * 2^30 wraps to 0
  }
}

TEST_CASE("wasm dense and conv2d decline a strided x without writing their output",
          "[backend][wasm]") {
  // require_same checks that a declined call leaves the output as it was.
  Rng rng(15);
  for (int64_t m : {1, 5}) {
    for (int64_t depth : {1, 4, 9, 64}) {
      for (int64_t units : {1, 5, 11}) {
        std::vector<int32_t> x = rng.values(static_cast<size_t>(m * depth * 2) + 1, Range::kInt32);
        std::vector<int32_t> w = rng.values(static_cast<size_t>(units * depth) + 1, Range::kInt32);
        std::vector<int32_t> y = rng.values(static_cast<size_t>(m * units), Range::kInt32);
        INFO("dense " << m << "x" << depth << " units " << units);
        require_same(kDense,
                     {view(x.data(), {m, depth}, {depth * 2, 2}),
                      view(w.data(), {units, depth}, {depth, 1})},
                     view(y.data(), {m, units}, {units, 1}), y, nullptr);
      }
    }
  }
  const ConvCase k{1, 3, 8, 8, 4, 3, 3, 1, {1, 1, 1, 1, 1, 1, 1, nullptr}, true};
  check_conv(rng, k, Range::kInt8, true, kConv);  // its inner stride 2 variant is declined
}

TEST_CASE("wasm dense: the int16 GEMM, prepacked or not, equals the reference", "[backend][wasm]") {
  // Rows in blocks of 4 and one by one, units in strips of 8 (partial ones), depths with odd
  // pairs and tails past whole vectors; int16 operands (the GEMM) and int32 ones (declined to
  // the int32 path), with and without bias, scratch lent or refused.
  Rng rng(31);
  const kernel::KernelEntry& e = wasm_entry(kDense);
  REQUIRE(e.prepack != nullptr);
  for (int64_t m : {1, 3, 4, 6, 9}) {
    for (int64_t depth : {1, 2, 7, 8, 9, 17, 64}) {
      for (int64_t units : {1, 5, 8, 13}) {
        for (Range r : {Range::kInt8, Range::kInt16Edges, Range::kInt32}) {
          std::vector<int32_t> x = rng.values(static_cast<size_t>(m * depth), r);
          std::vector<int32_t> w = rng.values(static_cast<size_t>(units * depth), r);
          std::vector<int32_t> b = rng.values(static_cast<size_t>(units), Range::kInt32);
          std::vector<int32_t> y = rng.values(static_cast<size_t>(m * units), Range::kInt32);
          for (bool bias : {false, true}) {
            std::vector<TensorView> in = {view(x.data(), {m, depth}, {depth, 1}),
                                          view(w.data(), {units, depth}, {depth, 1})};
            if (bias) in.push_back(view(b.data(), {units}, {1}));
            const TensorView out = view(y.data(), {m, units}, {units, 1});
            INFO("dense " << m << "x" << depth << " units " << units << " range "
                          << static_cast<int>(r) << " bias " << bias);
            for (int limit : {0, 1, 8}) {
              TestScratch scratch(limit);
              const kernel::DenseParams p{&scratch.scratch};
              require_same(kDense, in, out, y, &p);
            }
            const size_t bytes = e.prepack(in[1], nullptr, nullptr, 0);
            if (r == Range::kInt32) continue;  // may or may not fit: the reference decides
            REQUIRE(bytes > 0);
            std::vector<uint64_t> packed(bytes / 8 + 16);
            auto* aligned = reinterpret_cast<void*>(
                (reinterpret_cast<uintptr_t>(packed.data()) + 63) & ~uintptr_t{63});
            REQUIRE(e.prepack(in[1], nullptr, aligned, bytes) == bytes);
            for (int limit : {0, 8}) {
              TestScratch scratch(limit);
              const kernel::DenseParams p{&scratch.scratch};
              INFO("prepacked, scratch " << limit);
              require_same(kDense, in, out, y, &p, aligned);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("wasm dense and conv2d packers decline weights outside int16", "[backend][wasm]") {
  const kernel::KernelEntry& d = wasm_entry(kDense);
  const kernel::KernelEntry& c = wasm_entry(kConv);
  for (int32_t v : {32767, -32768, 32768, -32769}) {
    std::vector<int32_t> w(4 * 8 * 9, 3);
    w.back() = v;
    const bool fits = v >= -32768 && v <= 32767;
    REQUIRE((d.prepack(view(w.data(), {4, 72}, {72, 1}), nullptr, nullptr, 0) > 0) == fits);
    const kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 1, nullptr};
    REQUIRE((c.prepack(view(w.data(), {4, 8, 3, 3}, compact_strides({4, 8, 3, 3})), &p, nullptr,
                       0) > 0) == fits);
  }
}


#endif  // CVMRT_HAVE_BACKEND_WASM
