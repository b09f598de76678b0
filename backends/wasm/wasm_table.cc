// The WebAssembly SIMD128 backend's kernel table: one line per kernel. Ops and dtypes it lacks
// fall back to the scalar reference in the registry.
#include "kernel_abi.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace w = wasm;

const KernelEntry kEntries[] = {
    // ---- elementwise and broadcast ----
    {"add", E::kInt32, "simd128", w::add_i32__wasm_simd128, kCpuNone},
    {"sub", E::kInt32, "simd128", w::sub_i32__wasm_simd128, kCpuNone},
    {"mul", E::kInt32, "simd128", w::mul_i32__wasm_simd128, kCpuNone},
    {"maximum", E::kInt32, "simd128", w::maximum_i32__wasm_simd128, kCpuNone},
    {"minimum", E::kInt32, "simd128", w::minimum_i32__wasm_simd128, kCpuNone},
    {"relu", E::kInt32, "simd128", w::relu_i32__wasm_simd128, kCpuNone},
    {"clip", E::kInt32, "simd128", w::clip_i32__wasm_simd128, kCpuNone},
    {"cvm_right_shift", E::kInt32, "simd128", w::cvm_right_shift_i32__wasm_simd128, kCpuNone},
    {"cvm_left_shift", E::kInt32, "simd128", w::cvm_left_shift_i32__wasm_simd128, kCpuNone},
    // ---- reduce ----
    {"reduce_sum", E::kInt32, "simd128", w::reduce_sum_i32__wasm_simd128, kCpuNone},
    {"reduce_max", E::kInt32, "simd128", w::reduce_max_i32__wasm_simd128, kCpuNone},
    // ---- nn ----
    {"conv2d", E::kInt32, "simd128", w::conv2d_i32__wasm_simd128, kCpuNone},
    {"dense", E::kInt32, "simd128", w::dense_i32__wasm_simd128, kCpuNone},
    {"max_pool2d", E::kInt32, "simd128", w::max_pool2d_i32__wasm_simd128, kCpuNone},
    // ---- float32 nn ----
    {"conv2d", E::kFloat32, "simd128", w::conv2d_f32__wasm_simd128, kCpuNone},
    {"dense", E::kFloat32, "simd128", w::dense_f32__wasm_simd128, kCpuNone},
    {"relu", E::kFloat32, "simd128", w::relu_f32__wasm_simd128, kCpuNone},
    {"leaky_relu", E::kFloat32, "simd128", w::leaky_relu_f32__wasm_simd128, kCpuNone},
    {"clamp", E::kFloat32, "simd128", w::clamp_f32__wasm_simd128, kCpuNone},
    {"sigmoid", E::kFloat32, "simd128", w::sigmoid_f32__wasm_simd128, kCpuNone},
    {"softmax", E::kFloat32, "simd128", w::softmax_f32__wasm_simd128, kCpuNone},
    {"max_pool2d", E::kFloat32, "simd128", w::max_pool2d_f32__wasm_simd128, kCpuNone},
    {"avg_pool2d", E::kFloat32, "simd128", w::avg_pool2d_f32__wasm_simd128, kCpuNone},
    {"pad", E::kFloat32, "simd128", w::pad_b32__wasm_simd128, kCpuNone},
    {"pad", E::kInt32, "simd128", w::pad_b32__wasm_simd128, kCpuNone},
};

}  // namespace

// Compiled only into the simd variant of the module, whose engine has validated SIMD128 before
// any of this runs: no run-time feature check is needed.
extern const BackendTable kWasmBackend = {"wasm", kEntries, sizeof(kEntries) / sizeof(kEntries[0]),
                                          nullptr, 1 /* kDLCPU */};

}  // namespace kernel
}  // namespace cvm
