// NDArray lifetime, creation, data access, lazy copies and byte transfer.
#include "cvm/ndarray.h"

#include <cstdint>
#include <cstring>

#include "container.h"
#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "device_runtime.h"

namespace cvm {
namespace detail {

Buffer* Buffer::allocate(size_t nbytes, Device device) {
  Allocator& alloc = Allocator::get(device);
  void* p = alloc.allocate(nbytes);
  Buffer* b = new Buffer();
  b->data = p;
  b->nbytes = nbytes;
  b->device = device;
  b->allocator = &alloc;
  return b;
}

Buffer* Buffer::external(void* data, size_t nbytes, Device device,
                         std::shared_ptr<const void> keepalive, bool read_only) {
  Buffer* b = new Buffer();
  b->data = data;
  b->nbytes = nbytes;
  b->device = device;
  b->read_only = read_only;
  b->keepalive = std::move(keepalive);
  return b;
}

Buffer::~Buffer() {
  if (allocator != nullptr) allocator->free(data, nbytes);
}

void Buffer::release() {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

Buffer* Storage::writable_buffer() {
  Buffer* current = buffer.load(std::memory_order_acquire);
  if (current->refs.load(std::memory_order_acquire) == 1 && !current->read_only) return current;
  std::lock_guard<std::mutex> lock(mu);
  current = buffer.load(std::memory_order_acquire);
  if (current->refs.load(std::memory_order_acquire) == 1 && !current->read_only) return current;
  Buffer* own = Buffer::allocate(current->nbytes, current->device);
  if (current->nbytes > 0) {
    if (current->device.is_cpu()) {
      std::memcpy(own->data, current->data, current->nbytes);
    } else {
      device::copy_bytes(own->data, current->device, current->data, current->device,
                         current->nbytes);
    }
  }
  buffer.store(own, std::memory_order_release);
  if (current->read_only && refs.load(std::memory_order_acquire) > 1 && retired == nullptr) {
    retired = current;
  } else {
    current->release();
  }
  return own;
}

bool is_row_major(const Shape& shape, const Shape& strides) {
  for (int i = 0; i < shape.ndim(); ++i) {
    if (shape[i] == 0) return true;  // no element is ever addressed
  }
  int64_t expected = 1;  // a partial product of the (non-zero) extents: at most numel
  for (int i = shape.ndim() - 1; i >= 0; --i) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

Container::Container(Storage* s, size_t offset, Shape shp, Shape str, DataType t)
    : storage(s), offset_bytes(offset), shape(std::move(shp)), strides(std::move(str)), dtype(t) {
  std::memset(&dl, 0, sizeof(dl));
  Buffer* b = storage->buffer.load();
  dl.device = b->device.dl();
  dl.ndim = shape.ndim();
  dl.dtype = dtype.dl();
  dl.shape = shape.data();
  // DLPack: null strides mean compact row-major, which most consumers expect. Strides of
  // extent-1 dims never move an address and an empty array addresses nothing, so views that
  // differ from contiguous_strides() only there (a permuted (1, n), a slice of one element,
  // an empty slice) are compact too and get null strides.
  dl.strides = is_row_major(shape, strides) ? nullptr : strides.data();
  dl.byte_offset = 0;
  refresh();
}

// Arrays are shared between reading threads, so dl.data is stored only when it changed (the
// buffer was replaced by a copy-on-write), atomically: concurrent readers find it right and
// only load it (ThreadSanitizer reported the unconditional store as a race between two
// threads saving one ParamDict).
void* Container::refresh() const {
  Buffer* b = storage->buffer.load(std::memory_order_acquire);
  void* p = static_cast<char*>(b->data) + offset_bytes;
  if (__atomic_load_n(&dl.data, __ATOMIC_RELAXED) != p) __atomic_store_n(&dl.data, p, __ATOMIC_RELAXED);
  return p;
}

}  // namespace detail

using detail::Buffer;
using detail::Container;
using detail::Storage;

namespace {

Container* new_container(Buffer* buffer, size_t offset, Shape shape, Shape strides,
                         DataType dtype) {
  Storage* storage = new Storage(buffer);
  return new Container(storage, offset, std::move(shape), std::move(strides), dtype);
}

const Container& checked(const Container* c) {
  VERIFY(c != nullptr) << "use of an undefined (empty) NDArray";
  return *c;
}

// `bytes` (>= 0) as a size_t. Where size_t is narrower than int64 (wasm32: 4 GiB), a larger
// array cannot exist: out of memory, never a silently truncated allocation.
size_t to_size(int64_t bytes, const char* what) {
  if constexpr (sizeof(size_t) < sizeof(int64_t)) {
    CHECK(static_cast<uint64_t>(bytes) <= static_cast<uint64_t>(SIZE_MAX))
        << "out of memory: " << what << " of " << bytes << " bytes exceeds this platform's "
        << "address space (" << SIZE_MAX << " bytes)";
  }
  return static_cast<size_t>(bytes);
}

}  // namespace

NDArray::NDArray(const NDArray& o) : c_(o.c_) {
  if (c_) c_->retain();
}

NDArray& NDArray::operator=(const NDArray& o) {
  if (o.c_) o.c_->retain();
  if (c_) c_->release();
  c_ = o.c_;
  return *this;
}

NDArray& NDArray::operator=(NDArray&& o) noexcept {
  if (this != &o) {
    if (c_) c_->release();
    c_ = o.c_;
    o.c_ = nullptr;
  }
  return *this;
}

NDArray::~NDArray() {
  if (c_) c_->release();
}

NDArray NDArray::adopt(Container* c) { return NDArray(c); }

Container* NDArray::release() {
  Container* c = c_;
  c_ = nullptr;
  return c;
}

NDArray NDArray::empty(const Shape& shape, DataType dtype, Device device) {
  VERIFY(dtype.is_supported()) << "unsupported dtype " << dtype;
  for (int i = 0; i < shape.ndim(); ++i) {
    VERIFY(shape[i] >= 0) << "negative extent " << shape[i] << " in shape " << shape;
  }
  int64_t n = shape.numel();
  size_t nbytes = to_size(checked_mul(n, static_cast<int64_t>(dtype.bytes()), "array size"), "array");
  Buffer* buffer = Buffer::allocate(nbytes, device);
  return NDArray(new_container(buffer, 0, shape, shape.contiguous_strides(), dtype));
}

NDArray NDArray::zeros(const Shape& shape, DataType dtype, Device device) {
  NDArray a = empty(shape, dtype, device);
  fill(a, Scalar(0));
  return a;
}

NDArray NDArray::from_bytes(const void* bytes, size_t nbytes, const Shape& shape, DataType dtype) {
  NDArray a = empty(shape, dtype);
  a.copy_from_bytes(bytes, nbytes);
  return a;
}

NDArray NDArray::from_external(void* data, const Shape& shape, DataType dtype, Device device,
                               std::shared_ptr<const void> keepalive, bool read_only,
                               const Shape* strides) {
  VERIFY(dtype.is_supported()) << "unsupported dtype " << dtype;
  Shape str = strides ? *strides : shape.contiguous_strides();
  VERIFY(str.ndim() == shape.ndim()) << "strides " << str << " do not match shape " << shape;
  int64_t n = shape.numel();
  VERIFY(n == 0 || data != nullptr) << "null data for a non-empty external array";
  // Span of memory the view touches, from its lowest to its highest element (overflow-checked:
  // the extents and strides come from callers).
  int64_t lo = 0, hi = 0;
  for (int i = 0; i < shape.ndim(); ++i) {
    if (shape[i] == 0) { lo = hi = 0; break; }
    VERIFY(str[i] != INT64_MIN) << "external array: stride out of range";
    int64_t reach = checked_mul(shape[i] - 1, str[i] < 0 ? -str[i] : str[i], "external array span");
    int64_t& side = str[i] < 0 ? lo : hi;
    VERIFY(!__builtin_add_overflow(side, str[i] < 0 ? -reach : reach, &side))
        << "external array: span overflows int64";
  }
  int64_t esize = static_cast<int64_t>(dtype.bytes());
  int64_t elements = 0;
  VERIFY(!__builtin_sub_overflow(hi, lo, &elements) && elements < INT64_MAX)
      << "external array: span overflows int64";
  size_t span = n == 0 ? 0 : to_size(checked_mul(elements + 1, esize, "external array span"),
                                     "external array");
  checked_mul(-lo, esize, "external array span");
  char* base = static_cast<char*>(data) + lo * esize;
  bool aligned = reinterpret_cast<uintptr_t>(base) % dtype.bytes() == 0;
  if (!aligned) {
    // Kernels may read elements through typed pointers: give them an aligned private copy.
    // The same-dtype copy kernel moves bytes, so reading the misaligned source is safe.
    NDArray wrapped(new_container(Buffer::external(base, span, device, keepalive, true),
                                  static_cast<size_t>(-lo * esize), shape, str, dtype));
    NDArray out = empty(shape, dtype, device);
    copy_into(out, wrapped);
    return out;
  }
  Buffer* buffer = Buffer::external(base, span, device, std::move(keepalive), read_only);
  return NDArray(new_container(buffer, static_cast<size_t>(-lo * esize), shape, str, dtype));
}

const Shape& NDArray::shape() const { return checked(c_).shape; }
const Shape& NDArray::strides() const { return checked(c_).strides; }
DataType NDArray::dtype() const { return checked(c_).dtype; }
Device NDArray::device() const {
  return checked(c_).storage->buffer.load()->device;
}

bool NDArray::is_contiguous() const {
  const Container& c = checked(c_);
  return detail::is_row_major(c.shape, c.strides);
}

bool NDArray::is_read_only() const { return checked(c_).storage->buffer.load()->read_only; }

int NDArray::use_count() const { return c_ ? c_->refs.load() : 0; }

bool NDArray::shares_memory_with(const NDArray& other) const {
  if (!c_ || !other.c_) return false;
  return c_->storage->buffer.load() == other.c_->storage->buffer.load();
}

const void* NDArray::data() const { return checked(c_).refresh(); }

void* NDArray::mutable_data() {
  const Container& c = checked(c_);
  c.storage->writable_buffer();
  return c.refresh();
}

const DLTensor* NDArray::dltensor() const {
  checked(c_).refresh();
  return &c_->dl;
}

NDArray NDArray::contiguous() const {
  if (is_contiguous()) return *this;
  NDArray out = empty(shape(), dtype(), device());
  copy_into(out, *this);
  return out;
}

NDArray NDArray::copy() const {
  const Container& c = checked(c_);
  Buffer* b = c.storage->buffer.load(std::memory_order_acquire);
  if (is_contiguous() && c.offset_bytes == 0 && nbytes() == b->nbytes &&
      !b->exported.load(std::memory_order_acquire)) {
    b->retain();  // lazy: share the buffer through a second Storage
    return NDArray(new_container(b, 0, c.shape, c.strides, c.dtype));
  }
  NDArray out = empty(c.shape, c.dtype, device());
  copy_into(out, *this);
  return out;
}

NDArray NDArray::to(Device target) const {
  if (device() == target) return *this;
  const NDArray src = contiguous();  // on its own device
  if (!target.is_cpu() && !src.device().is_cpu()) {  // two devices: through the host
    return src.to(Device::cpu()).to(target);
  }
  NDArray out = empty(shape(), dtype(), target);
  device::copy_bytes(out.mutable_data(), target, src.data(), src.device(), nbytes());
  return out;
}

void NDArray::copy_from(const NDArray& src) {
  VERIFY(src.defined()) << "copy_from: undefined source array";
  VERIFY(src.shape() == shape()) << "copy_from: source shape " << src.shape()
                                 << " does not match destination shape " << shape();
  VERIFY(src.dtype() == dtype()) << "copy_from: source dtype " << src.dtype()
                                 << " does not match destination dtype " << dtype();
  copy_into(*this, src);
}

void NDArray::copy_from_bytes(const void* bytes, size_t n) {
  VERIFY(n == nbytes()) << "copy_from_bytes: got " << n << " bytes, array " << shape() << " "
                        << dtype() << " holds " << nbytes();
  VERIFY(n == 0 || bytes != nullptr) << "copy_from_bytes: null source";
  if (is_contiguous()) {
    if (n == 0) return;
    if (device().is_cpu()) {
      std::memcpy(mutable_data(), bytes, n);
    } else {
      device::copy_bytes(mutable_data(), device(), bytes, Device::cpu(), n);
    }
    return;
  }
  NDArray staged = empty(shape(), dtype());
  if (n) std::memcpy(staged.mutable_data(), bytes, n);
  copy_into(*this, staged);
}

void NDArray::copy_to_bytes(void* bytes, size_t n) const {
  VERIFY(n == nbytes()) << "copy_to_bytes: got room for " << n << " bytes, array " << shape()
                        << " " << dtype() << " holds " << nbytes();
  VERIFY(n == 0 || bytes != nullptr) << "copy_to_bytes: null destination";
  NDArray packed = contiguous();
  if (n == 0) return;
  if (device().is_cpu()) {
    std::memcpy(bytes, packed.data(), n);
  } else {
    device::copy_bytes(bytes, Device::cpu(), packed.data(), device(), n);
  }
}

}  // namespace cvm
