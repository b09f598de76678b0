// fill, copy_into and cast: validation and dispatch to the "fill", "copy" and "cast" kernels.
#include <cstring>

#include "convert.h"
#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "kernel_views.h"
#include "registry_internal.h"

namespace cvm {

void Scalar::encode(DataType dtype, uint8_t out[16]) const {
  std::memset(out, 0, 16);
  kernel::visit_elem_type(elem_type_of(dtype), [&](auto tag) {
    using T = kernel::ElemT<decltype(tag)::value>;
    const T v = kind_ == Kind::kInt    ? kernel::convert<T>(i_)
                : kind_ == Kind::kUInt ? kernel::convert<T>(u_)
                                       : kernel::convert<T>(f_);
    std::memcpy(out, &v, sizeof(T));
  });
}

void fill(NDArray& dst, Scalar value) {
  ops::verify_writable(dst, "fill");
  kernel::FillParams params;
  value.encode(dst.dtype(), params.value);
  void* data = dst.mutable_data();
  auto views = ops::elementwise_views({{&dst, data}});
  const KernelChain chain =
      resolve_chain(chain_policy(), {"fill", elem_type_of(dst.dtype())}, dst.device());
  ops::run_kernel(chain, views, 1, &params);
}

namespace ops {

std::vector<KernelKey> copy_kernel_keys(DataType from, DataType to) {
  std::vector<KernelKey> keys = {{"copy", elem_type_of(from)}};
  if (to != from) keys.push_back({"cast", elem_type_of(to)});
  return keys;
}

namespace {

// One call of `chain` (copy or cast) from `from` into `to` (same shapes; `to_data` taken by the
// caller first), its rows along the longest contiguous dimension.
void run_copy(const KernelChain& chain, const NDArray& to, void* to_data, const NDArray& from) {
  auto views = elementwise_views({{&to, to_data}, {&from, const_cast<void*>(from.data())}});
  longest_contiguous_rows_last(views);
  run_kernel(chain, views, 1, nullptr);
}

}  // namespace

void copy_into(NDArray& dst, const NDArray& src, const KernelChain& copy,
               const KernelChain* cast) {
  verify_writable(dst, "copy_into");
  VERIFY(src.defined()) << "copy_into: source array is undefined";
  CHECK(src.device() == dst.device()) << "copy_into: source on " << src.device().name()
                                      << ", destination on " << dst.device().name();
  NDArray from = src.broadcast_to(dst.shape());
  void* out = dst.mutable_data();  // first: may give dst a private buffer
  if (from.shares_memory_with(dst)) {
    // Overlapping views: read from a private snapshot so the result is as if copied at once.
    NDArray snapshot = NDArray::empty(src.shape(), src.dtype(), src.device());
    run_copy(copy, snapshot, snapshot.mutable_data(), src);
    from = snapshot.broadcast_to(dst.shape());
  }
  const bool same = from.dtype() == dst.dtype();
  CHECK(same || cast != nullptr) << "copy_into: no cast kernel bound for " << from.dtype()
                                 << " to " << dst.dtype();
  run_copy(same ? copy : *cast, dst, out, from);
}

}  // namespace ops

void copy_into(NDArray& dst, const NDArray& src) {
  VERIFY(src.defined()) << "copy_into: source array is undefined";
  VERIFY(dst.defined()) << "copy_into: destination array is undefined";
  if (src.device() != dst.device()) {  // move it first (same dtype, contiguous), then copy/cast
    ops::verify_writable(dst, "copy_into");
    copy_into(dst, src.to(dst.device()));
    return;
  }
  const ChainPolicy policy = chain_policy();
  std::vector<KernelChain> chains;
  for (const KernelKey& key : ops::copy_kernel_keys(src.dtype(), dst.dtype())) {
    chains.push_back(resolve_chain(policy, key, dst.device()));
  }
  ops::copy_into(dst, src, chains[0], chains.size() > 1 ? &chains[1] : nullptr);
}

NDArray cast(const NDArray& x, DataType to) {
  VERIFY(x.defined()) << "cast: input array is undefined";
  NDArray out = NDArray::empty(x.shape(), to, x.device());
  copy_into(out, x);
  return out;
}

}  // namespace cvm
