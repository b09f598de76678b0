// Layouts of the x86 conv2d/dense GEMM kernels in scratch memory, computed outside ISA code.
//
// Plain structs and out-of-line functions only (compiled without ISA flags, see simd_kernels.h
// for why ISA sources must not share inline code).
//
// Convolution as an implicit GEMM. The input of one image and group is repacked into "planes"
// of 32-bit lanes: a lane holds `kc` consecutive input channels of one pixel (kc = 4: int8,
// kc = 2: int16, kc = 1: int32), padded with zeros, and split by phase (space-to-depth by the
// stride): pixel (ih, iw) of the padded input goes to phase plane (ih % sh, iw % sw) at row
// ih / sh, column iw / sw. Every tap (kh, kw) of every output (oh, ow) then reads lane
//   q + tap_offset[kh * KW + kw],   q = oh * cols + ow,
// of the channel group's planes: each convolution becomes stride 1, a vector of consecutive q
// is one unaligned load, and the lanes with ow >= OW (or beyond the last output) compute
// garbage that is never stored. The planes of consecutive channel groups are `cq_stride` lanes
// apart, so they are also the "B" operand in VNNI/AMX layout ([k / kc][q][kc]).
#pragma once

#include <cstdint>

#include "kernel_abi.h"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace simd {

// Lanes of slack after the packed activations: vector loads of garbage lanes may run this far
// past the last plane (at most one block of tile columns: 128 lanes for the widest tile).
constexpr int64_t kSlackLanes = 128;

// Kernels with at least this many taps pack weights with the taps innermost (vectors over the
// taps of one channel group: consecutive in memory), others with the channel groups innermost
// (vectors over channels: consecutive for 1x1 kernels).
constexpr int64_t kTapsInner = 8;

// How an engine wants a conv2d laid out.
struct ConvLayout {
  int32_t kc;  // channels per lane: 4, 2 or 1
  int32_t mr;  // output channels per weight block (rows of the micro tile)
  bool amx;    // AMX: channel groups in equal chunks of <= 16, weights as A tiles
  // 0: the activations of every image and group are packed up front. k > 0: there are k
  // buffers ("slots") of one image and group each, packed just before their tiles run.
  int64_t slots;
};

struct ConvPlan {
  // The problem, from the views and Conv2dParams.
  int64_t batch, groups, group_c, group_oc, in_h, in_w, out_h, out_w, kernel_h, kernel_w, taps;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  // The padded input's extent: pad_h rows (pad_w columns) on either side, or more after the
  // input where the output's windows reach further (Conv2dParams: the padding after the input
  // is what the output extent needs).
  int64_t padded_h, padded_w;
  ConvLayout layout;
  // Activation planes (all counts in 32-bit lanes).
  int64_t cq;            // channel groups ("rows of K") per convolution group, padded for AMX
  int64_t cq_real;       // ceil(group_c / kc): the ones holding channels
  int64_t chunk;         // AMX: channel groups per tile (cq = chunks * chunk); else cq
  int64_t rows, cols;    // extent of one phase plane
  int64_t plane;         // rows * cols
  int64_t cq_stride;     // stride_h * stride_w planes
  int64_t group_stride;  // cq * cq_stride
  int64_t image_stride;  // groups * group_stride
  int64_t slot_stride;   // with slots: group_stride + kSlackLanes
  int64_t q_count;       // (out_h - 1) * cols + out_w: q positions holding outputs
  // Packed weights: lane index of (group g, channel o in group, channel group c, tap t) is
  //   g * w_g + (o / mr) * w_ob + (o % mr) * w_m + (c / chunk) * w_chunk + (c % chunk) * w_c
  //   + t * w_t,
  // i.e. per block of mr output channels [c][row][tap] when taps >= kTapsInner (each channel
  // group's taps consecutive, as they are in OIHW), else [tap][row][c] (1x1: a row of lanes is
  // a narrowed row of w), and for AMX [tap][chunk][row][c in chunk]: 16-row A tiles. Rows past
  // group_oc and channel groups past cq_real are zero.
  int64_t oc_blocks;  // ceil(group_oc / mr)
  int64_t w_g, w_ob, w_m, w_chunk, w_c, w_t;
  // Scratch: byte offsets of each part (64-byte aligned) and the total.
  int64_t act_at, w_at, adj_at, tap_at, bytes;
  const CvmClampParams* clamp;  // Conv2dParams::clamp: applied as outputs are stored (or null)
  const ChannelScale* scale;    // Conv2dParams::scale: applied after it (or null)
};

// Plans a conv2d call (views and Conv2dParams as the op layer passes them). False when the
// layout does not apply: an extent of zero, or sizes that overflow or exceed what is reasonable
// next to the operands; the caller then uses another path.
bool make_conv_plan(const KernelCall& call, const ConvLayout& layout, ConvPlan* plan);

// The weight part of make_conv_plan (problem extents from w and groups, packed weight
// strides), for prepacking; false when sizes overflow.
bool make_conv_weight_plan(const TensorView& w, int64_t groups, const ConvLayout& layout,
                           ConvPlan* plan);

// Fills the tap offsets (lanes, int64, `plan.taps` of them) that make_conv_plan described.
void fill_tap_offsets(const ConvPlan& plan, int64_t* offsets);

// dense as a GEMM: y (M, N) = x (M, K) * w (N, K)^T. Lanes hold `kc` consecutive k.
struct DenseLayout {
  int32_t kc;
  int64_t row_block;    // rows of x per micro tile (packed x has a multiple of them)
  int64_t unit_block;   // units per micro tile (packed w has a multiple of them)
  int64_t panel;        // units interleaved per packed weight panel (1: plain rows of lanes)
  int64_t kq_multiple;  // lanes of k per packed row are a multiple of this (vector width)
  bool amx;             // AMX: lanes of k in equal chunks of <= 16 instead
};

struct DensePlan {
  int64_t m, n, k;
  int32_t kc;
  int64_t kq;      // ceil(k / kc)
  int64_t chunk;   // AMX: lanes of k per tile (kq_pad = chunks * chunk); else kq_pad
  int64_t kq_pad;  // lanes of k per packed row, zero beyond kq
  int64_t m_pad;   // rows of packed x
  int64_t nb;      // units per packed weight panel
  int64_t n_pad;   // packed units
  // Packed x: row r at x_at + r * kq_pad lanes. Packed w: unit u, lane of k j at
  // w_at + ((u / nb) * kq_pad + j) * nb + u % nb lanes. adj: n_pad int32.
  int64_t x_at, w_at, adj_at, bytes;
};

// Plans a dense call; as make_conv_plan, false when it does not apply.
bool make_dense_plan(const KernelCall& call, const DenseLayout& layout, DensePlan* plan);
// The weight part of make_dense_plan (m and the x part left 0), for prepacking.
bool make_dense_weight_plan(int64_t n, int64_t k, const DenseLayout& layout, DensePlan* plan);

// ---- prepacked weights (KernelCall::prepacked) ----
// A header, the packed weight lanes exactly as the kernel packs them into scratch (at w_at),
// then the wrapping sum of each output channel's / unit's weights (int32, at sum_at; dense:
// n_pad of them, zero past n). The layout fields say which plan made them: a kernel uses them
// only when its own plan has the same layout and the call's weight the same extents.
struct PrepackHeader {
  uint64_t magic;
  int32_t op;             // kPrepackConv or kPrepackDense
  int32_t kc, mr, amx;    // conv: its ConvLayout (mr 0 for dense)
  int64_t shape[4];       // the weight's extents (dense: units, K, 0, 0)
  int64_t groups;         // conv groups (dense: 1)
  int64_t kq_pad, chunk, nb, n_pad;  // dense: its DensePlan's weight layout
  int64_t w_at, sum_at, bytes;
};
constexpr uint64_t kPrepackMagic = 0x314B434150505643ull;  // "CVPPACK1"
constexpr int32_t kPrepackConv = 1, kPrepackDense = 2;

// Fills the header of a conv2d / dense prepack for a weight plan and returns the bytes the
// whole prepack takes (0 on overflow).
int64_t conv_prepack_header(const ConvPlan& p, const TensorView& w, PrepackHeader* h);
int64_t dense_prepack_header(const DensePlan& p, PrepackHeader* h);
// The call's prepack when it was made for exactly this plan's weight layout, else null.
const PrepackHeader* conv_prepack_for(const KernelCall& call, const ConvPlan& p);
const PrepackHeader* dense_prepack_for(const KernelCall& call, const DensePlan& p);

// Bytes of scratch from the op layer (params' Scratch), or null when there is none.
void* acquire_scratch(const Scratch* scratch, int64_t bytes);

// Whether the process may run AMX tile instructions: asks the kernel once (arch_prctl) and
// remembers the answer. cpu_features() reports AMX only when this is true.
bool amx_permitted();

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
