// The float32 kernel templates of the x86 kernels (backends/simd/float_nn.inc, float_act.inc,
// float_pool.inc) compiled over portable emulated lanes, and the harness that compares them
// with the scalar reference (float_lane_emulation.h).
#include "float_lane_emulation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "float_math.h"
#include "params/float_nn.h"
#include "params/nn.h"

// The kernel templates of the x86 kernels (backends/simd/float_*.inc, also compiled into the wasm
// kernels) over portable emulated lanes: 16 (AVX-512's count, so its lane logic is checked on CPUs
// without AVX-512) and 4 (the wasm kernels' count, natively). Each lane op is the same single IEEE
// operation per lane as the vector instruction's.
namespace cvm_float_emu {

// N lanes of T (float or double): the members both lane kinds share. Masks are lane bits.
template <typename T, int N>
struct Lanes {
  static constexpr int kLanes = N;
  struct V {
    T l[N];
  };
  using M = uint32_t;
  template <typename Fn>
  static V map2(V a, V b, Fn&& fn) {
    for (int j = 0; j < N; ++j) a.l[j] = fn(a.l[j], b.l[j]);
    return a;
  }
  template <typename Fn>
  static M test(V a, V b, Fn&& fn) {
    M m = 0;
    for (int j = 0; j < N; ++j) m |= fn(a.l[j], b.l[j]) ? 1u << j : 0u;
    return m;
  }
  static V splat(T v) {
    V r;
    for (T& x : r.l) x = v;
    return r;
  }
  static V load(const T* p) {
    V r;
    std::memcpy(r.l, p, sizeof r.l);
    return r;
  }
  static void store(T* p, V v) { std::memcpy(p, v.l, sizeof v.l); }
  static V add(V a, V b) {
    return map2(a, b, [](T x, T y) { return x + y; });
  }
  static V mul(V a, V b) {
    return map2(a, b, [](T x, T y) { return x * y; });
  }
  static V div(V a, V b) {
    return map2(a, b, [](T x, T y) { return x / y; });
  }
  static M gt(V a, V b) {
    return test(a, b, [](T x, T y) { return x > y; });
  }
  static M lt(V a, V b) {
    return test(a, b, [](T x, T y) { return x < y; });
  }
  static M is_nan(V a) {
    return test(a, a, [](T x, T) { return std::isnan(x); });
  }
  // m ? a : b per lane (also for the int64 lanes of Double).
  template <typename W>
  static W select(M m, W a, W b) {
    for (int j = 0; j < N; ++j) b.l[j] = (m >> j) & 1u ? a.l[j] : b.l[j];
    return b;
  }
};

// float64 lanes with int64 lanes I for det_exp's exponent.
template <int N>
struct Double : Lanes<double, N> {
  using B = Lanes<double, N>;
  using typename B::M;
  using typename B::V;
  struct I {
    int64_t l[N];
  };
  static V sub(V a, V b) {
    return B::map2(a, b, [](double x, double y) { return x - y; });
  }
  static V neg(V a) {
    for (double& x : a.l) x = -x;
    return a;
  }
  static I bits_minus(V t, V base) {
    I r;
    for (int j = 0; j < N; ++j) {
      uint64_t a, b;
      std::memcpy(&a, &t.l[j], 8);
      std::memcpy(&b, &base.l[j], 8);
      r.l[j] = static_cast<int64_t>(a - b);
    }
    return r;
  }
  static I isplat(int64_t v) {
    I r;
    for (int64_t& x : r.l) x = v;
    return r;
  }
  static I iadd(I a, int64_t b) {
    for (int64_t& x : a.l) {
      x = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(b));
    }
    return a;
  }
  static M igt(I a, int64_t b) {
    M m = 0;
    for (int j = 0; j < N; ++j) m |= a.l[j] > b ? 1u << j : 0u;
    return m;
  }
  static M ilt(I a, int64_t b) {
    M m = 0;
    for (int j = 0; j < N; ++j) m |= a.l[j] < b ? 1u << j : 0u;
    return m;
  }
  static I iselect(M m, I a, I b) { return B::select(m, a, b); }
  static V pow2(I k) {
    V r;
    for (int j = 0; j < N; ++j) {
      const uint64_t bits = (static_cast<uint64_t>(k.l[j]) + 1023u) << 52;
      std::memcpy(&r.l[j], &bits, 8);
    }
    return r;
  }
};

// float32 lanes.
template <int N>
struct Float : Lanes<float, N> {
  using B = Lanes<float, N>;
  using typename B::M;
  using typename B::V;
  using DV = typename Double<N / 2>::V;
  static V zero() { return B::splat(0.0f); }
  static V load_masked(uintptr_t base, M m) {
    V v = zero();
    for (int j = 0; j < N; ++j) {
      if ((m >> j) & 1u) v.l[j] = reinterpret_cast<const float*>(base)[j];
    }
    return v;
  }
  static V gather(const float* p, int64_t step) {
    V v;
    for (int j = 0; j < N; ++j) v.l[j] = p[j * step];
    return v;
  }
  static void store_first(float* p, V v, int n) { std::memcpy(p, v.l, 4 * n); }
  static V add_where(V acc, V p, M m) { return B::select(m, B::add(acc, p), acc); }
  static V canonical_nan(V v) {
    for (float& x : v.l) {
      if (std::isnan(x)) {
        const uint32_t c = 0x7FC00000u;
        std::memcpy(&x, &c, 4);
      }
    }
    return v;
  }
  static M mask_bits(uint32_t bits) { return bits; }
  static M m_and(M a, M b) { return a & b; }
  static M m_or(M a, M b) { return a | b; }
  static DV lo_to_d(V v) {
    DV d;
    for (int j = 0; j < N / 2; ++j) d.l[j] = v.l[j];
    return d;
  }
  static DV hi_to_d(V v) {
    DV d;
    for (int j = 0; j < N / 2; ++j) d.l[j] = v.l[N / 2 + j];
    return d;
  }
  static V from_d(DV lo, DV hi) {
    V v;
    for (int j = 0; j < N / 2; ++j) {
      v.l[j] = static_cast<float>(lo.l[j]);
      v.l[N / 2 + j] = static_cast<float>(hi.l[j]);
    }
    return v;
  }
};

}  // namespace cvm_float_emu

#define CVM_FLOAT_EMULATION(NS, LANES)                                                      \
  namespace cvm {                                                                           \
  namespace kernel {                                                                        \
  namespace NS {                                                                            \
  namespace {                                                                               \
  void* f32_scratch(const Scratch* s, int64_t bytes) {                                      \
    return s == nullptr || s->acquire == nullptr || bytes <= 0 ? nullptr                    \
                                                               : s->acquire(s->ctx, bytes); \
  }                                                                                         \
  using F = cvm_float_emu::Float<LANES>;                                                    \
  using D = cvm_float_emu::Double<LANES / 2>;
// A kernel of an emulated namespace: runs its template and takes every call.
#define CVM_EMULATED_KERNEL(name, run)        \
  KernelStatus name(const KernelCall& call) { \
    run;                                      \
    return KernelStatus::kDone;               \
  }
#define CVM_FLOAT_EMULATION_END(NS)                    \
  }                                                    \
  CVM_EMULATED_KERNEL(conv2d, f_conv2d(call))          \
  CVM_EMULATED_KERNEL(dense, f_dense(call))            \
  CVM_EMULATED_KERNEL(relu, f_relu(call))              \
  CVM_EMULATED_KERNEL(leaky_relu, f_leaky_relu(call))  \
  CVM_EMULATED_KERNEL(clamp, f_clamp(call))            \
  CVM_EMULATED_KERNEL(sigmoid, f_sigmoid(call))        \
  CVM_EMULATED_KERNEL(softmax, f_softmax(call))        \
  CVM_EMULATED_KERNEL(max_pool2d, f_pool<false>(call)) \
  CVM_EMULATED_KERNEL(avg_pool2d, f_pool<true>(call))  \
  double det_exp_lanes(double x) {                     \
    D::V v = D::splat(x);                              \
    return f_det_exp(v).l[D::kLanes - 1];              \
  }                                                    \
  }                                                    \
  }                                                    \
  }

// clang-format off
CVM_FLOAT_EMULATION(femu16, 16)
#include "kernel_loops.inc"
#include "float_loops.inc"
#include "simd/float_nn.inc"
#include "float_act.inc"
#include "float_pool.inc"
CVM_FLOAT_EMULATION_END(femu16)
CVM_FLOAT_EMULATION(femu4, 4)
#include "kernel_loops.inc"
#include "float_loops.inc"
#include "simd/float_nn.inc"
#include "float_act.inc"
#include "float_pool.inc"
CVM_FLOAT_EMULATION_END(femu4)
// clang-format on

namespace cvm {
namespace test {
namespace lanes {
namespace {

using kernel::BackendTable;
using kernel::ElemType;
using kernel::KernelCall;

KernelFn scalar_f32(const char* op) {
  const BackendTable& s = cvm::kernel::kScalarBackend;
  for (size_t i = 0; i < s.count; ++i) {
    if (std::strcmp(op, s.entries[i].op) == 0 && s.entries[i].dtype == ElemType::kFloat32) {
      return s.entries[i].fn;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<Entry> float_entries(const char* op) {
  struct Emulated {
    const char* op;
    const char* name;
    KernelFn fn;
  };
#define CVM_EMULATED(op)                                                    \
  {#op, #op " (x86 template, 16 emulated lanes)", cvm::kernel::femu16::op}, \
      {#op, #op " (x86 template, 4 emulated lanes)", cvm::kernel::femu4::op},
  static const Emulated kEmulated[] = {
      CVM_EMULATED(conv2d) CVM_EMULATED(dense) CVM_EMULATED(relu) CVM_EMULATED(leaky_relu)
          CVM_EMULATED(clamp) CVM_EMULATED(sigmoid) CVM_EMULATED(softmax)
              CVM_EMULATED(max_pool2d) CVM_EMULATED(avg_pool2d)};
#undef CVM_EMULATED
  std::vector<Entry> found;
  for (const Emulated& e : kEmulated) {
    if (std::strcmp(e.op, op) == 0) found.push_back({e.name, e.fn, scalar_f32(op)});
  }
  REQUIRE(found.size() == 2);
  REQUIRE(found[0].ref != nullptr);
  return found;
}

Buffer make_buffer(const std::vector<int64_t>& shape, int layout) {
  const int nd = static_cast<int>(shape.size());
  std::vector<int> order(nd);  // order[0] is the outermost stored dim
  for (int d = 0; d < nd; ++d) order[d] = d;
  int64_t gap_inner = 1, gap_row = 0;
  int flip = -1;
  switch (layout) {
    case 0:
      break;
    case 1:  // padded rows and every other element
      gap_inner = 2;
      gap_row = 3;
      break;
    case 2:  // channels-last-like permutation (inner dim no longer innermost)
      if (nd >= 2) std::rotate(order.begin() + 1, order.begin() + 2, order.end());
      gap_row = 1;
      break;
    default:  // the outermost and innermost dims reversed
      flip = nd - 1;
      break;
  }
  Buffer b;
  b.view.type = ElemType::kFloat32;
  b.view.ndim = nd;
  int64_t stride = gap_inner, total = 1;
  for (int i = nd - 1; i >= 0; --i) {
    const int d = order[i];
    b.view.shape[d] = shape[d];
    b.view.strides[d] = stride;
    stride = stride * std::max<int64_t>(1, shape[d]) + (i == nd - 1 ? gap_row : 0);
  }
  total = stride + 8;
  b.mem.assign(static_cast<size_t>(total), 0.0f);
  const uint32_t poison = 0x7FBADBADu;  // a signalling-NaN payload no kernel produces
  for (float& f : b.mem) std::memcpy(&f, &poison, 4);
  int64_t offset = 0;
  if (flip >= 0 && shape[flip] > 0) {
    offset = (shape[flip] - 1) * b.view.strides[flip];
    b.view.strides[flip] = -b.view.strides[flip];
  }
  if (layout == 3 && nd >= 2 && shape[0] > 0) {
    offset += (shape[0] - 1) * b.view.strides[0];
    b.view.strides[0] = -b.view.strides[0];
  }
  b.view.data = b.mem.data() + offset;
  return b;
}

void fill(Buffer& b, std::mt19937_64& rng, Mix mix) {
  const TensorView& v = b.view;
  int64_t n = 1;
  for (int d = 0; d < v.ndim; ++d) n *= v.shape[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = i, off = 0;
    for (int d = v.ndim - 1; d >= 0; --d) {
      off += (r % v.shape[d]) * v.strides[d];
      r /= v.shape[d];
    }
    static_cast<float*>(v.data)[off] = cvm::test::random_float(rng, mix);
  }
}

std::vector<float> run_kernel(KernelFn fn, const std::vector<Buffer>& in, const Buffer& out,
                              const void* params, const cvm::kernel::ParallelFor* pf) {
  std::vector<float> mem = out.mem;
  TensorView y = out.view;
  y.data = mem.data() + (static_cast<float*>(out.view.data) - out.mem.data());
  std::vector<TensorView> views;
  for (const Buffer& b : in) views.push_back(b.view);
  KernelCall call{};
  call.inputs = views.data();
  call.num_inputs = static_cast<int32_t>(views.size());
  call.outputs = &y;
  call.num_outputs = 1;
  call.params = params;
  call.parallel = pf;
  REQUIRE(fn(call) == cvm::kernel::KernelStatus::kDone);
  return mem;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

std::string first_difference(const std::vector<float>& want, const std::vector<float>& got) {
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &want[i], 4);
    std::memcpy(&b, &got[i], 4);
    if (a != b) {
      std::ostringstream s;
      s << "buffer element " << i << ": want 0x" << std::hex << a << " got 0x" << b;
      return s.str();
    }
  }
  return "sizes differ";
}

}  // namespace lanes
}  // namespace test
}  // namespace cvm
