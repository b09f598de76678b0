// Allocator: 64-byte aligned device memory with a caching pool, usage counters and a limit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cvm/device.h"
#include "cvm/export.h"

namespace cvm {

// Every number is in bytes except the counts. Sizes are rounded up to the pool's size classes,
// so bytes_in_use may exceed the sum of requested sizes.
struct AllocatorStats {
  size_t bytes_in_use = 0;       // handed out and not yet freed
  size_t peak_bytes_in_use = 0;  // highest bytes_in_use since creation or reset_peak()
  size_t live_allocations = 0;   // blocks handed out and not yet freed
  size_t cached_bytes = 0;       // freed blocks kept for reuse
  uint64_t total_allocations = 0;
  uint64_t cache_hits = 0;
  size_t limit = 0;  // 0: no limit
};

// Thread-safe. One instance per device, owned by the library (`Allocator::get`).
class CVM_EXPORT Allocator {
 public:
  static constexpr size_t kAlignment = 64;

  virtual ~Allocator();

  // The process-wide allocator of a device; LogicError for a device this build cannot use.
  static Allocator& get(Device device);
  static Allocator& cpu() { return get(Device::cpu()); }

  // At least `nbytes` bytes aligned to kAlignment (a zero request still returns a unique block).
  // LogicError *before* allocating when the limit would be exceeded; RuntimeError when the
  // device is out of memory.
  void* allocate(size_t nbytes);
  // Returns a block from allocate(); `nbytes` must be the size that was asked for.
  void free(void* ptr, size_t nbytes);

  AllocatorStats stats() const;
  // Largest bytes_in_use allowed (0 = unlimited). Does not affect blocks already handed out.
  void set_limit(size_t bytes);
  // Whether freed blocks are kept for reuse; turning it off releases the cache.
  void set_caching(bool enabled);
  // Gives every cached block back to the device.
  void release_cache();
  void reset_peak();

  Device device() const { return device_; }

 protected:
  explicit Allocator(Device device);
  virtual void* raw_allocate(size_t nbytes) = 0;  // null on failure
  virtual void raw_free(void* ptr, size_t nbytes) = 0;

 private:
  struct Pool;
  Device device_;
  Pool* pool_;
};

}  // namespace cvm
