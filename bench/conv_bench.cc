// conv2d/dense kernel benchmark: ResNet-18 and MobileNet-v1 layers and two dense shapes, every
// x86 kernel of the simd table and the scalar reference, at 1 and 2 threads, against the int8
// MAC peak this CPU reaches in the same binary (vpdpbusd zmm with VNNI, else vpmaddwd ymm; on a
// CPU with AMX also the tdpbssd tile peak, which the AMX entries' "% tile peak" reads); and each
// layer as a model (the layer, its bias and a cvm_right_shift) run by a Session at 1
// thread, with and without clamp fusion, against the fastest kernel alone. Entries that take
// int8 activations (KernelEntry::takes_int8_activations) get a second variant, "+i8": int8 x
// and int8 y with the requantizing clamp applied as they store, the call a session makes
// between two layers (and the work of ONNX Runtime's QLinearConv: 8-bit in, requantized 8-bit
// out). Prints a table, or JSON lines with --json (bench/run_benchmarks.sh merges those with
// ONNX Runtime's figures).
//
//   conv_bench [--json] [--quick] [--filter SUBSTRING] [--prepacked] [--only VARIANT]
//   --prepacked   kernels with a prepack function get their weight packed once, outside the
//                 timing (KernelCall::prepacked), as the graph runtime does for constant weights
//   --only VARIANT   time that variant alone (e.g. avx512vnni+i8), with no scalar, run_op or
//                 model timings: for a profiler (perf record) to see one kernel's work
//   conv_bench --list     the workloads as JSON lines (for bench/ort/make_models.py)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "conv_workloads.h"
#include "cvm/allocator.h"
#include "cvm/array_ops.h"
#include "cvm/model.h"
#include "cvm/model_builder.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/registry.h"
#include "cvm/system.h"
#include "cvm/threads.h"
#include "kernel_abi.h"
#include "kernel_views.h"
#include "params/nn.h"
#include "thread_pool.h"

using namespace cvm;
using cvm::bench::Work;
using cvm::bench::workloads;
using Clock = std::chrono::steady_clock;

namespace {

// ---- the MAC peak -------------------------------------------------------------------------------

// 24 independent vpdpbusd zmm chains in assembly (so the compiler cannot spill or fold them):
// throughput, not latency, bound. 24 * 64 MACs per iteration.
__attribute__((target("avx512f,avx512bw,avx512vnni"), noinline)) void vnni_loop(int64_t iters) {
  __asm__ volatile(
      "vpxord %%zmm30, %%zmm30, %%zmm30\n"
      "vpxord %%zmm31, %%zmm31, %%zmm31\n"
      "1:\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm0\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm1\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm2\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm3\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm4\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm5\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm6\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm7\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm8\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm9\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm10\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm11\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm12\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm13\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm14\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm15\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm16\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm17\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm18\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm19\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm20\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm21\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm22\n"
      "vpdpbusd %%zmm30, %%zmm31, %%zmm23\n"
      "dec %0\n"
      "jnz 1b\n"
      : "+r"(iters)
      :
      : "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7", "zmm8", "zmm9", "zmm10",
        "zmm11", "zmm12", "zmm13", "zmm14", "zmm15", "zmm16", "zmm17", "zmm18", "zmm19", "zmm20",
        "zmm21", "zmm22", "zmm23", "zmm30", "zmm31", "cc");
}

// The same for vpmaddwd ymm (int16 pairs, 16 MACs each): the ceiling of the AVX2 kernels on a
// CPU without VNNI. 12 independent products from two fixed sources.
__attribute__((target("avx2"), noinline)) void madd_loop(int64_t iters) {
  __asm__ volatile(
      "vpxor %%ymm14, %%ymm14, %%ymm14\n"
      "vpxor %%ymm15, %%ymm15, %%ymm15\n"
      "1:\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm0\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm1\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm2\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm3\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm4\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm5\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm6\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm7\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm8\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm9\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm10\n"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm11\n"
      "dec %0\n"
      "jnz 1b\n"
      : "+r"(iters)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm14", "xmm15", "cc");
}

// tdpbssd into 6 independent 16x16 int32 accumulator tiles from two fixed 16 x 64-byte int8
// tiles (16 * 16 * 64 = 16384 MACs each): the AMX tile peak. The kernels' 2x2 blocks of C tiles
// also load their A and B tiles every step, so they cannot quite reach it.
__attribute__((target("amx-tile,amx-int8"), noinline)) void amx_loop(int64_t iters) {
  struct alignas(64) Config {
    uint8_t palette = 1, start_row = 0, reserved[14] = {};
    uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
    uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
  } config;
  // The whole 64 bytes as the operand: GCC 12's _tile_loadconfig names only the first 8, and
  // the compiler then drops the stores of the rest.
  __asm__ volatile("ldtilecfg %0" ::"m"(config));
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_zero(4);
  _tile_zero(5);
  _tile_zero(6);
  _tile_zero(7);
  for (int64_t i = 0; i < iters; ++i) {
    _tile_dpbssd(0, 6, 7);
    _tile_dpbssd(1, 6, 7);
    _tile_dpbssd(2, 6, 7);
    _tile_dpbssd(3, 6, 7);
    _tile_dpbssd(4, 6, 7);
    _tile_dpbssd(5, 6, 7);
  }
  _tile_release();
}

// Whether the AMX entries may run: the CPU has AMX and the kernels got the tile permission
// (cvm::system_info asks for it as the simd backend does).
bool amx_usable() { return cvm::system_info().amx == "granted"; }

bool have_vnni() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
}

// The int8 MAC peak the kernels are measured against: vpdpbusd zmm where the CPU has VNNI, else
// vpmaddwd ymm.
struct Peak {
  const char* instruction;
  double macs_1t, macs_2t;  // per second
  double amx_macs_1t = 0, amx_macs_2t = 0;  // tdpbssd, where AMX is usable
};

// MACs per second of the peak loop on `threads` threads at once: the median of short bursts,
// as the kernels are timed, so that load from other processes affects both alike.
template <class F>
double time_median(F&& f, double budget);

double peak_macs(void (*loop)(int64_t), double macs_per_iter, int threads,
                 int64_t iters = 200000) {
  // About 0.7 ms on one thread: long enough that starting the threads of a burst stays small
  // next to it (0.15 ms bursts measured a 2-thread peak of half the 1-thread one on Zen 5).
  const double s = time_median(
      [&] {
        if (threads == 1) {
          loop(iters);
          return;
        }
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) pool.emplace_back([&] { loop(iters); });
        for (auto& th : pool) th.join();
      },
      0.3);
  return threads * iters * macs_per_iter / s;
}

Peak measure_peak() {
  if (have_vnni()) {
    Peak p{"vpdpbusd zmm", peak_macs(vnni_loop, 24.0 * 64, 1), peak_macs(vnni_loop, 24.0 * 64, 2)};
    if (amx_usable()) {
      // A tile product is 64 vpdpbusd zmm's MACs: about as long a burst as theirs at 8x the rate.
      p.amx_macs_1t = peak_macs(amx_loop, 6.0 * 16384, 1, 25000);
      p.amx_macs_2t = peak_macs(amx_loop, 6.0 * 16384, 2, 25000);
    }
    return p;
  }
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    return {"vpmaddwd ymm", peak_macs(madd_loop, 12.0 * 16, 1), peak_macs(madd_loop, 12.0 * 16, 2)};
  }
  return {"none", 0, 0};
}

// ---- operands and calls -------------------------------------------------------------------------

NDArray random_int8(const Shape& shape, uint64_t seed) {
  NDArray a = NDArray::empty(shape, DataType::Int(32));
  std::mt19937_64 rng(seed);
  auto* p = static_cast<int32_t*>(a.mutable_data());
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = static_cast<int32_t>(rng() % 255) - 127;
  return a;
}

// Scratch as the op layer lends it (cvm_nn.cc): blocks from the caching CPU allocator.
class BenchScratch {
 public:
  BenchScratch() : scratch_{&BenchScratch::acquire, this} {}
  ~BenchScratch() {
    for (auto& b : blocks_) Allocator::cpu().free(b.first, b.second);
  }
  const kernel::Scratch* get() const { return &scratch_; }

 private:
  static void* acquire(void* ctx, int64_t bytes) {
    auto* self = static_cast<BenchScratch*>(ctx);
    void* p = Allocator::cpu().allocate(static_cast<size_t>(bytes));
    self->blocks_.push_back({p, static_cast<size_t>(bytes)});
    return p;
  }
  kernel::Scratch scratch_;
  std::vector<std::pair<void*, size_t>> blocks_;
};

struct Operands {
  std::vector<NDArray> in, in8;  // in8: x as int8 (the "+i8" variant)
  NDArray out, out8;
};

Operands operands(const Work& w) {
  Operands o;
  o.in = {random_int8(w.x, 1), random_int8(w.w, 2), random_int8(Shape{w.w[0]}, 3)};
  o.out = NDArray::empty(w.y(), DataType::Int(32));
  o.in8 = o.in;
  o.in8[0] = cvm::cast(o.in[0], DataType::Int(8));
  o.out8 = NDArray::empty(w.y(), DataType::Int(8));
  return o;
}

// The requantizing clamp of the "+i8" variant: to 8 bits, as layer_model's cvm_right_shift.
const kernel::CvmClampParams kToInt8{10, -127, 127};

// One call of `fn` as the op layer makes it (scratch from the allocator, the pool's threads),
// with `prepacked` weights (or null); `int8`: on int8 x and y with the clamp kToInt8. False
// when the kernel declines it (an entry for some layers only: the Winograd one takes 3x3
// stride-1 layers).
bool call_kernel(kernel::KernelFn fn, const Work& w, Operands& o, const void* prepacked = nullptr,
                 bool int8 = false) {
  BenchScratch scratch;
  kernel::Conv2dParams cp = w.p;
  cp.scratch = scratch.get();
  cp.clamp = int8 ? &kToInt8 : nullptr;
  const kernel::DenseParams dp{scratch.get(), int8 ? &kToInt8 : nullptr};
  std::vector<kernel::TensorView> views =
      int8 ? ops::plain_views({o.out8}, o.in8) : ops::plain_views({o.out}, o.in);
  kernel::KernelCall call{};
  call.outputs = views.data();
  call.num_outputs = 1;
  call.inputs = views.data() + 1;
  call.num_inputs = 3;
  call.params = w.conv ? static_cast<const void*>(&cp) : &dp;
  const kernel::ParallelFor par = threads::kernel_parallel_for();
  call.parallel = par.num_threads > 1 ? &par : nullptr;
  call.prepacked = prepacked;
  return fn(call) == kernel::KernelStatus::kDone;
}

// The weight of `o` packed by entry `e` (empty when it has no prepack or declines).
std::vector<uint8_t> prepack_weight(const kernel::KernelEntry& e, const Work& w,
                                    const Operands& o) {
  if (e.prepack == nullptr) return {};
  const kernel::TensorView view = ops::plain_view(o.in[1], const_cast<void*>(o.in[1].data()));
  const kernel::DenseParams dp{nullptr};
  const void* params = w.conv ? static_cast<const void*>(&w.p) : &dp;
  std::vector<uint8_t> bytes(e.prepack(view, params, nullptr, 0) + 64);
  void* at = bytes.data() + (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64;
  if (bytes.size() == 64 || e.prepack(view, params, at, bytes.size() - 64) == 0) return {};
  return bytes;
}

const void* aligned64(const std::vector<uint8_t>& bytes) {
  if (bytes.empty()) return nullptr;
  return bytes.data() + (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64;
}

// Median seconds of `f` over repetitions filling about `budget` seconds (at least 3).
template <class F>
double time_median(F&& f, double budget) {
  f();  // warm: caches, allocator, pool threads
  std::vector<double> t;
  const auto start = Clock::now();
  while (t.size() < 3 ||
         (std::chrono::duration<double>(Clock::now() - start).count() < budget && t.size() < 200)) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The layer as a model: x (int8 values) -> conv2d / dense with o's weight and bias ->
// cvm_right_shift to 8 bits, the requantizing step a quantized model puts after each layer.
std::shared_ptr<const Model> layer_model(const Work& w, const Operands& o, const AttrMap& attrs) {
  ModelBuilder b;
  const ModelBuilder::Entry x = b.input(w.x, DataType::Int(32), 8);
  const ModelBuilder::Entry wt = b.constant("weight", o.in[1], 8);
  const ModelBuilder::Entry bias = b.constant("bias", o.in[2], 8);
  AttrMap layer_attrs = attrs;
  layer_attrs["use_bias"] = "True";
  const ModelBuilder::Entry acc =
      b.add1(w.conv ? "conv2d" : "dense", "layer", {x, wt, bias}, layer_attrs);
  b.set_outputs({b.add1("cvm_right_shift", "requantize", {acc},
                        {{"shift_bit", "10"}, {"precision", "8"}})});
  return b.build();
}

// Median seconds of a Session run of `model` on o's input (set once), 1 thread.
double time_model(const std::shared_ptr<const Model>& model, const Operands& o, bool fuse,
                  double budget) {
  SessionOptions opts;
  opts.fuse_clamps = fuse;
  Session s(model, opts);
  s.set_input("data", o.in[0]);
  return time_median([&] { s.run(); }, budget);
}

struct Row {
  const Work* work;
  double scalar = 0;             // seconds, 1 thread
  std::vector<std::string> isa;  // the entries' how (the part of the name after "__")
  std::vector<double> t1, t2;    // seconds per variant at 1 and 2 threads
  double run_op = 0;             // best backend through run_op, 1 thread
  double model = 0, model_unfused = 0;  // layer_model by a Session, 1 thread
};

}  // namespace

int main(int argc, char** argv) {
  bool json = false, quick = false, prepacked = false;
  std::string filter, only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--list") == 0) {
      for (const Work& w : workloads()) {
        auto dims = [](const Shape& s) {
          std::string out;
          for (int d = 0; d < s.ndim(); ++d) out += (d ? "," : "") + std::to_string(s[d]);
          return "[" + out + "]";
        };
        std::printf(
            "{\"name\":\"%s\",\"family\":\"%s\",\"op\":\"%s\",\"x\":%s,\"w\":%s,"
            "\"stride\":%ld,\"pad\":%ld,\"groups\":%ld}\n",
            w.name.c_str(), w.family.c_str(), w.conv ? "conv2d" : "dense", dims(w.x).c_str(),
            dims(w.w).c_str(), static_cast<long>(w.p.stride_h), static_cast<long>(w.p.pad_h),
            static_cast<long>(w.p.groups));
      }
      return 0;
    }
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
    else if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--prepacked") == 0)
      prepacked = true;
    else if (std::strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
      filter = argv[++i];
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
  }
  const double budget = quick ? 0.05 : 0.3;
  const Peak peak = measure_peak();
  const double peak1 = peak.macs_1t, peak2 = peak.macs_2t;
  if (json) {
    std::printf("{\"kind\":\"peak\",\"instruction\":\"%s\",\"gops_1t\":%.1f,\"gops_2t\":%.1f",
                peak.instruction, 2 * peak1 / 1e9, 2 * peak2 / 1e9);
    if (peak.amx_macs_1t > 0) {
      std::printf(",\"amx_gops_1t\":%.1f,\"amx_gops_2t\":%.1f", 2 * peak.amx_macs_1t / 1e9,
                  2 * peak.amx_macs_2t / 1e9);
    }
    std::printf("}\n");
  } else {
    std::printf("int8 MAC peak (%s, this binary): %.0f GOPS on 1 thread, %.0f on 2\n",
                peak.instruction, 2 * peak1 / 1e9, 2 * peak2 / 1e9);
    if (peak.amx_macs_1t > 0) {
      std::printf("AMX tile peak (tdpbssd, this binary): %.0f GOPS on 1 thread, %.0f on 2 "
                  "(the amx rows' %% peak is of this one)\n",
                  2 * peak.amx_macs_1t / 1e9, 2 * peak.amx_macs_2t / 1e9);
    }
  }
  std::vector<const kernel::KernelEntry*> conv_k, dense_k;
  const kernel::KernelEntry* scalar_conv = nullptr;
  const kernel::KernelEntry* scalar_dense = nullptr;
  for (size_t i = 0; i < kernel::kScalarBackend.count; ++i) {
    const kernel::KernelEntry& e = kernel::kScalarBackend.entries[i];
    if (e.dtype != kernel::ElemType::kInt32) continue;  // the float32 ones are another contract
    if (std::strcmp(e.op, "conv2d") == 0) scalar_conv = &e;
    if (std::strcmp(e.op, "dense") == 0) scalar_dense = &e;
  }
#ifdef CVMRT_HAVE_BACKEND_SIMD
  const uint32_t have = kernel::kSimdBackend.cpu_features();
  for (size_t i = 0; i < kernel::kSimdBackend.count; ++i) {
    const kernel::KernelEntry& e = kernel::kSimdBackend.entries[i];
    if ((have & e.required_features) != e.required_features) continue;
    if (e.dtype != kernel::ElemType::kInt32) continue;  // the float32 ones: another contract
    if (std::strcmp(e.op, "conv2d") == 0) conv_k.push_back(&e);
    if (std::strcmp(e.op, "dense") == 0) dense_k.push_back(&e);
  }
#endif
  std::vector<Work> works = workloads();
  std::vector<Row> rows;
  for (const Work& w : works) {
    if (!filter.empty() && w.name.find(filter) == std::string::npos &&
        w.family.find(filter) == std::string::npos) {
      continue;
    }
    Row r;
    r.work = &w;
    Operands o = operands(w);
    set_num_threads(1);
    if (only.empty()) {
      r.scalar = time_median(
          [&] { call_kernel((w.conv ? scalar_conv : scalar_dense)->fn, w, o); },
          quick ? 0.0 : budget);
    }
    for (const kernel::KernelEntry* e : w.conv ? conv_k : dense_k) {
      std::vector<uint8_t> packed;
      if (prepacked) packed = prepack_weight(*e, w, o);
      const void* pp = aligned64(packed);
      for (bool int8 : {false, true}) {
        if (int8 && !e->takes_int8_activations) continue;
        // A kernel timed on a call it declines would time nothing: such a variant has no column.
        const std::string how = cvm::how_of(*e) + (pp ? "+pp" : "") + (int8 ? "+i8" : "");
        if (!only.empty() && how != only) continue;
        if (!call_kernel(e->fn, w, o, pp, int8)) continue;
        r.isa.push_back(how);
        set_num_threads(1);
        r.t1.push_back(time_median([&] { call_kernel(e->fn, w, o, pp, int8); }, budget));
        set_num_threads(2);
        r.t2.push_back(time_median([&] { call_kernel(e->fn, w, o, pp, int8); }, budget));
      }
    }
    set_num_threads(1);
    if (!only.empty()) {
      for (size_t i = 0; i < r.isa.size(); ++i) {
        std::printf("%s %s: 1T %.4f ms, 2T %.4f ms\n", w.name.c_str(), r.isa[i].c_str(),
                    r.t1[i] * 1e3, r.t2[i] * 1e3);
      }
      continue;
    }
    AttrMap attrs;
    if (w.conv) {
      attrs = {
          {"channels", std::to_string(w.w[0])},
          {"kernel_size", "(" + std::to_string(w.w[2]) + ", " + std::to_string(w.w[3]) + ")"},
          {"strides",
           "(" + std::to_string(w.p.stride_h) + ", " + std::to_string(w.p.stride_w) + ")"},
          {"padding", "(" + std::to_string(w.p.pad_h) + ", " + std::to_string(w.p.pad_w) + ")"},
          {"groups", std::to_string(w.p.groups)}};
    } else {
      attrs = {{"units", std::to_string(w.w[0])}};
    }
    const char* op = w.conv ? "conv2d" : "dense";
    r.run_op = time_median([&] { run_op(op, o.in, attrs); }, budget);
    const std::shared_ptr<const Model> model = layer_model(w, o, attrs);
    r.model = time_model(model, o, true, budget);
    r.model_unfused = time_model(model, o, false, budget);
    set_num_threads(0);
    const double gops = 2.0 * w.macs() / 1e9;
    const double best1 = r.t1.empty() ? r.scalar : *std::min_element(r.t1.begin(), r.t1.end());
    if (json) {
      std::printf(
          "{\"kind\":\"%s\",\"family\":\"%s\",\"name\":\"%s\",\"gop\":%.6f,"
          "\"scalar_ms\":%.4f,\"run_op_ms\":%.4f,\"model_ms\":%.4f,\"model_unfused_ms\":%.4f",
          op, w.family.c_str(), w.name.c_str(), gops, r.scalar * 1e3, r.run_op * 1e3,
          r.model * 1e3, r.model_unfused * 1e3);
      for (size_t i = 0; i < r.isa.size(); ++i) {
        std::printf(",\"%s_1t_ms\":%.4f,\"%s_2t_ms\":%.4f", r.isa[i].c_str(), r.t1[i] * 1e3,
                    r.isa[i].c_str(), r.t2[i] * 1e3);
      }
      std::printf("}\n");
    } else {
      std::printf("\n%-9s %-30s %8.1f MOP   scalar %9.3f ms   run_op %8.3f ms\n", w.family.c_str(),
                  w.name.c_str(), gops * 1e3, r.scalar * 1e3, r.run_op * 1e3);
      for (size_t i = 0; i < r.isa.size(); ++i) {
        // AMX entries against the tile peak, the others against the vector one; the AMX
        // entry's depthwise layers run its VNNI path.
        const bool depthwise = w.conv && w.p.groups > 1 && w.p.groups == w.x[1];
        const bool tiles = r.isa[i].compare(0, 3, "amx") == 0 && peak.amx_macs_1t > 0 && !depthwise;
        const double p1 = tiles ? peak.amx_macs_1t : peak1, p2 = tiles ? peak.amx_macs_2t : peak2;
        std::printf(
            "    %-14s 1T %8.3f ms %7.1f GOPS %5.1f%% peak %6.1fx scalar | 2T %8.3f ms "
            "%7.1f GOPS %5.1f%% peak\n",
            r.isa[i].c_str(), r.t1[i] * 1e3, gops / r.t1[i],
            p1 > 0 ? 100 * gops * 1e9 / r.t1[i] / (2 * p1) : 0, r.scalar / r.t1[i],
            r.t2[i] * 1e3, gops / r.t2[i], p2 > 0 ? 100 * gops * 1e9 / r.t2[i] / (2 * p2) : 0);
      }
      std::printf(
          "    model (layer + bias + cvm_right_shift, Session, 1T): %8.3f ms = %.2fx the fastest "
          "kernel | unfused %8.3f ms = %.2fx\n",
          r.model * 1e3, r.model / best1, r.model_unfused * 1e3, r.model_unfused / best1);
    }
    std::fflush(stdout);
    rows.push_back(r);
  }
  return 0;
}
