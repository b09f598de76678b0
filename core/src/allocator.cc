// Device allocators: size-class caching pool, counters and limit; the aligned CPU allocator.
#include "cvm/allocator.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "cvm/check.h"
#include "device_runtime.h"

namespace cvm {
namespace {

constexpr size_t kMaxCachedBlock = size_t(64) << 20;   // larger blocks go straight back
constexpr size_t kMaxCachedTotal = size_t(256) << 20;  // cache ceiling per allocator

// Size classes: 64-byte steps up to 4 KiB, 4 KiB steps beyond; a zero request takes 64 bytes.
size_t size_class(size_t nbytes) {
  if (nbytes == 0) return Allocator::kAlignment;
  size_t step = nbytes <= 4096 ? Allocator::kAlignment : 4096;
  CHECK(nbytes <= SIZE_MAX - step) << "allocation of " << nbytes << " bytes is too large";
  return (nbytes + step - 1) / step * step;
}

class CpuAllocator final : public Allocator {
 public:
  CpuAllocator() : Allocator(Device::cpu()) {}

 protected:
  void* raw_allocate(size_t nbytes) override {
    return std::aligned_alloc(kAlignment, nbytes);  // nbytes is a multiple of 64
  }
  void raw_free(void* ptr, size_t) override { std::free(ptr); }
};

// Memory of one device through its backend's runtime (device_abi.h), ordered on the thread's
// current stream. The runtime keeps freed blocks itself (CUDA's stream-ordered pool), and only
// it can tell when a block the GPU may still be using is free to reuse, so this allocator does
// not cache: it counts and limits.
class DeviceAllocator final : public Allocator {
 public:
  DeviceAllocator(Device device, const kernel::DeviceApi* api) : Allocator(device), api_(api) {
    set_caching(false);
  }

 protected:
  void* raw_allocate(size_t nbytes) override {
    return api_->allocate(device().id, nbytes, device::current_stream());
  }
  void raw_free(void* ptr, size_t) override {
    api_->free(device().id, ptr, device::current_stream());
  }

 private:
  const kernel::DeviceApi* api_;
};

constexpr int kMaxDevicesPerType = 64;

}  // namespace

struct Allocator::Pool {
  std::mutex mu;
  std::map<size_t, std::vector<void*>> free_blocks;  // size class -> cached blocks
  AllocatorStats stats;
#ifdef CVMRT_SANITIZER_BUILD
  bool caching = false;  // let AddressSanitizer see every use after free
#else
  bool caching = true;
#endif
};

Allocator::Allocator(Device device) : device_(device), pool_(new Pool) {}

Allocator::~Allocator() {
  release_cache();
  delete pool_;
}

Allocator& Allocator::get(Device device) {
  if (device.is_cpu()) {
    static CpuAllocator* cpu = new CpuAllocator();  // never destroyed: arrays may outlive main()
    return *cpu;
  }
  const kernel::DeviceApi* api = device::require(device);  // LogicError / RuntimeError
  CHECK(device.id < kMaxDevicesPerType) << "device " << device.name() << ": ids past "
                                        << kMaxDevicesPerType - 1 << " are not supported";
  static std::mutex mu;
  static std::map<std::pair<int, int>, Allocator*> devices;  // never destroyed, like cpu
  std::lock_guard<std::mutex> lock(mu);
  Allocator*& a = devices[{static_cast<int>(device.type), device.id}];
  if (a == nullptr) a = new DeviceAllocator(device, api);
  return *a;
}

void* Allocator::allocate(size_t nbytes) {
  size_t cls = size_class(nbytes);
  {
    std::lock_guard<std::mutex> lock(pool_->mu);
    AllocatorStats& s = pool_->stats;
    VERIFY(s.limit == 0 || (cls <= s.limit && s.bytes_in_use <= s.limit - cls))
        << "allocating " << nbytes << " bytes on " << device_.name() << " would exceed the limit of "
        << s.limit << " bytes (" << s.bytes_in_use << " in use)";
    auto it = pool_->free_blocks.find(cls);
    if (it != pool_->free_blocks.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      s.cached_bytes -= cls;
      s.cache_hits++;
      s.total_allocations++;
      s.live_allocations++;
      s.bytes_in_use += cls;
      if (s.bytes_in_use > s.peak_bytes_in_use) s.peak_bytes_in_use = s.bytes_in_use;
      return p;
    }
  }
  void* p = raw_allocate(cls);
  if (p == nullptr) {
    release_cache();  // give cached blocks back and try once more
    p = raw_allocate(cls);
  }
  CHECK(p != nullptr) << "out of memory: allocating " << nbytes << " bytes on " << device_.name();
  std::lock_guard<std::mutex> lock(pool_->mu);
  AllocatorStats& s = pool_->stats;
  s.total_allocations++;
  s.live_allocations++;
  s.bytes_in_use += cls;
  if (s.bytes_in_use > s.peak_bytes_in_use) s.peak_bytes_in_use = s.bytes_in_use;
  return p;
}

void Allocator::free(void* ptr, size_t nbytes) {
  if (ptr == nullptr) return;
  size_t cls = size_class(nbytes);
  {
    std::lock_guard<std::mutex> lock(pool_->mu);
    AllocatorStats& s = pool_->stats;
    s.live_allocations--;
    s.bytes_in_use -= cls;
    if (pool_->caching && cls <= kMaxCachedBlock && s.cached_bytes + cls <= kMaxCachedTotal) {
      pool_->free_blocks[cls].push_back(ptr);
      s.cached_bytes += cls;
      return;
    }
  }
  raw_free(ptr, cls);
}

AllocatorStats Allocator::stats() const {
  std::lock_guard<std::mutex> lock(pool_->mu);
  return pool_->stats;
}

void Allocator::set_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(pool_->mu);
  pool_->stats.limit = bytes;
}

void Allocator::set_caching(bool enabled) {
  {
    std::lock_guard<std::mutex> lock(pool_->mu);
    pool_->caching = enabled;
  }
  if (!enabled) release_cache();
}

void Allocator::release_cache() {
  std::map<size_t, std::vector<void*>> blocks;
  {
    std::lock_guard<std::mutex> lock(pool_->mu);
    blocks.swap(pool_->free_blocks);
    pool_->stats.cached_bytes = 0;
  }
  for (auto& [cls, list] : blocks) {
    for (void* p : list) raw_free(p, cls);
  }
}

void Allocator::reset_peak() {
  std::lock_guard<std::mutex> lock(pool_->mu);
  pool_->stats.peak_bytes_in_use = pool_->stats.bytes_in_use;
}

}  // namespace cvm
