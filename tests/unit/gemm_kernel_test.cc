// The x86 conv2d/dense GEMM kernels beyond what their table entries show through operator calls
// (kernel_table_parity_test.cc covers those): the AMX kernels with emulated tiles (AVX-512 VNNI
// suffices) equal the scalar reference bit for bit on every tile remainder, stride, dilation,
// padding and group count, int8 extremes, values outside int8/int16, strided views, no scratch
// and 1, 2 and 7 threads; every kernel with a prepack function packs int8 weights, declines
// beyond int16 and computes from its packed weight the reference's result, and ignores packs it
// did not make (the Winograd entry: exactly the 3x3 stride-1 layers it runs); the table kernels
// given no scratch (which the op layer lends whenever it can)
// equal the reference too; and run_op under a memory limit that refuses the scratch does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cvm/allocator.h"
#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "cvm/op.h"
#include "cvm/registry.h"
#include "cvm/threads.h"
#include "kernel_abi.h"
#include "kernel_test_util.h"
#include "kernel_views.h"
#include "params/nn.h"
#include "test_util.h"
#include "thread_pool.h"
#ifdef CVMRT_HAVE_BACKEND_SIMD
#include "simd/gemm_kernels.h"
#endif

using namespace cvm;
using kernel::ElemType;
using kernel::KernelFn;
using test::random_in;

namespace {

const int kThreadCounts[] = {1, 2, 7};

// Restores the default thread count and task size when a test ends.
struct RestoreThreads {
  int64_t min_work = threads::min_task_work();
  ~RestoreThreads() {
    set_num_threads(0);
    threads::set_min_task_work(min_work);
  }
};

// body(threads) at each of kThreadCounts, with work split into the smallest tasks (so every
// partition runs in parallel); the thread settings are restored afterwards.
template <class Body>
void at_each_thread_count(Body&& body) {
  RestoreThreads restore;
  for (int t : kThreadCounts) {
    set_num_threads(t);
    threads::set_min_task_work(1);
    body(t);
  }
}

using TestScratch = cvm::test::PoisonedScratch;

KernelFn scalar_fn(const char* op) {
  const kernel::BackendTable& s = kernel::kScalarBackend;
  for (size_t i = 0; i < s.count; ++i) {
    if (std::strcmp(op, s.entries[i].op) == 0 && s.entries[i].dtype == ElemType::kInt32) {
      return s.entries[i].fn;
    }
  }
  return nullptr;
}

struct Kernel {
  std::string name;
  KernelFn fn;
  kernel::PrepackFn prepack;
  bool emulated;  // not a table entry: compared on every call, not only on what follows
  bool int8_x;    // takes int8 activations (KernelEntry::takes_int8_activations)
};

// A weight packed by a kernel's prepack function (KernelCall::prepacked); empty when it
// declined.
struct Prepacked {
  std::unique_ptr<void, decltype(&std::free)> data{nullptr, &std::free};
  size_t bytes = 0;
};

Prepacked prepack(const Kernel& k, const NDArray& w, const void* params) {
  Prepacked p;
  if (k.prepack == nullptr) return p;
  const kernel::TensorView view = ops::plain_view(w, const_cast<void*>(w.data()));
  const size_t need = k.prepack(view, params, nullptr, 0);
  if (need == 0) return p;
  REQUIRE(k.prepack(view, params, nullptr, need - 1) == need);  // too small: a size query
  p.data.reset(std::aligned_alloc(64, (need + 63) / 64 * 64));
  std::memset(p.data.get(), 0xA5, need);
  p.bytes = k.prepack(view, params, p.data.get(), need);
  REQUIRE((p.bytes == 0 || p.bytes == need));
  return p;
}

// The smallest and largest value of an int32 array (any view).
std::pair<int32_t, int32_t> value_range(const NDArray& a) {
  const NDArray c = a.contiguous();
  const auto* p = static_cast<const int32_t*>(c.data());
  std::pair<int32_t, int32_t> r{std::numeric_limits<int32_t>::max(),
                                std::numeric_limits<int32_t>::min()};
  for (int64_t i = 0; i < c.numel(); ++i) r = {std::min(r.first, p[i]), std::max(r.second, p[i])};
  return r;
}

// Checks a kernel's prepack of w (`applies`: its narrow path would run for this weight): it
// packs int8 weights and declines beyond int16, and the kernel given the packed weight
// computes `want` again. `run_with(prepacked, out)` runs the kernel.
template <class RunWith>
void check_prepacked(const Kernel& k, const NDArray& w, const void* params, bool applies,
                     const NDArray& want, RunWith&& run_with) {
  const Prepacked p = prepack(k, w, params);
  const auto range = value_range(w);
  INFO("prepacked by " << k.name << ": " << p.bytes << " bytes, w in [" << range.first << ", "
                       << range.second << "]");
  if (k.prepack == nullptr) return;
  if (!applies || range.first < -32768 || range.second > 32767) REQUIRE(p.bytes == 0);
  if (applies && range.first >= -128 && range.second <= 127) REQUIRE(p.bytes > 0);
  if (p.bytes == 0) return;
  NDArray got = NDArray::empty(want.shape(), DataType::Int(32));
  std::memset(got.mutable_data(), 0x5A, static_cast<size_t>(got.numel() * 4));
  run_with(p.data.get(), got);
  REQUIRE(test::bit_equal(got, want));
}

// Every SIMD int32 conv2d or dense kernel this CPU can run, and the AMX one with emulated
// tiles. The table entries run only without scratch and with prepacked weights here (their
// ordinary calls: kernel_table_parity_test.cc); the emulated one runs every call.
std::vector<Kernel> gemm_kernels(const char* op) {
  std::vector<Kernel> found;
#ifdef CVMRT_HAVE_BACKEND_SIMD
  const kernel::BackendTable& simd = kernel::kSimdBackend;
  const uint32_t have = test::simd_testable_features();
  const uint32_t vnni = kernel::kCpuAvx512f | kernel::kCpuAvx512bw | kernel::kCpuAvx512vnni;
  for (size_t i = 0; i < simd.count; ++i) {
    const kernel::KernelEntry& e = simd.entries[i];
    if (std::strcmp(op, e.op) != 0 || e.dtype != kernel::ElemType::kInt32) continue;
    if ((have & e.required_features) == e.required_features) {
      found.push_back({e.name, e.fn, e.prepack, false, e.takes_int8_activations});
    } else {
      WARN("skipping " << e.name << ": CPU lacks it");
    }
  }
  if ((have & vnni) == vnni) {
    const bool conv = std::strcmp(op, "conv2d") == 0;
    found.push_back({"amx_emulated",
                     conv ? kernel::simd::conv2d_i8i32__amx_emulated
                          : kernel::simd::dense_i8i32__amx_emulated,
                     conv ? kernel::simd::conv2d_i8i32__amx_emulated_prepack
                          : kernel::simd::dense_i8i32__amx_emulated_prepack,
                     true, true});
  }
#else
  (void)op;
  WARN("no SIMD backend in this build");
#endif
  return found;
}

// Runs `fn` on the views of (inputs -> out) with `params` (whose scratch the caller set), the
// thread pool's ParallelFor at the current thread count and `prepacked` weights. When `fn`
// declines the call, the reference runs it, as the next entry of a node's chain would.
void run(KernelFn fn, const std::vector<NDArray>& inputs, NDArray& out, const void* params,
         const void* prepacked = nullptr) {
  if (test::call_kernel(fn, inputs, out, params, prepacked) == kernel::KernelStatus::kDeclined) {
    const KernelFn ref = scalar_fn(inputs[0].ndim() == 4 ? "conv2d" : "dense");
    REQUIRE(test::call_kernel(ref, inputs, out, params) == kernel::KernelStatus::kDone);
  }
}

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw;
  int64_t sh, sw, ph, pw, dh, dw, groups;
  bool bias;
  std::string str() const {
    std::ostringstream s;
    s << "x(" << n << "," << c << "," << h << "," << w << ") w(" << oc << "," << c / groups << ","
      << kh << "," << kw << ") stride(" << sh << "," << sw << ") pad(" << ph << "," << pw
      << ") dil(" << dh << "," << dw << ") groups " << groups << (bias ? " bias" : "");
    return s.str();
  }
};

int64_t out_extent(int64_t in, int64_t pad, int64_t dil, int64_t k, int64_t stride) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

// Compares every conv2d kernel with the reference on one case; `x`/`w` may be any views.
// Where x lies within int8, the kernels that take int8 activations get it as int8 too.
void check_conv(const ConvCase& cc, const NDArray& x, const NDArray& w, const NDArray& b,
                bool lend = true) {
  kernel::Conv2dParams prm{cc.sh, cc.sw, cc.ph, cc.pw, cc.dh, cc.dw, cc.groups, nullptr};
  const Shape ys{cc.n, cc.oc, out_extent(cc.h, cc.ph, cc.dh, cc.kh, cc.sh),
                 out_extent(cc.w, cc.pw, cc.dw, cc.kw, cc.sw)};
  std::vector<NDArray> in{x, w};
  if (cc.bias) in.push_back(b);
  NDArray want = NDArray::zeros(ys, DataType::Int(32));
  run(scalar_fn("conv2d"), in, want, &prm);
  const auto x_range = value_range(x);
  std::vector<NDArray> in8;
  if (x_range.first >= -128 && x_range.second <= 127) {
    in8 = in;
    in8[0] = cvm::cast(x, DataType::Int(8));
  }
  for (const Kernel& k : gemm_kernels("conv2d")) {
    TestScratch scratch(lend);
    prm.scratch = scratch.get();
    if (k.emulated || !lend) {
      NDArray got = NDArray::empty(ys, DataType::Int(32));
      std::memset(got.mutable_data(), 0x5A, static_cast<size_t>(got.numel() * 4));
      run(k.fn, in, got, &prm);
      INFO(k.name << " " << cc.str() << " threads " << num_threads() << " scratch "
                  << scratch.requested());
      REQUIRE(test::bit_equal(got, want));
      if (k.int8_x && !in8.empty()) {  // the reference takes no int8 x: a decline is left
        std::memset(got.mutable_data(), 0x5A, static_cast<size_t>(got.numel() * 4));
        if (test::call_kernel(k.fn, in8, got, &prm) == kernel::KernelStatus::kDone) {
          INFO("int8 x");
          REQUIRE(test::bit_equal(got, want));
        }
      }
    }
    INFO(k.name << " " << cc.str() << " threads " << num_threads());
    // The Winograd entry packs the 3x3 stride-1 single-group layers it runs, and only those.
    const bool winograd = k.name.find("winograd") != std::string::npos;
    const bool applies = winograd ? cc.kh == 3 && cc.kw == 3 && cc.sh == 1 && cc.sw == 1 &&
                                        cc.dh == 1 && cc.dw == 1 && cc.groups == 1 && cc.oc >= 4
                                  : cc.oc / cc.groups >= 4;
    check_prepacked(k, w, &prm, applies, want,
                    [&](const void* packed, NDArray& out) { run(k.fn, in, out, &prm, packed); });
  }
}

void check_conv(const ConvCase& cc, int32_t lo, int32_t hi, uint64_t seed, bool lend = true) {
  NDArray x = random_in({cc.n, cc.c, cc.h, cc.w}, lo, hi, seed);
  NDArray w = random_in({cc.oc, cc.c / cc.groups, cc.kh, cc.kw}, lo, hi, seed + 1);
  NDArray b = random_in({cc.oc}, std::numeric_limits<int32_t>::min(),
                        std::numeric_limits<int32_t>::max(), seed + 2);
  check_conv(cc, x, w, b, lend);
}

// Shapes for every remainder of the tiles (16/64 lanes, 6/16 rows), strides, dilations,
// paddings, groups, depthwise and batches.
std::vector<ConvCase> conv_cases() {
  return {
      // n  c   h   w  oc kh kw sh sw ph pw dh dw g  bias
      {1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
      {2, 8, 13, 17, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},
      {1, 16, 10, 10, 24, 3, 3, 1, 1, 2, 2, 2, 2, 1, false},
      {1, 8, 12, 12, 12, 3, 3, 1, 1, 1, 1, 1, 1, 2, true},
      {2, 8, 11, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, true},      // depthwise
      {1, 8, 15, 15, 16, 3, 3, 2, 2, 1, 1, 1, 1, 8, false},   // depthwise x2, stride 2
      {1, 64, 7, 9, 70, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},     // pointwise
      {1, 20, 14, 14, 33, 1, 1, 2, 2, 0, 0, 1, 1, 1, false},  // 1x1 stride 2
      {1, 37, 7, 7, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},     // 7x7, odd channels
      {1, 5, 6, 20, 17, 1, 3, 2, 1, 0, 2, 1, 2, 1, true},     // 1x3, asymmetric
      {1, 6, 13, 8, 7, 5, 2, 1, 3, 2, 1, 2, 3, 1, false},     // 5x2, stride (1, 3)
      {1, 4, 5, 5, 19, 3, 3, 1, 1, 4, 4, 1, 1, 1, true},      // padding beyond the kernel
      {1, 7, 1, 30, 9, 1, 3, 1, 2, 0, 1, 1, 1, 1, true},      // one row
      {1, 9, 23, 1, 10, 3, 1, 2, 1, 1, 0, 1, 1, 1, false},    // one column
      {3, 12, 6, 6, 48, 2, 2, 2, 2, 0, 0, 1, 1, 3, true},     // groups 3, batch 3
      {1, 66, 9, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},     // AMX: channel chunks of 11 x 4
      {1, 130, 5, 6, 35, 3, 3, 1, 1, 1, 1, 1, 1, 1, false},   // AMX: 3 chunks, 3 row blocks
      {1, 3, 30, 30, 64, 7, 7, 2, 2, 3, 3, 1, 1, 1, true},    // ResNet stem
      {2, 32, 9, 9, 64, 3, 3, 3, 3, 1, 1, 1, 1, 1, true},     // stride 3
      {1, 16, 12, 12, 16, 3, 3, 1, 1, 1, 1, 3, 3, 16, true},  // depthwise dilated
      {1, 20, 19, 37, 20, 3, 3, 2, 1, 1, 1, 1, 1, 20, true},  // depthwise: channel tail, wide
      {2, 33, 9, 18, 33, 5, 3, 1, 2, 2, 0, 1, 2, 33, false},  // depthwise 5x3, mixed attrs
      {1, 17, 1, 1, 17, 1, 1, 1, 1, 0, 0, 1, 1, 17, true},    // depthwise 1x1 on one pixel
      {1, 40, 7, 7, 40, 3, 3, 2, 2, 1, 1, 1, 1, 40, false},   // depthwise stride 2, small
      {1, 24, 14, 14, 30, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},   // narrower tiles (AVX-512)
      {1, 16, 7, 7, 20, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},     // narrower tiles (AVX2)
      {1, 45, 14, 14, 50, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},   // 1x1: last tile of one vector
      {1, 37, 10, 10, 13, 1, 1, 1, 1, 0, 0, 1, 1, 1, false},  // 1x1: last tile of three
      {2, 19, 8, 9, 22, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},     // 1x1 padded: last tile of two
      {1, 259, 5, 7, 14, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},    // 1x1, long odd K
      {1, 27, 13, 11, 20, 1, 1, 2, 2, 0, 0, 1, 1, 1, false},  // 1x1 stride 2, odd sizes
      {1, 21, 15, 13, 28, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},   // 3x3 stride 2, odd sizes
  };
}

// Depthwise shapes: row widths around the 8/16-lane vectors and their blocks of four,
// strides 2 and 3 on odd sizes, dilations, paddings 0 to 3, 5x5 (at strides 1 and 2 on wide
// rows too) and 1x3 kernels, batches, channel counts that are not multiples of 16.
std::vector<ConvCase> depthwise_cases() {
  return {
      // n  c   h   w  oc kh kw sh sw ph pw dh dw g  bias
      {1, 17, 5, 1, 17, 3, 3, 1, 1, 1, 1, 1, 1, 17, true},  // width 1
      {1, 19, 8, 2, 19, 3, 3, 1, 1, 1, 1, 1, 1, 19, false},
      {1, 3, 4, 15, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, false},
      {2, 5, 3, 16, 5, 3, 3, 1, 1, 1, 1, 1, 1, 5, true},
      {1, 18, 6, 17, 18, 3, 3, 1, 1, 0, 0, 1, 1, 18, true},
      {1, 6, 7, 31, 6, 5, 5, 1, 1, 2, 2, 1, 1, 6, false},
      {1, 4, 5, 33, 4, 1, 3, 1, 1, 0, 1, 1, 1, 4, true},
      {1, 7, 9, 40, 7, 3, 3, 1, 1, 3, 3, 1, 1, 7, true},
      {1, 2, 4, 75, 2, 3, 3, 1, 1, 1, 1, 1, 1, 2, true},  // 5 vectors of 16: a block and one
      {2, 9, 11, 13, 9, 3, 3, 2, 2, 1, 1, 1, 1, 9, true},
      {1, 5, 13, 35, 5, 3, 3, 3, 3, 1, 1, 1, 1, 5, false},
      {1, 3, 15, 37, 3, 3, 3, 3, 3, 0, 0, 1, 1, 3, true},
      {1, 6, 17, 33, 6, 3, 3, 2, 2, 2, 2, 2, 2, 6, true},
      {1, 3, 10, 23, 3, 5, 5, 2, 3, 0, 3, 1, 2, 3, true},
      {2, 11, 9, 29, 11, 1, 1, 2, 2, 0, 0, 1, 1, 11, false},  // 1x1 stride 2
      {1, 4, 3, 9, 4, 5, 5, 1, 1, 3, 3, 1, 1, 4, true},       // padding beyond the image
      {1, 34, 12, 12, 34, 3, 3, 1, 1, 1, 1, 1, 1, 34, true},
      // Rows of three vectors and more (columns in lanes on AVX-512 too): row blocks, borders.
      {1, 3, 11, 50, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, true},
      {2, 3, 9, 66, 3, 3, 3, 1, 1, 0, 0, 1, 1, 3, true},
      {1, 2, 13, 97, 2, 3, 3, 2, 2, 1, 1, 1, 1, 2, false},
      {1, 2, 9, 101, 2, 3, 3, 1, 2, 1, 1, 1, 1, 2, true},
      {1, 2, 10, 60, 2, 3, 3, 2, 1, 2, 2, 2, 1, 2, true},
      {1, 2, 9, 70, 2, 3, 3, 1, 1, 1, 1, 1, 2, 2, false},
      {1, 2, 7, 49, 2, 5, 5, 1, 1, 2, 2, 1, 1, 2, true},
      {1, 2, 6, 48, 2, 1, 3, 1, 1, 0, 1, 1, 1, 2, true},
      {1, 2, 12, 130, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, true},
      // 5x5 on wide rows: int16 lane pairs of phase plane 0 at strides 1 and 2.
      {1, 2, 9, 64, 2, 5, 5, 1, 1, 2, 2, 1, 1, 2, false},   // 64 wide (BlazeFace)
      {1, 3, 11, 70, 3, 5, 5, 2, 2, 2, 2, 1, 1, 3, true},   // stride 2
      {1, 2, 8, 37, 2, 5, 5, 2, 2, 1, 1, 1, 1, 2, true},    // stride 2, odd width, padding 1
      {1, 2, 9, 50, 2, 5, 5, 1, 2, 2, 2, 1, 1, 2, true},    // strides 1 x 2
      {1, 2, 12, 50, 2, 5, 5, 2, 1, 2, 0, 1, 1, 2, false},  // strides 2 x 1, no column padding
      // Narrow rows, kL or more channels (channels in lanes): blocks of pixels that span rows.
      {1, 16, 14, 14, 16, 3, 3, 2, 2, 1, 1, 1, 1, 16, true},  // 7 x 7 outputs
      {2, 21, 14, 14, 21, 3, 3, 1, 1, 1, 1, 1, 1, 21, true},  // 14 x 14, batch 2
      {1, 33, 7, 7, 33, 3, 3, 2, 2, 1, 1, 1, 1, 33, false},   // 4 x 4
      {1, 18, 9, 3, 18, 3, 3, 1, 1, 1, 1, 1, 1, 18, true},    // width 3
      {1, 17, 5, 6, 17, 3, 3, 1, 1, 1, 1, 1, 1, 17, false},
      {1, 16, 4, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16, true},
      {1, 20, 3, 11, 20, 3, 3, 1, 1, 0, 1, 1, 1, 20, true},
      {1, 19, 10, 10, 19, 3, 3, 1, 1, 2, 2, 2, 2, 19, true},  // dilation
      {1, 18, 6, 5, 18, 3, 3, 1, 1, 3, 2, 1, 1, 18, true},    // padding beyond the kernel
      {1, 24, 9, 9, 24, 5, 5, 2, 2, 2, 2, 1, 1, 24, true},    // 5x5 stride 2
      {1, 17, 10, 10, 17, 3, 3, 3, 3, 1, 1, 1, 1, 17, true},  // stride 3
      {1, 16, 9, 13, 16, 3, 3, 2, 1, 1, 1, 1, 1, 16, false},  // strides 2 x 1
      {1, 16, 5, 5, 16, 1, 1, 1, 1, 0, 0, 1, 1, 16, true},    // 1x1
      {1, 16, 6, 28, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16, true},   // 28 wide
      {1, 40, 5, 23, 40, 3, 3, 1, 1, 1, 1, 1, 1, 40, false},  // 23 wide, 40 channels
      {1, 16, 4, 16, 16, 1, 3, 1, 1, 0, 1, 1, 1, 16, true},   // width 16: one vector a row
      // Channel quads (int8 values, stride_w 1, 2 or 4): quads per kernel row and their steps.
      {1, 17, 9, 12, 17, 5, 5, 1, 1, 2, 2, 1, 1, 17, true},   // 5x5: two quads a row
      {1, 16, 6, 10, 16, 1, 7, 1, 1, 0, 3, 1, 1, 16, false},  // 1x7: quads of 4 and 3 taps
      {1, 16, 5, 14, 16, 1, 9, 1, 2, 0, 4, 1, 1, 16, true},   // 1x9 stride 2: three quads
      {1, 17, 8, 8, 17, 2, 2, 2, 2, 0, 0, 1, 1, 17, true},    // 2x2 stride 2, no padding
      {1, 16, 11, 26, 16, 3, 3, 1, 4, 1, 1, 1, 1, 16, true},  // strides 1 x 4
      {1, 16, 11, 12, 16, 3, 3, 3, 1, 1, 1, 1, 1, 16, false}, // strides 3 x 1
      {1, 16, 10, 10, 16, 3, 3, 1, 1, 2, 1, 2, 1, 16, true},  // dilation 2 x 1
      {3, 33, 7, 7, 33, 3, 3, 1, 1, 4, 4, 1, 1, 33, true},    // padding beyond the kernel
  };
}

}  // namespace

TEST_CASE("conv2d GEMM: emulated AMX and prepacked weights on int8 values", "[gemm][conv2d]") {
  uint64_t seed = 1;
  for (const ConvCase& cc : conv_cases()) check_conv(cc, -128, 127, seed += 3);
}

TEST_CASE("conv2d GEMM: emulated AMX and prepacked weights at 1, 2 and 7 threads",
          "[gemm][conv2d][threads]") {
  uint64_t seed = 500;
  at_each_thread_count([&](int) {
    for (const ConvCase& cc : conv_cases()) check_conv(cc, -128, 127, seed += 3);
  });
}

TEST_CASE("conv2d GEMM: emulated AMX and prepack, depthwise at the int8/int16/int32 extremes",
          "[gemm][conv2d][threads]") {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  const int32_t ranges[][2] = {{-128, 127},      {-128, -128},     {127, 127},
                               {-32768, 32767},  {-32768, -32768}, {32767, 32767},
                               {-32768, -32767}, {-40000, 40000},  {kMin, kMax}};
  uint64_t seed = 700;
  at_each_thread_count([&](int) {
    for (const ConvCase& cc : depthwise_cases()) {
      for (const auto& r : ranges) check_conv(cc, r[0], r[1], seed += 3);
    }
  });
}

TEST_CASE("conv2d GEMM: emulated AMX and prepack, large K at the int8 extremes", "[gemm][conv2d]") {
  // K = 512 * 9 = 4608: every product at +-127 * -128 accumulates far beyond int16.
  const ConvCase cc{1, 512, 4, 5, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  check_conv(cc, -128, -128, 7);
  check_conv(cc, 127, 127, 8);
  NDArray x = random_in({1, 512, 4, 5}, -128, -127, 9);
  NDArray w = random_in({17, 512, 3, 3}, 126, 127, 10);
  check_conv(cc, x, w, random_in({17}, -5, 5, 11));
  check_conv(cc, -128, 127, 12);
}

TEST_CASE("conv2d GEMM: emulated AMX and prepack, values outside int8 and int16",
          "[gemm][conv2d]") {
  uint64_t seed = 900;
  for (const ConvCase& cc : conv_cases()) {
    check_conv(cc, -300, 200, seed += 3);      // int16 lanes on AVX2, int32 elsewhere
    check_conv(cc, -70000, 70000, seed += 3);  // int32 lanes
    check_conv(cc, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
               seed += 3);  // wrapping products and sums
  }
  // One value out of range among int8 ones, in x, then in w.
  const ConvCase cc{1, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  NDArray x = random_in({1, 8, 6, 6}, -128, 127, 1);
  NDArray w = random_in({8, 8, 3, 3}, -128, 127, 2);
  NDArray b = random_in({8}, -1000, 1000, 3);
  static_cast<int32_t*>(x.mutable_data())[100] = 128;
  check_conv(cc, x, w, b);
  static_cast<int32_t*>(x.mutable_data())[100] = 0;
  static_cast<int32_t*>(w.mutable_data())[300] = -129;
  check_conv(cc, x, w, b);
}

TEST_CASE("conv2d GEMM kernels without scratch equal the reference", "[gemm][conv2d]") {
  uint64_t seed = 2000;
  for (const ConvCase& cc : conv_cases()) check_conv(cc, -128, 127, seed += 3, false);
}

TEST_CASE("conv2d GEMM: emulated AMX and prepack on strided views", "[gemm][conv2d]") {
  const ConvCase cc{2, 6, 9, 10, 10, 3, 3, 2, 1, 1, 1, 1, 1, 2, true};
  // x: every other column of a wider array, batch reversed; w: a channel-reversed view.
  NDArray wide = random_in({2, 6, 9, 20}, -128, 127, 31);
  NDArray x = wide.slice(3, 0, 20, 2).slice(0, 1, -3, -1);
  NDArray wbig = random_in({10, 3, 3, 3}, -128, 127, 32);
  NDArray w = wbig.slice(1, 2, -4, -1);
  REQUIRE(w.shape() == Shape{10, 3, 3, 3});
  check_conv(cc, x, w, random_in({20}, -9, 9, 33).slice(0, 0, 20, 2));
  check_conv(cc, x.contiguous(), w.permute({0, 1, 3, 2}).contiguous().permute({0, 1, 3, 2}),
             random_in({10}, -9, 9, 34));
  // Depthwise with channels in lanes on views whose columns (step 2) or rows are not
  // consecutive (packed a row at a time), at int32 values.
  const ConvCase dw17{1, 17, 7, 7, 17, 3, 3, 1, 1, 1, 1, 1, 1, 17, true};
  NDArray xw = random_in({1, 17, 7, 14}, -40000, 40000, 35);
  NDArray wd = random_in({17, 1, 3, 3}, -40000, 40000, 36);
  check_conv(dw17, xw.slice(3, 0, 14, 2), wd, random_in({17}, -9, 9, 40));
  check_conv(dw17, xw.slice(3, 0, 7, 1), wd, random_in({17}, -9, 9, 41));
  // Broadcast views (stride 0) along H and along W.
  const ConvCase bc{1, 8, 7, 9, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  NDArray wb = random_in({12, 8, 3, 3}, -128, 127, 37);
  check_conv(bc, random_in({1, 8, 1, 9}, -128, 127, 38).broadcast_to({1, 8, 7, 9}), wb,
             random_in({12}, -9, 9, 39));
  check_conv(bc, random_in({1, 8, 7, 1}, -128, 127, 40).broadcast_to({1, 8, 7, 9}), wb,
             random_in({12}, -9, 9, 41));
  // Depthwise: the same x (6 channels) with transposed weights.
  const ConvCase dw{2, 6, 9, 10, 6, 3, 3, 1, 2, 1, 1, 1, 1, 6, true};
  NDArray wdw = random_in({6, 1, 3, 3}, -128, 127, 35).permute({0, 1, 3, 2});
  check_conv(dw, x, wdw, random_in({6}, -9, 9, 36));
}

TEST_CASE("conv2d through run_op under a memory limit: scratch refused, same result",
          "[gemm][conv2d][ops]") {
  const AttrMap attrs{{"channels", "8"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"}};
  const std::vector<NDArray> in{random_in({1, 8, 12, 12}, -127, 127, 51),
                                random_in({8, 8, 3, 3}, -127, 127, 52),
                                random_in({8}, -1000, 1000, 53)};
  const std::string before = current_backend();
  set_backend("scalar");
  NDArray want = run_op("conv2d", in, attrs)[0];
  set_backend("auto");
  // Limits from "not even the output fits" to "everything fits": on the way, the output is
  // allocated but the kernel's scratch is refused, and the kernel runs without it.
  Allocator& a = Allocator::cpu();
  a.release_cache();
  int ran = 0;
  for (size_t extra = 0; extra <= (size_t{64} << 10); extra += 512) {
    a.set_limit(a.stats().bytes_in_use + extra);
    try {
      NDArray got = run_op("conv2d", in, attrs)[0];
      a.set_limit(0);
      REQUIRE(test::bit_equal(got, want));
      ++ran;
    } catch (const LogicError&) {
      a.set_limit(0);
    }
  }
  set_backend(before);
  REQUIRE(ran > 0);
}

// ---- dense --------------------------------------------------------------------------------------

namespace {

void check_dense(const NDArray& x, const NDArray& w, const NDArray* b, bool lend = true,
                 bool null_params = false) {
  const Shape ys{x.shape()[0], w.shape()[0]};
  std::vector<NDArray> in{x, w};
  if (b) in.push_back(*b);
  NDArray want = NDArray::zeros(ys, DataType::Int(32));
  run(scalar_fn("dense"), in, want, nullptr);
  for (const Kernel& k : gemm_kernels("dense")) {
    TestScratch scratch(lend);
    const kernel::DenseParams prm{scratch.get()};
    INFO(k.name << " x" << x.shape() << " w" << w.shape() << (b ? " bias" : "") << " threads "
                << num_threads());
    if (k.emulated || !lend || null_params) {
      NDArray got = NDArray::empty(ys, DataType::Int(32));
      std::memset(got.mutable_data(), 0x5A, static_cast<size_t>(got.numel() * 4));
      run(k.fn, in, got, null_params ? nullptr : &prm);
      REQUIRE(test::bit_equal(got, want));
    }
    check_prepacked(k, w, &prm, true, want, [&](const void* packed, NDArray& out) {
      run(k.fn, in, out, null_params ? nullptr : &prm, packed);
    });
  }
}

void check_dense(int64_t m, int64_t k, int64_t n, bool bias, int32_t lo, int32_t hi, uint64_t seed,
                 bool lend = true) {
  NDArray x = random_in({m, k}, lo, hi, seed);
  NDArray w = random_in({n, k}, lo, hi, seed + 1);
  NDArray b = random_in({n}, std::numeric_limits<int32_t>::min(),
                        std::numeric_limits<int32_t>::max(), seed + 2);
  check_dense(x, w, bias ? &b : nullptr, lend);
}

struct DenseCase {
  int64_t m, k, n;
  bool bias;
};

std::vector<DenseCase> dense_cases() {
  return {{1, 1, 1, true},     {1, 1024, 64, true}, {3, 17, 5, false},   {4, 100, 9, true},
          {5, 64, 70, true},   {6, 64, 64, false},  {7, 33, 129, true},  {16, 64, 16, true},
          {17, 65, 31, false}, {33, 130, 47, true}, {64, 256, 96, true}, {37, 300, 130, false},
          {2, 5, 3, true},     {12, 1, 40, true},
          // more rows than units (x blocks outer), and a single row with K % 4 != 0
          {40, 70, 6, true},   {65, 129, 3, false}, {1, 1030, 7, false}};
}

}  // namespace

TEST_CASE("dense GEMM: emulated AMX and prepacked weights on int8 values", "[gemm][dense]") {
  uint64_t seed = 3000;
  for (const DenseCase& d : dense_cases()) check_dense(d.m, d.k, d.n, d.bias, -128, 127, seed += 3);
}

TEST_CASE("dense GEMM: emulated AMX and prepacked weights at 1, 2 and 7 threads",
          "[gemm][dense][threads]") {
  uint64_t seed = 3500;
  at_each_thread_count([&](int) {
    for (const DenseCase& d : dense_cases()) {
      check_dense(d.m, d.k, d.n, d.bias, -128, 127, seed += 3);
    }
  });
}

TEST_CASE("dense GEMM: emulated AMX and prepack at large K and wide values; no scratch",
          "[gemm][dense]") {
  check_dense(9, 4608, 20, true, -128, -128, 1);
  check_dense(9, 4608, 20, true, 127, 127, 2);
  check_dense(9, 4608, 20, false, -128, 127, 3);
  uint64_t seed = 4000;
  for (const DenseCase& d : dense_cases()) {
    check_dense(d.m, d.k, d.n, d.bias, -300, 200, seed += 3);
    check_dense(d.m, d.k, d.n, d.bias, std::numeric_limits<int32_t>::min(),
                std::numeric_limits<int32_t>::max(), seed += 3);
    check_dense(d.m, d.k, d.n, d.bias, -128, 127, seed += 3, false);  // no scratch
  }
}

TEST_CASE("dense GEMM: strided views, and null params for every kernel", "[gemm][dense]") {
  NDArray xt = random_in({40, 9}, -128, 127, 51);  // x = its transpose: K not contiguous
  NDArray w = random_in({30, 60}, -128, 127, 52).slice(1, 0, 60, 2);
  NDArray b = random_in({30}, -7, 7, 53);
  check_dense(xt.transpose(), w, &b);
  check_dense(random_in({9, 30}, -128, 127, 54), w, &b, true, true);
  NDArray y_wide = random_in({9, 30}, -128, 127, 55);
  check_dense(y_wide, w.contiguous(), nullptr);
}

// ---- prepacked weights --------------------------------------------------------------------------

TEST_CASE("GEMM kernels compute from the prepacked weight, and ignore foreign ones",
          "[gemm][prepack]") {
  at_each_thread_count([&](int t) {
    // conv2d: w1 packed, w2 passed: the result is that of w1 (the kernel skipped packing w2).
    kernel::Conv2dParams prm{1, 1, 1, 1, 1, 1, 1, nullptr};
    const NDArray x = random_in({1, 24, 9, 9}, -128, 127, 71);
    const NDArray w1 = random_in({20, 24, 3, 3}, -128, 127, 72);
    const NDArray w2 = random_in({20, 24, 3, 3}, -128, 127, 73);
    const NDArray b = random_in({20}, -1000, 1000, 74);
    const Shape ys{1, 20, 9, 9};
    NDArray want1 = NDArray::zeros(ys, DataType::Int(32)), want2 = want1.copy();
    run(scalar_fn("conv2d"), {x, w1, b}, want1, &prm);
    run(scalar_fn("conv2d"), {x, w2, b}, want2, &prm);
    REQUIRE_FALSE(test::bit_equal(want1, want2));
    const std::vector<Kernel> convs = gemm_kernels("conv2d");
    for (const Kernel& k : convs) {
      const Prepacked p1 = prepack(k, w1, &prm);
      INFO(k.name << " (conv2d) threads " << t);
      if (p1.bytes == 0) continue;
      TestScratch scratch;
      prm.scratch = scratch.get();
      NDArray got = NDArray::empty(ys, DataType::Int(32));
      run(k.fn, {x, w2, b}, got, &prm, p1.data.get());
      REQUIRE(test::bit_equal(got, want1));
      // Every other kernel's pack of w1, and a pack of another shape: not this layout, ignored.
      for (const Kernel& other : convs) {
        const Prepacked po = prepack(other, w1, &prm);
        if (po.bytes == 0 || po.bytes == p1.bytes) continue;
        run(k.fn, {x, w2, b}, got, &prm, po.data.get());
        INFO("given " << other.name << "'s pack");
        REQUIRE(test::bit_equal(got, want2));
      }
      // A pack of another shape (the Winograd entry packs only 3x3 weights: fewer channels).
      const bool winograd = k.name.find("winograd") != std::string::npos;
      const Prepacked small = prepack(
          k, random_in(winograd ? Shape{20, 12, 3, 3} : Shape{20, 24, 1, 1}, -128, 127, 75), &prm);
      REQUIRE(small.bytes > 0);
      run(k.fn, {x, w2, b}, got, &prm, small.data.get());
      REQUIRE(test::bit_equal(got, want2));
      prm.scratch = nullptr;
    }
    // dense, one row and several.
    for (int64_t m : {1, 5}) {
      const NDArray dx = random_in({m, 300}, -128, 127, 81);
      const NDArray d1 = random_in({70, 300}, -128, 127, 82);
      const NDArray d2 = random_in({70, 300}, -128, 127, 83);
      NDArray dwant1 = NDArray::zeros({m, 70}, DataType::Int(32)), dwant2 = dwant1.copy();
      run(scalar_fn("dense"), {dx, d1}, dwant1, nullptr);
      run(scalar_fn("dense"), {dx, d2}, dwant2, nullptr);
      for (const Kernel& k : gemm_kernels("dense")) {
        TestScratch scratch;
        const kernel::DenseParams dprm{scratch.get()};
        const Prepacked p1 = prepack(k, d1, &dprm);
        INFO(k.name << " (dense) rows " << m << " threads " << t);
        if (k.prepack != nullptr) REQUIRE(p1.bytes > 0);
        if (p1.bytes == 0) continue;
        NDArray got = NDArray::empty({m, 70}, DataType::Int(32));
        run(k.fn, {dx, d2}, got, &dprm, p1.data.get());
        REQUIRE(test::bit_equal(got, dwant1));
        const Prepacked other = prepack(k, random_in({71, 300}, -128, 127, 84), &dprm);
        run(k.fn, {dx, d2}, got, &dprm, other.data.get());
        REQUIRE(test::bit_equal(got, dwant2));
      }
    }
  });
}
