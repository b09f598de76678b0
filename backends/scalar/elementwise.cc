// Scalar reference kernels for elementwise binary arithmetic (add, sub, mul) on strided views.
#include <cstring>
#include <type_traits>

#include "convert.h"
#include "scalar_kernels.h"
#include "strided_loop.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// One operation on one element type: integers wrap, native floats round once, 16-bit floats
// are computed exactly in double and rounded once to their format.
template <typename T, typename Op>
T apply(T a, T b, Op op) {
  if constexpr (is_small_float_v<T>) {
    return from_double<T>(op(to_double(a), to_double(b)));
  } else {
    return op(a, b);
  }
}

template <ElemType E, typename Op>
void binary(const KernelCall& call, Op op) {
  using T = ElemT<E>;
  const TensorView* views[3] = {&call.outputs[0], &call.inputs[0], &call.inputs[1]};
  for_each_row(views, [&](char* const* ptr, int64_t n, const int64_t* step) {
    char* out = ptr[0];
    const char* a = ptr[1];
    const char* b = ptr[2];
    for (int64_t i = 0; i < n; ++i, out += step[0], a += step[1], b += step[2]) {
      T x, y;
      std::memcpy(&x, a, sizeof(T));
      std::memcpy(&y, b, sizeof(T));
      T r = apply(x, y, op);
      std::memcpy(out, &r, sizeof(T));
    }
  });
}

struct AddOp {
  template <typename V>
  V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>) return wrap_add(a, b);
    else return a + b;
  }
};
struct SubOp {
  template <typename V>
  V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>) return wrap_sub(a, b);
    else return a - b;
  }
};
struct MulOp {
  template <typename V>
  V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>) return wrap_mul(a, b);
    else return a * b;
  }
};

}  // namespace

template <ElemType T>
void add(const KernelCall& call) { binary<T>(call, AddOp{}); }
template <ElemType T>
void sub(const KernelCall& call) { binary<T>(call, SubOp{}); }
template <ElemType T>
void mul(const KernelCall& call) { binary<T>(call, MulOp{}); }

#define CVM_INSTANTIATE(E)                            \
  template void add<ElemType::E>(const KernelCall&); \
  template void sub<ElemType::E>(const KernelCall&); \
  template void mul<ElemType::E>(const KernelCall&);
CVM_INSTANTIATE(kInt8)
CVM_INSTANTIATE(kInt16)
CVM_INSTANTIATE(kInt32)
CVM_INSTANTIATE(kInt64)
CVM_INSTANTIATE(kUInt8)
CVM_INSTANTIATE(kUInt16)
CVM_INSTANTIATE(kUInt32)
CVM_INSTANTIATE(kUInt64)
CVM_INSTANTIATE(kFloat16)
CVM_INSTANTIATE(kBFloat16)
CVM_INSTANTIATE(kFloat32)
CVM_INSTANTIATE(kFloat64)
#undef CVM_INSTANTIATE

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
