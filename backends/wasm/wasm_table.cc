// The WebAssembly SIMD128 backend's kernel table: one line per kernel. For ops and dtypes it
// lacks, and calls its kernels decline, a node's chain falls back to the scalar reference.
#include "kernel_abi.h"
#include "gemm_simd128.h"
#include "wasm_kernels.h"
#include "winograd_f23.h"

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace w = wasm;

const KernelEntry kEntries[] = {
    // ---- elementwise and broadcast ----
    // add and sub apply a fused clamp run's stage when one is passed (applies_clamp), and then
    // take int8 activation views (the last field, takes_int8_activations), as relu, clip,
    // cvm_right_shift and max_pool2d do.
    {"add_i32__wasm_simd128", "add", E::kInt32, w::add_i32__wasm_simd128, kCpuNone, nullptr,
     nullptr, true, false, true},
    {"sub_i32__wasm_simd128", "sub", E::kInt32, w::sub_i32__wasm_simd128, kCpuNone, nullptr,
     nullptr, true, false, true},
    {"mul_i32__wasm_simd128", "mul", E::kInt32, w::mul_i32__wasm_simd128, kCpuNone},
    {"maximum_i32__wasm_simd128", "maximum", E::kInt32, w::maximum_i32__wasm_simd128, kCpuNone},
    {"minimum_i32__wasm_simd128", "minimum", E::kInt32, w::minimum_i32__wasm_simd128, kCpuNone},
    {"relu_i32__wasm_simd128", "relu", E::kInt32, w::relu_i32__wasm_simd128, kCpuNone, nullptr,
     nullptr, false, false, true},
    {"clip_i32__wasm_simd128", "clip", E::kInt32, w::clip_i32__wasm_simd128, kCpuNone, nullptr,
     nullptr, false, false, true},
    {"cvm_right_shift_i32__wasm_simd128", "cvm_right_shift", E::kInt32,
     w::cvm_right_shift_i32__wasm_simd128, kCpuNone, nullptr, nullptr, false, false, true},
    {"cvm_left_shift_i32__wasm_simd128", "cvm_left_shift", E::kInt32,
     w::cvm_left_shift_i32__wasm_simd128, kCpuNone},
    // ---- reduce ----
    {"reduce_sum_i32__wasm_simd128", "reduce_sum", E::kInt32, w::reduce_sum_i32__wasm_simd128,
     kCpuNone},
    {"reduce_max_i32__wasm_simd128", "reduce_max", E::kInt32, w::reduce_max_i32__wasm_simd128,
     kCpuNone},
    // ---- nn ----
    // Winograd first for 3x3 layers (other nodes move it behind: winograd_f23.h's suits); it
    // declines all but stride 1. A separate wasm function, so V8 compiles and tiers up each path
    // on its own. All three int32 entries apply Conv2dParams::clamp / DenseParams::clamp as they
    // store (applies_clamp), and both conv2d entries Conv2dParams::scale after it
    // (applies_channel_scale). The GEMM entries also take int8 activations (the last field,
    // takes_int8_activations; every path of theirs reads and writes either); Winograd keeps
    // int32, so a session holds a 3x3 stride-1 layer's input and output as int32.
    {"conv2d_i32__wasm_winograd", "conv2d", E::kInt32, w::conv2d_i32__wasm_winograd, kCpuNone,
     w::conv2d_i32__wasm_winograd_prepack, winograd_f23::suits, true, true},
    {"conv2d_i32__wasm_simd128", "conv2d", E::kInt32, w::conv2d_i32__wasm_simd128, kCpuNone,
     w::conv2d_i32__wasm_simd128_prepack, nullptr, true, true, true},
    {"dense_i32__wasm_simd128", "dense", E::kInt32, w::dense_i32__wasm_simd128, kCpuNone,
     w::dense_i32__wasm_simd128_prepack, nullptr, true, false, true},
    {"max_pool2d_i32__wasm_simd128", "max_pool2d", E::kInt32, w::max_pool2d_i32__wasm_simd128,
     kCpuNone, nullptr, nullptr, false, false, true},
    // ---- float32 nn ----
    {"conv2d_f32__wasm_simd128", "conv2d", E::kFloat32, w::conv2d_f32__wasm_simd128, kCpuNone},
    {"dense_f32__wasm_simd128", "dense", E::kFloat32, w::dense_f32__wasm_simd128, kCpuNone},
    {"relu_f32__wasm_simd128", "relu", E::kFloat32, w::relu_f32__wasm_simd128, kCpuNone},
    {"leaky_relu_f32__wasm_simd128", "leaky_relu", E::kFloat32, w::leaky_relu_f32__wasm_simd128,
     kCpuNone},
    {"clamp_f32__wasm_simd128", "clamp", E::kFloat32, w::clamp_f32__wasm_simd128, kCpuNone},
    {"sigmoid_f32__wasm_simd128", "sigmoid", E::kFloat32, w::sigmoid_f32__wasm_simd128, kCpuNone},
    {"softmax_f32__wasm_simd128", "softmax", E::kFloat32, w::softmax_f32__wasm_simd128, kCpuNone},
    {"max_pool2d_f32__wasm_simd128", "max_pool2d", E::kFloat32, w::max_pool2d_f32__wasm_simd128,
     kCpuNone},
    {"avg_pool2d_f32__wasm_simd128", "avg_pool2d", E::kFloat32, w::avg_pool2d_f32__wasm_simd128,
     kCpuNone},
    {"copy_f32__wasm_simd128", "copy", E::kFloat32, w::copy_bits__wasm_simd128, kCpuNone},
    {"copy_i32__wasm_simd128", "copy", E::kInt32, w::copy_bits__wasm_simd128, kCpuNone, nullptr,
     nullptr, false, false, true},
    {"pad_f32__wasm_simd128", "pad", E::kFloat32, w::pad_b32__wasm_simd128, kCpuNone},
    {"pad_i32__wasm_simd128", "pad", E::kInt32, w::pad_b32__wasm_simd128, kCpuNone},
};

}  // namespace

// Compiled only into the simd variant of the module, whose engine has validated SIMD128 before
// any of this runs: no run-time feature check is needed.
extern const BackendTable kWasmBackend = {"wasm", kEntries, sizeof(kEntries) / sizeof(kEntries[0]),
                                          nullptr, 1 /* kDLCPU */};

}  // namespace kernel
}  // namespace cvm
