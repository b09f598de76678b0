// Helpers for tests that call kernels directly: scratch lent the way the op layer lends it, int32
// views, and table lookups.
#pragma once

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_abi.h"
#include "params/nn.h"

namespace cvm {
namespace test {

// Seeded operands for kernel tests: uniform integers, and any int32 with a quarter of the draws
// at the values that make products and sums wrap, plus `edge` (one a suite's paths turn on).
// Each suite adds its own value ranges on top (its Rng).
struct OperandRng {
  explicit OperandRng(uint64_t seed) : gen(seed) {}
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen);
  }
  int32_t any_int32(int32_t edge) {
    const int32_t edges[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, -1, 0, 1, edge};
    return uniform(0, 3) == 0 ? edges[uniform(0, 6)]
                              : static_cast<int32_t>(uniform(INT32_MIN, INT32_MAX));
  }
  std::mt19937_64 gen;
};

// Scratch as the op layer lends it: fresh 64-byte aligned blocks, freed at the end; or none
// (lend = false: every request is refused, as when the op layer cannot lend). Each block is
// poisoned so that a kernel reading scratch it did not write shows up as a mismatch.
class PoisonedScratch {
 public:
  explicit PoisonedScratch(bool lend = true)
      : lend_(lend), scratch_{&PoisonedScratch::acquire, this} {}
  ~PoisonedScratch() {
    for (void* p : blocks_) std::free(p);
  }
  PoisonedScratch(const PoisonedScratch&) = delete;
  PoisonedScratch& operator=(const PoisonedScratch&) = delete;

  const kernel::Scratch* get() const { return &scratch_; }
  // Bytes asked for so far, lent or not.
  int64_t requested() const { return requested_; }

 private:
  static void* acquire(void* ctx, int64_t bytes) {
    auto* self = static_cast<PoisonedScratch*>(ctx);
    self->requested_ += bytes;
    if (!self->lend_) return nullptr;
    void* p = std::aligned_alloc(64, (static_cast<size_t>(bytes) + 63) / 64 * 64);
    if (p == nullptr) return nullptr;
    std::memset(p, 0xA5, static_cast<size_t>(bytes));
    self->blocks_.push_back(p);
    return p;
  }
  bool lend_;
  kernel::Scratch scratch_;
  std::vector<void*> blocks_;
  int64_t requested_ = 0;
};

// An int32 view over `data` with explicit shape and element strides.
inline kernel::TensorView int32_view(int32_t* data, const std::vector<int64_t>& shape,
                                     const std::vector<int64_t>& strides) {
  kernel::TensorView v{};
  v.data = data;
  v.type = kernel::ElemType::kInt32;
  v.ndim = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    v.shape[d] = shape[d];
    v.strides[d] = strides[d];
  }
  return v;
}

// Row-major element strides of `shape`.
inline std::vector<int64_t> compact_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = step;
    step *= shape[d];
  }
  return s;
}

// Output extent of one spatial axis of a convolution (the op layer's formula).
inline int64_t conv_extent(int64_t in, int64_t pad, int64_t dil, int64_t k, int64_t stride) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

// A conv2d case for test messages: x (n, c, h, w), oc output channels, the kernel and p's strides,
// padding and dilation, `groups`.
inline std::string conv_case_text(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc,
                                  int64_t kh, int64_t kw, const kernel::Conv2dParams& p,
                                  int64_t groups) {
  std::ostringstream os;
  os << "conv x (" << n << ", " << c << ", " << h << ", " << w << ") oc " << oc << " kernel "
     << kh << "x" << kw << " stride " << p.stride_h << "," << p.stride_w << " pad " << p.pad_h
     << "," << p.pad_w << " dilation " << p.dilation_h << "," << p.dilation_w << " groups "
     << groups;
  return os.str();
}

// The table's entry for `op` on int32 (or any dtype); nullptr when it has none.
inline const kernel::KernelEntry* find_int32_entry(const kernel::BackendTable& table,
                                                   const std::string& op) {
  for (size_t i = 0; i < table.count; ++i) {
    const kernel::KernelEntry& e = table.entries[i];
    if (op == e.op && (e.dtype == kernel::ElemType::kInt32 || e.dtype == kernel::ElemType::kAny)) {
      return &e;
    }
  }
  return nullptr;
}

// Runs table entry `entry` and the scalar reference of its op on the same inputs, each into its
// own copy of the output storage (garbage, so unwritten outputs show), and requires equal bytes;
// `out` is rebased onto each copy. A call the entry declines must leave the output untouched,
// and the reference then runs it without the entry's packed weight, as a node's chain would.
// Returns whether the entry took the call.
inline bool entry_matches_reference(const kernel::KernelEntry& entry,
                                    const std::vector<kernel::TensorView>& inputs,
                                    kernel::TensorView out, std::vector<int32_t>& storage,
                                    const void* params, const void* prepacked = nullptr) {
  const kernel::KernelEntry* reference = find_int32_entry(kernel::kScalarBackend, entry.op);
  REQUIRE(reference != nullptr);
  const std::vector<int32_t> init = storage;
  const ptrdiff_t offset = static_cast<int32_t*>(out.data) - storage.data();
  const kernel::KernelFn fns[2] = {entry.fn, reference->fn};
  std::vector<int32_t> results[2];
  bool took = true;
  for (int i = 0; i < 2; ++i) {
    storage = init;
    out.data = storage.data() + offset;
    kernel::KernelCall call{};
    call.inputs = inputs.data();
    call.num_inputs = static_cast<int32_t>(inputs.size());
    call.outputs = &out;
    call.num_outputs = 1;
    call.params = params;
    call.prepacked = i == 0 ? prepacked : nullptr;
    const kernel::KernelStatus status = fns[i](call);
    if (i == 0 && status == kernel::KernelStatus::kDeclined) {
      took = false;
      REQUIRE(storage == init);
      call.prepacked = nullptr;
      REQUIRE(fns[1](call) == kernel::KernelStatus::kDone);
    } else {
      REQUIRE(status == kernel::KernelStatus::kDone);
    }
    results[i] = storage;
  }
  REQUIRE(results[0] == results[1]);
  return took;
}

}  // namespace test
}  // namespace cvm
