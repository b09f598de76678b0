// Checks shared by the kernel entry tests (fused clamp, int8 activations, padding after the
// input): the scalar reference, the entries of every backend table that apply a clamp or take
// int8 activations (and the emulated AMX kernels), calls with poisoned outputs and prepacked
// weights, and the conv cases they run.
#pragma once

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

namespace cvm {
namespace entry_checks {

using kernel::CvmClampParams;
using kernel::KernelStatus;
using test::random_in;


inline kernel::KernelFn reference(const char* op) {
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
inline NDArray expected(const char* op, const std::vector<NDArray>& inputs, const Shape& ys,
                        const void* params_without_clamp, const CvmClampParams& clamp) {
  NDArray y = NDArray::zeros(ys, DataType::Int(32));
  REQUIRE(call_kernel(reference(op), inputs, y, params_without_clamp) == KernelStatus::kDone);
  NDArray z = NDArray::zeros(ys, DataType::Int(32));
  REQUIRE(call_kernel(reference(clamp.shift > 0 ? "cvm_right_shift" : "clip"), {y}, z, &clamp) ==
          KernelStatus::kDone);
  return z;
}

// The usable entries of `op` that apply the clamp, on every backend table.
inline std::vector<const kernel::KernelEntry*> clamping_entries(const char* op) {
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
inline void check_entry(const kernel::KernelEntry& e, const std::vector<NDArray>& inputs,
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

inline const CvmClampParams kClamps[] = {
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

inline Shape output_shape(const ConvCase& v) {
  const int64_t span = v.dilation * (v.k - 1) + 1;
  return {v.n, v.oc, (v.h + 2 * v.pad - span) / v.stride + 1,
          (v.w + 2 * v.pad - span) / v.stride + 1};
}

inline std::string describe(const ConvCase& v) {
  std::ostringstream s;
  s << "x(" << v.n << "," << v.c << "," << v.h << "," << v.w << ") oc " << v.oc << " k " << v.k
    << " stride " << v.stride << " pad " << v.pad << " dilation " << v.dilation << " groups "
    << v.groups << (v.bias ? " bias" : "");
  return s.str();
}

// body() at 1 and 3 threads, with work split into the smallest tasks; restored afterwards.
template <class Body>
inline void at_thread_counts(Body&& body) {
  const int64_t min_work = threads::min_task_work();
  for (int t : {1, 3}) {
    set_num_threads(t);
    threads::set_min_task_work(1);
    body();
  }
  set_num_threads(0);
  threads::set_min_task_work(min_work);
}

// The entries of `op` that take int8 activations: those of every usable table, and the AMX
// kernels with emulated tiles (not in a table) where AVX-512 VNNI is there to run them.
inline std::vector<kernel::KernelEntry> int8_entries(const char* op) {
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
inline NDArray as_int8(const NDArray& a) {
  NDArray b = cvm::cast(a, DataType::Int(8));
  REQUIRE(test::bit_equal(cvm::cast(b, DataType::Int(32)), a.contiguous()));  // nothing wrapped
  return b;
}

// Whether a clamp's results fit an int8 output.
inline bool fits_int8(const CvmClampParams& c) { return c.lo >= -128 && c.hi <= 127; }

// The clamps of kClamps that fit int8, and the int8 range itself (with and without a shift).
inline std::vector<CvmClampParams> int8_clamps() {
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
inline KernelStatus poisoned_call(kernel::KernelFn fn, const std::vector<NDArray>& inputs,
                                  NDArray& out, const void* params, const void* prepacked) {
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
inline void check_int8_entry(const kernel::KernelEntry& e, const std::vector<NDArray>& in,
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
inline std::vector<NDArray> int8_conv_inputs(const ConvCase& v, uint64_t seed) {
  std::vector<NDArray> in = {random_in({v.n, v.c, v.h, v.w}, -128, 127, seed),
                             random_in({v.oc, v.c / v.groups, v.k, v.k}, -127, 127, seed + 1)};
  if (v.bias) in.push_back(random_in({v.oc}, -50000, 50000, seed + 2));
  return in;
}

// The conv cases of the int8 tests: the paths of the int32 test above, and shapes whose rows
// end in tail lanes (widths not a multiple of 8 or 16, 14 x 14 outputs, output width 1) or
// read int8 rows with strides 2 and 3.
inline const std::vector<ConvCase>& int8_conv_cases() {
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


}  // namespace entry_checks
}  // namespace cvm
