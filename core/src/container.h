// Internal layout behind NDArray and the C ABI handles: Container (a DLTensor first), Storage
// (shared by views) and Buffer (memory, shared by lazy copies).
#pragma once

#include <dlpack/dlpack.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

#include "cvm/allocator.h"
#include "cvm/dtype.h"
#include "cvm/ndarray.h"
#include "cvm/shape.h"

namespace cvm {
namespace detail {

// Memory: owned through an Allocator, or external and kept alive by `keepalive`.
// Shared by the Storages of an array and its lazy copies.
struct Buffer {
  std::atomic<int> refs{1};
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  bool read_only = false;
  // Set once the memory has been handed to a DLPack consumer: a lazy copy must never take it
  // over (the consumer keeps reading and writing it), so copies of exported buffers are eager.
  std::atomic<bool> exported{false};
  Allocator* allocator = nullptr;         // set when the buffer owns `data`
  std::shared_ptr<const void> keepalive;  // set for external memory

  static Buffer* allocate(size_t nbytes, Device device);
  static Buffer* external(void* data, size_t nbytes, Device device,
                          std::shared_ptr<const void> keepalive, bool read_only);
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release();

 private:
  Buffer() = default;
  ~Buffer();
};

// What views of one array share: the current buffer. Writing through any view first gives the
// Storage a private buffer when the current one is shared with a lazy copy or read-only.
struct Storage {
  std::atomic<int> refs{1};
  std::mutex mu;
  std::atomic<Buffer*> buffer{nullptr};
  // A read-only buffer replaced by a private copy while other views shared this Storage: kept
  // until the Storage dies, because those views' C handles may still show its address in
  // dl.data until their next refresh (reading it then gives the old values, never freed
  // memory). Only read-only buffers are kept: at most one per Storage, and not allocator
  // memory (a mapping or a producer's DLPack tensor).
  Buffer* retired = nullptr;

  explicit Storage(Buffer* b) { buffer.store(b); }
  ~Storage() {
    buffer.load()->release();
    if (retired != nullptr) retired->release();
  }
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // The buffer, made private to this Storage first (copying its bytes if needed).
  Buffer* writable_buffer();
};

// Whether (shape, strides) address the elements in compact row-major order: every dim of
// extent above 1 has the row-major stride, or the array has no elements.
bool is_row_major(const Shape& shape, const Shape& strides);

// One array: the DLTensor (first member: a Container* is a valid DLTensor*), its shape and
// strides, and where element [0, ...] sits in the shared storage.
struct Container {
  mutable DLTensor dl;  // data refreshed on every access through the API
  std::atomic<int32_t> refs{1};
  Storage* storage = nullptr;
  size_t offset_bytes = 0;  // element [0, ...] relative to the buffer start
  Shape shape;
  Shape strides;  // elements
  DataType dtype;

  // Takes over one reference to `storage`.
  Container(Storage* storage, size_t offset_bytes, Shape shape, Shape strides, DataType dtype);
  ~Container() { storage->release(); }
  Container(const Container&) = delete;
  Container& operator=(const Container&) = delete;

  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // Points dl.data at element [0, ...] of the storage's current buffer; returns it.
  void* refresh() const;
};


}  // namespace detail
}  // namespace cvm
