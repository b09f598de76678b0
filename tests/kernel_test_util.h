// Helpers for tests that call kernels directly: scratch lent the way the op layer lends it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
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

}  // namespace test
}  // namespace cvm
