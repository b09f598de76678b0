// Every conv2d and dense entry with KernelEntry::takes_int8_activations (and the AMX kernels
// with emulated tiles) given int8 activation views: int8 x, an int8 output, or both, equal the
// int32 call narrowed, with and without the prepacked weight, at 1 and 3 threads; strided and
// row-offset views; an int8 output the clamp does not fit is declined and left untouched.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <vector>

#include "entry_checks.h"

using namespace cvm;
using namespace cvm::entry_checks;

TEST_CASE("fused clamp: conv2d entries take int8 activations and equal the int32 call",
          "[kernels][fusion]") {
  const std::vector<kernel::KernelEntry> entries = int8_entries("conv2d");
  if (entries.empty()) WARN("no conv2d entry takes int8 activations in this build on this CPU");
  std::vector<CvmClampParams> clamps = int8_clamps();
  clamps.push_back(kClamps[1]);  // relu: does not fit an int8 output
  uint64_t seed = 1300;
  for (const ConvCase& v : int8_conv_cases()) {
    INFO(describe(v));
    const Shape ys = output_shape(v);
    const std::vector<NDArray> in = int8_conv_inputs(v, seed += 3);
    for (const CvmClampParams& clamp : clamps) {
      INFO("clamp shift " << clamp.shift << " [" << clamp.lo << ", " << clamp.hi << "]");
      kernel::Conv2dParams p{v.stride, v.stride, v.pad, v.pad, v.dilation, v.dilation,
                             v.groups, nullptr};
      const NDArray want = expected("conv2d", in, ys, &p, clamp);
      at_thread_counts([&] {
        for (const kernel::KernelEntry& e : entries) {
          test::PoisonedScratch scratch;
          p.scratch = scratch.get();
          p.clamp = &clamp;
          check_int8_entry(e, in, &p, fits_int8(clamp), want);
          p.clamp = nullptr;
          p.scratch = nullptr;
        }
      });
    }
  }
}

TEST_CASE("fused clamp: depthwise biases at the int32 edges keep the clamp's own rounding",
          "[kernels][fusion]") {
  // Sums that reach past INT32_MAX - 2^(shift - 1) or near INT32_MIN: a kernel that adds the
  // rounding term before the shift (the x86 quads do where nothing can wrap) must not here.
  const ConvCase v{1, 4, 5, 70, 4, 3, 1, 1, 1, 4, true};
  std::vector<NDArray> in = int8_conv_inputs(v, 1390);
  auto* bias = in[2].mutable_data_as<int32_t>();
  const int32_t biases[4] = {INT32_MAX - 3, INT32_MAX - 200000, INT32_MIN + 5, INT32_MIN + 200000};
  for (int c = 0; c < 4; ++c) bias[c] = biases[c];
  const Shape ys = output_shape(v);
  for (const CvmClampParams& clamp : {CvmClampParams{3, -127, 127}, CvmClampParams{1, -128, 127},
                                      CvmClampParams{24, -127, 127}}) {
    INFO("clamp shift " << clamp.shift << " [" << clamp.lo << ", " << clamp.hi << "]");
    kernel::Conv2dParams p{1, 1, 1, 1, 1, 1, 4, nullptr};
    const NDArray want = expected("conv2d", in, ys, &p, clamp);
    for (const kernel::KernelEntry& e : int8_entries("conv2d")) {
      test::PoisonedScratch scratch;
      p.scratch = scratch.get();
      p.clamp = &clamp;
      check_int8_entry(e, in, &p, true, want);
      p.clamp = nullptr;
    }
  }
}

TEST_CASE("fused clamp: dense entries take int8 activations and equal the int32 call",
          "[kernels][fusion]") {
  struct DenseCase {
    int64_t m, k, n;
    bool bias;
  };
  const std::vector<DenseCase> cases = {
      {1, 24, 16, true}, {1, 1030, 7, false}, {1, 17, 3, true},   {2, 37, 5, false},
      {3, 67, 13, true}, {4, 100, 9, false},  {6, 19, 33, true},  {9, 40, 37, true},
      {40, 64, 70, true}, {33, 70, 17, false}, {65, 129, 3, false}};
  const std::vector<kernel::KernelEntry> entries = int8_entries("dense");
  if (entries.empty()) WARN("no dense entry takes int8 activations in this build on this CPU");
  std::vector<CvmClampParams> clamps = int8_clamps();
  clamps.push_back(kClamps[4]);  // the whole int32 range: does not fit an int8 output
  uint64_t seed = 1700;
  for (const DenseCase& d : cases) {
    INFO("dense x(" << d.m << "," << d.k << ") units " << d.n << (d.bias ? " bias" : ""));
    std::vector<NDArray> in = {random_in({d.m, d.k}, -128, 127, ++seed),
                               random_in({d.n, d.k}, -127, 127, ++seed)};
    if (d.bias) in.push_back(random_in({d.n}, -50000, 50000, ++seed));
    for (const CvmClampParams& clamp : clamps) {
      INFO("clamp shift " << clamp.shift << " [" << clamp.lo << ", " << clamp.hi << "]");
      const NDArray want = expected("dense", in, {d.m, d.n}, nullptr, clamp);
      at_thread_counts([&] {
        for (const kernel::KernelEntry& e : entries) {
          test::PoisonedScratch scratch;
          const kernel::DenseParams p{scratch.get(), &clamp};
          check_int8_entry(e, in, &p, fits_int8(clamp), want);
        }
      });
    }
  }
}

TEST_CASE("fused clamp: an int8 output without a last clamp that fits it declines",
          "[kernels][fusion]") {
  // Cases: no clamp; a clamp past int8 below, above; a fitting clamp then a channel scale whose
  // clamp does not fit.
  const ConvCase v{1, 16, 10, 14, 16, 3, 1, 1, 1, 1, true};
  const std::vector<NDArray> in = int8_conv_inputs(v, 2100);
  const std::vector<NDArray> in8 = {as_int8(in[0]), in[1], in[2]};
  const CvmClampParams fits{3, -127, 127};
  const CvmClampParams wide_lo{3, -129, 127}, wide_hi{3, -128, 128};
  NDArray mult = random_in({v.oc}, -3, 3, 2103);
  const kernel::ChannelScale scale{static_cast<const int32_t*>(mult.data()), wide_hi};
  for (const kernel::KernelEntry& e : int8_entries("conv2d")) {
    INFO("entry " << e.name);
    for (const std::vector<NDArray>* x : {&in, &in8}) {
      for (int which = 0; which < 4; ++which) {
        INFO("case " << which << (x == &in8 ? ", int8 x" : ", int32 x"));
        test::PoisonedScratch scratch;
        kernel::Conv2dParams p{v.stride, v.stride, v.pad, v.pad, v.dilation, v.dilation,
                               v.groups, scratch.get()};
        p.clamp = which == 0 ? nullptr : which == 1 ? &wide_lo : which == 2 ? &wide_hi : &fits;
        p.scale = which == 3 ? &scale : nullptr;
        NDArray y = NDArray::empty(output_shape(v), DataType::Int(8));
        CHECK(poisoned_call(e.fn, *x, y, &p, nullptr) == KernelStatus::kDeclined);
      }
    }
  }
  for (const kernel::KernelEntry& e : int8_entries("dense")) {
    INFO("entry " << e.name);
    const std::vector<NDArray> dense_in = {random_in({5, 40}, -128, 127, 2110),
                                           random_in({9, 40}, -127, 127, 2111)};
    for (int which = 0; which < 4; ++which) {
      INFO("case " << which);
      test::PoisonedScratch scratch;
      const kernel::DenseParams p{scratch.get(), which == 0   ? nullptr
                                                 : which == 1 ? &wide_lo
                                                              : &wide_hi};
      NDArray y = NDArray::empty({5, 9}, DataType::Int(8));
      CHECK(poisoned_call(e.fn, dense_in, y, which == 3 ? nullptr : &p, nullptr) ==
            KernelStatus::kDeclined);
    }
  }
}

TEST_CASE("fused clamp: int8 activation views with strides equal the int32 call",
          "[kernels][fusion]") {
  // y as every other column of a wider int8 array (element stride 2), x too or as the first
  // columns of longer rows: the strided loads and stores, which must leave the columns between
  // untouched, and rows packed one at a time.
  const std::vector<ConvCase> cases = {
      {1, 16, 9, 20, 16, 3, 1, 1, 1, 1, true},    // tiles
      {1, 16, 6, 40, 16, 3, 1, 1, 1, 16, true},   // depthwise columns
      {1, 16, 9, 13, 16, 3, 2, 1, 1, 16, false},  // depthwise channels (quads for longer rows)
      {1, 17, 7, 7, 17, 3, 1, 1, 1, 17, true},    // depthwise channel quads
      {2, 20, 9, 9, 20, 3, 2, 1, 1, 20, false},   // depthwise channel quads, stride 2
      {1, 8, 7, 7, 8, 3, 1, 1, 1, 2, true},       // int32 tiles
  };
  const CvmClampParams clamp{4, -128, 127};
  uint64_t seed = 2200;
  for (const ConvCase& v : cases) {
    INFO(describe(v));
    const std::vector<NDArray> in = int8_conv_inputs(v, seed += 3);
    const Shape ys = output_shape(v);
    kernel::Conv2dParams p{v.stride, v.stride, v.pad, v.pad, v.dilation, v.dilation,
                           v.groups, nullptr};
    const NDArray want = as_int8(expected("conv2d", in, ys, &p, clamp));
    // x: columns 2j of a (n, c, h, 2w) int8 array whose odd columns are garbage, or columns
    // [0, w) of a (n, c, h, w + 21) one.
    for (const int64_t step : {2, 1}) {
      INFO("x column step " << step);
      const int64_t wide_w = step == 2 ? 2 * v.w : v.w + 21;
      NDArray wide_x = as_int8(random_in({v.n, v.c, v.h, wide_w}, -128, 127, seed + 1));
      NDArray x = wide_x.slice(3, 0, step * v.w, step);
      x.copy_from(as_int8(in[0]));
      const std::vector<NDArray> in8 = v.bias ? std::vector<NDArray>{x, in[1], in[2]}
                                              : std::vector<NDArray>{x, in[1]};
      at_thread_counts([&] {
        for (const kernel::KernelEntry& e : int8_entries("conv2d")) {
          INFO("entry " << e.name << " threads " << num_threads());
          test::PoisonedScratch scratch;
          p.scratch = scratch.get();
          p.clamp = &clamp;
          NDArray wide_y = NDArray::empty({ys[0], ys[1], ys[2], 2 * ys[3]}, DataType::Int(8));
          std::memset(wide_y.mutable_data(), 0x5A, wide_y.nbytes());
          NDArray y = wide_y.slice(3, 0, 2 * ys[3], 2);
          const KernelStatus s = call_kernel(e.fn, in8, y, &p);
          p.clamp = nullptr;
          p.scratch = nullptr;
          NDArray poison = NDArray::empty(wide_y.shape(), DataType::Int(8));
          std::memset(poison.mutable_data(), 0x5A, poison.nbytes());
          if (s == KernelStatus::kDeclined) {
            CHECK(test::bit_equal(wide_y, poison));
            continue;
          }
          CHECK(test::bit_equal(y, want));
          const NDArray between = wide_y.slice(3, 1, 2 * ys[3], 2);
          CHECK(test::bit_equal(between, poison.slice(3, 1, 2 * ys[3], 2)));
        }
      });
    }
  }
}
