// Helpers for tests that call kernels directly: scratch lent the way the op layer lends it, int32
// views, and table lookups.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_abi.h"

namespace cvm {
namespace test {

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

}  // namespace test
}  // namespace cvm
