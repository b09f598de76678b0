// NDArray views that share storage: reshape, permute, slice, broadcast_to, squeeze, expand_dims.
#include <algorithm>
#include <vector>

#include "container.h"
#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "cvm/ndarray.h"

namespace cvm {

using detail::Container;

namespace {

int normalize_axis(int axis, int ndim, const char* what) {
  VERIFY(axis >= -ndim && axis < ndim)
      << what << ": axis " << axis << " out of range [" << -ndim << ", " << ndim - 1 << "]";
  return axis < 0 ? axis + ndim : axis;
}

// Strides for `shape` viewing the same elements as (old_shape, old_strides) in row-major
// order, or false when no such strides exist (the data would have to move). NumPy's rule.
bool reshape_strides(const Shape& old_shape, const Shape& old_strides, const Shape& shape,
                     Shape* out) {
  std::vector<int64_t> od, os;
  for (int i = 0; i < old_shape.ndim(); ++i) {
    if (old_shape[i] != 1) {
      od.push_back(old_shape[i]);
      os.push_back(old_strides[i]);
    }
  }
  out->resize(shape.ndim());
  int oi = 0, oj = 1, ni = 0, nj = 1;
  const int on = static_cast<int>(od.size()), nn = shape.ndim();
  std::vector<int64_t> nd(shape.begin(), shape.end());
  // Skip size-1 new dims by treating them as their own groups below.
  while (ni < nn && oi < on) {
    int64_t np = nd[ni], op = od[oi];
    while (np != op) {
      if (np < op) {
        np *= nd[nj++];
      } else {
        op *= od[oj++];
      }
    }
    for (int k = oi; k < oj - 1; ++k) {
      if (os[k] != os[k + 1] * od[k + 1]) return false;
    }
    (*out)[nj - 1] = os[oj - 1];
    for (int k = nj - 1; k > ni; --k) (*out)[k - 1] = (*out)[k] * nd[k];
    ni = nj++;
    oi = oj++;
  }
  // Trailing size-1 dims of the new shape.
  int64_t last = ni > 0 ? (*out)[ni - 1] : 1;
  for (int k = ni; k < nn; ++k) (*out)[k] = last;
  return true;
}

}  // namespace

static NDArray make_view(const Container& c, size_t offset, Shape shape, Shape strides) {
  c.storage->retain();
  return NDArray::adopt(new Container(c.storage, offset, std::move(shape), std::move(strides), c.dtype));
}

NDArray NDArray::reshape(const Shape& requested) const {
  VERIFY(defined()) << "reshape: undefined array";
  const Container& c = *c_;
  Shape shape = requested;
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < shape.ndim(); ++i) {
    if (shape[i] == -1) {
      VERIFY(infer < 0) << "reshape: more than one -1 in " << requested;
      infer = i;
    } else {
      VERIFY(shape[i] >= 0) << "reshape: invalid extent " << shape[i] << " in " << requested;
      known = checked_mul(known, shape[i], "reshape element count");
    }
  }
  const int64_t n = c.shape.numel();
  if (infer >= 0) {
    VERIFY(known != 0 && n % known == 0)
        << "reshape: cannot infer the -1 in " << requested << " for " << n << " elements";
    shape[infer] = n / known;
  }
  VERIFY(shape.numel() == n) << "reshape: cannot reshape " << c.shape << " (" << n
                             << " elements) into " << shape << " (" << shape.numel() << ")";
  Shape strides;
  if (n == 0 || is_contiguous()) {
    strides = shape.contiguous_strides();
  } else if (!reshape_strides(c.shape, c.strides, shape, &strides)) {
    return contiguous().reshape(shape);
  }
  return make_view(c, c.offset_bytes, shape, strides);
}

NDArray NDArray::permute(const std::vector<int>& axes) const {
  VERIFY(defined()) << "permute: undefined array";
  const Container& c = *c_;
  const int n = c.shape.ndim();
  VERIFY(static_cast<int>(axes.size()) == n)
      << "permute: " << axes.size() << " axes given for an array of " << n << " dims";
  std::vector<bool> seen(n, false);
  Shape shape, strides;
  shape.resize(n);
  strides.resize(n);
  for (int i = 0; i < n; ++i) {
    int a = normalize_axis(axes[i], n, "permute");
    VERIFY(!seen[a]) << "permute: axis " << axes[i] << " repeated";
    seen[a] = true;
    shape[i] = c.shape[a];
    strides[i] = c.strides[a];
  }
  return make_view(c, c.offset_bytes, shape, strides);
}

NDArray NDArray::transpose() const {
  std::vector<int> axes(ndim());
  for (int i = 0; i < ndim(); ++i) axes[i] = ndim() - 1 - i;
  return permute(axes);
}

NDArray NDArray::slice(int axis, int64_t start, int64_t stop, int64_t step) const {
  VERIFY(defined()) << "slice: undefined array";
  const Container& c = *c_;
  const int a = normalize_axis(axis, c.shape.ndim(), "slice");
  VERIFY(step != 0) << "slice: step must not be 0";
  const int64_t dim = c.shape[a];
  // Python's slice.indices(): clamp to the valid range for the step's direction.
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += dim;
    return std::min(std::max(v, lo), hi);
  };
  // The counts are computed without overflow for any step (|INT64_MIN| included): the span
  // end - begin is at most dim, and the step's magnitude is taken as uint64.
  int64_t begin, end, count;
  if (step > 0) {
    begin = clamp(start, 0, dim);
    end = clamp(stop, 0, dim);
    count = end > begin ? (end - begin - 1) / step + 1 : 0;
  } else {
    begin = clamp(start, -1, dim - 1);
    end = clamp(stop, -1, dim - 1);
    const uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(step);
    const uint64_t span = static_cast<uint64_t>(begin - end - 1);
    count = begin > end ? static_cast<int64_t>(span / magnitude) + 1 : 0;
  }
  Shape shape = c.shape, strides = c.strides;
  shape[a] = count;
  // With two or more elements |step| < dim, so the product stays inside the array's span; with
  // fewer the stride is never used (and step may be huge): keep the source's.
  if (count > 1) strides[a] = c.strides[a] * step;
  size_t offset = c.offset_bytes;
  if (count > 0) {
    offset = static_cast<size_t>(static_cast<int64_t>(offset) +
                                 begin * c.strides[a] * static_cast<int64_t>(c.dtype.bytes()));
  }
  return make_view(c, offset, shape, strides);
}

NDArray NDArray::broadcast_to(const Shape& shape) const {
  VERIFY(defined()) << "broadcast_to: undefined array";
  const Container& c = *c_;
  if (shape == c.shape) return *this;  // every elementwise operand of an op's own shape
  VERIFY(shape.ndim() >= c.shape.ndim())
      << "broadcast_to: cannot broadcast " << c.shape << " to fewer dims " << shape;
  Shape strides;
  strides.resize(shape.ndim());
  const int lead = shape.ndim() - c.shape.ndim();
  for (int i = 0; i < shape.ndim(); ++i) {
    VERIFY(shape[i] >= 0) << "broadcast_to: negative extent in " << shape;
    if (i < lead) {
      strides[i] = 0;
      continue;
    }
    int64_t d = c.shape[i - lead];
    VERIFY(d == shape[i] || d == 1) << "broadcast_to: cannot broadcast " << c.shape << " to "
                                    << shape << " (dim " << i << ": " << d << " vs " << shape[i]
                                    << ")";
    strides[i] = (d == 1 && shape[i] != 1) ? 0 : c.strides[i - lead];
  }
  return make_view(c, c.offset_bytes, shape, strides);
}

NDArray NDArray::squeeze() const {
  VERIFY(defined()) << "squeeze: undefined array";
  const Container& c = *c_;
  Shape shape, strides;
  for (int i = 0; i < c.shape.ndim(); ++i) {
    if (c.shape[i] != 1) {
      shape.push_back(c.shape[i]);
      strides.push_back(c.strides[i]);
    }
  }
  return make_view(c, c.offset_bytes, shape, strides);
}

NDArray NDArray::squeeze(int axis) const {
  VERIFY(defined()) << "squeeze: undefined array";
  const Container& c = *c_;
  int a = normalize_axis(axis, c.shape.ndim(), "squeeze");
  VERIFY(c.shape[a] == 1) << "squeeze: dim " << axis << " of shape " << c.shape
                          << " has extent " << c.shape[a] << ", not 1";
  Shape shape = c.shape, strides = c.strides;
  shape.erase(a);
  strides.erase(a);
  return make_view(c, c.offset_bytes, shape, strides);
}

NDArray NDArray::expand_dims(int axis) const {
  VERIFY(defined()) << "expand_dims: undefined array";
  const Container& c = *c_;
  const int n = c.shape.ndim();
  VERIFY(axis >= -n - 1 && axis <= n)
      << "expand_dims: axis " << axis << " out of range [" << -n - 1 << ", " << n << "]";
  int a = axis < 0 ? axis + n + 1 : axis;
  Shape shape = c.shape, strides = c.strides;
  int64_t stride = a < n ? c.strides[a] * c.shape[a] : 1;
  shape.insert(a, 1);
  strides.insert(a, stride);
  return make_view(c, c.offset_bytes, shape, strides);
}

}  // namespace cvm
