// Building coalesced kernel views from NDArrays and invoking kernels.
#include "kernel_views.h"

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
  // Keep the dims that are not 1, then merge neighbours that are contiguous for everyone.
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides(n);
  for (int d = 0; d < shape.ndim(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !dims.empty() && shape[d] != 0 && dims.back() != 0;
    for (size_t k = 0; merge && k < n; ++k) {
      merge = strides[k].back() == operands[k].array->strides()[d] * shape[d];
    }
    if (merge) {
      dims.back() *= shape[d];
      for (size_t k = 0; k < n; ++k) strides[k].back() = operands[k].array->strides()[d];
    } else {
      dims.push_back(shape[d]);
      for (size_t k = 0; k < n; ++k) strides[k].push_back(operands[k].array->strides()[d]);
    }
  }
  VERIFY(static_cast<int>(dims.size()) <= kernel::kMaxKernelDims)
      << "shape " << shape << " has " << dims.size()
      << " non-mergeable dimensions; kernels support at most " << kernel::kMaxKernelDims;
  std::vector<kernel::TensorView> views(n);
  for (size_t k = 0; k < n; ++k) {
    kernel::TensorView& v = views[k];
    v.data = operands[k].data;
    v.type = elem_type_of(operands[k].array->dtype());
    v.ndim = static_cast<int32_t>(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      v.shape[d] = dims[d];
      v.strides[d] = strides[k][d];
    }
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
