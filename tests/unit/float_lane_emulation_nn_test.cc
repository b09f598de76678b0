// The float32 conv2d and dense templates of the x86 kernels (backends/simd/float_nn.inc) over
// emulated 16 and 4 lanes equal the scalar reference bit for bit (whole output buffers, gaps
// included) over many seeded shapes, groups, strides, dilations, layouts and value mixes, with
// and without scratch, at 1, 2 and 7 simulated threads (float_lane_emulation.h).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "float_lane_emulation.h"
#include "float_math.h"
#include "params/float_nn.h"
#include "params/nn.h"

using namespace cvm::test::lanes;  // the harness, for every case of this file
using cvm::kernel::KernelCall;

namespace {

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias;
  int layout;
  Mix mix;
  std::string str() const {
    std::ostringstream s;
    s << "x(" << n << "," << c << "," << h << "," << w << ") w(" << oc << "," << c / groups << ","
      << kh << "," << kw << ") stride(" << sh << "," << sw << ") pad(" << ph << "," << pw
      << ") dil(" << dh << "," << dw << ") groups " << groups << (bias ? " bias" : "") << " layout "
      << layout << " mix " << static_cast<int>(mix);
    return s.str();
  }
};

std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> cases;
  std::mt19937_64 rng(20240611);
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const int64_t kernels[] = {1, 3, 5, 7};
  for (int i = 0; i < 260; ++i) {
    ConvCase k{};
    k.n = pick(1, 2);
    const int64_t kind = pick(0, 2);  // groups 1, 2 or depthwise
    const int64_t gc = pick(1, 3);
    k.groups = kind == 0 ? 1 : kind == 1 ? 2 : pick(1, 6);
    k.c = kind == 2 ? k.groups : gc * k.groups;
    const int64_t per_group_oc = kind == 2 ? pick(1, 2) : pick(1, 9);
    k.oc = per_group_oc * k.groups;
    k.kh = kernels[rng() % 4];
    k.kw = rng() % 3 == 0 ? k.kh : kernels[rng() % 4];
    k.sh = pick(1, 3);
    k.sw = pick(1, 3);
    k.dh = rng() % 4 == 0 ? 2 : 1;
    k.dw = rng() % 4 == 0 ? 2 : 1;
    k.ph = pick(0, 3);
    k.pw = pick(0, 3);
    const int64_t span_h = k.dh * (k.kh - 1) + 1, span_w = k.dw * (k.kw - 1) + 1;
    k.h = std::max<int64_t>(1, std::max(span_h - 2 * k.ph, pick(1, 9)));
    k.w = std::max<int64_t>(1, std::max(span_w - 2 * k.pw, pick(1, 37)));
    k.bias = rng() % 3 != 0;
    k.layout = static_cast<int>(rng() % 6 < 3 ? 0 : rng() % 4);
    k.mix = static_cast<Mix>(rng() % 3);
    cases.push_back(k);
  }
  // Wider rows and a larger model-like layer.
  cases.push_back({1, 8, 5, 70, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, 0, Mix::kSpecials});
  cases.push_back({2, 16, 12, 33, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16, true, 0, Mix::kPlain});
  cases.push_back({1, 32, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, 0, Mix::kPlain});
  cases.push_back({1, 3, 1, 1, 5, 1, 1, 1, 1, 0, 0, 1, 1, 1, false, 0, Mix::kZerosAndInf});
  cases.push_back({1, 4, 4, 17, 4, 7, 7, 2, 3, 3, 3, 1, 2, 2, true, 1, Mix::kZerosAndInf});
  return cases;
}

int64_t out_extent(int64_t in, int64_t pad, int64_t dil, int64_t k, int64_t stride) {
  return (in + 2 * pad - (dil * (k - 1) + 1)) / stride + 1;
}

}  // namespace

TEST_CASE("float32 conv2d: the emulated-lane templates equal the reference",
          "[float_emulation]") {
  const std::vector<Entry> entries = float_entries("conv2d");
  int compared = 0;
  for (const ConvCase& k : conv_cases()) {
    INFO(k.str());
    std::mt19937_64 rng(static_cast<uint64_t>(k.n * 131 + k.c * 31 + k.w * 7 + k.kh));
    const int64_t oh = out_extent(k.h, k.ph, k.dh, k.kh, k.sh);
    const int64_t ow = out_extent(k.w, k.pw, k.dw, k.kw, k.sw);
    std::vector<Buffer> in;
    in.push_back(make_buffer({k.n, k.c, k.h, k.w}, k.layout));
    in.push_back(make_buffer({k.oc, k.c / k.groups, k.kh, k.kw}, k.layout == 1 ? 2 : 0));
    if (k.bias) in.push_back(make_buffer({k.oc}, k.layout == 1 ? 1 : 0));
    for (Buffer& b : in) fill(b, rng, k.mix);
    const Buffer out = make_buffer({k.n, k.oc, oh, ow}, k.layout == 2 ? 1 : k.layout);
    Scratch scratch(true);
    cvm::kernel::Conv2dParams p{k.sh, k.sw, k.ph, k.pw, k.dh, k.dw, k.groups, scratch.get()};
    compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
      return run_kernel(fn, in, out, &p, pf);
    });
  }
  INFO("compared " << compared << " conv2d runs");
  REQUIRE(compared > 0);
}

TEST_CASE("float32 dense: the emulated-lane templates equal the reference",
          "[float_emulation]") {
  const std::vector<Entry> entries = float_entries("dense");
  std::mt19937_64 cases(777);
  int compared = 0;
  for (int i = 0; i < 220; ++i) {
    const int64_t m = 1 + static_cast<int64_t>(cases() % 9);
    const int64_t kd = i % 17 == 0 ? 0 : 1 + static_cast<int64_t>(cases() % 70);
    const int64_t units = i < 70 ? 1 + i : 1 + static_cast<int64_t>(cases() % 140);
    const bool bias = cases() % 3 != 0;
    const int layout = static_cast<int>(cases() % 6 < 3 ? 0 : cases() % 4);
    const Mix mix = static_cast<Mix>(cases() % 3);
    const bool lend = cases() % 5 != 0;
    INFO("dense x(" << m << "," << kd << ") units " << units << (bias ? " bias" : "") << " layout "
                    << layout << " mix " << static_cast<int>(mix) << (lend ? "" : " no scratch"));
    std::mt19937_64 rng(static_cast<uint64_t>(i) * 977 + 3);
    std::vector<Buffer> in;
    in.push_back(make_buffer({m, kd}, layout));
    in.push_back(make_buffer({units, kd}, layout == 2 ? 0 : layout));
    if (bias) in.push_back(make_buffer({units}, layout == 1 ? 1 : 0));
    for (Buffer& b : in) fill(b, rng, mix);
    const Buffer out = make_buffer({m, units}, layout);
    Scratch scratch(lend);
    cvm::kernel::DenseParams p{scratch.get()};
    compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
      return run_kernel(fn, in, out, &p, pf);
    });
  }
  INFO("compared " << compared << " dense runs");
  REQUIRE(compared > 0);
}
