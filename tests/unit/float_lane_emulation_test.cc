// The float32 kernel templates of the x86 kernels (backends/simd/float_nn.inc, float_act.inc,
// float_pool.inc; the wasm kernels share the last two) over portable emulated lanes equal the
// scalar reference bit for bit (memcmp of whole output buffers, gaps included) over many seeded
// shapes, layouts and value mixes, at 1, 2 and 7 (simulated) threads: 16 lanes (AVX-512's count,
// so its lane logic is checked on CPUs without AVX-512) and 4 (the wasm kernels' count, natively).
// Also the lane form of det_exp against det_exp. (The table entries themselves run on generated
// operator calls in kernel_table_parity_test.cc.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "float_math.h"
#include "float_test_util.h"
#include "kernel_abi.h"
#include "kernel_test_util.h"
#include "params/float_nn.h"
#include "params/nn.h"
#include "test_util.h"

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

using cvm::kernel::BackendTable;
using cvm::kernel::ElemType;
using cvm::kernel::KernelCall;
using cvm::kernel::KernelFn;
using cvm::kernel::TensorView;

namespace {

const int kThreadCounts[] = {1, 2, 7};

// The kernels under test: the x86 template on 16 and on 4 emulated lanes, each with the scalar
// reference's float32 kernel of its op.
struct Entry {
  const char* name;
  KernelFn fn;
  KernelFn ref;
};

KernelFn scalar_f32(const char* op) {
  const BackendTable& s = cvm::kernel::kScalarBackend;
  for (size_t i = 0; i < s.count; ++i) {
    if (std::strcmp(op, s.entries[i].op) == 0 && s.entries[i].dtype == ElemType::kFloat32) {
      return s.entries[i].fn;
    }
  }
  return nullptr;
}

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

// A ParallelFor that cuts [0, n) into num_threads ranges and runs them last first, on the calling
// thread: the split a kernel sees at that thread count, without threads (wasm too).
struct FakePool {
  cvm::kernel::ParallelFor pf;
  int32_t threads;
  static void run(void* ctx, int64_t n, cvm::kernel::ParallelBody body, void* user) {
    const int64_t t = static_cast<FakePool*>(ctx)->threads;
    const int64_t parts = std::min<int64_t>(t, n);
    for (int64_t i = parts - 1; i >= 0; --i) {
      const int64_t b = n * i / parts, e = n * (i + 1) / parts;
      if (b < e) body(user, b, e);
    }
  }
  explicit FakePool(int32_t t) : pf{&FakePool::run, this, t, 1}, threads(t) {}
};

using Scratch = cvm::test::PoisonedScratch;

// Value mixes (float_test_util.h).
using Mix = cvm::test::FloatMix;

// A float32 buffer holding one 4-d (or 2-d, 1-d) view in a chosen layout: dims stored in a permuted
// order, with gaps between elements/rows, and optionally one dim reversed (negative stride). Gap
// elements hold a poison pattern.
struct Buffer {
  std::vector<float> mem;
  TensorView view{};
};

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

// Fills the view's elements (not the gaps).
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

// Runs `fn` over copies of the inputs into an output buffer like `out` (fresh poison) and returns
// that buffer.
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

// The first differing element, for the failure message.
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

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias;
  int layout;
  Mix mix;
  std::string str() const {
    std::ostringstream s;
    s << "x(" << n << "," << c << "," << h << "," << w << ") w(" << oc << "," << c / groups << ","
      << kh << "," << kw << ") stride(" << sh << "," << sw << ") pad(" << ph << "," << pw
      << ") dil(" << dh << "," << dw << ") groups " << groups << (bias ? " bias" : "") << " layout "
      << layout << " mix " << static_cast<int>(mix);
    return s.str();
  }
};

std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> cases;
  std::mt19937_64 rng(20240611);
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const int64_t kernels[] = {1, 3, 5, 7};
  for (int i = 0; i < 260; ++i) {
    ConvCase k{};
    k.n = pick(1, 2);
    const int64_t kind = pick(0, 2);  // groups 1, 2 or depthwise
    const int64_t gc = pick(1, 3);
    k.groups = kind == 0 ? 1 : kind == 1 ? 2 : pick(1, 6);
    k.c = kind == 2 ? k.groups : gc * k.groups;
    const int64_t per_group_oc = kind == 2 ? pick(1, 2) : pick(1, 9);
    k.oc = per_group_oc * k.groups;
    k.kh = kernels[rng() % 4];
    k.kw = rng() % 3 == 0 ? k.kh : kernels[rng() % 4];
    k.sh = pick(1, 3);
    k.sw = pick(1, 3);
    k.dh = rng() % 4 == 0 ? 2 : 1;
    k.dw = rng() % 4 == 0 ? 2 : 1;
    k.ph = pick(0, 3);
    k.pw = pick(0, 3);
    const int64_t span_h = k.dh * (k.kh - 1) + 1, span_w = k.dw * (k.kw - 1) + 1;
    k.h = std::max<int64_t>(1, std::max(span_h - 2 * k.ph, pick(1, 9)));
    k.w = std::max<int64_t>(1, std::max(span_w - 2 * k.pw, pick(1, 37)));
    k.bias = rng() % 3 != 0;
    k.layout = static_cast<int>(rng() % 6 < 3 ? 0 : rng() % 4);
    k.mix = static_cast<Mix>(rng() % 3);
    cases.push_back(k);
  }
  // Wider rows and a larger model-like layer.
  cases.push_back({1, 8, 5, 70, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, 0, Mix::kSpecials});
  cases.push_back({2, 16, 12, 33, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16, true, 0, Mix::kPlain});
  cases.push_back({1, 32, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, 0, Mix::kPlain});
  cases.push_back({1, 3, 1, 1, 5, 1, 1, 1, 1, 0, 0, 1, 1, 1, false, 0, Mix::kZerosAndInf});
  cases.push_back({1, 4, 4, 17, 4, 7, 7, 2, 3, 3, 3, 1, 2, 2, true, 1, Mix::kZerosAndInf});
  return cases;
}

int64_t out_extent(int64_t in, int64_t pad, int64_t dil, int64_t k, int64_t stride) {
  return (in + 2 * pad - (dil * (k - 1) + 1)) / stride + 1;
}

// Runs every entry at every thread count against the reference; run(fn, pf) returns the buffer a
// kernel leaves. Returns the number of runs compared.
template <typename Run>
int compare_entries(const std::vector<Entry>& entries, Run&& run) {
  const std::vector<float> want = run(entries[0].ref, nullptr);
  int compared = 0;
  for (const Entry& e : entries) {
    for (int t : kThreadCounts) {
      INFO(e.name << " at " << t << " threads");
      FakePool pool(t);
      const std::vector<float> got = run(e.fn, t > 1 ? &pool.pf : nullptr);
      CHECKED_ELSE(same_bits(want, got)) { FAIL(first_difference(want, got)); }
      ++compared;
    }
  }
  return compared;
}

TEST_CASE("float32 conv2d: the emulated-lane templates equal the reference",
          "[float_emulation]") {
  const std::vector<Entry> entries = float_entries("conv2d");
  int compared = 0;
  for (const ConvCase& k : conv_cases()) {
    INFO(k.str());
    std::mt19937_64 rng(static_cast<uint64_t>(k.n * 131 + k.c * 31 + k.w * 7 + k.kh));
    const int64_t oh = out_extent(k.h, k.ph, k.dh, k.kh, k.sh);
    const int64_t ow = out_extent(k.w, k.pw, k.dw, k.kw, k.sw);
    std::vector<Buffer> in;
    in.push_back(make_buffer({k.n, k.c, k.h, k.w}, k.layout));
    in.push_back(make_buffer({k.oc, k.c / k.groups, k.kh, k.kw}, k.layout == 1 ? 2 : 0));
    if (k.bias) in.push_back(make_buffer({k.oc}, k.layout == 1 ? 1 : 0));
    for (Buffer& b : in) fill(b, rng, k.mix);
    const Buffer out = make_buffer({k.n, k.oc, oh, ow}, k.layout == 2 ? 1 : k.layout);
    Scratch scratch(true);
    cvm::kernel::Conv2dParams p{k.sh, k.sw, k.ph, k.pw, k.dh, k.dw, k.groups, scratch.get()};
    compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
      return run_kernel(fn, in, out, &p, pf);
    });
  }
  INFO("compared " << compared << " conv2d runs");
  REQUIRE(compared > 0);
}

TEST_CASE("float32 dense: the emulated-lane templates equal the reference",
          "[float_emulation]") {
  const std::vector<Entry> entries = float_entries("dense");
  std::mt19937_64 cases(777);
  int compared = 0;
  for (int i = 0; i < 220; ++i) {
    const int64_t m = 1 + static_cast<int64_t>(cases() % 9);
    const int64_t kd = i % 17 == 0 ? 0 : 1 + static_cast<int64_t>(cases() % 70);
    const int64_t units = i < 70 ? 1 + i : 1 + static_cast<int64_t>(cases() % 140);
    const bool bias = cases() % 3 != 0;
    const int layout = static_cast<int>(cases() % 6 < 3 ? 0 : cases() % 4);
    const Mix mix = static_cast<Mix>(cases() % 3);
    const bool lend = cases() % 5 != 0;
    INFO("dense x(" << m << "," << kd << ") units " << units << (bias ? " bias" : "") << " layout "
                    << layout << " mix " << static_cast<int>(mix) << (lend ? "" : " no scratch"));
    std::mt19937_64 rng(static_cast<uint64_t>(i) * 977 + 3);
    std::vector<Buffer> in;
    in.push_back(make_buffer({m, kd}, layout));
    in.push_back(make_buffer({units, kd}, layout == 2 ? 0 : layout));
    if (bias) in.push_back(make_buffer({units}, layout == 1 ? 1 : 0));
    for (Buffer& b : in) fill(b, rng, mix);
    const Buffer out = make_buffer({m, units}, layout);
    Scratch scratch(lend);
    cvm::kernel::DenseParams p{scratch.get()};
    compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
      return run_kernel(fn, in, out, &p, pf);
    });
  }
  INFO("compared " << compared << " dense runs");
  REQUIRE(compared > 0);
}

// Runs a one-input kernel in place: output and input are the same view of a copy of x.
std::vector<float> run_in_place(KernelFn fn, const Buffer& x, const void* params,
                                const cvm::kernel::ParallelFor* pf) {
  std::vector<float> mem = x.mem;
  TensorView v = x.view;
  v.data = mem.data() + (static_cast<const float*>(x.view.data) - x.mem.data());
  KernelCall call{};
  call.inputs = &v;
  call.num_inputs = 1;
  call.outputs = &v;
  call.num_outputs = 1;
  call.params = params;
  call.parallel = pf;
  REQUIRE(fn(call) == cvm::kernel::KernelStatus::kDone);
  return mem;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::ostringstream s;
  s << "(";
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? "," : "") << shape[i];
  s << ")";
  return s.str();
}

// Shapes for the elementwise kernels: 0-d, empty, size 1, every vector edge of 4, 8 and 16 lanes,
// and random ones.
std::vector<std::vector<int64_t>> elementwise_shapes() {
  std::vector<std::vector<int64_t>> shapes = {
      {},        {0},    {1},        {3},       {4},          {5},     {7},     {8},
      {9},       {15},   {16},       {17},      {31},         {32},    {33},    {1000},
      {2, 0, 3}, {3, 5}, {2, 3, 17}, {1, 1, 1}, {2, 3, 4, 9}, {5, 16}, {7, 33}, {1, 47}};
  std::mt19937_64 rng(4242);
  for (int i = 0; i < 12; ++i) {
    std::vector<int64_t> s(1 + rng() % 4);
    for (int64_t& d : s) d = 1 + static_cast<int64_t>(rng() % 13);
    shapes.push_back(s);
  }
  return shapes;
}

TEST_CASE(
    "float32 relu, leaky_relu, clamp, sigmoid: the emulated-lane templates "
    "equal the reference",
    "[float_emulation]") {
  const float kInf = std::numeric_limits<float>::infinity();
  const cvm::kernel::LeakyReluParams alphas[] = {{0.01f}, {0.2f},  {0.0f},
                                                 {-1.5f}, {3e38f}, {1e-40f}};
  const cvm::kernel::ClampParams clamps[] = {{-kInf, kInf}, {0.0f, 6.0f},  {-0.0f, 0.0f},
                                             {0.0f, 0.0f},  {-1.0f, 1.0f}, {-kInf, -2.0f},
                                             {2.5f, kInf},  {-0.0f, -0.0f}};
  struct Op {
    const char* name;
    std::vector<const void*> params;
  };
  std::vector<Op> ops = {
      {"relu", {nullptr}}, {"leaky_relu", {}}, {"clamp", {}}, {"sigmoid", {nullptr}}};
  for (const auto& a : alphas) ops[1].params.push_back(&a);
  for (const auto& c : clamps) ops[2].params.push_back(&c);
  for (const Op& op : ops) {
    const std::vector<Entry> entries = float_entries(op.name);
    int compared = 0;
    uint64_t seed = 1;
    for (const std::vector<int64_t>& shape : elementwise_shapes()) {
      for (int layout = 0; layout < 4; ++layout) {
        for (int mix = 0; mix < 4; ++mix) {
          for (size_t k = 0; k < op.params.size(); ++k) {
            INFO(op.name << " " << shape_str(shape) << " layout " << layout << " mix " << mix
                         << " params #" << k);
            std::mt19937_64 rng(seed++);
            std::vector<Buffer> in;
            in.push_back(make_buffer(shape, layout));
            fill(in[0], rng, static_cast<Mix>(mix));
            const Buffer out = make_buffer(shape, (layout + 1) % 4);
            compared +=
                compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
                  return run_kernel(fn, in, out, op.params[k], pf);
                });
            if (layout != 1) {
              INFO("in place");
              compared +=
                  compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
                    return run_in_place(fn, in[0], op.params[k], pf);
                  });
            }
          }
        }
      }
    }
    INFO("compared " << compared << " " << op.name << " runs");
    REQUIRE(compared > 0);
  }
}

TEST_CASE("float32 softmax: the emulated-lane templates equal the reference",
          "[float_emulation]") {
  const std::vector<Entry> entries = float_entries("softmax");
  const int64_t lengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 100, 511, 512, 513, 1100};
  std::mt19937_64 cases(31337);
  int compared = 0;
  for (int i = 0; i < 150; ++i) {
    std::vector<int64_t> shape(1 + cases() % 4);
    for (int64_t& d : shape) d = 1 + static_cast<int64_t>(cases() % 6);
    const int axis = static_cast<int>(cases() % shape.size());
    shape[axis] = i < 34 ? lengths[i % 17] : lengths[cases() % 17];
    if (shape[axis] > 100) {
      for (size_t d = 0; d < shape.size(); ++d) {
        if (static_cast<int>(d) != axis) shape[d] = std::min<int64_t>(shape[d], 2);
      }
    }
    if (i % 29 == 0) shape[cases() % shape.size()] = 0;
    const int layout = static_cast<int>(cases() % 4);
    const Mix mix = i % 2 == 0 ? Mix::kExp : static_cast<Mix>(cases() % 4);
    cvm::kernel::SoftmaxParams p{axis};
    INFO("softmax " << shape_str(shape) << " axis " << axis << " layout " << layout << " mix "
                    << static_cast<int>(mix));
    std::mt19937_64 rng(static_cast<uint64_t>(i) * 7919 + 11);
    std::vector<Buffer> in;
    in.push_back(make_buffer(shape, layout));
    fill(in[0], rng, mix);
    const Buffer out = make_buffer(shape, (layout + 3) % 4);
    compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
      return run_kernel(fn, in, out, &p, pf);
    });
    if (i % 3 == 0) {
      INFO("in place");
      compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
        return run_in_place(fn, in[0], &p, pf);
      });
    }
  }
  INFO("compared " << compared << " softmax runs");
  REQUIRE(compared > 0);
}

// The lane form of det_exp (float_act.inc's f_det_exp, through the emulated lanes) equals det_exp
// bit for bit, also where sigmoid and softmax cannot show it (subnormal results).
TEST_CASE("float32 kernels' lane det_exp equals det_exp bit for bit", "[float_emulation]") {
  std::vector<double> xs = {0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            708.3,
                            709.78,
                            709.79,
                            710.0,
                            710.0001,
                            -708.3,
                            -708.4,
                            -709.0,
                            -744.0,
                            -745.1,
                            -745.13,
                            -745.14,
                            -745.5,
                            -745.50001,
                            -746.0,
                            1e300,
                            -1e300,
                            5e-324,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> wide(-760.0, 760.0), tiny(-745.6, -707.0),
      small(-1.0, 1.0);
  for (int i = 0; i < 20000; ++i) xs.push_back(wide(rng));
  for (int i = 0; i < 20000; ++i) xs.push_back(tiny(rng));
  for (int i = 0; i < 5000; ++i) xs.push_back(small(rng));
  for (double x : xs) {
    const double want = cvm::kernel::det_exp(x);
    for (double got :
         {cvm::kernel::femu16::det_exp_lanes(x), cvm::kernel::femu4::det_exp_lanes(x)}) {
      uint64_t a, b;
      std::memcpy(&a, &want, 8);
      std::memcpy(&b, &got, 8);
      INFO("x = " << x);
      CHECKED_ELSE(a == b) { FAIL("det_exp 0x" << std::hex << a << " lanes 0x" << b); }
    }
  }
}

// Pooling output extent along one axis (the op layer's rule; ceil_mode drops a last window that
// would start in the end padding).
int64_t pool_extent(int64_t in, int64_t begin, int64_t end, int64_t k, int64_t s, bool ceil) {
  const int64_t span = in + begin + end - k;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + begin) --out;
  return out;
}

TEST_CASE(
    "float32 max_pool2d and avg_pool2d: the emulated-lane templates "
    "equal the reference",
    "[float_emulation]") {
  for (const char* op : {"max_pool2d", "avg_pool2d"}) {
    const std::vector<Entry> entries = float_entries(op);
    const bool avg = std::strcmp(op, "avg_pool2d") == 0;
    std::mt19937_64 cases(avg ? 5150 : 5051);
    auto pick = [&](int64_t lo, int64_t hi) {
      return lo + static_cast<int64_t>(cases() % static_cast<uint64_t>(hi - lo + 1));
    };
    int compared = 0;
    for (int i = 0; i < 240; ++i) {
      int64_t n = pick(1, 2), c = pick(1, 3);
      if (i % 40 == 7) n = 0;
      if (i % 40 == 19) c = 0;
      const int64_t kh = pick(1, 4), kw = pick(1, 5), sh = pick(1, 3), sw = pick(1, 3);
      const int64_t pt = pick(0, kh - 1), pb = pick(0, kh - 1);
      const int64_t pl = pick(0, kw - 1), pr = pick(0, kw - 1);
      const bool ceil = cases() % 2 == 0, include = cases() % 2 == 0;
      const int64_t h = std::max<int64_t>(kh, pick(1, 9));
      int64_t w = std::max<int64_t>(kw, pick(1, 40));
      if (i < 20) w = std::max<int64_t>(kw, (i % 5) * 8 + (i / 5) - 1);  // lane edges
      const int64_t oh = pool_extent(h, pt, pb, kh, sh, ceil);
      const int64_t ow = pool_extent(w, pl, pr, kw, sw, ceil);
      const int layout = static_cast<int>(cases() % 6 < 3 ? 0 : cases() % 4);
      const Mix mix = static_cast<Mix>(cases() % 3);
      INFO(op << " x(" << n << "," << c << "," << h << "," << w << ") pool(" << kh << "," << kw
              << ") stride(" << sh << "," << sw << ") pads(" << pt << "," << pl << "," << pb << ","
              << pr << ")" << (ceil ? " ceil" : "") << (include ? " count_include_pad" : "")
              << " layout " << layout << " mix " << static_cast<int>(mix));
      std::mt19937_64 rng(static_cast<uint64_t>(i) * 31 + (avg ? 7 : 3));
      std::vector<Buffer> in;
      in.push_back(make_buffer({n, c, h, w}, layout));
      fill(in[0], rng, mix);
      const Buffer out = make_buffer({n, c, oh, ow}, layout == 2 ? 1 : layout);
      const cvm::kernel::AvgPool2dParams ap{kh, kw, sh, sw, pt, pl, pb, pr, include ? 1 : 0};
      const cvm::kernel::MaxPool2dParams mp{kh, kw, sh, sw, pt, pl};
      const void* params = avg ? static_cast<const void*>(&ap) : static_cast<const void*>(&mp);
      compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
        return run_kernel(fn, in, out, params, pf);
      });
    }
    // A model-like layer: 3x3 stride 1 pad 1, and 3x3 stride 2 (ceil) on wide rows.
    for (int k = 0; k < 2; ++k) {
      const int64_t s = k == 0 ? 1 : 2;
      std::mt19937_64 rng(77 + k);
      std::vector<Buffer> in;
      in.push_back(make_buffer({1, 6, 30, 57}, 0));
      fill(in[0], rng, Mix::kSpecials);
      const int64_t oh = pool_extent(30, 1, 1, 3, s, k == 1),
                    ow = pool_extent(57, 1, 1, 3, s, k == 1);
      const Buffer out = make_buffer({1, 6, oh, ow}, 0);
      const cvm::kernel::AvgPool2dParams ap{3, 3, s, s, 1, 1, 1, 1, k};
      const cvm::kernel::MaxPool2dParams mp{3, 3, s, s, 1, 1};
      const void* params = avg ? static_cast<const void*>(&ap) : static_cast<const void*>(&mp);
      compared += compare_entries(entries, [&](KernelFn fn, const cvm::kernel::ParallelFor* pf) {
        return run_kernel(fn, in, out, params, pf);
      });
    }
    INFO("compared " << compared << " " << op << " runs");
    REQUIRE(compared > 0);
  }
}

}  // namespace
