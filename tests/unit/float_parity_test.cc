// Every float32 kernel of the SIMD (each ISA level this CPU has) and wasm backends equals the
// scalar reference bit for bit (memcmp of whole output buffers, gaps included) over many seeded
// shapes, layouts and value mixes, at 1, 2 and 7 threads; table entries are called directly.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_abi.h"
#include "params/nn.h"
#include "test_util.h"

// The kernel template of the x86 kernels (backends/simd/float_nn.inc) over portable emulated
// lanes: 16 (AVX-512's count, so its lane logic is checked on CPUs without AVX-512) and 4 (the
// wasm kernels' count, natively). Each lane op is the same single IEEE operation per lane.
#define CVM_FLOAT_NN_EMULATION(NS, LANES)                                                   \
  namespace cvm {                                                                           \
  namespace kernel {                                                                        \
  namespace NS {                                                                            \
  namespace {                                                                               \
  void* f32_scratch(const Scratch* s, int64_t bytes) {                                      \
    return s == nullptr || s->acquire == nullptr || bytes <= 0 ? nullptr                    \
                                                               : s->acquire(s->ctx, bytes); \
  }                                                                                         \
  struct F {                                                                                \
    static constexpr int kLanes = LANES;                                                    \
    struct V {                                                                              \
      float l[LANES];                                                                       \
    };                                                                                      \
    using M = uint32_t;                                                                     \
    static V zero() { return splat(0.0f); }                                                 \
    static V splat(float f) {                                                               \
      V v;                                                                                  \
      for (float& x : v.l) x = f;                                                           \
      return v;                                                                             \
    }                                                                                       \
    static V load(const float* p) {                                                         \
      V v;                                                                                  \
      std::memcpy(v.l, p, sizeof v.l);                                                      \
      return v;                                                                             \
    }                                                                                       \
    static V load_masked(uintptr_t base, M m) {                                             \
      V v = zero();                                                                         \
      for (int j = 0; j < LANES; ++j) {                                                     \
        if ((m >> j) & 1u) v.l[j] = reinterpret_cast<const float*>(base)[j];                \
      }                                                                                     \
      return v;                                                                             \
    }                                                                                       \
    static void store(float* p, V v) { std::memcpy(p, v.l, sizeof v.l); }                   \
    static void store_first(float* p, V v, int n) { std::memcpy(p, v.l, 4 * n); }           \
    static V add(V a, V b) {                                                                \
      for (int j = 0; j < LANES; ++j) a.l[j] = a.l[j] + b.l[j];                             \
      return a;                                                                             \
    }                                                                                       \
    static V mul(V a, V b) {                                                                \
      for (int j = 0; j < LANES; ++j) a.l[j] = a.l[j] * b.l[j];                             \
      return a;                                                                             \
    }                                                                                       \
    static V add_where(V acc, V p, M m) {                                                   \
      for (int j = 0; j < LANES; ++j) {                                                     \
        if ((m >> j) & 1u) acc.l[j] = acc.l[j] + p.l[j];                                    \
      }                                                                                     \
      return acc;                                                                           \
    }                                                                                       \
    static V canonical_nan(V v) {                                                           \
      for (float& x : v.l) {                                                                \
        if (std::isnan(x)) {                                                                \
          const uint32_t c = 0x7FC00000u;                                                   \
          std::memcpy(&x, &c, 4);                                                           \
        }                                                                                   \
      }                                                                                     \
      return v;                                                                             \
    }                                                                                       \
    static M mask_bits(uint32_t bits) { return bits; }                                      \
  };
#define CVM_FLOAT_NN_EMULATION_END(NS)                    \
  }                                                       \
  void conv2d(const KernelCall& call) { f_conv2d(call); } \
  void dense(const KernelCall& call) { f_dense(call); }   \
  }                                                       \
  }                                                       \
  }

// clang-format off
CVM_FLOAT_NN_EMULATION(femu16, 16)
#include "simd/kernel_loops.inc"
#include "simd/float_nn.inc"
CVM_FLOAT_NN_EMULATION_END(femu16)
CVM_FLOAT_NN_EMULATION(femu4, 4)
#include "simd/kernel_loops.inc"
#include "simd/float_nn.inc"
CVM_FLOAT_NN_EMULATION_END(femu4)
// clang-format on

using cvm::kernel::BackendTable;
using cvm::kernel::ElemType;
using cvm::kernel::KernelCall;
using cvm::kernel::KernelEntry;
using cvm::kernel::KernelFn;
using cvm::kernel::TensorView;

namespace {

const int kThreadCounts[] = {1, 2, 7};

// The float32 entries under test: every one of the simd backend the CPU can run and every one of
// the wasm backend, each with its scalar reference.
struct Entry {
  const KernelEntry* e;
  const char* backend;
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
  std::vector<Entry> found;
  auto scan = [&](const BackendTable& t, uint32_t have) {
    for (size_t i = 0; i < t.count; ++i) {
      const KernelEntry& e = t.entries[i];
      if (e.dtype != ElemType::kFloat32 || std::strcmp(e.op, op) != 0) continue;
      if ((have & e.required_features) != e.required_features) {
        WARN("skipping " << t.name << "/" << e.op << "/" << e.variant << ": CPU lacks it");
        continue;
      }
      found.push_back({&e, t.name, scalar_f32(op)});
    }
  };
  static const KernelEntry kEmulated[] = {
      {"conv2d", ElemType::kFloat32, "x86 template, 16 emulated lanes", cvm::kernel::femu16::conv2d,
       0},
      {"conv2d", ElemType::kFloat32, "x86 template, 4 emulated lanes", cvm::kernel::femu4::conv2d,
       0},
      {"dense", ElemType::kFloat32, "x86 template, 16 emulated lanes", cvm::kernel::femu16::dense,
       0},
      {"dense", ElemType::kFloat32, "x86 template, 4 emulated lanes", cvm::kernel::femu4::dense, 0},
  };
  static const BackendTable kEmulatedTable = {"emulated", kEmulated, 4, nullptr, 1};
  scan(kEmulatedTable, 0);
#ifdef CVMRT_HAVE_BACKEND_SIMD
  scan(cvm::kernel::kSimdBackend, cvm::test::simd_testable_features());
#endif
#ifdef CVMRT_HAVE_BACKEND_WASM
  scan(cvm::kernel::kWasmBackend, ~0u);
#endif
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

// Scratch lent from fresh blocks, poisoned so that reading unwritten scratch shows; or none.
class Scratch {
 public:
  explicit Scratch(bool lend) : lend_(lend), s_{&Scratch::acquire, this} {}
  ~Scratch() {
    for (void* p : blocks_) std::free(p);
  }
  const cvm::kernel::Scratch* get() const { return &s_; }

 private:
  static void* acquire(void* ctx, int64_t bytes) {
    auto* self = static_cast<Scratch*>(ctx);
    if (!self->lend_) return nullptr;
    void* p = std::aligned_alloc(64, (static_cast<size_t>(bytes) + 63) / 64 * 64);
    std::memset(p, 0xA5, static_cast<size_t>(bytes));
    self->blocks_.push_back(p);
    return p;
  }
  bool lend_;
  cvm::kernel::Scratch s_;
  std::vector<void*> blocks_;
};

// Value mixes: plain values over many magnitudes (the order shows), or with specials (signed zeros,
// denormals, infinities, NaNs of several payloads and signs, huge values).
enum class Mix { kPlain, kSpecials, kZerosAndInf };

float random_value(std::mt19937_64& rng, Mix mix) {
  std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
  static const uint32_t kSpecial[] = {0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x7F800000u,
                                      0xFF800000u, 0x80000000u, 0x00000000u, 0x00000001u,
                                      0x807FFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x00400000u};
  const uint64_t r = rng() % 64;
  float v = std::ldexp(mant(rng), static_cast<int>(rng() % 60) - 30);
  if (mix == Mix::kSpecials && r < 6) {
    std::memcpy(&v, &kSpecial[rng() % 12], 4);
  } else if (mix == Mix::kSpecials && r < 8) {
    v = std::ldexp(mant(rng),
                   100 + static_cast<int>(rng() % 27));  // products overflow
  } else if (mix == Mix::kZerosAndInf && r < 40) {
    static const float kZ[] = {0.0f, -0.0f, -0.0f, INFINITY, -INFINITY, 1e-45f, -1e-45f};
    v = kZ[rng() % 7];
  }
  return v;
}

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
    static_cast<float*>(v.data)[off] = random_value(rng, mix);
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
  fn(call);
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

TEST_CASE("float32 conv2d: every SIMD/wasm entry equals the reference bit for bit",
          "[float_parity][simd][wasm]") {
  const std::vector<Entry> entries = float_entries("conv2d");
  if (entries.empty()) {
    WARN("no SIMD/wasm float32 conv2d entry to test on this build/CPU");
    return;
  }
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
    const std::vector<float> want = run_kernel(entries[0].ref, in, out, &p, nullptr);
    for (const Entry& e : entries) {
      for (int t : kThreadCounts) {
        INFO(e.backend << "/" << e.e->variant << " at " << t << " threads");
        FakePool pool(t);
        const std::vector<float> got = run_kernel(e.e->fn, in, out, &p, t > 1 ? &pool.pf : nullptr);
        CHECKED_ELSE(same_bits(want, got)) { FAIL(first_difference(want, got)); }
        ++compared;
      }
    }
  }
  INFO("compared " << compared << " conv2d runs");
  REQUIRE(compared > 0);
}

TEST_CASE("float32 dense: every SIMD/wasm entry equals the reference bit for bit",
          "[float_parity][simd][wasm]") {
  const std::vector<Entry> entries = float_entries("dense");
  if (entries.empty()) {
    WARN("no SIMD/wasm float32 dense entry to test on this build/CPU");
    return;
  }
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
    const std::vector<float> want = run_kernel(entries[0].ref, in, out, &p, nullptr);
    for (const Entry& e : entries) {
      for (int t : kThreadCounts) {
        INFO(e.backend << "/" << e.e->variant << " at " << t << " threads");
        FakePool pool(t);
        const std::vector<float> got = run_kernel(e.e->fn, in, out, &p, t > 1 ? &pool.pf : nullptr);
        CHECKED_ELSE(same_bits(want, got)) { FAIL(first_difference(want, got)); }
        ++compared;
      }
    }
  }
  INFO("compared " << compared << " dense runs");
  REQUIRE(compared > 0);
}

// Every float32 entry of the SIMD and wasm tables has a parity case above.
TEST_CASE("float32 parity covers every float32 SIMD/wasm table entry", "[float_parity]") {
  const char* covered[] = {"conv2d", "dense"};
  auto check = [&](const BackendTable& t) {
    for (size_t i = 0; i < t.count; ++i) {
      const KernelEntry& e = t.entries[i];
      if (e.dtype != ElemType::kFloat32 || std::strcmp(e.op, "reduce_sum") == 0) continue;
      bool found = false;
      for (const char* op : covered) found = found || std::strcmp(op, e.op) == 0;
      INFO(t.name << "/" << e.op << "/" << e.variant);
      CHECK(found);
      CHECK(scalar_f32(e.op) != nullptr);
    }
  };
#ifdef CVMRT_HAVE_BACKEND_SIMD
  check(cvm::kernel::kSimdBackend);
#endif
#ifdef CVMRT_HAVE_BACKEND_WASM
  check(cvm::kernel::kWasmBackend);
#endif
  (void)check;  // the plain wasm build has neither table
  SUCCEED();
}

}  // namespace
