// The x86 SIMD kernels of the elementwise, pooling/upsampling and reduce families equal the
// scalar reference bit for bit at every ISA level this CPU has and at 1, 2 and 7 threads (table
// entries called directly, every split forced); run_op agrees across backends and thread counts;
// the thread pool, its C ABI and the system report behave.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cvm/array_ops.h"
#include "cvm/c_api.h"
#include "cvm/error.h"
#include "cvm/op.h"
#include "cvm/registry.h"
#include "cvm/system.h"
#include "cvm/threads.h"
#include "kernel_abi.h"
#include "kernel_views.h"
#include "params/elementwise.h"
#include "params/nn.h"
#include "params/reduce.h"
#include "test_util.h"
#include "thread_pool.h"

using namespace cvm;
using Catch::Matchers::Contains;
using kernel::ElemType;
using kernel::KernelEntry;
using kernel::TensorView;

namespace {

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
const int kThreadCounts[] = {1, 2, 7};

// Restores the default thread count, task size and backend when a test ends.
struct Restore {
  std::string backend = current_backend();
  int64_t min_work = threads::min_task_work();
  ~Restore() {
    set_num_threads(0);
    threads::set_min_task_work(min_work);
    set_backend(backend);
  }
};

// `n` threads, and tasks as small as one element so that every kernel really splits.
void use_threads(int n) {
  set_num_threads(n);
  threads::set_min_task_work(1);
}

const KernelEntry* scalar_entry(const std::string& op, ElemType t) {
  const kernel::BackendTable& s = kernel::kScalarBackend;
  for (size_t i = 0; i < s.count; ++i) {
    if (op == s.entries[i].op && (s.entries[i].dtype == t || s.entries[i].dtype == ElemType::kAny))
      return &s.entries[i];
  }
  return nullptr;
}

// The SIMD entries for `op` (any dtype when t is kAny) that this CPU can run: every ISA level.
std::vector<const KernelEntry*> simd_entries(const std::string& op, ElemType t = ElemType::kAny) {
  std::vector<const KernelEntry*> found;
#ifdef CVMRT_HAVE_BACKEND_SIMD
  const kernel::BackendTable& simd = kernel::kSimdBackend;
  const uint32_t have = test::simd_testable_features();
  for (size_t i = 0; i < simd.count; ++i) {
    const KernelEntry& e = simd.entries[i];
    if (op != e.op || (t != ElemType::kAny && e.dtype != t)) continue;
    if ((have & e.required_features) == e.required_features) {
      found.push_back(&e);
    } else {
      WARN("skipping " << e.op << "/" << e.variant << ": CPU lacks it");
    }
  }
#endif
  return found;
}

DataType dtype_of(ElemType t) { return kAllDataTypes[static_cast<int>(t)]; }

// Random int32 values with the bounds and their neighbours sprinkled in.
NDArray random_i32(const Shape& shape, uint64_t seed) {
  NDArray a = test::random_array(shape, DataType::Int(32), seed);
  static const int32_t kEdges[] = {kMin32, kMin32 + 1, -2, -1, 0, 1, 2, kMax32 - 1, kMax32};
  std::mt19937_64 rng(seed ^ 0x5eed);
  auto* p = static_cast<int32_t*>(a.mutable_data());
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (rng() % 4 == 0) p[i] = kEdges[rng() % 9];
  }
  return a;
}

// Random float32 values over many magnitudes (so the summation order shows), with NaNs (of
// several payloads and signs), infinities and signed zeros when `specials`.
NDArray random_f32(const Shape& shape, uint64_t seed, bool specials) {
  NDArray a = NDArray::empty(shape, DataType::Float(32));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
  auto* p = static_cast<float*>(a.mutable_data());
  static const uint32_t kSpecial[] = {0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x7F800000u,
                                      0xFF800000u, 0x80000000u, 0x00000000u, 0x00000001u};
  for (int64_t i = 0; i < a.numel(); ++i) {
    p[i] = std::ldexp(mant(rng), static_cast<int>(rng() % 48) - 24);
    if (specials && rng() % 64 == 0) std::memcpy(&p[i], &kSpecial[rng() % 8], 4);
  }
  return a;
}

bool same_bits(const NDArray& a, const NDArray& b) {
  if (a.is_contiguous() && b.is_contiguous() && a.shape() == b.shape() && a.dtype() == b.dtype())
    return std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
  return test::bit_equal(a, b);
}

// Every family has kernels for AVX2: on a CPU that can run them, some must have been tested.
void require_some_tested(int tested) {
#ifdef CVMRT_HAVE_BACKEND_SIMD
  if (test::simd_testable_features() & kernel::kCpuAvx2) {
    INFO("tested " << tested << " SIMD kernels");
    REQUIRE(tested > 0);
    return;
  }
#endif
  WARN("no usable SIMD kernel (no SIMD backend, no AVX2, or CVMRT_ISA=scalar)");
}

// ---- elementwise ----

std::vector<std::pair<Shape, Shape>> binary_shapes() {
  std::vector<std::pair<Shape, Shape>> s;
  for (int64_t n :
       {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 4099})
    s.push_back({Shape{n}, Shape{n}});
  s.push_back({Shape{5, 67}, Shape{67}});    // row broadcast
  s.push_back({Shape{5, 67}, Shape{5, 1}});  // column broadcast: stride 0 inside rows
  s.push_back({Shape{5, 1}, Shape{5, 67}});  // the first operand broadcast
  s.push_back({Shape{3, 1, 70}, Shape{4, 1}});
  s.push_back({Shape{}, Shape{100}});
  s.push_back({Shape{100}, Shape{}});
  s.push_back({Shape{}, Shape{}});
  s.push_back({Shape{2, 0, 3}, Shape{3}});
  return s;
}

// Runs `fn` over out = op(inputs) with coalesced elementwise views (out may alias inputs[0]).
void run_elementwise(kernel::KernelFn fn, NDArray& out, const std::vector<NDArray>& inputs,
                     const void* params) {
  std::vector<ops::Operand> operands = {{&out, out.mutable_data()}};
  for (const NDArray& in : inputs) operands.push_back({&in, const_cast<void*>(in.data())});
  ops::run_kernel(fn, ops::elementwise_views(operands), 1, params);
}

void check_binary(const KernelEntry& e, const KernelEntry& ref, const NDArray& a,
                  const NDArray& b) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const std::vector<NDArray> in = {a.broadcast_to(shape), b.broadcast_to(shape)};
  NDArray got = NDArray::empty(shape, a.dtype()), want = NDArray::empty(shape, a.dtype());
  run_elementwise(e.fn, got, in, nullptr);
  run_elementwise(ref.fn, want, in, nullptr);
  INFO(e.op << "/" << e.variant << " " << a.dtype() << " " << a.shape() << " x " << b.shape()
            << " threads " << num_threads());
  REQUIRE(same_bits(got, want));
}

void check_unary(const KernelEntry& e, const KernelEntry& ref, const NDArray& x,
                 const kernel::CvmClampParams& p) {
  NDArray got = NDArray::empty(x.shape(), x.dtype()), want = NDArray::empty(x.shape(), x.dtype());
  run_elementwise(e.fn, got, {x}, &p);
  run_elementwise(ref.fn, want, {x}, &p);
  INFO(e.op << "/" << e.variant << " " << x.shape() << " shift " << p.shift << " lo " << p.lo
            << " hi " << p.hi << " threads " << num_threads());
  REQUIRE(same_bits(got, want));
  // In place, as the op layer runs these ops: the output is the input's memory.
  NDArray inplace = x.contiguous().copy();
  run_elementwise(e.fn, inplace, {inplace}, &p);
  REQUIRE(same_bits(inplace, want.contiguous()));
}

std::vector<kernel::CvmClampParams> clamp_cases(const std::string& op) {
  std::vector<kernel::CvmClampParams> ps;
  if (op == "relu") return {{0, 0, 0}};
  if (op == "clip") {
    ps = {{0, -5, 5}, {0, kMin32, kMax32}, {0, -kMax32, kMax32}, {0, 0, 1}, {0, 7, -7}, {0, 3, 3}};
    std::mt19937 rng(7);
    for (int i = 0; i < 4; ++i) {
      const auto lo = static_cast<int32_t>(rng()), hi = static_cast<int32_t>(rng());
      ps.push_back({0, std::min(lo, hi), std::max(lo, hi)});
    }
    return ps;
  }
  for (int32_t shift = 1; shift <= 32; ++shift) {
    for (int prec : {1, 8, 31, 32}) {
      const int32_t hi = prec == 32 ? kMax32 : static_cast<int32_t>((int64_t{1} << (prec - 1)) - 1);
      ps.push_back({shift, -hi, hi});
    }
  }
  return ps;
}

TEST_CASE("SIMD elementwise int kernels equal the reference at every ISA and thread count",
          "[simd][parity]") {
  Restore restore;
  int tested = 0;
  for (const char* op : {"add", "sub", "mul", "div", "maximum"}) {
    for (const KernelEntry* e : simd_entries(op)) {
      const KernelEntry* ref = scalar_entry(op, e->dtype);
      REQUIRE(ref != nullptr);
      const DataType t = dtype_of(e->dtype);
      auto make = [&](const Shape& s, uint64_t seed) {
        return t == DataType::Int(32) ? random_i32(s, seed) : test::random_array(s, t, seed);
      };
      for (int threads : kThreadCounts) {
        use_threads(threads);
        uint64_t seed = 1000;
        for (const auto& [sa, sb] : binary_shapes()) {
          const NDArray a = make(sa, seed++), b = make(sb, seed++);
          check_binary(*e, *ref, a, b);
          if (sa.ndim() == 1 && sa == sb && sa[0] > 1) {
            // Strided operands: reversed and every-other-element views of larger arrays.
            const int64_t n = sa[0];
            const NDArray wide = make(Shape{2 * n}, seed++);
            check_binary(*e, *ref, wide.slice(0, -1, -2 * n - 1, -2), b);
            check_binary(*e, *ref, a, wide.slice(0, 0, 2 * n, 2));
          }
        }
        // A transposed operand: no dimension is contiguous for both.
        const NDArray m = make(Shape{33, 20}, seed++);
        check_binary(*e, *ref, m, make(Shape{20, 33}, seed++).transpose());
        if (t == DataType::Int(32)) {
          // Small operands: large quotients, and every divisor near zero.
          NDArray small = make(Shape{4099}, seed++);
          auto* p = static_cast<int32_t*>(small.mutable_data());
          for (int64_t i = 0; i < small.numel(); ++i) p[i] = static_cast<int32_t>(i % 301) - 150;
          check_binary(*e, *ref, make(Shape{4099}, seed++), small);
          check_binary(*e, *ref, small, make(Shape{4099}, seed++));
        }
      }
      ++tested;
    }
  }
  for (const char* op : {"relu", "clip", "cvm_right_shift", "cvm_left_shift"}) {
    const KernelEntry* ref = scalar_entry(op, ElemType::kInt32);
    REQUIRE(ref != nullptr);
    for (const KernelEntry* e : simd_entries(op, ElemType::kInt32)) {
      for (int threads : kThreadCounts) {
        use_threads(threads);
        uint64_t seed = 2000;
        const bool sweep = std::string(op) != "relu" && std::string(op) != "clip";
        for (const kernel::CvmClampParams& p : clamp_cases(op)) {
          for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 33, 100, 1027}) {
            if (sweep && n != 1027 && n != 17) continue;  // shifts x precisions: fewer shapes
            check_unary(*e, *ref, random_i32(Shape{n}, seed++), p);
          }
          check_unary(*e, *ref, random_i32(Shape{}, seed++), p);
          check_unary(*e, *ref, random_i32(Shape{2, 0}, seed++), p);
          const NDArray wide = random_i32(Shape{7, 2 * 45}, seed++);
          check_unary(*e, *ref, wide.slice(1, 1, 90, 2), p);  // strided rows
          check_unary(*e, *ref, random_i32(Shape{45, 7}, seed++).transpose(), p);
        }
      }
      ++tested;
    }
  }
  require_some_tested(tested);
}

// ---- pooling and upsampling ----

struct PoolCase {
  Shape x;
  kernel::MaxPool2dParams p;
  bool ceil_mode;
};

// The op layer's output extent (floor, or ceil less a window starting in the bottom padding).
int64_t pool_extent(int64_t in, int64_t pool, int64_t stride, int64_t pad, bool ceil_mode) {
  const int64_t room = in + 2 * pad;
  if (!ceil_mode) return (room - pool) / stride + 1;
  int64_t out = (room - pool + stride - 1) / stride + 1;
  if ((out - 1) * stride >= in + pad) --out;
  return out;
}

std::vector<PoolCase> pool_cases() {
  std::vector<PoolCase> cases;
  std::mt19937 rng(42);
  auto r = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint32_t>(n)); };
  for (int i = 0; i < 60; ++i) {
    const int64_t ph = 1 + r(5), pw = 1 + r(5);
    const int64_t pad_h = r(ph), pad_w = r(pw);
    const int64_t h = std::max<int64_t>(1 + r(12), ph - 2 * pad_h);
    const int64_t w = std::max<int64_t>(1 + r(70), pw - 2 * pad_w);
    const int64_t n = 1 + r(2), c = 1 + r(3), sh = 1 + r(4), sw = 1 + r(4);
    cases.push_back({Shape{n, c, h, w}, {ph, pw, sh, sw, pad_h, pad_w}, r(2) == 0});
  }
  // Common shapes, the vector paths for strides 1, 2 and 3, and buffer chunking.
  cases.push_back({Shape{1, 4, 56, 56}, {3, 3, 2, 2, 1, 1}, false});
  cases.push_back({Shape{1, 2, 33, 35}, {2, 2, 2, 2, 0, 0}, true});
  cases.push_back({Shape{1, 1, 4, 5000}, {3, 3, 1, 1, 1, 1}, false});
  cases.push_back({Shape{1, 1, 3, 9001}, {2, 4, 1, 2, 1, 3}, true});
  cases.push_back({Shape{1, 1, 2, 9000}, {2, 5, 2, 3, 0, 2}, false});
  // Windows wider than the buffer's half: the reference loop inside the SIMD kernel.
  cases.push_back({Shape{1, 1, 3, 2300}, {2, 2100, 1, 7, 1, 50}, false});
  // Only padding under some windows, and 1x1 windows.
  cases.push_back({Shape{2, 3, 1, 1}, {3, 3, 1, 1, 2, 2}, true});
  cases.push_back({Shape{1, 1, 7, 40}, {1, 1, 3, 5, 0, 0}, false});
  return cases;
}

// The SIMD entry's and the reference's output on the same input view.
void check_plain(const KernelEntry& e, const KernelEntry& ref, const NDArray& x,
                 const Shape& out_shape, const void* params, const std::string& what,
                 bool strided_out = false) {
  auto run = [&](kernel::KernelFn fn) {
    // A strided output: the logical array is a transposed view of a buffer.
    NDArray out =
        strided_out ? NDArray::zeros(Shape{out_shape[0], out_shape[1], out_shape[3], out_shape[2]},
                                     DataType::Int(32))
                          .permute({0, 1, 3, 2})
                    : NDArray::empty(out_shape, DataType::Int(32));
    ops::run_kernel(fn, ops::plain_views({out}, {x}), 1, params);
    return out;
  };
  const NDArray got = run(e.fn), want = run(ref.fn);
  INFO(e.op << "/" << e.variant << " " << what << " threads " << num_threads());
  REQUIRE(same_bits(got, want));
}

TEST_CASE("SIMD max_pool2d equals the reference at every ISA and thread count", "[simd][parity]") {
  Restore restore;
  const KernelEntry* ref = scalar_entry("max_pool2d", ElemType::kInt32);
  REQUIRE(ref != nullptr);
  const auto entries = simd_entries("max_pool2d", ElemType::kInt32);
  require_some_tested(static_cast<int>(entries.size()));
  for (const KernelEntry* e : entries) {
    for (int threads : kThreadCounts) {
      use_threads(threads);
      uint64_t seed = 7;
      for (const PoolCase& c : pool_cases()) {
        const auto& p = c.p;
        const Shape out{c.x[0], c.x[1],
                        pool_extent(c.x[2], p.pool_h, p.stride_h, p.pad_h, c.ceil_mode),
                        pool_extent(c.x[3], p.pool_w, p.stride_w, p.pad_w, c.ceil_mode)};
        std::ostringstream what;
        what << "x " << c.x << " pool " << p.pool_h << "x" << p.pool_w << " stride " << p.stride_h
             << "," << p.stride_w << " pad " << p.pad_h << "," << p.pad_w << " ceil "
             << c.ceil_mode;
        const NDArray x = random_i32(c.x, seed++);
        check_plain(*e, *ref, x, out, &p, what.str());
        if (c.x[3] <= 100) {
          // Strided rows: every other column of a wider array, and a transposed array.
          const NDArray wide = random_i32(Shape{c.x[0], c.x[1], c.x[2], 2 * c.x[3]}, seed++);
          check_plain(*e, *ref, wide.slice(3, 1, 2 * c.x[3], 2), out, &p, what.str() + " cols/2");
          const NDArray t = random_i32(Shape{c.x[0], c.x[1], c.x[3], c.x[2]}, seed++);
          check_plain(*e, *ref, t.permute({0, 1, 3, 2}), out, &p, what.str() + " transposed");
          check_plain(*e, *ref, x, out, &p, what.str() + " strided out", true);
        }
      }
    }
  }
}

TEST_CASE("SIMD upsampling equals the reference at every ISA and thread count", "[simd][parity]") {
  Restore restore;
  const KernelEntry* ref = scalar_entry("upsampling", ElemType::kInt32);
  REQUIRE(ref != nullptr);
  const auto entries = simd_entries("upsampling");
  require_some_tested(static_cast<int>(entries.size()));
  for (const KernelEntry* e : entries) {
    for (int threads : kThreadCounts) {
      use_threads(threads);
      uint64_t seed = 9;
      for (int64_t scale : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33}) {
        for (int64_t w : {1, 2, 3, 5, 8, 13, 16, 17, 33}) {
          const Shape xs{2, 2, 3, w};
          const Shape out{2, 2, 3 * scale, w * scale};
          kernel::UpsamplingParams p{scale};
          std::ostringstream what;
          what << "x " << xs << " scale " << scale;
          check_plain(*e, *ref, random_i32(xs, seed++), out, &p, what.str());
          const NDArray t = random_i32(Shape{2, 2, w, 3}, seed++);
          check_plain(*e, *ref, t.permute({0, 1, 3, 2}), out, &p, what.str() + " transposed");
          check_plain(*e, *ref, random_i32(xs, seed++), out, &p, what.str() + " strided out", true);
        }
      }
      kernel::UpsamplingParams p{2};
      check_plain(*e, *ref, random_i32(Shape{0, 2, 3, 3}, 1), Shape{0, 2, 6, 6}, &p, "empty");
    }
  }
}

// ---- reductions ----

// Kernel views of a reduction of x over `reduced` (the other dimensions kept, in order), as
// params/reduce.h lays them out, without merging (the op layer's merging is an optimisation).
void check_reduce(const KernelEntry& e, const KernelEntry& ref, const NDArray& x,
                  const std::vector<bool>& reduced, const void* params, const std::string& what) {
  Shape kept_shape;
  for (int d = 0; d < x.ndim(); ++d) {
    if (!reduced[d]) kept_shape.push_back(x.shape()[d]);
  }
  auto run = [&](kernel::KernelFn fn) {
    NDArray out = NDArray::zeros(kept_shape, x.dtype());
    TensorView in = ops::plain_view(x, const_cast<void*>(x.data()));
    int k = 0;
    for (int pass = 0; pass < 2; ++pass) {
      for (int d = 0; d < x.ndim(); ++d) {
        if (reduced[d] != (pass == 1)) continue;
        in.shape[k] = x.shape()[d];
        in.strides[k] = x.strides()[d];
        ++k;
      }
    }
    ops::run_kernel(fn, {ops::plain_view(out, out.mutable_data()), in}, 1, params);
    return out;
  };
  const NDArray got = run(e.fn), want = run(ref.fn);
  INFO(e.op << "/" << e.variant << " " << x.dtype() << " " << what << " threads " << num_threads());
  REQUIRE(same_bits(got, want));
}

std::vector<Shape> reduce_shapes() {
  return {Shape{},        Shape{1},        Shape{17},       Shape{1000},       Shape{0},
          Shape{3, 0},    Shape{5, 37},    Shape{37, 5},    Shape{64, 17},     Shape{3, 200},
          Shape{2, 1, 3}, Shape{4, 6, 33}, Shape{9, 16, 8}, Shape{2, 3, 4, 5}, Shape{40, 3, 19}};
}

// The same logical values as x in other layouts: Fortran order, and the last axis reversed.
std::vector<std::pair<NDArray, std::string>> layouts(const NDArray& x) {
  std::vector<std::pair<NDArray, std::string>> v = {{x, "contiguous"}};
  if (x.ndim() >= 2) v.push_back({x.transpose().contiguous().transpose(), "fortran"});
  if (x.ndim() >= 1 && x.shape()[x.ndim() - 1] > 1) {
    const int last = x.ndim() - 1;
    const int64_t n = x.shape()[last];
    v.push_back(
        {x.slice(last, n - 1, -n - 1, -1).contiguous().slice(last, n - 1, -n - 1, -1), "reversed"});
  }
  return v;
}

void reduce_parity(const char* op, ElemType t, const std::vector<const void*>& params_list) {
  Restore restore;
  const KernelEntry* ref = scalar_entry(op, t);
  REQUIRE(ref != nullptr);
  const auto entries = simd_entries(op, t);
  require_some_tested(static_cast<int>(entries.size()));
  for (const KernelEntry* e : entries) {
    for (int threads : kThreadCounts) {
      use_threads(threads);
      uint64_t seed = 11;
      for (const Shape& s : reduce_shapes()) {
        ++seed;
        const NDArray base =
            t == ElemType::kInt32 ? random_i32(s, seed) : random_f32(s, seed, seed % 2 == 0);
        for (const auto& [x, layout] : layouts(base)) {
          for (uint32_t mask = 0; mask < (1u << s.ndim()); ++mask) {
            std::vector<bool> reduced(s.ndim());
            for (int d = 0; d < s.ndim(); ++d) reduced[d] = (mask >> d) & 1;
            for (const void* params : params_list) {
              std::ostringstream what;
              what << s << " " << layout << " reduced mask " << mask << " params "
                   << (params ? static_cast<const kernel::ReduceParams*>(params)->max_starts_at_zero
                              : -1);
              check_reduce(*e, *ref, x, reduced, params, what.str());
            }
          }
        }
      }
    }
  }
}

TEST_CASE("SIMD int32 reduce_sum / reduce_max equal the reference", "[simd][parity]") {
  static const kernel::ReduceParams kPlain{0}, kQuirk{1};
  reduce_parity("reduce_sum", ElemType::kInt32, {nullptr});
  reduce_parity("reduce_max", ElemType::kInt32, {nullptr, &kPlain, &kQuirk});
}

TEST_CASE("SIMD float32 reduce_sum follows the 16-lane order exactly", "[simd][parity]") {
  reduce_parity("reduce_sum", ElemType::kFloat32, {nullptr});
  Restore restore;
  // docs/determinism.md's example: [2^24, 1 x 31] sums to 2^24 + 30, not 2^24.
  std::vector<float> v(32, 1.0f);
  v[0] = 16777216.0f;
  const NDArray x = NDArray::from_bytes(v.data(), 128, Shape{32}, DataType::Float(32));
  for (const KernelEntry* e : simd_entries("reduce_sum", ElemType::kFloat32)) {
    NDArray out = NDArray::zeros(Shape{}, DataType::Float(32));
    TensorView in = ops::plain_view(x, const_cast<void*>(x.data()));
    ops::run_kernel(e->fn, {ops::plain_view(out, out.mutable_data()), in}, 1, nullptr);
    INFO(e->variant);
    REQUIRE(*static_cast<const float*>(out.data()) == 16777246.0f);
  }
}

// ---- end to end ----

struct OpCase {
  std::string op;
  std::vector<NDArray> inputs;
  AttrMap attrs;
};

std::vector<OpCase> op_cases() {
  const Shape big{3, 5, 41, 37};
  uint64_t s = 500;
  auto x = [&](const Shape& shape) { return random_i32(shape, s++); };
  // Values of known precision for the CVM shifts (their precision rules limit the inputs).
  NDArray small = test::random_array(big, DataType::Int(8), s++).contiguous();
  NDArray small32 = run_op("cast", {small}, {{"dtype", "int32"}}).at(0);
  return {
      {"relu", {x(big)}, {}},
      {"clip", {x(big)}, {{"a_min", "-1000"}, {"a_max", "70000"}}},
      {"cvm_clip", {x(big)}, {{"precision", "9"}}},
      {"cvm_right_shift", {x(big)}, {{"precision", "8"}, {"shift_bit", "3"}}},
      {"cvm_right_shift", {x(big)}, {{"precision", "32"}, {"shift_bit", "1"}}},
      {"cvm_left_shift", {small32}, {{"precision", "16"}, {"shift_bit", "7"}}},
      {"broadcast_mul", {x(big), x(Shape{5, 1, 37})}, {}},
      {"broadcast_max", {x(big), x(Shape{41, 1})}, {}},
      {"broadcast_div", {x(big), x(Shape{37})}, {}},
      {"broadcast_div", {x(Shape{1}), x(big)}, {}},
      {"broadcast_add", {x(big), x(Shape{1})}, {}},
      {"elemwise_sub", {x(big), x(big)}, {}},
      {"max_pool2d",
       {x(big)},
       {{"pool_size", "(3, 3)"}, {"strides", "(2, 2)"}, {"padding", "(1, 1)"}}},
      {"max_pool2d",
       {x(big)},
       {{"pool_size", "(2, 2)"}, {"ceil_mode", "True"}, {"strides", "(2, 2)"}}},
      {"upsampling", {x(big)}, {{"scale", "2"}}},
      {"upsampling", {x(Shape{1, 3, 5, 7})}, {{"scale", "11"}}},
      {"sum", {x(big)}, {{"axis", "(1,)"}}},
      {"sum", {x(big)}, {{"axis", "(2, 3)"}}},
      {"sum", {x(big)}, {}},
      {"max", {x(big)}, {{"axis", "(0, 2)"}}},
      {"max", {x(big)}, {}},
      {"max", {x(big)}, {{"axis", "(3,)"}, {"keepdims", "True"}}},
      {"reduce_sum", {random_f32(big, s++, true)}, {{"axis", "(1, 3)"}}},
      {"reduce_sum", {random_f32(big, s++, false)}, {{"axis", "(3,)"}}},
      {"reduce_sum", {random_f32(big, s++, false)}, {{"axis", "(0,)"}}},
      {"reduce_sum", {random_f32(big, s++, false)}, {}},
  };
}

TEST_CASE("run_op: simd and scalar backends agree at 1, 2 and 7 threads", "[simd][e2e]") {
  Restore restore;
  for (const OpCase& c : op_cases()) {
    set_backend("scalar");
    set_num_threads(1);
    const NDArray want = run_op(c.op, c.inputs, c.attrs).at(0);
    for (const std::string& backend : compiled_backends()) {
      set_backend(backend);
      for (int threads : kThreadCounts) {
        set_num_threads(threads);
        for (int64_t min_work : {int64_t{1}, restore.min_work}) {
          threads::set_min_task_work(min_work);
          INFO(c.op << " on " << c.inputs[0].shape() << " backend " << backend << " threads "
                    << threads << " min task work " << min_work);
          REQUIRE(same_bits(run_op(c.op, c.inputs, c.attrs).at(0), want));
        }
      }
    }
  }
}

// ---- thread pool, C ABI, system report ----

TEST_CASE("thread count: set, default, errors, C ABI", "[simd][threads]") {
  Restore restore;
  set_num_threads(3);
  REQUIRE(num_threads() == 3);
  int n = 0;
  REQUIRE(CVMGetNumThreads(&n) == 0);
  REQUIRE(n == 3);
  REQUIRE(CVMSetNumThreads(5) == 0);
  REQUIRE(num_threads() == 5);
  REQUIRE_THROWS_AS(set_num_threads(-1), LogicError);
  REQUIRE_THROWS_WITH(set_num_threads(1025), Contains("found 1025"));
  REQUIRE(CVMSetNumThreads(-2) == CVM_STATUS_LOGIC_ERROR);
  REQUIRE_THAT(std::string(CVMGetLastError()), Contains("set_num_threads"));
  REQUIRE(num_threads() == 5);
  REQUIRE(CVMGetNumThreads(nullptr) == CVM_STATUS_LOGIC_ERROR);
  REQUIRE(CVMSetNumThreads(0) == 0);
  REQUIRE(num_threads() >= 1);
}

TEST_CASE("CVMRT_THREADS values", "[simd][threads]") {
  REQUIRE(threads::parse_thread_count(nullptr) == 0);
  REQUIRE(threads::parse_thread_count("") == 0);
  REQUIRE(threads::parse_thread_count("1") == 1);
  REQUIRE(threads::parse_thread_count("16") == 16);
  REQUIRE(threads::parse_thread_count("1024") == 1024);
  for (const char* bad : {"0", "1025", "-2", " 4", "+4", "4 ", "4x", "abc", "99999999999999999999"})
    REQUIRE(threads::parse_thread_count(bad) == -1);
}

TEST_CASE("parallel_for covers every index once, at any count, nested and concurrent",
          "[simd][threads]") {
  Restore restore;
  struct Hits {
    std::vector<std::atomic<int>> count;
    std::atomic<int> nested_calls{0};
    explicit Hits(int64_t n) : count(n) {}
  };
  for (int threads : {1, 2, 3, 7, 16}) {
    set_num_threads(threads);
    for (int64_t n : {0, 1, 2, 5, 7, 100, 1001}) {
      Hits hits(n);
      threads::parallel_for(
          n,
          [](void* user, int64_t begin, int64_t end) {
            auto& h = *static_cast<Hits*>(user);
            for (int64_t i = begin; i < end; ++i) h.count[i]++;
            // A nested region runs serially on this thread instead of deadlocking.
            threads::parallel_for(
                3,
                [](void* u, int64_t b, int64_t e) {
                  static_cast<Hits*>(u)->nested_calls += static_cast<int>(e - b);
                },
                user);
          },
          &hits);
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += hits.count[i].load() != 1;
      INFO("threads " << threads << " n " << n);
      REQUIRE(bad == 0);
      REQUIRE(hits.nested_calls.load() % 3 == 0);
    }
  }
  // Several threads running ops at once share the pool (all but one run serially).
  set_num_threads(7);
  threads::set_min_task_work(1);
  const NDArray x = random_i32(Shape{64, 1000}, 3);
  set_backend("scalar");
  const NDArray want = run_op("relu", {x}).at(0);
  set_backend("auto");
  std::atomic<int> mismatches{0};
  std::vector<std::thread> runners;
  for (int t = 0; t < 4; ++t) {
    runners.emplace_back([&] {
      for (int i = 0; i < 20; ++i) mismatches += !same_bits(run_op("relu", {x}).at(0), want);
    });
  }
  for (std::thread& t : runners) t.join();
  REQUIRE(mismatches.load() == 0);
}

TEST_CASE("system report: features, cap, threads and the kernel per op", "[simd][system]") {
  Restore restore;
  set_num_threads(2);
  set_backend("auto");
  const SystemInfo info = system_info();
  REQUIRE(info.num_threads == 2);
  REQUIRE(info.hardware_threads >= 1);
  REQUIRE(info.backend == compiled_backends().front());
  REQUIRE(info.usable_features.size() <= info.cpu_features.size());
  bool relu = false, add = false;
  for (const KernelChoice& k : info.kernels) {
    if (k.op == "relu" && k.dtype == "int32") {
      relu = true;
      REQUIRE(k.backend + "/" + k.variant == resolve_kernel("relu", DataType::Int(32)));
    }
    add |= k.op == "add" && k.dtype == "float32" && k.backend == "scalar";
  }
  REQUIRE(relu);
  REQUIRE(add);
  const std::string text = format_system_info(info);
  REQUIRE_THAT(text, Contains("threads: 2"));
  // "  relu int32 -> simd/avx2", or where int32 and float32 take one kernel variant (the scalar
  // reference) the grouped "  relu int32 float32 -> scalar/ref".
  REQUIRE_THAT(text, Contains("  relu int32 -> ") || Contains("  relu int32 float32 -> "));
  // The thread count's source is recorded, not guessed from the count.
  REQUIRE(info.threads_source == "set_num_threads");
  REQUIRE(threads::count_source() == threads::CountSource::kApi);
  set_num_threads(0);
  const SystemInfo by_default = system_info();
  REQUIRE(threads::count_source() != threads::CountSource::kApi);
  REQUIRE(by_default.threads_source ==
          (by_default.threads_env.empty() ? "default" : "CVMRT_THREADS"));
  if (by_default.num_threads > 0) {  // a count equal to the default still came from the API
    set_num_threads(by_default.num_threads);
    REQUIRE(system_info().threads_source == "set_num_threads");
    REQUIRE_THAT(format_system_info(system_info()), Contains("from set_num_threads; hardware"));
  }
#ifdef CVMRT_HAVE_BACKEND_SIMD
  const uint32_t have = kernel::kSimdBackend.cpu_features();
  if (have & kernel::kCpuAvx2) {
    REQUIRE(std::find(info.usable_features.begin(), info.usable_features.end(), "avx2") !=
            info.usable_features.end());
    REQUIRE(resolve_kernel("relu", DataType::Int(32)).rfind("simd/avx", 0) == 0);
  }
#endif
}

}  // namespace
