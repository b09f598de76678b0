// The float32 activation, softmax and pooling templates of the x86 and wasm kernels
// (backends/float_act.inc, float_pool.inc) over emulated 16 and 4 lanes equal the scalar
// reference bit for bit (whole output buffers, gaps included; in place too) over many seeded
// shapes, layouts and value mixes at 1, 2 and 7 simulated threads; and the lane form of
// det_exp equals det_exp (float_lane_emulation.h).
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

// Runs a one-input kernel in place: output and input are the same view of a copy of x.
std::vector<float> run_in_place(KernelFn fn, const Buffer& x, const void* params,
                                const cvm::kernel::ParallelFor* pf) {
  std::vector<float> mem = x.mem;
  TensorView v = x.view;
  v.data = mem.data() + (static_cast<const float*>(x.view.data) - x.mem.data());
  KernelCall call{};
  call.inputs = &v;
  call.num_inputs = 1;
  call.outputs = &v;
  call.num_outputs = 1;
  call.params = params;
  call.parallel = pf;
  REQUIRE(fn(call) == cvm::kernel::KernelStatus::kDone);
  return mem;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::ostringstream s;
  s << "(";
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? "," : "") << shape[i];
  s << ")";
  return s.str();
}

// Shapes for the elementwise kernels: 0-d, empty, size 1, every vector edge of 4, 8 and 16 lanes,
// and random ones.
std::vector<std::vector<int64_t>> elementwise_shapes() {
  std::vector<std::vector<int64_t>> shapes = {
      {},        {0},    {1},        {3},       {4},          {5},     {7},     {8},
      {9},       {15},   {16},       {17},      {31},         {32},    {33},    {1000},
      {2, 0, 3}, {3, 5}, {2, 3, 17}, {1, 1, 1}, {2, 3, 4, 9}, {5, 16}, {7, 33}, {1, 47}};
  std::mt19937_64 rng(4242);
  for (int i = 0; i < 12; ++i) {
    std::vector<int64_t> s(1 + rng() % 4);
    for (int64_t& d : s) d = 1 + static_cast<int64_t>(rng() % 13);
    shapes.push_back(s);
  }
  return shapes;
}

}  // namespace

TEST_CASE(
    "float32 relu, leaky_relu, clamp, sigmoid: the emulated-lane templates "
    "equal the reference",
    "[float_emulation]") {
  const float kInf = std::numeric_limits<float>::infinity();
  const cvm::kernel::LeakyReluParams alphas[] = {{0.01f}, {0.2f},  {0.0f},
                                                 {-1.5f}, {3e38f}, {1e-40f}};
  const cvm::kernel::ClampParams clamps[] = {{-kInf, kInf}, {0.0f, 6.0f},  {-0.0f, 0.0f},
                                             {0.0f, 0.0f},  {-1.0f, 1.0f}, {-kInf, -2.0f},
                                             {2.5f, kInf},  {-0.0f, -0.0f}};
  struct Op {
    const char* name;
    std::vector<const void*> params;
  };
  std::vector<Op> ops = {
      {"relu", {nullptr}}, {"leaky_relu", {}}, {"clamp", {}}, {"sigmoid", {nullptr}}};
  for (const auto& a : alphas) ops[1].params.push_back(&a);
  for (const auto& c : clamps) ops[2].params.push_back(&c);
  for (const Op& op : ops) {
    const std::vector<Entry> entries = float_entries(op.name);
    int compared = 0;
    uint64_t seed = 1;
    for (const std::vector<int64_t>& shape : elementwise_shapes()) {
      for (int layout = 0; layout < 4; ++layout) {
        for (int mix = 0; mix < 4; ++mix) {
          for (size_t k = 0; k < op.params.size(); ++k) {
            INFO(op.name << " " << shape_str(shape) << " layout " << layout << " mix " << mix
                         << " params #" << k);
            std::mt19937_64 rng(seed++);
            std::vector<Buffer> in;
            in.push_back(make_buffer(shape, layout));
            fill(in[0], rng, static_cast<Mix>(mix));
            const Buffer out = make_buffer(shape, (layout + 1) % 4);
            compared +=
                compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
                  return run_kernel(fn, in, out, op.params[k], pf);
                });
            if (layout != 1) {
              INFO("in place");
              compared +=
                  compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
                    return run_in_place(fn, in[0], op.params[k], pf);
                  });
            }
          }
        }
      }
    }
    INFO("compared " << compared << " " << op.name << " runs");
    REQUIRE(compared > 0);
  }
}

TEST_CASE("float32 softmax: the emulated-lane templates equal the reference",
          "[float_emulation]") {
  const std::vector<Entry> entries = float_entries("softmax");
  const int64_t lengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 100, 511, 512, 513, 1100};
  std::mt19937_64 cases(31337);
  int compared = 0;
  for (int i = 0; i < 150; ++i) {
    std::vector<int64_t> shape(1 + cases() % 4);
    for (int64_t& d : shape) d = 1 + static_cast<int64_t>(cases() % 6);
    const int axis = static_cast<int>(cases() % shape.size());
    shape[axis] = i < 34 ? lengths[i % 17] : lengths[cases() % 17];
    if (shape[axis] > 100) {
      for (size_t d = 0; d < shape.size(); ++d) {
        if (static_cast<int>(d) != axis) shape[d] = std::min<int64_t>(shape[d], 2);
      }
    }
    if (i % 29 == 0) shape[cases() % shape.size()] = 0;
    const int layout = static_cast<int>(cases() % 4);
    const Mix mix = i % 2 == 0 ? Mix::kExp : static_cast<Mix>(cases() % 4);
    cvm::kernel::SoftmaxParams p{axis};
    INFO("softmax " << shape_str(shape) << " axis " << axis << " layout " << layout << " mix "
                    << static_cast<int>(mix));
    std::mt19937_64 rng(static_cast<uint64_t>(i) * 7919 + 11);
    std::vector<Buffer> in;
    in.push_back(make_buffer(shape, layout));
    fill(in[0], rng, mix);
    const Buffer out = make_buffer(shape, (layout + 3) % 4);
    compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
      return run_kernel(fn, in, out, &p, pf);
    });
    if (i % 3 == 0) {
      INFO("in place");
      compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
        return run_in_place(fn, in[0], &p, pf);
      });
    }
  }
  INFO("compared " << compared << " softmax runs");
  REQUIRE(compared > 0);
}

// The lane form of det_exp (float_act.inc's f_det_exp, through the emulated lanes) equals det_exp
// bit for bit, also where sigmoid and softmax cannot show it (subnormal results).
TEST_CASE("float32 kernels' lane det_exp equals det_exp bit for bit", "[float_emulation]") {
  std::vector<double> xs = {0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            708.3,
                            709.78,
                            709.79,
                            710.0,
                            710.0001,
                            -708.3,
                            -708.4,
                            -709.0,
                            -744.0,
                            -745.1,
                            -745.13,
                            -745.14,
                            -745.5,
                            -745.50001,
                            -746.0,
                            1e300,
                            -1e300,
                            5e-324,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> wide(-760.0, 760.0), tiny(-745.6, -707.0),
      small(-1.0, 1.0);
  for (int i = 0; i < 20000; ++i) xs.push_back(wide(rng));
  for (int i = 0; i < 20000; ++i) xs.push_back(tiny(rng));
  for (int i = 0; i < 5000; ++i) xs.push_back(small(rng));
  for (double x : xs) {
    const double want = cvm::kernel::det_exp(x);
    for (double got :
         {cvm::kernel::femu16::det_exp_lanes(x), cvm::kernel::femu4::det_exp_lanes(x)}) {
      uint64_t a, b;
      std::memcpy(&a, &want, 8);
      std::memcpy(&b, &got, 8);
      INFO("x = " << x);
      CHECKED_ELSE(a == b) { FAIL("det_exp 0x" << std::hex << a << " lanes 0x" << b); }
    }
  }
}

namespace {

// Pooling output extent along one axis (the op layer's rule; ceil_mode drops a last window that
// would start in the end padding).
int64_t pool_extent(int64_t in, int64_t begin, int64_t end, int64_t k, int64_t s, bool ceil) {
  const int64_t span = in + begin + end - k;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + begin) --out;
  return out;
}

}  // namespace

TEST_CASE(
    "float32 max_pool2d and avg_pool2d: the emulated-lane templates "
    "equal the reference",
    "[float_emulation]") {
  for (const char* op : {"max_pool2d", "avg_pool2d"}) {
    const std::vector<Entry> entries = float_entries(op);
    const bool avg = std::strcmp(op, "avg_pool2d") == 0;
    std::mt19937_64 cases(avg ? 5150 : 5051);
    auto pick = [&](int64_t lo, int64_t hi) {
      return lo + static_cast<int64_t>(cases() % static_cast<uint64_t>(hi - lo + 1));
    };
    int compared = 0;
    for (int i = 0; i < 240; ++i) {
      int64_t n = pick(1, 2), c = pick(1, 3);
      if (i % 40 == 7) n = 0;
      if (i % 40 == 19) c = 0;
      const int64_t kh = pick(1, 4), kw = pick(1, 5), sh = pick(1, 3), sw = pick(1, 3);
      const int64_t pt = pick(0, kh - 1), pb = pick(0, kh - 1);
      const int64_t pl = pick(0, kw - 1), pr = pick(0, kw - 1);
      const bool ceil = cases() % 2 == 0, include = cases() % 2 == 0;
      const int64_t h = std::max<int64_t>(kh, pick(1, 9));
      int64_t w = std::max<int64_t>(kw, pick(1, 40));
      if (i < 20) w = std::max<int64_t>(kw, (i % 5) * 8 + (i / 5) - 1);  // lane edges
      const int64_t oh = pool_extent(h, pt, pb, kh, sh, ceil);
      const int64_t ow = pool_extent(w, pl, pr, kw, sw, ceil);
      const int layout = static_cast<int>(cases() % 6 < 3 ? 0 : cases() % 4);
      const Mix mix = static_cast<Mix>(cases() % 3);
      INFO(op << " x(" << n << "," << c << "," << h << "," << w << ") pool(" << kh << "," << kw
              << ") stride(" << sh << "," << sw << ") pads(" << pt << "," << pl << "," << pb << ","
              << pr << ")" << (ceil ? " ceil" : "") << (include ? " count_include_pad" : "")
              << " layout " << layout << " mix " << static_cast<int>(mix));
      std::mt19937_64 rng(static_cast<uint64_t>(i) * 31 + (avg ? 7 : 3));
      std::vector<Buffer> in;
      in.push_back(make_buffer({n, c, h, w}, layout));
      fill(in[0], rng, mix);
      const Buffer out = make_buffer({n, c, oh, ow}, layout == 2 ? 1 : layout);
      const cvm::kernel::AvgPool2dParams ap{kh, kw, sh, sw, pt, pl, pb, pr, include ? 1 : 0};
      const cvm::kernel::MaxPool2dParams mp{kh, kw, sh, sw, pt, pl};
      const void* params = avg ? static_cast<const void*>(&ap) : static_cast<const void*>(&mp);
      compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
        return run_kernel(fn, in, out, params, pf);
      });
    }
    // A model-like layer: 3x3 stride 1 pad 1, and 3x3 stride 2 (ceil) on wide rows.
    for (int k = 0; k < 2; ++k) {
      const int64_t s = k == 0 ? 1 : 2;
      std::mt19937_64 rng(77 + k);
      std::vector<Buffer> in;
      in.push_back(make_buffer({1, 6, 30, 57}, 0));
      fill(in[0], rng, Mix::kSpecials);
      const int64_t oh = pool_extent(30, 1, 1, 3, s, k == 1),
                    ow = pool_extent(57, 1, 1, 3, s, k == 1);
      const Buffer out = make_buffer({1, 6, oh, ow}, 0);
      const cvm::kernel::AvgPool2dParams ap{3, 3, s, s, 1, 1, 1, 1, k};
      const cvm::kernel::MaxPool2dParams mp{3, 3, s, s, 1, 1};
      const void* params = avg ? static_cast<const void*>(&ap) : static_cast<const void*>(&mp);
      compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
        return run_kernel(fn, in, out, params, pf);
      });
    }
    INFO("compared " << compared << " " << op << " runs");
    REQUIRE(compared > 0);
  }
}
