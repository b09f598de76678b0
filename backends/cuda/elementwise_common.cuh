// The elementwise map the CUDA elementwise-style kernels share: y[i] = fn(x0[i], x1[i], ...).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "cuda_common.cuh"
#include "elem_types.h"

namespace cvm {
namespace kernel {
namespace cuda {

// Element `off` (an element offset) of a view. A bool byte other than 0 or 1 reads as true, as
// the scalar reference's load_elem reads it.
template <typename T>
__device__ inline T load_at(const TensorView& v, int64_t off) {
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<const uint8_t*>(v.data)[off] != 0;
  } else {
    return static_cast<const T*>(v.data)[off];
  }
}

// Writes element `off` of a view; bools as the bytes 0 and 1.
template <typename T>
__device__ inline void store_at(const TensorView& v, int64_t off, T x) {
  if constexpr (std::is_same_v<T, bool>) {
    static_cast<uint8_t*>(v.data)[off] = x ? 1 : 0;
  } else {
    static_cast<T*>(v.data)[off] = x;
  }
}

// The views of one map call, passed by value to the kernel.
template <int N>
struct MapViews {
  TensorView out;
  TensorView in[N];
};

template <typename Out, typename In, int N, typename Fn, size_t... I>
__device__ inline void map_element(const MapViews<N>& v, int64_t i, bool contiguous,
                                   const Fn& fn, std::index_sequence<I...>) {
  // Every input element is loaded before the output is stored: out may alias an input.
  if (contiguous) {
    store_at<Out>(v.out, i, fn(load_at<In>(v.in[I], i)...));
  } else {
    store_at<Out>(v.out, offset_of(v.out, i), fn(load_at<In>(v.in[I], offset_of(v.in[I], i))...));
  }
}

template <typename Out, typename In, int N, typename Fn>
__global__ void map_kernel(MapViews<N> v, int64_t n, bool contiguous, Fn fn) {
  for (int64_t i = global_thread(); i < n; i += grid_threads()) {
    map_element<Out, In, N>(v, i, contiguous, fn, std::make_index_sequence<N>{});
  }
}

// outputs[0][i] = fn(inputs[0][i], ..., inputs[N-1][i]) with inputs read as In and the output
// written as Out, enqueued on the call's stream; `name` names the kernel in a launch error.
// Fn is a functor with a __device__ operator(). The output may be the same memory as an input.
template <typename Out, typename In, int N, typename Fn>
KernelStatus map_elements(const KernelCall& call, const Fn& fn, const char* name) {
  MapViews<N> v;
  v.out = call.outputs[0];
  bool contiguous = v.out.contiguous();
  for (int k = 0; k < N; ++k) {
    v.in[k] = call.inputs[k];
    contiguous = contiguous && v.in[k].contiguous();
  }
  const int64_t n = v.out.numel();
  if (n == 0) return KernelStatus::kDone;
  map_kernel<Out, In, N><<<blocks_for(n), kBlockThreads, 0, stream_of(call)>>>(v, n, contiguous,
                                                                                fn);
  return launched(name);
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
