// Shape: a small vector of int64 extents, inline for up to 6 dims, with checked element counts.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "cvm/export.h"
#include "cvm/message.h"

namespace cvm {

class CVM_EXPORT Shape {
 public:
  static constexpr int kInlineDims = 6;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  // Copies `ndim` extents; LogicError when ndim < 0 or dims is null with ndim > 0.
  Shape(const int64_t* dims, int ndim);
  explicit Shape(const std::vector<int64_t>& dims) : Shape(dims.data(), static_cast<int>(dims.size())) {}
  Shape(const Shape& o) : Shape(o.data(), o.ndim()) {}
  Shape& operator=(const Shape& o);
  Shape(Shape&& o) noexcept;
  Shape& operator=(Shape&& o) noexcept;
  ~Shape() = default;

  int ndim() const { return ndim_; }
  bool empty() const { return ndim_ == 0; }  // no dimensions (a 0-d scalar), not "no elements"
  const int64_t* data() const { return heap_ ? heap_.get() : inline_; }
  int64_t* data() { return heap_ ? heap_.get() : inline_; }
  int64_t operator[](int i) const { return data()[i]; }
  int64_t& operator[](int i) { return data()[i]; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + ndim_; }

  void push_back(int64_t d);
  void insert(int pos, int64_t d);
  void erase(int pos);
  void resize(int ndim, int64_t fill = 0);

  // Product of extents; LogicError when an extent is negative or the product overflows int64.
  int64_t numel() const;
  // Row-major (C-order) strides in elements.
  Shape contiguous_strides() const;
  std::vector<int64_t> to_vector() const { return std::vector<int64_t>(begin(), end()); }
  std::string str() const;  // "(2, 3, 4)"; a 0-d shape prints "()"

  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  int ndim_ = 0;
  int capacity_ = kInlineDims;
  int64_t inline_[kInlineDims] = {};
  std::unique_ptr<int64_t[]> heap_;
};

CVM_EXPORT std::ostream& operator<<(std::ostream& os, const Shape& s);
inline detail::MessageStream& operator<<(detail::MessageStream& os, const Shape& s) {
  return os << s.str();
}

// a * b for non-negative extents, LogicError on overflow; `what` names the quantity in the message.
CVM_EXPORT int64_t checked_mul(int64_t a, int64_t b, const char* what);

}  // namespace cvm
