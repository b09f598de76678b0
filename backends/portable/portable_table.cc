// The portable backend's kernel table: one line per kernel. For ops and dtypes it lacks, and
// calls its kernels decline, a node's chain falls back to the scalar reference.
#include "kernel_abi.h"
#include "portable_kernels.h"
#include "winograd_f23.h"  // the Winograd entry's suits

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace p = portable;

// All apply Conv2dParams::clamp / DenseParams::clamp as they store (applies_clamp), and conv2d
// Conv2dParams::scale after it (the last field, applies_channel_scale). Winograd first for 3x3
// layers (other nodes move it behind: winograd_f23.h's suits); it declines all but stride 1.
const KernelEntry kEntries[] = {
    {"conv2d_i32__portable_winograd", "conv2d", E::kInt32, p::conv2d_i32__portable_winograd,
     kCpuNone, p::conv2d_i32__portable_winograd_prepack, winograd_f23::suits, true, true},
    {"conv2d_i32__portable", "conv2d", E::kInt32, p::conv2d_i32__portable, kCpuNone,
     p::conv2d_i32__portable_prepack, nullptr, true, true},
    {"dense_i32__portable", "dense", E::kInt32, p::dense_i32__portable, kCpuNone,
     p::dense_i32__portable_prepack, nullptr, true},
};

}  // namespace

extern const BackendTable kPortableBackend = {
    "portable", kEntries, sizeof(kEntries) / sizeof(kEntries[0]), nullptr, 1 /* kDLCPU */};

}  // namespace kernel
}  // namespace cvm
