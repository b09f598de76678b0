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

// A body of a parallel loop: handles items [begin, end) of a loop over [0, n). It may run on
// any thread, concurrently with the bodies of other ranges; it must not throw.
using ParallelBody = void (*)(void* user, int64_t begin, int64_t end);

// The op layer's thread pool as kernels see it (kernels never create threads themselves).
// run(ctx, n, body, user) calls body(user, begin, end) over disjoint contiguous ranges that cover
// [0, n) exactly once, on up to num_threads threads (the caller's included), and returns when
// every range is done. It never allocates and never throws. Results must not depend on how the
// ranges fall: split only over independent outputs, never inside one reduction's order.
struct ParallelFor {
  void (*run)(void* ctx, int64_t n, ParallelBody body, void* user);
  void* ctx;
  int32_t num_threads;    // >= 2: threads that run() may use
  int64_t min_task_work;  // do not make tasks smaller than this many element operations
};

// Scratch memory the op layer lends to one kernel call (kernels never allocate), reached
// through the params struct of the families that take it (Conv2dParams, DenseParams). A kernel
// asks for what its chosen path needs, when it knows: acquire(ctx, bytes) returns at least
// `bytes` bytes, 64-byte aligned, uninitialised, owned by the op layer and valid until the
// kernel returns; or null when it cannot lend them (too large, out of memory, a limit), and the
// kernel then takes a path that needs none (every kernel that asks has one, so the answer
// never changes results). acquire never throws; call it from the kernel's calling thread only,
// never from a parallel body. A kernel may call it several times; blocks do not overlap.
struct Scratch {
  void* (*acquire)(void* ctx, int64_t bytes);
  void* ctx;
};

// One kernel invocation: inputs, outputs and the op family's POD parameter struct (or null).
// Input and output views of an elementwise call always have the same ndim and shape.
// `parallel` (null: run serially) is valid for the duration of the call only.
struct KernelCall {
  const TensorView* inputs;
  int32_t num_inputs;
  const TensorView* outputs;
  int32_t num_outputs;
  const void* params;
  const ParallelFor* parallel;
  // Optional: weights this very kernel entry packed ahead of time from the call's weight input
  // (KernelEntry::prepack, over the same values), or null. Valid for the call only. A kernel
  // that cannot use them (e.g. another layout) packs the weight itself; results never change.
  const void* prepacked = nullptr;
  // A device backend's stream (CUDA: a cudaStream_t, already on the current device) that the
  // kernel enqueues its work on; null: the device's default stream. CPU kernels ignore it.
  // A device kernel returns once its work is enqueued: the op layer synchronizes the stream
  // before any host code reads the outputs.
  void* stream = nullptr;
};

// What a kernel did with a call. A kernel declines a call it cannot take (an operand range,
// a stride, a shape or a scratch size outside what its path handles) before it writes any
// output, and the op layer then runs the next entry of the node's chain (the scalar reference
// last, which takes every call). Declining never changes results, only which kernel runs.
enum class KernelStatus : int32_t {
  kDone = 0,
  kDeclined = 1,
  // A device kernel could not be enqueued (a launch error, a device fault): the op layer raises
  // a RuntimeError with the device's message (DeviceApi::last_error). CPU kernels never fail.
  kFailed = 2,
};

using KernelFn = KernelStatus (*)(const KernelCall& call);

// Packs a constant weight for later calls of one kernel entry (KernelCall::prepacked): for
// conv2d and dense the weight is inputs[1] and `params` the family's params struct as a call
// would pass it (its scratch is not used). Returns the bytes the packed form needs, writing
// nothing when `out` is null or `cap` is smaller; writes them into `out` (64-byte aligned)
// when `cap` suffices. Returns 0 when it declines (the kernel gains nothing, or a value is out
// of the range the packed form holds): the call then runs without. Never throws; serial.
using PrepackFn = size_t (*)(const TensorView& weight, const void* params, void* out, size_t cap);

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
// Names of the CpuFeature bits, bit i at index i (as __builtin_cpu_supports spells them).
constexpr const char* kCpuFeatureNames[] = {"avx2",       "fma",      "avx512f",
                                            "avx512bw",   "avx512vl", "avx512vnni",
                                            "avxvnni",    "amx-tile", "amx-int8"};
constexpr int kNumCpuFeatures = sizeof(kCpuFeatureNames) / sizeof(kCpuFeatureNames[0]);

// Whether a kernel entry suits a call of these input shapes, for ordering a node's chain when
// a session is made (null: it suits every call). An entry that does not suit a node is not
// removed: it moves behind the entries that do, so results never depend on the answer. Used
// where a measured crossover says another entry is faster (e.g. a one-row dense). Never throws.
using SuitsFn = bool (*)(const TensorView* inputs, int32_t num_inputs);

// One line of a backend's table: its name, which op and element type, the function, the CPU
// features it needs and its optional weight packer and shape preference.
struct KernelEntry {
  // "what__how", unique across every table: the op and operand types, then the backend and
  // ISA, e.g. "add_i32__scalar", "conv2d_i8i32__avx512vnni", "dense_i32__wasm_simd128".
  const char* name;
  const char* op;              // kernel op as operators request it, e.g. "add", "reduce_sum"
  ElemType dtype;              // element type of the first input (of the first output for an
                               // op without inputs, e.g. fill), or kAny
  KernelFn fn;                 // the kernel
  uint32_t required_features;  // CpuFeature bits that must all be present
  PrepackFn prepack = nullptr;  // packs constant weights for `fn` (null: it takes none)
  SuitsFn suits = nullptr;      // shape preference (null: suits every call)
  // conv2d and dense entries: every call applies Conv2dParams::clamp / DenseParams::clamp (when
  // set) to its outputs, so the caller need not make a clamp pass of its own afterwards. int32
  // add / sub entries: likewise when the call's params is a CvmClampParams (null: none).
  bool applies_clamp = false;
  // conv2d entries: every call also applies Conv2dParams::scale (when set) after the clamp.
  bool applies_channel_scale = false;
  // conv2d and dense entries with applies_clamp: calls may hold their activations as int8.
  // inputs[0] may be an int8 view (the values an int32 one would hold: conv2d/dense data has
  // precision <= 8); outputs[0] may be an int8 view when the call's clamp is set and the last
  // clamp of its stage (the scale's, when set) lies within [-128, 127]: it then receives those
  // values, exact. Weights and bias stay int32. Such an entry may still decline an int8 call;
  // the op layer then widens.
  // int32 relu, clip, cvm_right_shift, max_pool2d and copy entries, and add / sub entries given
  // a clamp within [-128, 127]: every view of a call may be int8 instead (all alike), holding
  // the values an int32 view would; the results then fit. They never decline such a call
  // (nothing behind them but the reference takes it), and decline one that mixes int8 and int32
  // views.
  bool takes_int8_activations = false;
};

// A backend: its name, its kernels, and whether it can run on this machine at all.
struct BackendTable {
  const char* name;              // "scalar", "simd", "wasm", "cuda", "portable"
  const KernelEntry* entries;    // `count` lines
  size_t count;
  uint32_t (*cpu_features)();    // features usable on this machine, after the CVMRT_ISA cap
                                 // (null: none needed)
  int32_t device_type;           // DLPack device type its kernels run on (1 = CPU, 2 = CUDA)
  // Features the CPU has, before the CVMRT_ISA cap (null: same as cpu_features), and the level
  // CVMRT_ISA caps them to ("" when none; null: no cap applies): for the system report only.
  uint32_t (*detected_cpu_features)() = nullptr;
  const char* (*isa_cap)() = nullptr;
  // The name of CVMRT_ISA level `level` (0 = lowest), or null past the last one; for the system
  // report and its warnings (null: the backend has no levels).
  const char* (*isa_level_name)(int level) = nullptr;
};

// The tables, one per compiled backend (defined in backends/<name>/<name>_table.cc).
extern const BackendTable kScalarBackend;
extern const BackendTable kSimdBackend;
extern const BackendTable kWasmBackend;  // WebAssembly SIMD128 (the simd wasm module only)
extern const BackendTable kCudaBackend;  // NVIDIA GPUs (when nvcc was found at build time)
extern const BackendTable kPortableBackend;  // plain C++ GEMMs (native, and the plain wasm module)

// ---- POD parameter structs shared by every backend's kernels of a family ----

// Elementwise binary arithmetic (add, sub, mul): inputs[0], inputs[1] -> outputs[0], all of the
// same element type; integer arithmetic wraps (two's complement). params: null, or for int32 add
// / sub a CvmClampParams (params/elementwise.h) that entries with applies_clamp apply to each
// result as the cvm_right_shift kernel does (a session's fused clamp run after the add).
// Fill: outputs[0] set to `value`, given as the raw little-endian bytes of one element.
struct FillParams {
  uint8_t value[16];
};

}  // namespace kernel
}  // namespace cvm
