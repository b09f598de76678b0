// Every conv2d entry (the tables', the scalar reference's and the emulated AMX kernel) given
// zero padding after the input beyond its pad_h / pad_w, as a pad fused into the conv makes:
// its output equals the reference on the input padded explicitly, int32 and int8 alike.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <vector>

#include "entry_checks.h"

using namespace cvm;
using namespace cvm::entry_checks;

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
