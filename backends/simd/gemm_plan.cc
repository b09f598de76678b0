// Scratch layouts of the x86 conv2d/dense GEMM kernels, their prepack headers, AMX permission
// and the AMX dense entry's shape preference (code that needs no ISA flags).
#include "gemm_plan.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "gemm_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// Overflow-checked int64 arithmetic: false once anything overflowed.
struct Checked {
  bool ok = true;
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) ok = false;
    return r;
  }
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) ok = false;
    return r;
  }
  // Appends `bytes` to a layout whose end is *end (64-byte aligned parts); returns the offset.
  int64_t part(int64_t* end, int64_t bytes) {
    const int64_t at = *end;
    *end = add(at, add(bytes, 63)) & ~int64_t{63};
    return at;
  }
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Scratch beyond this many bytes, or beyond kMaxGrowth times the operands' own bytes, is not
// worth it (e.g. huge paddings of tiny inputs): the kernels then take another path.
constexpr int64_t kMaxScratch = int64_t{1} << 32;
constexpr int64_t kMaxGrowth = 8;
constexpr int64_t kGrowthAllowance = int64_t{16} << 20;

// Activations count as int32 whatever their view's type (an int8 x takes the path an int32
// one would: KernelEntry::takes_int8_activations).
bool reasonable(const KernelCall& call, int64_t bytes) {
  int64_t operands = 0;
  for (int i = 0; i < call.num_inputs; ++i) {
    const int64_t each = i == 0 ? 4 : static_cast<int64_t>(elem_size(call.inputs[i].type));
    operands += call.inputs[i].numel() * each;
  }
  operands += call.outputs[0].numel() * 4;
  return bytes <= kMaxScratch && bytes <= kMaxGrowth * operands + kGrowthAllowance;
}

// AMX splits `count` lanes of K into equal chunks of at most 16 (one tile row of 64 bytes).
void amx_chunks(int64_t count, int64_t* chunk, int64_t* padded) {
  const int64_t chunks = ceil_div(count, 16);
  *chunk = ceil_div(count, chunks);
  *padded = chunks * *chunk;
}

}  // namespace

bool make_conv_weight_plan(const TensorView& w, int64_t groups, const ConvLayout& layout,
                           ConvPlan* plan) {
  ConvPlan& p = *plan;
  p.groups = groups;
  p.group_c = w.shape[1];
  p.group_oc = w.shape[0] / groups;
  p.kernel_h = w.shape[2];
  p.kernel_w = w.shape[3];
  p.layout = layout;
  if (p.group_oc <= 0 || p.group_c <= 0 || p.kernel_h <= 0 || p.kernel_w <= 0) return false;
  Checked c;
  p.taps = c.mul(p.kernel_h, p.kernel_w);
  p.cq_real = ceil_div(p.group_c, layout.kc);
  if (layout.amx) {
    amx_chunks(p.cq_real, &p.chunk, &p.cq);
  } else {
    p.cq = p.chunk = p.cq_real;
  }
  p.oc_blocks = ceil_div(p.group_oc, layout.mr);
  if (layout.amx) {  // [g][ob][tap][chunk][row][lane of chunk]: A tiles of mr rows
    p.w_c = 1;
    p.w_m = p.chunk;
    p.w_chunk = c.mul(layout.mr, p.chunk);
    p.w_t = c.mul(p.cq / p.chunk, p.w_chunk);
    p.w_ob = c.mul(p.taps, p.w_t);
  } else if (p.taps >= kTapsInner) {  // [g][ob][channel group][row][tap]
    p.w_t = 1;
    p.w_m = p.taps;
    p.w_c = c.mul(p.taps, layout.mr);
    p.w_chunk = c.mul(p.cq, p.w_c);  // one chunk
    p.w_ob = c.mul(p.cq, p.w_c);
  } else {  // [g][ob][tap][row][channel group]
    p.w_c = 1;
    p.w_m = p.cq;
    p.w_t = c.mul(layout.mr, p.cq);
    p.w_chunk = p.cq;  // one chunk
    p.w_ob = c.mul(p.taps, p.w_t);
  }
  p.w_g = c.mul(p.oc_blocks, p.w_ob);
  c.mul(c.mul(p.groups, p.w_g), 4);  // the packed weight's bytes fit
  return c.ok;
}

bool make_conv_plan(const KernelCall& call, const ConvLayout& layout, ConvPlan* plan) {
  const auto& prm = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  ConvPlan p{};
  p.clamp = prm.clamp;
  p.scale = prm.scale;
  p.batch = y.shape[0];
  p.in_h = x.shape[2];
  p.in_w = x.shape[3];
  p.out_h = y.shape[2];
  p.out_w = y.shape[3];
  p.stride_h = prm.stride_h;
  p.stride_w = prm.stride_w;
  p.pad_h = prm.pad_h;
  p.pad_w = prm.pad_w;
  p.dilation_h = prm.dilation_h;
  p.dilation_w = prm.dilation_w;
  if (p.batch <= 0 || p.out_h <= 0 || p.out_w <= 0 || y.shape[1] / prm.groups <= 0) return false;
  if (!make_conv_weight_plan(call.inputs[1], prm.groups, layout, &p)) return false;
  Checked c;
  p.padded_h = std::max(c.add(p.in_h, c.mul(2, p.pad_h)),
                        c.add(c.mul(p.out_h - 1, p.stride_h),
                              c.add(c.mul(p.kernel_h - 1, p.dilation_h), 1)));
  p.padded_w = std::max(c.add(p.in_w, c.mul(2, p.pad_w)),
                        c.add(c.mul(p.out_w - 1, p.stride_w),
                              c.add(c.mul(p.kernel_w - 1, p.dilation_w), 1)));
  p.rows = ceil_div(p.padded_h, p.stride_h);
  p.cols = ceil_div(p.padded_w, p.stride_w);
  p.plane = c.mul(p.rows, p.cols);
  p.cq_stride = c.mul(c.mul(p.stride_h, p.stride_w), p.plane);
  p.group_stride = c.mul(p.cq, p.cq_stride);
  p.image_stride = c.mul(p.groups, p.group_stride);
  p.q_count = (p.out_h - 1) * p.cols + p.out_w;
  p.slot_stride = c.add(p.group_stride, kSlackLanes);
  const int64_t act_lanes = layout.slots > 0 ? c.mul(layout.slots, p.slot_stride)
                                             : c.add(c.mul(p.batch, p.image_stride), kSlackLanes);
  const int64_t w_lanes = c.mul(p.groups, p.w_g);

  int64_t end = 0;
  p.act_at = c.part(&end, c.mul(act_lanes, 4));
  p.w_at = c.part(&end, c.mul(w_lanes, 4));
  p.adj_at = c.part(&end, c.mul(c.mul(p.groups, p.group_oc), 4));
  p.tap_at = c.part(&end, c.mul(p.taps, 8));
  p.bytes = end;
  if (!c.ok || !reasonable(call, p.bytes)) return false;
  *plan = p;
  return true;
}

void fill_tap_offsets(const ConvPlan& p, int64_t* offsets) {
  for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
    const int64_t dh = kh * p.dilation_h;
    const int64_t row = (dh % p.stride_h) * p.stride_w * p.plane + (dh / p.stride_h) * p.cols;
    for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
      const int64_t dw = kw * p.dilation_w;
      offsets[kh * p.kernel_w + kw] = row + (dw % p.stride_w) * p.plane + dw / p.stride_w;
    }
  }
}

bool make_dense_weight_plan(int64_t n, int64_t k, const DenseLayout& layout, DensePlan* plan) {
  DensePlan& p = *plan;
  p.n = n;
  p.k = k;
  p.kc = layout.kc;
  if (p.n <= 0 || p.k <= 0) return false;
  Checked c;
  p.kq = ceil_div(p.k, layout.kc);
  if (layout.amx) {
    amx_chunks(p.kq, &p.chunk, &p.kq_pad);
  } else {
    p.kq_pad = p.chunk = c.mul(ceil_div(p.kq, layout.kq_multiple), layout.kq_multiple);
  }
  p.nb = layout.panel;
  const int64_t unit_block = layout.unit_block > layout.panel ? layout.unit_block : layout.panel;
  p.n_pad = c.mul(ceil_div(p.n, unit_block), unit_block);
  c.mul(c.mul(p.n_pad, p.kq_pad), 4);
  return c.ok;
}

bool make_dense_plan(const KernelCall& call, const DenseLayout& layout, DensePlan* plan) {
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  DensePlan p{};
  p.m = y.shape[0];
  if (p.m <= 0 || !make_dense_weight_plan(y.shape[1], x.shape[1], layout, &p)) return false;
  Checked c;
  p.m_pad = c.mul(ceil_div(p.m, layout.row_block), layout.row_block);
  int64_t end = 0;
  p.x_at = c.part(&end, c.mul(c.mul(p.m_pad, p.kq_pad), 4));
  p.w_at = c.part(&end, c.mul(c.mul(p.n_pad, p.kq_pad), 4));
  p.adj_at = c.part(&end, c.mul(p.n_pad, 4));
  p.bytes = end;
  if (!c.ok || !reasonable(call, p.bytes)) return false;
  *plan = p;
  return true;
}

namespace {

// Lays out header, lanes and sums; 0 on overflow.
int64_t prepack_parts(int64_t lanes, int64_t sums, PrepackHeader* h) {
  Checked c;
  int64_t end = 0;
  c.part(&end, static_cast<int64_t>(sizeof(PrepackHeader)));
  h->w_at = c.part(&end, c.mul(lanes, 4));
  h->sum_at = c.part(&end, c.mul(sums, 4));
  h->bytes = end;
  return c.ok ? end : 0;
}

// The call's prepack header when it has the right magic and op, else null.
const PrepackHeader* prepack_of(const KernelCall& call, int32_t op) {
  const auto* h = static_cast<const PrepackHeader*>(call.prepacked);
  return h != nullptr && h->magic == kPrepackMagic && h->op == op ? h : nullptr;
}

}  // namespace

int64_t conv_prepack_header(const ConvPlan& p, const TensorView& w, PrepackHeader* h) {
  *h = PrepackHeader{};
  h->magic = kPrepackMagic;
  h->op = kPrepackConv;
  h->kc = p.layout.kc;
  h->mr = p.layout.mr;
  h->amx = p.layout.amx ? 1 : 0;
  for (int d = 0; d < 4; ++d) h->shape[d] = w.shape[d];
  h->groups = p.groups;
  return prepack_parts(p.groups * p.w_g, p.groups * p.group_oc, h);
}

int64_t dense_prepack_header(const DensePlan& p, PrepackHeader* h) {
  *h = PrepackHeader{};
  h->magic = kPrepackMagic;
  h->op = kPrepackDense;
  h->kc = p.kc;
  h->shape[0] = p.n;
  h->shape[1] = p.k;
  h->groups = 1;
  h->kq_pad = p.kq_pad;
  h->chunk = p.chunk;
  h->nb = p.nb;
  h->n_pad = p.n_pad;
  return prepack_parts(p.n_pad * p.kq_pad, p.n_pad, h);
}

const PrepackHeader* conv_prepack_for(const KernelCall& call, const ConvPlan& p) {
  const PrepackHeader* h = prepack_of(call, kPrepackConv);
  if (h == nullptr || h->kc != p.layout.kc || h->mr != p.layout.mr ||
      h->amx != (p.layout.amx ? 1 : 0) || h->groups != p.groups) {
    return nullptr;
  }
  for (int d = 0; d < 4; ++d) {
    if (h->shape[d] != call.inputs[1].shape[d]) return nullptr;
  }
  return h;
}

const PrepackHeader* dense_prepack_for(const KernelCall& call, const DensePlan& p) {
  const PrepackHeader* h = prepack_of(call, kPrepackDense);
  if (h == nullptr || h->kc != p.kc || h->shape[0] != p.n || h->shape[1] != p.k ||
      h->kq_pad != p.kq_pad || h->chunk != p.chunk || h->nb != p.nb || h->n_pad != p.n_pad) {
    return nullptr;
  }
  return h;
}

// A one-row dense wastes 15 of the 16 rows of every AMX C tile (amx_dense pads x to blocks of
// 32 rows), while the AVX-512 VNNI kernel runs one row at a time (dense_tiles<1>). Measured on
// an AMX machine: a single-row int32 dense with a prepacked weight took 0.076 ms on the AMX
// kernel and 0.016 ms on the VNNI one (5x). Results are the same either way.
bool dense_amx_suits(const TensorView* inputs, int32_t num_inputs) {
  return num_inputs < 1 || inputs[0].ndim < 1 || inputs[0].shape[0] != 1;
}

// A step of amx_conv multiplies one tap's chunk of channel words: with fewer than 16 input
// channels a group, a tile row holds under 16 of its 64 bytes, the rest padding. Measured on a
// Xeon with AMX (bench/conv_bench --quick, 1 thread): the ResNet-18 stem (3 channels, 7x7 s2)
// took 4.98 ms on the AMX kernel and 1.08 ms on the AVX-512 VNNI one; 64-channel 3x3 layers run
// faster on AMX (0.51 against 0.72 ms). Depthwise layers take the VNNI path either way.
bool conv2d_amx_suits(const TensorView* inputs, int32_t num_inputs) {
  return num_inputs < 2 || inputs[1].ndim != 4 || inputs[1].shape[1] >= 16;
}

void* acquire_scratch(const Scratch* scratch, int64_t bytes) {
  if (scratch == nullptr || scratch->acquire == nullptr || bytes <= 0) return nullptr;
  return scratch->acquire(scratch->ctx, bytes);
}

bool amx_permitted() {
  // Linux (arch/x86/include/uapi/asm/prctl.h): ARCH_REQ_XCOMP_PERM asks for the right to use
  // the dynamically enabled XSAVE state component XFEATURE_XTILEDATA (18), i.e. the AMX tiles.
  static const bool permitted = [] {
#if defined(__linux__) && defined(SYS_arch_prctl)
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
    return false;
#endif
  }();
  return permitted;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
