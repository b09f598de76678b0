// Every conv2d / dense / int32 add / sub table entry with KernelEntry::applies_clamp, on every
// backend this build can run, given Conv2dParams::clamp / DenseParams::clamp / the add's params:
// its output equals the scalar reference's op followed by the reference cvm_right_shift (or
// clip) kernel, bit for bit, on every path (narrow, int32, depthwise, Winograd, one-row dense),
// with and without its prepacked weight, at 1 and 3 threads; and a call it declines writes
// nothing. Likewise every conv2d entry with applies_channel_scale given Conv2dParams::scale as
// well. (int8 activations: int8_activation_kernel_test.cc; padding after the input:
// conv_pad_after_kernel_test.cc.)
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <vector>

#include "entry_checks.h"

using namespace cvm;
using namespace cvm::entry_checks;

TEST_CASE("fused clamp: conv2d entries that apply it equal the reference conv2d, then the clamp",
          "[kernels][fusion]") {
  const std::vector<ConvCase> cases = {
      // n  c   h   w  oc k  s  p  d  g   bias
      {1, 3, 9, 11, 5, 3, 1, 1, 1, 1, true},      // 3x3, few channels
      {1, 16, 10, 14, 16, 3, 1, 1, 1, 1, true},   // 3x3 stride 1 (Winograd where it runs)
      {2, 8, 13, 17, 20, 3, 2, 1, 1, 1, false},   // 3x3 stride 2, batch 2
      {1, 64, 7, 9, 70, 1, 1, 0, 1, 1, true},     // pointwise, tile remainders
      {1, 27, 13, 11, 20, 1, 2, 0, 1, 1, false},  // 1x1 stride 2, odd sizes
      {1, 3, 30, 30, 64, 7, 2, 3, 1, 1, true},    // a stem
      {1, 16, 12, 30, 16, 3, 1, 1, 1, 16, true},  // depthwise, channels in lanes
      {1, 16, 6, 40, 16, 3, 1, 1, 1, 16, true},   // depthwise, output columns in lanes
      {1, 5, 5, 70, 5, 5, 2, 2, 1, 5, false},     // depthwise 5x5 stride 2, few channels
      {1, 24, 9, 9, 24, 3, 2, 1, 1, 24, false},   // depthwise stride 2
      {1, 16, 12, 12, 16, 3, 1, 1, 3, 16, true},  // depthwise dilated
      {3, 12, 6, 6, 48, 2, 2, 0, 1, 3, true},     // groups 3
      {1, 8, 7, 7, 8, 3, 1, 1, 1, 2, true},       // grouped, few outputs a group
  };
  const std::vector<const kernel::KernelEntry*> entries = clamping_entries("conv2d");
  if (entries.empty()) WARN("no conv2d entry applies the clamp in this build on this CPU");
  uint64_t seed = 100;
  for (const ConvCase& v : cases) {
    INFO(describe(v));
    const Shape ys = output_shape(v);
    // int8 values (the narrow paths), then values only the int32 paths take.
    for (int32_t range : {127, 40000}) {
      std::vector<NDArray> in = {random_in({v.n, v.c, v.h, v.w}, -range, range, ++seed),
                                 random_in({v.oc, v.c / v.groups, v.k, v.k}, -127, 127, ++seed)};
      if (v.bias) in.push_back(random_in({v.oc}, -50000, 50000, ++seed));
      for (const CvmClampParams& clamp : kClamps) {
        INFO("range " << range << " clamp shift " << clamp.shift << " [" << clamp.lo << ", "
                      << clamp.hi << "]");
        kernel::Conv2dParams p{v.stride, v.stride, v.pad, v.pad, v.dilation, v.dilation,
                               v.groups, nullptr};
        const NDArray want = expected("conv2d", in, ys, &p, clamp);
        at_thread_counts([&] {
          for (const kernel::KernelEntry* e : entries) {
            test::PoisonedScratch scratch;
            p.scratch = scratch.get();
            p.clamp = &clamp;
            check_entry(*e, in, &p, want);
            p.clamp = nullptr;
            p.scratch = nullptr;
          }
        });
      }
    }
  }
}

TEST_CASE("fused clamp: conv2d entries that apply the channel scale equal the reference stage",
          "[kernels][fusion]") {
  // Conv2dParams::scale after the clamp: times multiplier[oc] (wrapping), then a second clamp.
  std::vector<const kernel::KernelEntry*> entries;
  for (const kernel::KernelEntry* e : clamping_entries("conv2d")) {
    if (e->applies_channel_scale) entries.push_back(e);
  }
  if (entries.empty()) WARN("no conv2d entry applies the channel scale in this build on this CPU");
  const std::vector<ConvCase> cases = {
      // n  c   h   w  oc k  s  p  d  g   bias
      {1, 16, 10, 14, 16, 3, 1, 1, 1, 1, true},   // 3x3 stride 1 (Winograd where it runs)
      {2, 8, 13, 17, 20, 3, 2, 1, 1, 1, false},   // 3x3 stride 2
      {1, 27, 13, 11, 21, 1, 2, 0, 1, 1, true},   // 1x1 stride 2, odd sizes
      {1, 24, 9, 30, 24, 3, 2, 1, 1, 24, true},   // depthwise, channels in lanes
      {1, 16, 6, 40, 16, 3, 1, 1, 1, 16, false},  // depthwise, output columns in lanes
      {1, 8, 7, 7, 8, 3, 1, 1, 1, 2, false},      // grouped
      {1, 6, 9, 11, 6, 3, 1, 1, 1, 3, true},      // 2 outputs a group: int32 lanes, direct paths
  };
  const CvmClampParams first = {9, -2047, 2047};
  const CvmClampParams thens[] = {{4, -127, 127}, {0, 0, 127}, {32, -1, 1}};
  // One case: every entry against the reference stage, for each second clamp.
  // Entries that take int8 activations run int8 x and y too where x fits (check_int8_entry):
  // an int8 y exactly when the second clamp fits it.
  const std::vector<kernel::KernelEntry> int8_takers = int8_entries("conv2d");
  auto check = [&](const ConvCase& v, const std::vector<NDArray>& in, const int32_t* m,
                   bool x_fits_int8) {
    const Shape ys = output_shape(v);
    for (const CvmClampParams& then : thens) {
      INFO("then shift " << then.shift << " [" << then.lo << ", " << then.hi << "]");
      kernel::Conv2dParams p{v.stride, v.stride, v.pad, v.pad, v.dilation, v.dilation,
                             v.groups, nullptr};
      NDArray scaled = expected("conv2d", in, ys, &p, first);
      auto* d = static_cast<int32_t*>(scaled.mutable_data());
      for (int64_t i = 0; i < scaled.numel(); ++i) {
        const int64_t oc = i / (ys[2] * ys[3]) % v.oc;
        d[i] = static_cast<int32_t>(static_cast<uint32_t>(d[i]) * static_cast<uint32_t>(m[oc]));
      }
      NDArray want = NDArray::zeros(ys, DataType::Int(32));
      REQUIRE(call_kernel(reference(then.shift > 0 ? "cvm_right_shift" : "clip"), {scaled}, want,
                          &then) == KernelStatus::kDone);
      const kernel::ChannelScale scale{m, then};
      at_thread_counts([&] {
        for (const kernel::KernelEntry* e : entries) {
          test::PoisonedScratch scratch;
          p.scratch = scratch.get();
          p.clamp = &first;
          p.scale = &scale;
          check_entry(*e, in, &p, want);
        }
        if (x_fits_int8) {
          for (const kernel::KernelEntry& e : int8_takers) {
            test::PoisonedScratch scratch;
            p.scratch = scratch.get();
            check_int8_entry(e, in, &p, fits_int8(then), want);
          }
        }
      });
    }
  };
  uint64_t seed = 900;
  for (const ConvCase& v : cases) {
    INFO(describe(v));
    // int8 inputs (the narrow paths), then inputs only the int32 paths take.
    for (int32_t range : {127, 40000}) {
      INFO("range " << range);
      std::vector<NDArray> in = {random_in({v.n, v.c, v.h, v.w}, -range, range, ++seed),
                                 random_in({v.oc, v.c / v.groups, v.k, v.k}, -127, 127, ++seed)};
      if (v.bias) in.push_back(random_in({v.oc}, -50000, 50000, ++seed));
      // Multipliers of both signs, and one that wraps a product.
      NDArray mult = random_in({v.oc}, -300, 300, ++seed);
      static_cast<int32_t*>(mult.mutable_data())[0] = 1 << 30;
      check(v, in, static_cast<const int32_t*>(mult.data()), range == 127);
    }
  }
}

TEST_CASE("fused clamp: dense entries that apply it equal the reference dense, then the clamp",
          "[kernels][fusion]") {
  struct DenseCase {
    int64_t m, k, n;
    bool bias;
  };
  const std::vector<DenseCase> cases = {{1, 24, 16, true},  {1, 1030, 7, false}, {3, 67, 13, true},
                                        {4, 100, 9, false}, {9, 40, 37, true},   {40, 64, 70, true},
                                        {65, 129, 3, false}};
  const std::vector<const kernel::KernelEntry*> entries = clamping_entries("dense");
  if (entries.empty()) WARN("no dense entry applies the clamp in this build on this CPU");
  uint64_t seed = 500;
  for (const DenseCase& d : cases) {
    INFO("dense x(" << d.m << "," << d.k << ") units " << d.n << (d.bias ? " bias" : ""));
    for (int32_t range : {127, 40000}) {
      std::vector<NDArray> in = {random_in({d.m, d.k}, -range, range, ++seed),
                                 random_in({d.n, d.k}, -127, 127, ++seed)};
      if (d.bias) in.push_back(random_in({d.n}, -50000, 50000, ++seed));
      for (const CvmClampParams& clamp : kClamps) {
        INFO("range " << range << " clamp shift " << clamp.shift << " [" << clamp.lo << ", "
                      << clamp.hi << "]");
        const NDArray want = expected("dense", in, {d.m, d.n}, nullptr, clamp);
        at_thread_counts([&] {
          for (const kernel::KernelEntry* e : entries) {
            test::PoisonedScratch scratch;
            const kernel::DenseParams p{scratch.get(), &clamp};
            check_entry(*e, in, &p, want);
          }
        });
      }
    }
  }
}

TEST_CASE("fused clamp: int32 add / sub entries that apply it equal the reference, then the clamp",
          "[kernels][fusion]") {
  // Operands as a residual add meets them and as broadcasting makes them: contiguous rows with
  // vector tails, a scalar and a row broadcast (stride 0), a transposed view; values over the
  // whole int32 range, so the add wraps before the clamp.
  struct Operands {
    const char* what;
    NDArray a, b;
  };
  constexpr int32_t kBig = std::numeric_limits<int32_t>::max();
  uint64_t seed = 900;
  auto any = [&](const Shape& s) { return random_in(s, -kBig, kBig, ++seed); };
  const std::vector<Operands> layouts = {
      {"contiguous (37)", any({37}), any({37})},
      {"contiguous (3, 67)", any({3, 67}), any({3, 67})},
      {"b a broadcast scalar", any({5, 33}), any({1}).broadcast_to({5, 33})},
      {"a a broadcast row", any({1, 40}).broadcast_to({7, 40}), any({7, 40})},
      {"a transposed", any({19, 6}).permute({1, 0}), any({6, 19})},
  };
  for (const char* op : {"add", "sub"}) {
    const std::vector<const kernel::KernelEntry*> entries = clamping_entries(op);
    if (entries.empty()) WARN("no " << op << " entry applies the clamp in this build on this CPU");
    for (const Operands& o : layouts) {
      INFO(op << ", " << o.what);
      const std::vector<NDArray> in = {o.a, o.b};
      for (const CvmClampParams& clamp : kClamps) {
        INFO("clamp shift " << clamp.shift << " [" << clamp.lo << ", " << clamp.hi << "]");
        const NDArray want = expected(op, in, o.a.shape(), nullptr, clamp);
        at_thread_counts([&] {
          for (const kernel::KernelEntry* e : entries) {
            check_entry(*e, in, &clamp, want);
            // In place over input 0, as a session runs an add whose output takes its block.
            NDArray inplace = o.a.copy();
            REQUIRE(call_kernel(e->fn, {inplace, o.b}, inplace, &clamp) == KernelStatus::kDone);
            CHECK(test::bit_equal(inplace, want));
          }
        });
      }
      // Without params the same entries add and nothing else.
      NDArray plain = NDArray::zeros(o.a.shape(), DataType::Int(32));
      REQUIRE(call_kernel(reference(op), in, plain, nullptr) == KernelStatus::kDone);
      for (const kernel::KernelEntry* e : entries) {
        NDArray got = NDArray::zeros(o.a.shape(), DataType::Int(32));
        REQUIRE(call_kernel(e->fn, in, got, nullptr) == KernelStatus::kDone);
        CHECK(test::bit_equal(got, plain));
      }
    }
  }
}
