// CUDA kernels for fill, same-dtype copy and dtype conversion (cast) on strided views.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "convert.h"
#include "cuda_kernels.h"
#include "elementwise_common.cuh"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

// ---- fill ----

// Every element of `out` (elements of sizeof(U) bytes, aligned) set to `value`.
template <typename U>
__global__ void fill_kernel(TensorView out, int64_t n, bool contiguous, U value) {
  U* data = static_cast<U*>(out.data);
  for (int64_t i = global_thread(); i < n; i += grid_threads()) {
    data[contiguous ? i : offset_of(out, i)] = value;
  }
}

template <typename U>
KernelStatus launch_fill(const KernelCall& call) {
  const TensorView& out = call.outputs[0];
  const int64_t n = out.numel();
  if (n == 0) return KernelStatus::kDone;
  U value;
  std::memcpy(&value, static_cast<const FillParams*>(call.params)->value, sizeof(U));
  fill_kernel<U><<<blocks_for(n), kBlockThreads, 0, stream_of(call)>>>(out, n, out.contiguous(),
                                                                       value);
  return launched("fill");
}

// ---- copy ----

// `units` words of U from src to dst, both contiguous.
template <typename U>
__global__ void flat_copy_kernel(U* dst, const U* src, int64_t units) {
  for (int64_t i = global_thread(); i < units; i += grid_threads()) dst[i] = src[i];
}

// Element i of `in` to element i of `out`, each element `per` words of U (U divides the
// element size and the alignment of every element of both views).
template <typename U>
__global__ void strided_copy_kernel(TensorView out, TensorView in, int64_t n, int64_t esize,
                                    int64_t per) {
  for (int64_t i = global_thread(); i < n; i += grid_threads()) {
    U* dst = reinterpret_cast<U*>(static_cast<char*>(out.data) + offset_of(out, i) * esize);
    const U* src =
        reinterpret_cast<const U*>(static_cast<const char*>(in.data) + offset_of(in, i) * esize);
    for (int64_t k = 0; k < per; ++k) dst[k] = src[k];
  }
}

template <typename U>
void launch_flat_copy(void* dst, const void* src, int64_t bytes, cudaStream_t stream) {
  const int64_t units = bytes / static_cast<int64_t>(sizeof(U));
  flat_copy_kernel<U><<<blocks_for(units), kBlockThreads, 0, stream>>>(
      static_cast<U*>(dst), static_cast<const U*>(src), units);
}

template <typename U>
void launch_strided_copy(const TensorView& out, const TensorView& in, int64_t n, int64_t esize,
                         cudaStream_t stream) {
  const int64_t per = esize / static_cast<int64_t>(sizeof(U));
  strided_copy_kernel<U><<<blocks_for(n), kBlockThreads, 0, stream>>>(out, in, n, esize, per);
}

// outputs[0] = inputs[0] as bytes: the widest word that every address and size allows (the
// source may be misaligned for its element size), byte by byte at worst.
KernelStatus copy_bytes(const KernelCall& call, const char* name) {
  const TensorView& out = call.outputs[0];
  const TensorView& in = call.inputs[0];
  const int64_t n = out.numel();
  if (n == 0) return KernelStatus::kDone;
  const int64_t esize = static_cast<int64_t>(elem_size(out.type));
  const uintptr_t addresses =
      reinterpret_cast<uintptr_t>(out.data) | reinterpret_cast<uintptr_t>(in.data);
  cudaStream_t stream = stream_of(call);
  if (out.contiguous() && in.contiguous()) {
    const int64_t bytes = n * esize;
    const uintptr_t a = addresses | static_cast<uintptr_t>(bytes);
    if (a % 16 == 0) {
      launch_flat_copy<uint4>(out.data, in.data, bytes, stream);
    } else if (a % 8 == 0) {
      launch_flat_copy<uint64_t>(out.data, in.data, bytes, stream);
    } else if (a % 4 == 0) {
      launch_flat_copy<uint32_t>(out.data, in.data, bytes, stream);
    } else if (a % 2 == 0) {
      launch_flat_copy<uint16_t>(out.data, in.data, bytes, stream);
    } else {
      launch_flat_copy<uint8_t>(out.data, in.data, bytes, stream);
    }
  } else {
    // Element strides keep every element at its base address's alignment modulo esize.
    const uintptr_t a = addresses | static_cast<uintptr_t>(esize);
    if (a % 8 == 0) {
      launch_strided_copy<uint64_t>(out, in, n, esize, stream);
    } else if (a % 4 == 0) {
      launch_strided_copy<uint32_t>(out, in, n, esize, stream);
    } else if (a % 2 == 0) {
      launch_strided_copy<uint16_t>(out, in, n, esize, stream);
    } else {
      launch_strided_copy<uint8_t>(out, in, n, esize, stream);
    }
  }
  return launched(name);
}

// ---- cast ----

template <typename T>
constexpr bool is_float_format_v = is_small_float_v<T> || std::is_floating_point_v<T>;

// Raw bits of a float-format element, zero-extended.
template <typename T>
__device__ uint64_t raw_bits(T x) {
  if constexpr (sizeof(T) == 2) {
    return x.bits;
  } else if constexpr (sizeof(T) == 4) {
    uint32_t b;
    std::memcpy(&b, &x, sizeof(b));
    return b;
  } else {
    uint64_t b;
    std::memcpy(&b, &x, sizeof(b));
    return b;
  }
}

// Whether a float-format element is a NaN, from its bits.
template <typename T>
__device__ bool is_nan_bits(T x) {
  const uint64_t b = raw_bits(x);
  if constexpr (std::is_same_v<T, Half>) {
    return (b & 0x7FFFu) > 0x7C00u;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return (b & 0x7FFFu) > 0x7F80u;
  } else if constexpr (sizeof(T) == 4) {
    return (b & 0x7FFFFFFFu) > 0x7F800000u;
  } else {
    return (b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
  }
}

// The float32 / float64 NaN that convert<Dst>(s) gives on the scalar reference's hardware
// (x86-64, AArch64), where the GPU's conversion instructions may return another NaN: the sign
// kept, a float32 <-> float64 payload kept (truncated or zero-extended) and quieted; a 16-bit
// source becomes the default quiet NaN with its sign (float16.h widens every NaN to nan("")).
template <typename Dst, typename Src>
__device__ Dst nan_convert(Src s) {
  constexpr int kSrcBits = 8 * sizeof(Src);
  const uint64_t bits = raw_bits(s);
  const uint64_t sign = bits >> (kSrcBits - 1);
  uint64_t payload = 0;  // the mantissa left-aligned to bit 63
  if constexpr (std::is_same_v<Src, float>) {
    payload = (bits & 0x7FFFFFu) << 41;
  } else if constexpr (std::is_same_v<Src, double>) {
    payload = (bits & 0xFFFFFFFFFFFFFull) << 12;
  }
  payload |= uint64_t(1) << 63;  // the quiet bit
  Dst d;
  if constexpr (sizeof(Dst) == 4) {
    const uint32_t out = static_cast<uint32_t>((sign << 31) | 0x7F800000u | (payload >> 41));
    std::memcpy(&d, &out, sizeof(d));
  } else {
    const uint64_t out = (sign << 63) | 0x7FF0000000000000ull | (payload >> 12);
    std::memcpy(&d, &out, sizeof(d));
  }
  return d;
}

template <typename Dst, typename Src>
struct Convert {
  __device__ Dst operator()(Src s) const {
    if constexpr (std::is_floating_point_v<Dst> && is_float_format_v<Src>) {
      if (is_nan_bits(s)) return nan_convert<Dst>(s);
    }
    return convert<Dst>(s);
  }
};

template <typename Dst>
KernelStatus cast_to(const KernelCall& call) {
  KernelStatus status = KernelStatus::kDone;
  visit_elem_type(call.inputs[0].type, [&](auto src) {
    using Src = ElemT<decltype(src)::value>;
    if constexpr (!std::is_same_v<Dst, Src>) {  // same types are copied (cast below)
      status = map_elements<Dst, Src, 1>(call, Convert<Dst, Src>{}, "cast");
    }
  });
  return status;
}

}  // namespace

KernelStatus fill(const KernelCall& call) {
  switch (elem_size(call.outputs[0].type)) {
    case 1:
      return launch_fill<uint8_t>(call);
    case 2:
      return launch_fill<uint16_t>(call);
    case 4:
      return launch_fill<uint32_t>(call);
    default:
      return launch_fill<uint64_t>(call);
  }
}

KernelStatus copy(const KernelCall& call) { return copy_bytes(call, "copy"); }

KernelStatus cast(const KernelCall& call) {
  // Same type: convert returns the element itself, so its bytes move unchanged.
  if (call.inputs[0].type == call.outputs[0].type) return copy_bytes(call, "cast");
  KernelStatus status = KernelStatus::kDone;
  visit_elem_type(call.outputs[0].type, [&](auto dst) {
    status = cast_to<ElemT<decltype(dst)::value>>(call);
  });
  return status;
}

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
