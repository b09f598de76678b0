// Shape storage (inline up to 6 dims, heap beyond) and checked element counts.
#include "cvm/shape.h"

#include <algorithm>
#include <limits>
#include <ostream>

#include "cvm/check.h"

namespace cvm {

int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  VERIFY(a >= 0 && b >= 0) << what << ": negative extent (" << a << " * " << b << ")";
  int64_t out = 0;
  VERIFY(!__builtin_mul_overflow(a, b, &out))
      << what << ": " << a << " * " << b << " overflows int64";
  return out;
}

Shape::Shape(std::initializer_list<int64_t> dims) : Shape(dims.begin(), static_cast<int>(dims.size())) {}

Shape::Shape(const int64_t* dims, int ndim) {
  VERIFY(ndim >= 0) << "shape: ndim must be >= 0, got " << ndim;
  VERIFY(ndim == 0 || dims != nullptr) << "shape: null dims with ndim " << ndim;
  resize(ndim);
  if (ndim > 0) std::copy(dims, dims + ndim, data());
}

Shape& Shape::operator=(const Shape& o) {
  if (this == &o) return *this;
  resize(o.ndim_);
  std::copy(o.begin(), o.end(), data());
  return *this;
}

Shape::Shape(Shape&& o) noexcept
    : ndim_(o.ndim_), capacity_(o.capacity_), heap_(std::move(o.heap_)) {
  std::copy(o.inline_, o.inline_ + kInlineDims, inline_);
  o.ndim_ = 0;
  o.capacity_ = kInlineDims;
}

Shape& Shape::operator=(Shape&& o) noexcept {
  if (this == &o) return *this;
  ndim_ = o.ndim_;
  capacity_ = o.capacity_;
  heap_ = std::move(o.heap_);
  std::copy(o.inline_, o.inline_ + kInlineDims, inline_);
  o.ndim_ = 0;
  o.capacity_ = kInlineDims;
  return *this;
}

void Shape::resize(int ndim, int64_t fill) {
  VERIFY(ndim >= 0) << "shape: ndim must be >= 0, got " << ndim;
  if (ndim > capacity_) {
    int cap = std::max(ndim, capacity_ * 2);
    std::unique_ptr<int64_t[]> grown(new int64_t[cap]);
    std::copy(begin(), end(), grown.get());
    heap_ = std::move(grown);
    capacity_ = cap;
  }
  int64_t* d = data();
  for (int i = ndim_; i < ndim; ++i) d[i] = fill;
  ndim_ = ndim;
}

void Shape::push_back(int64_t d) {
  resize(ndim_ + 1);
  data()[ndim_ - 1] = d;
}

void Shape::insert(int pos, int64_t d) {
  VERIFY(pos >= 0 && pos <= ndim_) << "shape: insert position " << pos << " out of range [0, "
                                   << ndim_ << "]";
  resize(ndim_ + 1);
  int64_t* p = data();
  for (int i = ndim_ - 1; i > pos; --i) p[i] = p[i - 1];
  p[pos] = d;
}

void Shape::erase(int pos) {
  VERIFY(pos >= 0 && pos < ndim_) << "shape: erase position " << pos << " out of range [0, "
                                  << ndim_ << ")";
  int64_t* p = data();
  for (int i = pos; i + 1 < ndim_; ++i) p[i] = p[i + 1];
  --ndim_;
}

// Every dimension counts at least 1 in the product that must fit int64, so a shape is valid or
// not whatever the position of a zero dimension: (0, 2^40, 2^40) fails here as (2^40, 2^40, 0)
// does, and a shape that passed numel() has contiguous strides that fit int64 too.
int64_t Shape::numel() const {
  int64_t extent = 1;
  bool empty = false;
  for (int64_t d : *this) {
    VERIFY(d >= 0) << "element count: negative extent " << d << " in shape " << str();
    extent = checked_mul(extent, std::max<int64_t>(d, 1), "element count");
    empty = empty || d == 0;
  }
  return empty ? 0 : extent;
}

Shape Shape::contiguous_strides() const {
  Shape s;
  s.resize(ndim_);
  int64_t stride = 1;
  for (int i = ndim_ - 1; i >= 0; --i) {
    s[i] = stride;
    if (i > 0) stride = checked_mul(stride, std::max<int64_t>((*this)[i], 1), "contiguous stride");
  }
  return s;
}

std::string Shape::str() const {
  detail::MessageStream os;
  os << "(";
  for (int i = 0; i < ndim_; ++i) os << (i ? ", " : "") << (*this)[i];
  os << ")";
  return os.str();
}

bool Shape::operator==(const Shape& o) const {
  return ndim_ == o.ndim_ && std::equal(begin(), end(), o.begin());
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.str(); }

}  // namespace cvm
