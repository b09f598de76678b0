// NDArray: a refcounted handle to an n-d tensor whose Container starts with a DLPack DLTensor.
//
// Views (reshape, permute, slice, broadcast_to, squeeze, expand_dims) share storage, and writes
// through one are seen by all. `copy()` is lazy: the copy shares memory until either side asks
// for mutable data, then the writer gets its own buffer. Handles are cheap to copy; a handle is
// not itself synchronised, but different handles to one array may be used from different
// threads for reading.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cvm/device.h"
#include "cvm/dtype.h"
#include "cvm/export.h"
#include "cvm/shape.h"

namespace cvm {

namespace detail {
struct Container;
}  // namespace detail

class CVM_EXPORT NDArray {
 public:
  NDArray() = default;
  NDArray(const NDArray& o);
  NDArray(NDArray&& o) noexcept : c_(o.c_) { o.c_ = nullptr; }
  NDArray& operator=(const NDArray& o);
  NDArray& operator=(NDArray&& o) noexcept;
  ~NDArray();

  // ---- creation ----
  // Uninitialised contiguous array from the device's allocator.
  static NDArray empty(const Shape& shape, DataType dtype, Device device = Device::cpu());
  static NDArray zeros(const Shape& shape, DataType dtype, Device device = Device::cpu());
  // Copies `nbytes` (must equal numel * dtype.bytes()) from host memory into a new CPU array.
  static NDArray from_bytes(const void* bytes, size_t nbytes, const Shape& shape, DataType dtype);
  // Wraps memory the caller owns: no copy. `keepalive` is held until the last view is gone.
  // `read_only` arrays copy themselves on the first mutable_data(). Memory that is not aligned
  // to the element size is copied into an aligned buffer instead of being wrapped.
  static NDArray from_external(void* data, const Shape& shape, DataType dtype, Device device,
                               std::shared_ptr<const void> keepalive, bool read_only,
                               const Shape* strides = nullptr);

  // ---- properties ----
  bool defined() const { return c_ != nullptr; }
  const Shape& shape() const;
  const Shape& strides() const;  // in elements
  int ndim() const { return shape().ndim(); }
  int64_t numel() const { return shape().numel(); }
  DataType dtype() const;
  Device device() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype().bytes(); }
  bool is_contiguous() const;
  bool is_read_only() const;
  // Number of handles (NDArray or C handles) to this array's container.
  int use_count() const;
  // True when both arrays use the same memory right now (views, or a copy not yet written).
  bool shares_memory_with(const NDArray& other) const;

  // Address of element [0, ...] for reading. Valid until the array, or a view or lazy copy of
  // it, is next written through mutable_data().
  const void* data() const;
  // Address of element [0, ...] for writing: first gives this array (and its views) a private
  // buffer if the memory is shared with a lazy copy or read-only.
  void* mutable_data();
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data());
  }
  template <typename T>
  T* mutable_data_as() {
    return static_cast<T*>(mutable_data());
  }
  // The DLTensor view of this array, with `data` refreshed (read access).
  const DLTensor* dltensor() const;

  // ---- views (share memory) ----
  // Same elements in a new shape. A view when the strides allow it, else a contiguous copy.
  // One extent may be -1 (inferred). LogicError when the element counts differ.
  NDArray reshape(const Shape& shape) const;
  // Dimensions reordered: result dim i is this array's dim axes[i]. Negative axes count from
  // the end. LogicError unless axes is a permutation.
  NDArray permute(const std::vector<int>& axes) const;
  NDArray transpose() const;  // all dims reversed
  // Python-style slice of one axis: start/stop clamped, negative values count from the end,
  // step may be negative but not 0 (any other int64 step works). Exactly Python's
  // slice(start, stop, step).indices(extent); an omitted start or stop is the far value in
  // the step's direction: step > 0: start 0 (or INT64_MIN), stop INT64_MAX; step < 0: start
  // INT64_MAX, stop INT64_MIN.
  NDArray slice(int axis, int64_t start, int64_t stop, int64_t step = 1) const;
  // NumPy broadcasting to `shape` (stride 0 on broadcast dims). LogicError when incompatible.
  NDArray broadcast_to(const Shape& shape) const;
  NDArray squeeze() const;  // all size-1 dims
  NDArray squeeze(int axis) const;
  NDArray expand_dims(int axis) const;

  // ---- copies ----
  // This array if already contiguous, else a contiguous copy.
  NDArray contiguous() const;
  // A lazy (copy-on-write) copy when this array covers its whole buffer contiguously; an
  // immediate contiguous copy otherwise.
  NDArray copy() const;
  // The same elements on another device (this array when it is already there).
  NDArray to(Device device) const;
  // Element-wise copy from `src` (same shape and dtype, any strides, may overlap this array).
  void copy_from(const NDArray& src);
  // Host bytes in and out, row-major; `nbytes` must equal this->nbytes().
  void copy_from_bytes(const void* bytes, size_t nbytes);
  void copy_to_bytes(void* bytes, size_t nbytes) const;

  // ---- DLPack ----
  // A new DLManagedTensor sharing this array's memory (made private first, so the consumer may
  // write). The consumer calls its deleter exactly once.
  DLManagedTensor* to_dlpack() const;
  // Takes ownership of `managed`: its deleter is called exactly once, when the last view is
  // gone (or at once, after copying, when the memory is misaligned for its element type).
  // LogicError for an unsupported dtype or device, a negative extent, or null.
  static NDArray from_dlpack(DLManagedTensor* managed);

  // ---- raw container access (C ABI) ----
  detail::Container* container() const { return c_; }
  // Adopts one reference (no increment).
  static NDArray adopt(detail::Container* c);
  // Gives up this handle's reference without decrementing.
  detail::Container* release();

 private:
  explicit NDArray(detail::Container* c) : c_(c) {}
  detail::Container* c_ = nullptr;
};

}  // namespace cvm
