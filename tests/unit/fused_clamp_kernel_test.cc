// Every conv2d / dense / int32 add / sub table entry with KernelEntry::applies_clamp, on every
// backend this build can run, given Conv2dParams::clamp / DenseParams::clamp / the add's params:
// its output equals the scalar reference's op followed by the reference cvm_right_shift (or
// clip) kernel, bit for bit, on every path (narrow, int32, depthwise, Winograd, one-row dense),
// with and without its prepacked weight, at 1 and 3 threads; and a call it declines writes
// nothing. Likewise every
// conv2d entry with applies_channel_scale given Conv2dParams::scale as well, and every entry
// with takes_int8_activations (and the emulated AMX kernels) given int8 activation views; and
// every conv2d entry given zero padding after the input beyond its pad_h / pad_w (a fused pad).
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cvm/array_ops.h"
#include "cvm/threads.h"
#include "kernel_abi.h"
#include "kernel_test_util.h"
#include "kernel_views.h"
#include "params/nn.h"
#include "registry_internal.h"
#include "test_util.h"
#include "thread_pool.h"
#ifdef CVMRT_HAVE_BACKEND_SIMD
#include "simd/gemm_kernels.h"
#endif

using namespace cvm;
using kernel::CvmClampParams;
using kernel::KernelStatus;
using test::random_in;

namespace {

kernel::KernelFn reference(const char* op) {
  const kernel::BackendTable& s = kernel::kScalarBackend;
  for (size_t i = 0; i < s.count; ++i) {
    if (std::strcmp(op, s.entries[i].op) == 0 && s.entries[i].dtype == kernel::ElemType::kInt32) {
      return s.entries[i].fn;
    }
  }
  FAIL("no reference kernel for " << op);
  return nullptr;
}

using test::call_kernel;

// The reference: op without a clamp, then the clamp pass (cvm_right_shift, or clip for shift 0).
NDArray expected(const char* op, const std::vector<NDArray>& inputs, const Shape& ys,
                 const void* params_without_clamp, const CvmClampParams& clamp) {
  NDArray y = NDArray::zeros(ys, DataType::Int(32));
  REQUIRE(call_kernel(reference(op), inputs, y, params_without_clamp) == KernelStatus::kDone);
  NDArray z = NDArray::zeros(ys, DataType::Int(32));
  REQUIRE(call_kernel(reference(clamp.shift > 0 ? "cvm_right_shift" : "clip"), {y}, z, &clamp) ==
          KernelStatus::kDone);
  return z;
}

// The usable entries of `op` that apply the clamp, on every backend table.
std::vector<const kernel::KernelEntry*> clamping_entries(const char* op) {
  std::vector<const kernel::KernelEntry*> found;
  for (const kernel::BackendTable* b : backend_tables()) {
    for (size_t i = 0; i < b->count; ++i) {
      const kernel::KernelEntry& e = b->entries[i];
      if (std::strcmp(e.op, op) == 0 && e.dtype == kernel::ElemType::kInt32 && e.applies_clamp &&
          entry_usable(*b, e)) {
        found.push_back(&e);
      }
    }
  }
  return found;
}

// A weight packed by `e` for `params` at a 64-byte boundary, as a model keeps it; data() null
// when the entry has no packer or declined.
class PackedWeight {
 public:
  PackedWeight(const kernel::KernelEntry& e, const NDArray& w, const void* params) {
    if (e.prepack == nullptr) return;
    const kernel::TensorView view = ops::plain_view(w, const_cast<void*>(w.data()));
    const size_t need = e.prepack(view, params, nullptr, 0);
    if (need == 0) return;
    bytes_.resize(need + 64);
    uint8_t* at = bytes_.data() + (64 - reinterpret_cast<uintptr_t>(bytes_.data()) % 64) % 64;
    if (e.prepack(view, params, at, need) != 0) at_ = at;
  }
  const void* data() const { return at_; }

 private:
  std::vector<uint8_t> bytes_;
  const void* at_ = nullptr;
};

// Runs entry `e` with `params` (its clamp set) with and without its pack of w, and checks each
// result: `want`, or untouched when the entry declined.
void check_entry(const kernel::KernelEntry& e, const std::vector<NDArray>& inputs,
                 const void* params, const NDArray& want) {
  INFO("entry " << e.name << " threads " << num_threads());
  const PackedWeight pack(e, inputs[1], params);
  for (bool prepacked : {false, true}) {
    if (prepacked && pack.data() == nullptr) continue;
    INFO((prepacked ? "prepacked" : "packing its own weight"));
    NDArray got = NDArray::empty(want.shape(), DataType::Int(32));
    std::memset(got.mutable_data(), 0x5A, static_cast<size_t>(got.numel() * 4));
    const NDArray poison = got.copy();
    const void* weight = prepacked ? pack.data() : nullptr;
    if (call_kernel(e.fn, inputs, got, params, weight) == KernelStatus::kDeclined) {
      CHECK(test::bit_equal(got, poison));
      continue;
    }
    CHECK(test::bit_equal(got, want));
  }
}

const CvmClampParams kClamps[] = {
    {3, -127, 127},                              // cvm_right_shift to 8 bits
    {0, 0, std::numeric_limits<int32_t>::max()},  // relu
    {9, -5, 100},                                // shift, then an uneven interval
    {32, -1, 1},                                 // the largest shift
    {1, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()},
};

struct ConvCase {
  int64_t n, c, h, w, oc, k, stride, pad, dilation, groups;
  bool bias;
};

Shape output_shape(const ConvCase& v) {
  const int64_t span = v.dilation * (v.k - 1) + 1;
  return {v.n, v.oc, (v.h + 2 * v.pad - span) / v.stride + 1,
          (v.w + 2 * v.pad - span) / v.stride + 1};
}

std::string describe(const ConvCase& v) {
  std::ostringstream s;
  s << "x(" << v.n << "," << v.c << "," << v.h << "," << v.w << ") oc " << v.oc << " k " << v.k
    << " stride " << v.stride << " pad " << v.pad << " dilation " << v.dilation << " groups "
    << v.groups << (v.bias ? " bias" : "");
  return s.str();
}

// body() at 1 and 3 threads, with work split into the smallest tasks; restored afterwards.
template <class Body>
void at_thread_counts(Body&& body) {
  const int64_t min_work = threads::min_task_work();
  for (int t : {1, 3}) {
    set_num_threads(t);
    threads::set_min_task_work(1);
    body();
  }
  set_num_threads(0);
  threads::set_min_task_work(min_work);
}

}  // namespace

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
  auto check = [&](const ConvCase& v, const std::vector<NDArray>& in, const int32_t* m) {
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
      check(v, in, static_cast<const int32_t*>(mult.data()));
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

// ---- int8 activation views (KernelEntry::takes_int8_activations) ----

namespace {

// The entries of `op` that take int8 activations: those of every usable table, and the AMX
// kernels with emulated tiles (not in a table) where AVX-512 VNNI is there to run them.
std::vector<kernel::KernelEntry> int8_entries(const char* op) {
  std::vector<kernel::KernelEntry> found;
  for (const kernel::KernelEntry* e : clamping_entries(op)) {
    if (e->takes_int8_activations) found.push_back(*e);
  }
#ifdef CVMRT_HAVE_BACKEND_SIMD
  const uint32_t vnni = kernel::kCpuAvx512f | kernel::kCpuAvx512bw | kernel::kCpuAvx512vnni;
  if ((test::simd_testable_features() & vnni) == vnni) {
    namespace s = kernel::simd;
    const bool conv = std::strcmp(op, "conv2d") == 0;
    kernel::KernelEntry emulated{};
    emulated.name = conv ? "conv2d_i8i32__amx_emulated" : "dense_i8i32__amx_emulated";
    emulated.op = op;
    emulated.dtype = kernel::ElemType::kInt32;
    emulated.fn = conv ? s::conv2d_i8i32__amx_emulated : s::dense_i8i32__amx_emulated;
    emulated.prepack =
        conv ? s::conv2d_i8i32__amx_emulated_prepack : s::dense_i8i32__amx_emulated_prepack;
    emulated.applies_clamp = true;
    emulated.applies_channel_scale = conv;
    emulated.takes_int8_activations = true;
    found.push_back(emulated);
  }
#endif
  return found;
}

// `a` (int32 values within [-128, 127]) as an int8 array of the same shape.
NDArray as_int8(const NDArray& a) {
  NDArray b = cvm::cast(a, DataType::Int(8));
  REQUIRE(test::bit_equal(cvm::cast(b, DataType::Int(32)), a.contiguous()));  // nothing wrapped
  return b;
}

// Whether a clamp's results fit an int8 output.
bool fits_int8(const CvmClampParams& c) { return c.lo >= -128 && c.hi <= 127; }

// The clamps of kClamps that fit int8, and the int8 range itself (with and without a shift).
std::vector<CvmClampParams> int8_clamps() {
  std::vector<CvmClampParams> found;
  for (const CvmClampParams& c : kClamps) {
    if (fits_int8(c)) found.push_back(c);
  }
  found.push_back({0, -128, 127});
  found.push_back({6, -128, 127});
  return found;
}

// Runs `fn` on (inputs -> out) with `params`, `out` poisoned first; returns the status and
// requires an untouched output when declined.
KernelStatus poisoned_call(kernel::KernelFn fn, const std::vector<NDArray>& inputs, NDArray& out,
                           const void* params, const void* prepacked) {
  std::memset(out.mutable_data(), 0x5A, out.nbytes());
  const NDArray poison = out.copy();
  const KernelStatus status = call_kernel(fn, inputs, out, params, prepacked);
  if (status == KernelStatus::kDeclined) CHECK(test::bit_equal(out, poison));
  return status;
}

// Entry `e` on int32 `in` (x within [-128, 127]) with `params` (its clamp fits int8, or
// `clamp_fits` is false), with and without its prepacked weight: the int32 call, then int8 x
// with an int32 output, int32 x with an int8 output and both int8. Each int8 call must be taken
// exactly when the int32 one is and equal its result (narrowed for an int8 output); with an int8
// output and a clamp that does not fit, it must decline and write nothing.
void check_int8_entry(const kernel::KernelEntry& e, const std::vector<NDArray>& in,
                      const void* params, bool clamp_fits, const NDArray& want) {
  INFO("entry " << e.name << " threads " << num_threads());
  const PackedWeight pack(e, in[1], params);
  std::vector<NDArray> in8 = in;
  in8[0] = as_int8(in[0]);
  NDArray want8 = want;
  if (clamp_fits) want8 = as_int8(want);
  for (bool prepacked : {false, true}) {
    if (prepacked && pack.data() == nullptr) continue;
    INFO((prepacked ? "prepacked" : "packing its own weight"));
    const void* weight = prepacked ? pack.data() : nullptr;
    NDArray got32 = NDArray::empty(want.shape(), DataType::Int(32));
    const KernelStatus status = poisoned_call(e.fn, in, got32, params, weight);
    if (status == KernelStatus::kDone) CHECK(test::bit_equal(got32, want));
    for (bool x8 : {false, true}) {
      for (bool y8 : {false, true}) {
        if (!x8 && !y8) continue;
        INFO("x " << (x8 ? "int8" : "int32") << ", y " << (y8 ? "int8" : "int32"));
        NDArray got = NDArray::empty(want.shape(), y8 ? DataType::Int(8) : DataType::Int(32));
        const KernelStatus s = poisoned_call(e.fn, x8 ? in8 : in, got, params, weight);
        if (y8 && !clamp_fits) {
          CHECK(s == KernelStatus::kDeclined);
          continue;
        }
        CHECK(s == status);
        if (s == KernelStatus::kDone) CHECK(test::bit_equal(got, y8 ? want8 : want));
      }
    }
  }
}

// int8-range x (-128 included) and int8-range weights for a conv case.
std::vector<NDArray> int8_conv_inputs(const ConvCase& v, uint64_t seed) {
  std::vector<NDArray> in = {random_in({v.n, v.c, v.h, v.w}, -128, 127, seed),
                             random_in({v.oc, v.c / v.groups, v.k, v.k}, -127, 127, seed + 1)};
  if (v.bias) in.push_back(random_in({v.oc}, -50000, 50000, seed + 2));
  return in;
}

// The conv cases of the int8 tests: the paths of the int32 test above, and shapes whose rows
// end in tail lanes (widths not a multiple of 8 or 16, 14 x 14 outputs, output width 1) or
// read int8 rows with strides 2 and 3.
const std::vector<ConvCase>& int8_conv_cases() {
  static const std::vector<ConvCase> cases = {
      // n  c   h   w  oc k  s  p  d  g   bias
      {1, 3, 9, 11, 5, 3, 1, 1, 1, 1, true},      // 3x3, few channels
      {1, 16, 10, 14, 16, 3, 1, 1, 1, 1, true},   // 3x3 stride 1
      {2, 8, 13, 17, 20, 3, 2, 1, 1, 1, false},   // 3x3 stride 2, batch 2
      {1, 64, 7, 9, 70, 1, 1, 0, 1, 1, true},     // pointwise, tile remainders
      {1, 27, 13, 11, 20, 1, 2, 0, 1, 1, false},  // 1x1 stride 2, odd sizes
      {1, 3, 30, 30, 64, 7, 2, 3, 1, 1, true},    // a stem
      {1, 32, 14, 14, 40, 1, 1, 0, 1, 1, true},   // 1x1 on 14 x 14: vectors span output rows
      {1, 8, 9, 1, 12, 3, 1, 1, 1, 1, false},     // output width 1
      {1, 8, 11, 19, 16, 3, 3, 1, 1, 1, true},    // stride 3: strided int8 rows
      {1, 6, 9, 21, 18, 2, 1, 0, 2, 1, true},     // dilated 2x2, width 19
      {1, 16, 12, 30, 16, 3, 1, 1, 1, 16, true},  // depthwise, channels in lanes
      {1, 16, 6, 40, 16, 3, 1, 1, 1, 16, true},   // depthwise, output columns in lanes
      {1, 20, 5, 37, 20, 3, 1, 1, 1, 20, false},  // depthwise columns, width 37
      {1, 16, 6, 75, 16, 3, 2, 1, 1, 16, true},   // depthwise columns, stride 2
      {1, 8, 6, 40, 8, 5, 1, 2, 1, 8, true},      // depthwise 5x5 columns (int16 pairs)
      {1, 5, 5, 70, 5, 5, 2, 2, 1, 5, false},     // depthwise 5x5 stride 2, few channels
      {1, 24, 9, 9, 24, 3, 2, 1, 1, 24, false},   // depthwise stride 2
      {1, 18, 7, 1, 18, 3, 1, 1, 1, 18, true},    // depthwise, output width 1
      {1, 16, 11, 23, 16, 3, 3, 1, 1, 16, true},  // depthwise stride 3
      {1, 16, 12, 12, 16, 3, 1, 1, 3, 16, true},  // depthwise dilated
      {3, 12, 6, 6, 48, 2, 2, 0, 1, 3, true},     // groups 3
      {1, 8, 7, 7, 8, 3, 1, 1, 1, 2, true},       // grouped, few outputs a group
      {1, 4, 5, 150, 4, 3, 1, 1, 1, 4, true},     // depthwise quads: 3 groups of 64, a tail
      {1, 6, 9, 133, 6, 3, 2, 1, 1, 6, false},    // depthwise quads stride 2: groups of 32
      {1, 3, 6, 203, 3, 3, 4, 2, 1, 3, true},     // depthwise quads stride 4, padding 2
      {1, 5, 8, 70, 5, 5, 1, 2, 1, 5, true},      // depthwise quads 5x5: two per kernel row
      {1, 6, 9, 20, 6, 3, 1, 1, 1, 6, true},      // depthwise quads, flat rows: 3x3
      {1, 4, 10, 24, 4, 5, 1, 2, 1, 4, false},    // depthwise quads, flat rows: 5x5
      {1, 20, 7, 56, 20, 3, 2, 1, 1, 20, true},   // depthwise quads stride 2: 28 of 32 outputs
      {1, 17, 5, 40, 17, 3, 4, 1, 1, 17, false},  // depthwise quads stride 4: 10 of 16 outputs
      {1, 32, 14, 14, 32, 3, 1, 1, 1, 32, true},  // channel quads: 14 x 14, two blocks
      {2, 21, 7, 7, 21, 3, 1, 1, 1, 21, false},   // channel quads: 7 x 7, batch 2, 5 of 16
      {1, 40, 28, 28, 40, 3, 2, 1, 1, 40, true},  // channel quads stride 2: 28 -> 14
      {1, 17, 9, 13, 17, 5, 1, 2, 1, 17, true},   // channel quads 5x5: two per kernel row
      {1, 16, 13, 26, 16, 3, 4, 1, 1, 16, false}, // channel quads stride 4: 7 outputs a row
      {1, 3, 8, 10, 3, 3, 1, 1, 1, 3, true},      // channel quads, 3 of 16 channels
  };
  return cases;
}

}  // namespace

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

TEST_CASE("fused clamp: an int8 output without a clamp that fits it, or with a scale, declines",
          "[kernels][fusion]") {
  const ConvCase v{1, 16, 10, 14, 16, 3, 1, 1, 1, 1, true};
  const std::vector<NDArray> in = int8_conv_inputs(v, 2100);
  const std::vector<NDArray> in8 = {as_int8(in[0]), in[1], in[2]};
  const CvmClampParams fits{3, -127, 127};
  const CvmClampParams wide_lo{3, -129, 127}, wide_hi{3, -128, 128};
  NDArray mult = random_in({v.oc}, -3, 3, 2103);
  const kernel::ChannelScale scale{static_cast<const int32_t*>(mult.data()), fits};
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

// ---- padding after the input from the output extent (a pad fused into the conv) ----

namespace {

// Every usable int32 conv2d entry: the tables' (the scalar reference's included) and the
// emulated AMX kernel.
std::vector<kernel::KernelEntry> conv2d_entries() {
  std::vector<kernel::KernelEntry> found;
  std::vector<const kernel::BackendTable*> tables = backend_tables();
  tables.push_back(&kernel::kScalarBackend);
  for (const kernel::BackendTable* b : tables) {
    for (size_t i = 0; i < b->count; ++i) {
      const kernel::KernelEntry& e = b->entries[i];
      if (std::strcmp(e.op, "conv2d") == 0 && e.dtype == kernel::ElemType::kInt32 &&
          entry_usable(*b, e)) {
        found.push_back(e);
      }
    }
  }
  for (const kernel::KernelEntry& e : int8_entries("conv2d")) {
    if (std::strstr(e.name, "emulated") != nullptr) found.push_back(e);
  }
  return found;
}

// x (n, c, h, w) with `top` / `left` zero rows / columns before it and `bottom` / `right` after.
NDArray zero_padded(const NDArray& x, int64_t top, int64_t left, int64_t bottom, int64_t right) {
  const Shape& s = x.shape();
  NDArray p = NDArray::zeros({s[0], s[1], s[2] + top + bottom, s[3] + left + right},
                             DataType::Int(32));
  p.slice(2, top, top + s[2]).slice(3, left, left + s[3]).copy_from(x);
  return p;
}

}  // namespace

TEST_CASE("conv2d entries: zero padding after the input as far as the output's windows reach",
          "[kernels][fusion]") {
  // Conv2dParams pads pad_h rows before the input and, after it, as many as the output extent
  // needs (at least pad_h): a session that fuses TensorFlow's "SAME" padding of a stride-2
  // convolution (one row after, none before) into the conv makes such calls. The truth: the
  // reference on x padded explicitly, with no padding of its own.
  struct Case {
    int64_t n, c, h, w, oc, k, stride, top, left, bottom, right, groups;
    bool bias;
  };
  const Case cases[] = {
      // n  c   h    w   oc k  s  t  l  b  r  g   bias
      {1, 24, 64, 64, 24, 3, 2, 0, 0, 1, 1, 24, true},   // depthwise quads, "SAME" stride 2
      {1, 24, 32, 32, 24, 5, 2, 1, 1, 2, 2, 24, false},  // depthwise 5x5, "SAME" stride 2
      {1, 48, 16, 16, 48, 5, 2, 1, 1, 2, 2, 48, true},   // depthwise, channels in lanes
      {1, 96, 8, 8, 96, 3, 2, 0, 0, 1, 1, 96, true},     // depthwise, 4 x 4 outputs
      {1, 8, 6, 75, 8, 3, 2, 0, 1, 1, 2, 8, false},      // depthwise, output columns in lanes
      {1, 6, 9, 20, 6, 3, 1, 0, 0, 2, 2, 6, true},       // depthwise quads, flat rows
      {1, 3, 34, 34, 24, 5, 2, 1, 1, 2, 2, 1, true},     // a stem, "SAME" stride 2
      {2, 16, 14, 14, 32, 3, 2, 0, 0, 1, 1, 1, false},   // 3x3 stride 2, batch 2
      {1, 8, 10, 12, 16, 3, 1, 1, 0, 2, 3, 1, true},     // stride 1, more after than before
      {1, 16, 10, 10, 16, 1, 2, 0, 0, 1, 1, 1, true},    // 1x1: a last output row of padding
      {1, 12, 7, 7, 24, 3, 1, 0, 0, 1, 1, 3, true},      // groups 3
  };
  const std::vector<kernel::KernelEntry> entries = conv2d_entries();
  const std::vector<kernel::KernelEntry> int8 = int8_entries("conv2d");
  const CvmClampParams clamp{3, -127, 127};
  uint64_t seed = 1500;
  for (const Case& v : cases) {
    INFO("x(" << v.n << "," << v.c << "," << v.h << "," << v.w << ") oc " << v.oc << " k " << v.k
              << " stride " << v.stride << " padding " << v.top << " " << v.left << " before, "
              << v.bottom << " " << v.right << " after, groups " << v.groups);
    std::vector<NDArray> in = {random_in({v.n, v.c, v.h, v.w}, -128, 127, ++seed),
                               random_in({v.oc, v.c / v.groups, v.k, v.k}, -127, 127, ++seed)};
    if (v.bias) in.push_back(random_in({v.oc}, -50000, 50000, ++seed));
    std::vector<NDArray> padded_in = in;
    padded_in[0] = zero_padded(in[0], v.top, v.left, v.bottom, v.right);
    const Shape ys = {v.n, v.oc, (padded_in[0].shape()[2] - v.k) / v.stride + 1,
                      (padded_in[0].shape()[3] - v.k) / v.stride + 1};
    REQUIRE(ys[2] > (v.h + 2 * v.top - v.k) / v.stride + 1);  // beyond symmetric padding
    const kernel::Conv2dParams unpadded{v.stride, v.stride, 0, 0, 1, 1, v.groups, nullptr};
    NDArray want = NDArray::zeros(ys, DataType::Int(32));
    REQUIRE(call_kernel(reference("conv2d"), padded_in, want, &unpadded) == KernelStatus::kDone);
    const NDArray want_clamped = expected("conv2d", padded_in, ys, &unpadded, clamp);
    kernel::Conv2dParams p{v.stride, v.stride, v.top, v.left, 1, 1, v.groups, nullptr};
    at_thread_counts([&] {
      for (const kernel::KernelEntry& e : entries) {
        test::PoisonedScratch scratch;
        p.scratch = scratch.get();
        check_entry(e, in, &p, want);
      }
      for (const kernel::KernelEntry& e : int8) {
        test::PoisonedScratch scratch;
        p.scratch = scratch.get();
        p.clamp = &clamp;
        check_int8_entry(e, in, &p, true, want_clamped);
        p.clamp = nullptr;
      }
    });
  }
}
