// DLPack interop: NDArray::to_dlpack / from_dlpack and the validated wrapping of foreign tensors.
//
// Export: the DLManagedTensor holds one reference to the array's Container in manager_ctx; its
// shape and strides point into that Container's Shapes (valid until the deleter runs); strides
// are NULL for compact row-major arrays and explicit (in elements) otherwise; byte_offset is 0
// and data points at element [0, ...].
// Import: the producer's tensor is wrapped without copying and its deleter runs exactly once,
// when the last array using the memory is gone (at once when the memory had to be copied).
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include "c_api_common.h"
#include "device_runtime.h"
#include "container.h"
#include "cvm/check.h"
#include "cvm/ndarray.h"
#include "dlpack_internal.h"

namespace cvm {

namespace {

void delete_exported(DLManagedTensor* self) {
  if (self == nullptr) return;
  // Adopting the reference and letting it go releases it; the Container's destructor cannot
  // throw (it only releases refcounts and frees memory).
  NDArray::adopt(static_cast<detail::Container*>(self->manager_ctx));
  delete self;
}

// The byte span [lo, hi] (relative to element [0, ...]) touched by a tensor with `numel` > 0
// elements; LogicError when any step overflows int64.
void byte_span(const Shape& shape, const int64_t* strides, int64_t esize, const char* what,
               int64_t* lo_bytes, int64_t* span_bytes) {
  if (strides == nullptr) {
    *lo_bytes = 0;
    *span_bytes = checked_mul(shape.numel(), esize, "tensor size in bytes");
    return;
  }
  int64_t lo = 0, hi = 0;  // element offsets
  for (int i = 0; i < shape.ndim(); ++i) {
    int64_t s = strides[i];
    VERIFY(s != std::numeric_limits<int64_t>::min())
        << what << ": stride " << s << " of dim " << i << " is out of range";
    int64_t reach = checked_mul(shape[i] - 1, s < 0 ? -s : s, "tensor span");
    int64_t& side = s < 0 ? lo : hi;
    bool overflow = s < 0 ? __builtin_sub_overflow(side, reach, &side)
                          : __builtin_add_overflow(side, reach, &side);
    VERIFY(!overflow) << what << ": strides span more than int64 elements";
  }
  int64_t elems = 0;
  VERIFY(!__builtin_sub_overflow(hi, lo, &elems) && !__builtin_add_overflow(elems, 1, &elems))
      << what << ": strides span more than int64 elements";
  *span_bytes = checked_mul(elems, esize, "tensor span in bytes");
  *lo_bytes = checked_mul(-lo, esize, "tensor span in bytes");
  *lo_bytes = -*lo_bytes;
}

}  // namespace

namespace detail {

NDArray wrap_dltensor(const DLTensor& t, std::shared_ptr<const void> keepalive, bool read_only,
                      const char* what) {
  VERIFY(t.device.device_type == kDLCPU || t.device.device_type == kDLCUDA)
      << what << ": only CPU (device_type " << int(kDLCPU) << ") and CUDA (device_type "
      << int(kDLCUDA) << ") tensors are supported, got device_type "
      << int(t.device.device_type);
  const Device device = Device::from_dl(t.device);
  if (!device.is_cpu()) {  // memory of a device this process must be able to use
    const std::string why = device_unavailable_reason(device);
    VERIFY(why.empty()) << what << ": a tensor on " << device.name() << " (device_type "
                        << int(t.device.device_type) << "), which this process cannot use: " << why;
  }
  VERIFY(t.ndim >= 0 && t.ndim <= capi::kMaxDims)
      << what << ": ndim must be in 0.." << capi::kMaxDims << ", got " << t.ndim;
  VERIFY(t.ndim == 0 || t.shape != nullptr) << what << ": shape is NULL with ndim " << t.ndim;
  VERIFY(t.dtype.lanes == 1) << what << ": dtype lanes must be 1, got " << t.dtype.lanes;
  DataType dtype(t.dtype.code, t.dtype.bits, t.dtype.lanes);
  VERIFY(dtype.is_supported()) << what << ": unsupported dtype (code " << int(t.dtype.code)
                               << ", bits " << int(t.dtype.bits)
                               << "); expected int/uint 8..64, float 16/32/64, bfloat16 or bool";
  Shape shape(t.shape, t.ndim);
  for (int i = 0; i < shape.ndim(); ++i) {
    VERIFY(shape[i] >= 0) << what << ": negative extent " << shape[i] << " in dim " << i;
  }
  int64_t numel = shape.numel();
  int64_t esize = static_cast<int64_t>(dtype.bytes());
  VERIFY(t.byte_offset <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      << what << ": byte_offset " << t.byte_offset << " is out of range";

  if (numel == 0) {
    // Nothing is read: the data pointer and the strides may be anything (NULL too), so both
    // are dropped rather than validated.
    return NDArray::from_external(nullptr, shape, dtype, device, std::move(keepalive),
                                  read_only, nullptr);
  }
  Shape strides;
  if (t.strides != nullptr) strides = Shape(t.strides, t.ndim);
  const Shape* strides_ptr = t.strides != nullptr ? &strides : nullptr;
  VERIFY(t.data != nullptr) << what << ": data is NULL for a non-empty tensor " << shape;
  if (!device.is_cpu()) {  // the pointer must be that device's memory, not host memory
    const std::string why = device::foreign_memory_problem(device, t.data);
    VERIFY(why.empty()) << what << ": a tensor on " << device.name() << " (device_type "
                        << int(t.device.device_type) << "), which this process cannot use: " << why;
  }
  int64_t lo_bytes = 0, span_bytes = 0;
  byte_span(shape, t.strides, esize, what, &lo_bytes, &span_bytes);
  // The whole span must be addressable: no wrap-around below 0 or above the address space.
  uintptr_t start = reinterpret_cast<uintptr_t>(t.data);
  uintptr_t first = 0, last = 0;
  bool wraps = __builtin_add_overflow(start, static_cast<uintptr_t>(t.byte_offset), &first);
  wraps = wraps || first < static_cast<uintptr_t>(-lo_bytes);
  if (!wraps) {
    first -= static_cast<uintptr_t>(-lo_bytes);
    wraps = __builtin_add_overflow(first, static_cast<uintptr_t>(span_bytes), &last);
  }
  VERIFY(!wraps) << what << ": data + byte_offset and the strides reach outside the address space";
  void* element0 = static_cast<char*>(t.data) + t.byte_offset;
  return NDArray::from_external(element0, shape, dtype, device, std::move(keepalive), read_only,
                                strides_ptr);
}

NDArray from_dlpack(DLManagedTensor* managed, bool read_only) {
  VERIFY(managed != nullptr) << "from_dlpack: the DLManagedTensor is NULL";
  // From here on the producer's memory is ours: the shared_ptr calls the deleter exactly once,
  // when the last holder lets go, including when validation below throws (the keepalive is
  // released while unwinding) and when its own allocation fails (shared_ptr then calls it).
  std::shared_ptr<const void> keepalive(managed, [](DLManagedTensor* m) {
    if (m->deleter != nullptr) m->deleter(m);
  });
  const DLTensor& t = managed->dl_tensor;
  return wrap_dltensor(t, std::move(keepalive), read_only, "from_dlpack");
}

}  // namespace detail

DLManagedTensor* NDArray::to_dlpack() const {
  VERIFY(defined()) << "to_dlpack: undefined (empty) NDArray";
  NDArray self = *this;
  // The consumer may write: detach from lazy copies and read-only memory first. Views share the
  // Container's Storage, so they keep seeing the same memory as the consumer.
  self.mutable_data();
  auto* managed = new DLManagedTensor();
  detail::Container* c = self.release();
  c->storage->buffer.load()->exported.store(true, std::memory_order_release);
  managed->dl_tensor = c->dl;
  managed->dl_tensor.data = c->refresh();
  managed->dl_tensor.byte_offset = 0;
  managed->manager_ctx = c;
  managed->deleter = &delete_exported;
  return managed;
}

NDArray NDArray::from_dlpack(DLManagedTensor* managed) {
  return detail::from_dlpack(managed, false);
}

}  // namespace cvm
