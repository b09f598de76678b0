// Scalar reference kernels for fill, same-dtype copy and dtype conversion on strided views.
#include <cstring>

#include "convert.h"
#include "scalar_kernels.h"
#include "strided_loop.h"

namespace cvm {
namespace kernel {
namespace scalar {

KernelStatus fill(const KernelCall& call) {
  const TensorView* views[1] = {&call.outputs[0]};
  const auto& p = *static_cast<const FillParams*>(call.params);
  const size_t esize = elem_size(call.outputs[0].type);
  for_each_row(views, [&](char* const* ptr, int64_t n, const int64_t* step) {
    char* out = ptr[0];
    if (step[0] == static_cast<int64_t>(esize) && n > 0) {
      // A contiguous row: one element, then doubling copies of what is written (log2(n) calls
      // instead of one small memcpy per element, which wasm builds do not inline).
      const size_t total = static_cast<size_t>(n) * esize;
      std::memcpy(out, p.value, esize);
      for (size_t done = esize; done < total; done *= 2) {
        std::memcpy(out + done, out, done < total - done ? done : total - done);
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i, out += step[0]) std::memcpy(out, p.value, esize);
  });
  return KernelStatus::kDone;
}

namespace {

// A strided row of n elements of Bytes bytes each: a fixed-size copy per element, which
// compilers turn into one load and one store (a copy of a run-time size is a library call).
template <size_t Bytes>
void copy_strided(char* out, const char* in, int64_t n, const int64_t* step) {
  for (int64_t i = 0; i < n; ++i, out += step[0], in += step[1]) std::memcpy(out, in, Bytes);
}

}  // namespace

KernelStatus copy(const KernelCall& call) {
  const TensorView* views[2] = {&call.outputs[0], &call.inputs[0]};
  const size_t esize = elem_size(call.outputs[0].type);
  for_each_row(views, [&](char* const* ptr, int64_t n, const int64_t* step) {
    const int64_t e = static_cast<int64_t>(esize);
    if (step[0] == e && step[1] == e) {
      std::memmove(ptr[0], ptr[1], static_cast<size_t>(n) * esize);
      return;
    }
    switch (esize) {
      case 1:
        return copy_strided<1>(ptr[0], ptr[1], n, step);
      case 2:
        return copy_strided<2>(ptr[0], ptr[1], n, step);
      case 4:
        return copy_strided<4>(ptr[0], ptr[1], n, step);
      case 8:
        return copy_strided<8>(ptr[0], ptr[1], n, step);
      default:
        break;
    }
    char* out = ptr[0];
    const char* in = ptr[1];
    for (int64_t i = 0; i < n; ++i, out += step[0], in += step[1]) std::memcpy(out, in, esize);
  });
  return KernelStatus::kDone;
}

namespace {

// One strided row of a conversion: a plain function per dtype pair, so that the row walk is
// instantiated once for all of them (wasm size) instead of once per pair.
using CastRow = void (*)(char* out, const char* in, int64_t n, const int64_t* step);

template <typename Dst, typename Src>
void cast_row(char* out, const char* in, int64_t n, const int64_t* step) {
  for (int64_t i = 0; i < n; ++i, out += step[0], in += step[1]) {
    Src s;
    std::memcpy(&s, in, sizeof(Src));
    Dst d = convert<Dst>(s);
    std::memcpy(out, &d, sizeof(Dst));
  }
}

}  // namespace

KernelStatus cast(const KernelCall& call) {
  CastRow row = nullptr;
  visit_elem_type(call.outputs[0].type, [&](auto dst) {
    visit_elem_type(call.inputs[0].type, [&](auto src) {
      row = &cast_row<ElemT<decltype(dst)::value>, ElemT<decltype(src)::value>>;
    });
  });
  if (row == nullptr) return KernelStatus::kDone;  // kAny: as before, nothing to convert
  const TensorView* views[2] = {&call.outputs[0], &call.inputs[0]};
  for_each_row(views, [row](char* const* ptr, int64_t n, const int64_t* step) {
    row(ptr[0], ptr[1], n, step);
  });
  return KernelStatus::kDone;
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
