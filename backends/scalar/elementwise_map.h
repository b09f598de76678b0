// The scalar elementwise loop: y[i] = fn(x0[i], x1[i], ...) over same-shaped strided views.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "elem_types.h"
#include "strided_loop.h"

namespace cvm {
namespace kernel {
namespace scalar {

// One element at `p` (any alignment). A bool byte other than 0 or 1 reads as true instead of
// being undefined behaviour.
template <typename T>
T load_elem(const char* p) {
  if constexpr (std::is_same_v<T, bool>) {
    uint8_t b;
    std::memcpy(&b, p, 1);
    return b != 0;
  } else {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }
}

// Writes one element at `p`; bools as the bytes 0 and 1.
template <typename T>
void store_elem(char* p, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    const uint8_t b = v ? 1 : 0;
    std::memcpy(p, &b, 1);
  } else {
    std::memcpy(p, &v, sizeof(T));
  }
}

template <typename Out, typename In, typename Fn, size_t... I>
void map_impl(const KernelCall& call, Fn&& fn, std::index_sequence<I...>) {
  const TensorView* const views[] = {&call.outputs[0], &call.inputs[I]...};
  for_each_row(views, [&](char* const* ptr, int64_t n, const int64_t* step) {
    for (int64_t i = 0; i < n; ++i) {
      // Every input element is loaded before the output is stored: out may alias an input.
      store_elem<Out>(ptr[0] + i * step[0], fn(load_elem<In>(ptr[I + 1] + i * step[I + 1])...));
    }
  });
}

// outputs[0][i] = fn(inputs[0][i], ..., inputs[N-1][i]) with inputs read as In and the
// output written as Out. The output may be the same memory as an input.
template <typename Out, typename In, int N, typename Fn>
void map_elements(const KernelCall& call, Fn&& fn) {
  map_impl<Out, In>(call, fn, std::make_index_sequence<N>{});
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
