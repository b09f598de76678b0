// The kernel layer's whole contract: POD tensor views, the kernel signature and the backend table.
//
// Kernels see raw pointers, extents and element strides only. They never allocate, never throw
// and never include core/: the op layer (core/ops) has validated shapes and attributes, computed
// output shapes, broadcast inputs (stride 0) and allocated outputs before a kernel runs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cvm {
namespace kernel {

// Element types a kernel can be asked to handle. The core maps cvm::DataType onto these.
enum class ElemType : uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kBool,
  kAny,  // in a table entry: the kernel handles every element type itself
};
constexpr int kNumElemTypes = static_cast<int>(ElemType::kAny);

// Bytes per element of each ElemType, indexed by its value (kAny has none). A table rather than
// a function so ISA-specific sources can use it without emitting shared inline code.
constexpr uint8_t kElemSizes[kNumElemTypes + 1] = {1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1, 0};
constexpr size_t elem_size(ElemType t) { return kElemSizes[static_cast<int>(t)]; }

// Most dimensions a kernel view carries. The op layer coalesces contiguous dimensions first and
// rejects (LogicError) what still does not fit.
constexpr int kMaxKernelDims = 8;

// A strided view of one tensor. Strides are in elements (DLPack convention) and may be 0
// (broadcast) or negative. `data` points at element [0, 0, ...] and is aligned to the element
// size, except for the same-dtype "copy" kernel, which must move bytes without typed loads.
struct TensorView {
  void* data;
  ElemType type;
  int32_t ndim;
  int64_t shape[kMaxKernelDims];
  int64_t strides[kMaxKernelDims];

  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < ndim; ++i) n *= shape[i];
    return n;
  }
  bool contiguous() const {
    int64_t expected = 1;
    for (int i = ndim - 1; i >= 0; --i) {
      if (shape[i] != 1 && strides[i] != expected) return false;
      expected *= shape[i];
    }
    return true;
  }
};

// One kernel invocation: inputs, outputs and the op family's POD parameter struct (or null).
// Input and output views of an elementwise call always have the same ndim and shape.
struct KernelCall {
  const TensorView* inputs;
  int32_t num_inputs;
  const TensorView* outputs;
  int32_t num_outputs;
  const void* params;
};

using KernelFn = void (*)(const KernelCall& call);

// CPU features a kernel may require; the registry skips entries whose features are missing.
enum CpuFeature : uint32_t {
  kCpuNone = 0,
  kCpuAvx2 = 1u << 0,
  kCpuFma = 1u << 1,
  kCpuAvx512f = 1u << 2,
  kCpuAvx512bw = 1u << 3,
  kCpuAvx512vl = 1u << 4,
  kCpuAvx512vnni = 1u << 5,
  kCpuAvxVnni = 1u << 6,
  kCpuAmxTile = 1u << 7,
  kCpuAmxInt8 = 1u << 8,
};

// One line of a backend's table: which op, for which output element type, how, and by what.
struct KernelEntry {
  const char* op;              // op name as the op layer dispatches it, e.g. "add"
  ElemType dtype;              // element type of the first input (of the first output for an
                               // op without inputs, e.g. fill), or kAny
  const char* variant;         // how: "ref", "avx2", "avx512", ...
  KernelFn fn;                 // the kernel
  uint32_t required_features;  // CpuFeature bits that must all be present
};

// A backend: its name, its kernels, and whether it can run on this machine at all.
struct BackendTable {
  const char* name;              // "scalar", "simd", "wasm", "cuda"
  const KernelEntry* entries;    // `count` lines
  size_t count;
  uint32_t (*cpu_features)();    // features present on this machine (null: none needed)
  int32_t device_type;           // DLPack device type its kernels run on (1 = CPU, 2 = CUDA)
};

// The tables, one per compiled backend (defined in backends/<name>/<name>_table.cc).
extern const BackendTable kScalarBackend;
extern const BackendTable kSimdBackend;

// ---- POD parameter structs shared by every backend's kernels of a family ----

// Elementwise binary arithmetic (add, sub, mul): inputs[0], inputs[1] -> outputs[0], all of the
// same element type; integer arithmetic wraps (two's complement).
// Fill: outputs[0] set to `value`, given as the raw little-endian bytes of one element.
struct FillParams {
  uint8_t value[16];
};

}  // namespace kernel
}  // namespace cvm
