// Shared by the portable backend's test files (portable_backend_test.cc, portable_winograd_test.cc):
// its kernel entries by name, seeded operands in the value ranges its lanes care about, and the
// calls compared bit for bit with the scalar reference, with and without the weights its packers
// made.
#pragma once

#ifdef CVMRT_HAVE_BACKEND_PORTABLE

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cvm/registry.h"
#include "kernel_abi.h"
#include "kernel_test_util.h"
#include "params/nn.h"

namespace cvm {
namespace portable_test {

using kernel::ElemType;
using kernel::KernelCall;
using kernel::KernelFn;
using kernel::KernelStatus;
using kernel::TensorView;

// The entry of `table` that `key` names: an entry name ("conv2d_i32__portable_winograd"), or an
// op, meaning its general int32 entry (in the portable table "<op>_i32__portable": conv2d's
// Winograd entry comes first and takes only 3x3 stride-1 layers).
inline const kernel::KernelEntry& entry_of(const kernel::BackendTable& table, const std::string& key) {
  const std::string name = key.find("__") != std::string::npos ? key
                            : &table == &kernel::kPortableBackend ? key + "_i32__portable"
                                                                  : std::string();
  const kernel::KernelEntry* e = nullptr;
  for (size_t i = 0; i < table.count && e == nullptr && !name.empty(); ++i) {
    if (table.entries[i].name == name) e = &table.entries[i];
  }
  if (name.empty()) e = test::find_int32_entry(table, key);
  if (e == nullptr) FAIL("no int32 kernel " << key << " in backend " << table.name);
  return *e;
}

inline KernelFn table_kernel(const kernel::BackendTable& table, const std::string& key) {
  return entry_of(table, key).fn;
}

inline constexpr auto view = test::int32_view;
inline constexpr auto compact = test::compact_strides;

// Value ranges: int8 (the pair lanes), its bounds only (products of (-128)^2), int8 but for a
// few values just outside, and any int32 (sums that wrap).
enum class Range { kInt8, kInt8Edges, kNearInt8, kInt32 };

struct Rng : test::OperandRng {
  using OperandRng::OperandRng;
  int32_t value(Range r) {
    switch (r) {
      case Range::kInt8:
        return static_cast<int32_t>(uniform(-128, 127));
      case Range::kInt8Edges:
        return uniform(0, 3) == 0 ? 127 : -128;
      case Range::kNearInt8:
        return uniform(0, 50) == 0 ? (uniform(0, 1) == 0 ? 128 : -129)
                                   : static_cast<int32_t>(uniform(-128, 127));
      case Range::kInt32:
        break;
    }
    return any_int32(65536);
  }
  Range range() { return static_cast<Range>(uniform(0, 3)); }
  std::vector<int32_t> values(int64_t n, Range r) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int32_t& x : v) x = value(r);
    return v;
  }
};

// The portable entry of `op` (an op or an entry name: entry_of) against the scalar reference
// (test::entry_matches_reference); whether the portable kernel took the call.
inline bool same_as_reference(const std::string& op, const std::vector<TensorView>& inputs,
                              TensorView out, std::vector<int32_t>& storage, const void* params,
                              const void* prepacked = nullptr) {
  return test::entry_matches_reference(entry_of(kernel::kPortableBackend, op), inputs, out,
                                       storage, params, prepacked);
}

// A weight packed by the portable entry of `op` (params as a call passes them; their scratch
// unused), 64-byte aligned; null when the packer declines. A cap one byte short writes nothing.
struct Pack {
  std::shared_ptr<void> data;
  size_t bytes = 0;
  const void* get() const { return data.get(); }
};

inline Pack make_pack(const std::string& op, const TensorView& w, const void* params) {
  const kernel::KernelEntry* e = &entry_of(kernel::kPortableBackend, op);
  REQUIRE(e->prepack != nullptr);
  Pack pack;
  const size_t bytes = e->prepack(w, params, nullptr, 0);
  if (bytes == 0) return pack;
  REQUIRE(bytes % 8 == 0);
  void* d = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  REQUIRE(d != nullptr);
  pack.data.reset(d, [](void* q) { std::free(q); });
  std::memset(d, 0xA5, bytes);
  const std::vector<unsigned char> poison(static_cast<const unsigned char*>(d),
                                          static_cast<const unsigned char*>(d) + bytes);
  REQUIRE(e->prepack(w, params, d, bytes - 1) == bytes);  // too small: sized, not written
  REQUIRE(std::memcmp(d, poison.data(), bytes) == 0);
  REQUIRE(e->prepack(w, params, d, bytes) == bytes);
  pack.bytes = bytes;
  return pack;
}

inline bool all_int8(const std::vector<int32_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int32_t a) { return a >= -128 && a <= 127; });
}

struct Conv {
  int64_t n, c, h, w, oc, kh, kw;
  kernel::Conv2dParams p;
  bool bias;
};

inline constexpr auto extent = test::conv_extent;

// Conv k on x and w of range r (bias any int32), with scratch lent; returns whether the
// portable kernel took it. pitch_extra > 0: x rows with a padded pitch. prepack: also with the
// weight its packer made (which declines exactly for out-of-int8 and depthwise weights); x of
// range rx when given; the packed call's part of the result in *packed_took when given. entry:
// the portable conv2d entry called (entry_of).
inline bool check_conv(Rng& rng, const Conv& k, Range r, int64_t pitch_extra = 0, bool prepack = false,
                const Range* rx = nullptr, const std::string& entry = "conv2d",
                bool* packed_took = nullptr) {
  const int64_t oh = extent(k.h, k.p.pad_h, k.p.dilation_h, k.kh, k.p.stride_h);
  const int64_t ow = extent(k.w, k.p.pad_w, k.p.dilation_w, k.kw, k.p.stride_w);
  REQUIRE(oh > 0);
  REQUIRE(ow > 0);
  const int64_t gc = k.c / k.p.groups, pitch = k.w + pitch_extra;
  std::vector<int32_t> x = rng.values(k.n * k.c * k.h * pitch, rx != nullptr ? *rx : r);
  std::vector<int32_t> w = rng.values(k.oc * gc * k.kh * k.kw, r);
  std::vector<int32_t> b = rng.values(k.oc, Range::kInt32);
  std::vector<int32_t> y = rng.values(k.n * k.oc * oh * ow, Range::kInt32);
  std::vector<TensorView> in = {
      view(x.data(), {k.n, k.c, k.h, k.w}, {k.c * k.h * pitch, k.h * pitch, pitch, 1}),
      view(w.data(), {k.oc, gc, k.kh, k.kw}, compact({k.oc, gc, k.kh, k.kw}))};
  if (k.bias) in.push_back(view(b.data(), {k.oc}, {1}));
  INFO(test::conv_case_text(k.n, k.c, k.h, k.w, k.oc, k.kh, k.kw, k.p, k.p.groups)
       << " bias " << k.bias << " range " << static_cast<int>(r));
  test::PoisonedScratch scratch;
  kernel::Conv2dParams p = k.p;
  p.scratch = scratch.get();
  const TensorView out = view(y.data(), {k.n, k.oc, oh, ow}, compact({k.n, k.oc, oh, ow}));
  if (!prepack) return same_as_reference(entry, in, out, y, &p);
  kernel::Conv2dParams pack_params = k.p;  // as the op layer packs: no scratch
  const Pack pack = make_pack(entry, in[1], &pack_params);
  const bool depthwise = gc == 1 && k.p.groups > 1;
  INFO("packed " << pack.bytes << " bytes");
  CHECK((pack.bytes > 0) == (all_int8(w) && !depthwise));
  const std::vector<int32_t> y0 = y;
  const bool took = same_as_reference(entry, in, out, y, &p, pack.get());
  if (packed_took != nullptr) *packed_took = took;
  std::vector<int32_t> y_unpacked = y0;
  const bool took_unpacked = same_as_reference(
      entry, in, view(y_unpacked.data(), {k.n, k.oc, oh, ow}, compact({k.n, k.oc, oh, ow})),
      y_unpacked, &p);
  CHECK(y == y_unpacked);
  return took && took_unpacked;
}

}  // namespace portable_test
}  // namespace cvm

#endif  // CVMRT_HAVE_BACKEND_PORTABLE
