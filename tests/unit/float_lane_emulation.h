// The test harness of the float32 lane-emulation tests: the x86 kernel templates compiled over
// portable emulated lanes (16: AVX-512's count, so its lane logic is checked on CPUs without
// AVX-512; 4: the wasm kernels' count), laid-out buffers with poisoned gaps, and the comparison
// of every emulated entry with the scalar reference at 1, 2 and 7 simulated threads.
// (float_lane_emulation.cc defines it; float_lane_emulation_*_test.cc use it.)
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "float_test_util.h"
#include "kernel_abi.h"
#include "kernel_test_util.h"

namespace cvm {
namespace kernel {
// The lane form of det_exp (float_act.inc's f_det_exp) on 16 and on 4 emulated lanes.
namespace femu16 {
double det_exp_lanes(double x);
}  // namespace femu16
namespace femu4 {
double det_exp_lanes(double x);
}  // namespace femu4
}  // namespace kernel

namespace test {
namespace lanes {

using kernel::KernelFn;
using kernel::TensorView;
using Scratch = PoisonedScratch;
using Mix = FloatMix;  // value mixes (float_test_util.h)

inline constexpr int kThreadCounts[] = {1, 2, 7};

// The kernels under test: the x86 template on 16 and on 4 emulated lanes, each with the scalar
// reference's float32 kernel of its op.
struct Entry {
  const char* name;
  KernelFn fn;
  KernelFn ref;
};

// The x86 template of `op` on 16 and on 4 emulated lanes, each with the scalar reference's
// float32 kernel of `op`.
std::vector<Entry> float_entries(const char* op);

// A ParallelFor that cuts [0, n) into num_threads ranges and runs them last first, on the calling
// thread: the split a kernel sees at that thread count, without threads (wasm too).
struct FakePool {
  cvm::kernel::ParallelFor pf;
  int32_t threads;
  static void run(void* ctx, int64_t n, cvm::kernel::ParallelBody body, void* user) {
    const int64_t t = static_cast<FakePool*>(ctx)->threads;
    const int64_t parts = std::min<int64_t>(t, n);
    for (int64_t i = parts - 1; i >= 0; --i) {
      const int64_t b = n * i / parts, e = n * (i + 1) / parts;
      if (b < e) body(user, b, e);
    }
  }
  explicit FakePool(int32_t t) : pf{&FakePool::run, this, t, 1}, threads(t) {}
};

// A float32 buffer holding one 4-d (or 2-d, 1-d) view in a chosen layout: dims stored in a permuted
// order, with gaps between elements/rows, and optionally one dim reversed (negative stride). Gap
// elements hold a poison pattern.
struct Buffer {
  std::vector<float> mem;
  TensorView view{};
};

// A buffer of `shape` in layout 0 (plain), 1 (gaps between elements and rows), 2 (inner dim not
// innermost) or 3 (outermost and innermost dims reversed); gaps poisoned.
Buffer make_buffer(const std::vector<int64_t>& shape, int layout);
// Fills the view's elements (not the gaps).
void fill(Buffer& b, std::mt19937_64& rng, Mix mix);
// Runs `fn` over copies of the inputs into an output buffer like `out` (fresh poison) and
// returns that buffer.
std::vector<float> run_kernel(KernelFn fn, const std::vector<Buffer>& in, const Buffer& out,
                              const void* params, const kernel::ParallelFor* pf);
bool same_bits(const std::vector<float>& a, const std::vector<float>& b);
// The first differing element, for the failure message.
std::string first_difference(const std::vector<float>& want, const std::vector<float>& got);

// Runs every entry at every thread count against the reference; run(fn, pf) returns the buffer a
// kernel leaves. Returns the number of runs compared.
template <typename Run>
int compare_entries(const std::vector<Entry>& entries, Run&& run) {
  const std::vector<float> want = run(entries[0].ref, nullptr);
  int compared = 0;
  for (const Entry& e : entries) {
    for (int t : kThreadCounts) {
      INFO(e.name << " at " << t << " threads");
      FakePool pool(t);
      const std::vector<float> got = run(e.fn, t > 1 ? &pool.pf : nullptr);
      CHECKED_ELSE(same_bits(want, got)) { FAIL(first_difference(want, got)); }
      ++compared;
    }
  }
  return compared;
}

}  // namespace lanes
}  // namespace test
}  // namespace cvm
