// Building coalesced kernel views from NDArrays and invoking kernels.
#include "kernel_views.h"

#include <algorithm>
#include <utility>

#include "cvm/check.h"
#include "device_runtime.h"
#include "registry_internal.h"
#include "thread_pool.h"

namespace cvm {
namespace ops {
std::vector<kernel::TensorView> elementwise_views(const std::vector<Operand>& operands) {
  const Shape& shape = operands.at(0).array->shape();
  const size_t n = operands.size();
  constexpr int kMax = kernel::kMaxKernelDims;
  std::vector<kernel::TensorView> views(n);
  // Keep the dims that are not 1, merging each into the previous one kept when every operand's
  // strides allow. Kept dims fill slots [0, min(kept, kMax)); past kMax (an error below) the
  // last slot holds the latest one, all that merging and the count need. No allocation but the
  // result's: this runs once per elementwise kernel call.
  int kept = 0;
  for (int d = 0; d < shape.ndim(); ++d) {
    const int64_t extent = shape[d];
    if (extent == 1) continue;
    const int last = std::min(kept, kMax) - 1;
    bool merge = kept > 0 && extent != 0 && views[0].shape[last] != 0;
    for (size_t k = 0; merge && k < n; ++k) {
      merge = views[k].strides[last] == operands[k].array->strides()[d] * extent;
    }
    const int slot = merge ? last : std::min(kept++, kMax - 1);
    for (size_t k = 0; k < n; ++k) {
      views[k].shape[slot] = merge ? views[k].shape[slot] * extent : extent;
      views[k].strides[slot] = operands[k].array->strides()[d];
    }
  }
  VERIFY(kept <= kMax) << "shape " << shape << " has " << kept
                       << " non-mergeable dimensions; kernels support at most " << kMax;
  for (size_t k = 0; k < n; ++k) {
    views[k].data = operands[k].data;
    views[k].type = elem_type_of(operands[k].array->dtype());
    views[k].ndim = kept;
  }
  return views;
}

void longest_contiguous_rows_last(std::vector<kernel::TensorView>& views) {
  const int nd = views.empty() ? 0 : views[0].ndim;
  if (nd < 2) return;
  const int last = nd - 1;
  int best = last;
  for (int d = 0; d < last; ++d) {
    bool contiguous = false;
    for (const kernel::TensorView& v : views) {
      contiguous = contiguous || v.strides[d] == 1 || v.strides[d] == -1;
    }
    if (contiguous && views[0].shape[d] > views[0].shape[best]) best = d;
  }
  if (best == last) return;
  for (kernel::TensorView& v : views) {
    std::swap(v.shape[best], v.shape[last]);
    std::swap(v.strides[best], v.strides[last]);
  }
}

kernel::TensorView plain_view(const NDArray& array, void* data) {
  VERIFY(array.ndim() <= kernel::kMaxKernelDims)
      << "shape " << array.shape() << " has " << array.ndim()
      << " dimensions; kernels support at most " << kernel::kMaxKernelDims;
  kernel::TensorView v{};
  v.data = data;
  v.type = elem_type_of(array.dtype());
  v.ndim = array.ndim();
  for (int d = 0; d < array.ndim(); ++d) {
    v.shape[d] = array.shape()[d];
    v.strides[d] = array.strides()[d];
  }
  return v;
}

std::vector<kernel::TensorView> plain_views(const std::vector<NDArray>& outputs,
                                            const std::vector<NDArray>& inputs) {
  std::vector<kernel::TensorView> views;
  for (NDArray out : outputs) views.push_back(plain_view(out, out.mutable_data()));
  for (const NDArray& in : inputs) views.push_back(plain_view(in, const_cast<void*>(in.data())));
  return views;
}

bool try_run_kernel(const KernelChain& chain, const std::vector<kernel::TensorView>& views,
                    int num_outputs, const void* params, const kernel::KernelEntry* packed_for,
                    const void* packed, bool (*admit)(const kernel::KernelEntry&)) {
  kernel::KernelCall call;
  call.outputs = views.data();
  call.num_outputs = num_outputs;
  call.inputs = views.data() + num_outputs;
  call.num_inputs = static_cast<int32_t>(views.size()) - num_outputs;
  call.params = params;
  // The pool's loop when more than one thread may run, so kernels split large work.
  const kernel::ParallelFor parallel = threads::kernel_parallel_for();
  call.parallel = parallel.num_threads > 1 ? &parallel : nullptr;
  call.stream = device::current_stream();
  for (const kernel::KernelEntry* e : chain.entries) {
    if (admit != nullptr && !admit(*e)) continue;
    call.prepacked = e == packed_for ? packed : nullptr;
    const kernel::KernelStatus status = e->fn(call);
    if (status == kernel::KernelStatus::kDone) {
      chain.last_ran = e;
      return true;
    }
    if (status == kernel::KernelStatus::kFailed) {
      const kernel::BackendTable* table = table_of(*e);
      const Device d{static_cast<DLDeviceType>(table ? table->device_type : kDLCPU), 0};
      const kernel::DeviceApi* api = d.is_cpu() ? nullptr : device::api_of(d);
      CVM_RUNTIME_ERROR() << "kernel " << e->name << " failed: "
                          << (api ? api->last_error() : "no message");
    }
  }
  return false;
}

void run_kernel(const KernelChain& chain, const std::vector<kernel::TensorView>& views,
                int num_outputs, const void* params, const kernel::KernelEntry* packed_for,
                const void* packed) {
  CVM_CHECK(try_run_kernel(chain, views, num_outputs, params, packed_for, packed, nullptr))
      << "every kernel of the chain for \"" << chain.key.op
      << "\" declined the call (the scalar reference must take every call)";
}

void verify_writable(const NDArray& dst, const char* what) {
  VERIFY(dst.defined()) << what << ": destination array is undefined";
  for (int d = 0; d < dst.ndim(); ++d) {
    VERIFY(dst.strides()[d] != 0 || dst.shape()[d] <= 1)
        << what << ": cannot write to a broadcast view (stride 0 on dim " << d << " of shape "
        << dst.shape() << ")";
  }
}

}  // namespace ops
}  // namespace cvm
