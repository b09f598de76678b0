// Broadcasting elementwise arithmetic (add, sub, mul): shapes, dtype checks, kernel dispatch.
#include <algorithm>

#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "kernel_views.h"
#include "registry_internal.h"

namespace cvm {

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const int n = std::max(a.ndim(), b.ndim());
  Shape out;
  out.resize(n);
  for (int i = 0; i < n; ++i) {
    int ia = a.ndim() - n + i, ib = b.ndim() - n + i;
    int64_t da = ia >= 0 ? a[ia] : 1;
    int64_t db = ib >= 0 ? b[ib] : 1;
    VERIFY(da == db || da == 1 || db == 1)
        << "shapes " << a << " and " << b << " cannot be broadcast (dim " << i << ": " << da
        << " vs " << db << ")";
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

NDArray binary(const char* op, const NDArray& a, const NDArray& b) {
  VERIFY(a.defined() && b.defined()) << op << ": undefined input array";
  VERIFY(a.dtype() == b.dtype()) << op << ": dtypes differ (" << a.dtype() << " vs " << b.dtype()
                                 << ")";
  VERIFY(!a.dtype().is_bool()) << op << ": bool arrays are not numeric";
  VERIFY(a.device() == b.device()) << op << ": inputs on different devices (" << a.device().name()
                                   << " vs " << b.device().name() << ")";
  Shape shape = broadcast_shapes(a.shape(), b.shape());
  NDArray out = NDArray::empty(shape, a.dtype(), a.device());
  NDArray ba = a.broadcast_to(shape), bb = b.broadcast_to(shape);
  auto views = ops::elementwise_views({{&out, out.mutable_data()},
                                       {&ba, const_cast<void*>(ba.data())},
                                       {&bb, const_cast<void*>(bb.data())}});
  ops::run_kernel(find_kernel(op, elem_type_of(a.dtype()), a.device()), views, 1, nullptr);
  return out;
}

}  // namespace

NDArray add(const NDArray& a, const NDArray& b) { return binary("add", a, b); }
NDArray sub(const NDArray& a, const NDArray& b) { return binary("sub", a, b); }
NDArray mul(const NDArray& a, const NDArray& b) { return binary("mul", a, b); }

}  // namespace cvm
