// other_cases(): generated operator calls for the table-driven kernel parity suite
// (kernel_table_parity_test.cc), for every operator outside the nn family: elementwise and
// broadcast arithmetic, comparisons, the CVM clamping ops, reductions, matmul, cast, the
// transforms (the "copy" kernel), take / cvm_lut / where and the vision ops.
//
// Shapes cover every remainder modulo the vector widths (4, 8, 16 lanes), size-0 and size-1
// dims, 0-d arrays, broadcast pairs (stride 0 on either side, inside rows and across them),
// strided inputs (every other element, reversed, transposed, Fortran order) and 2-D to 4-D
// shapes; int32 values cover the full range with its edges and the CVM precision bounds; float
// values cover many magnitudes, NaNs of several payloads and signs, infinities, -0 and denormals.
// Every case is seeded: the same call each run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_cases.h"

namespace cvm {
namespace test {
namespace {

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

// ---- dtypes ----

bool is_numeric(DataType t) { return !t.is_bool(); }
bool is_signed_or_float(DataType t) { return t.is_int() || t.is_float(); }
bool is_i32(DataType t) { return t == DataType::Int(32); }

// A stable hash of the operator name and dtype: each (op, dtype) draws its own values.
uint64_t seed_of(const std::string& op, DataType t, uint64_t salt = 0) {
  uint64_t h = 1469598103934665603ull;
  for (char c : op + "/" + t.name()) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h ^ (salt * 0x9E3779B97F4A7C15ull);
}

// ---- values ----

// The seeded source of one (op, dtype)'s arrays.
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  uint64_t next() { return rng_(); }
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  // Values across the dtype's whole range: integers from random bits with the type's edges
  // (min, min + 1, -1, 0, 1, max - 1, max) sprinkled in; float32/float64 over many magnitudes
  // with specials (NaNs of several payloads and signs, infinities, signed zeros, denormals, the
  // largest finite values) when `specials`; float16/bfloat16 as random bit patterns (every class
  // of value); bool 0/1.
  NDArray full(const Shape& s, DataType t, bool specials = true) {
    NDArray a = NDArray::empty(s, t);
    auto* p = static_cast<uint8_t*>(a.mutable_data());
    const int64_t n = a.numel();
    const size_t es = t.bytes();
    for (int64_t i = 0; i < n; ++i) {
      uint8_t* e = p + i * static_cast<int64_t>(es);
      if (t.is_bool()) {
        *e = static_cast<uint8_t>(next() & 1);
      } else if (t == DataType::Float(32)) {
        const float v = float32_value(specials);
        std::memcpy(e, &v, 4);
      } else if (t == DataType::Float(64)) {
        const double v = float64_value(specials);
        std::memcpy(e, &v, 8);
      } else if (t.is_float()) {  // float16, bfloat16
        const uint16_t v = static_cast<uint16_t>(next());
        std::memcpy(e, &v, 2);
      } else {
        uint64_t v = next();
        const uint64_t r = next() % 16;
        if (r < 4) v = int_edge(t, next() % 7);
        std::memcpy(e, &v, es);  // little-endian: the low bytes
      }
    }
    return a;
  }

  // int32 values of CVM precision p: in [-(2^(p-1) - 1), 2^(p-1) - 1] (p = 32: the full range),
  // both bounds sprinkled in (1 in 16 each).
  NDArray precision(const Shape& s, int p) {
    const int64_t hi = p >= 32 ? kMax32 : (int64_t{1} << (p - 1)) - 1;
    const int64_t lo = p >= 32 ? kMin32 : -hi;
    return ints_in(s, lo, hi);
  }

  // int32 values in [lo, hi], both sprinkled in (1 in 16 each).
  NDArray ints_in(const Shape& s, int64_t lo, int64_t hi) {
    NDArray a = NDArray::empty(s, DataType::Int(32));
    auto* p = static_cast<int32_t*>(a.mutable_data());
    for (int64_t i = 0; i < a.numel(); ++i) {
      const uint64_t r = next() % 16;
      p[i] = static_cast<int32_t>(r == 0 ? lo : r == 1 ? hi : uniform(lo, hi));
    }
    return a;
  }

  // Values from a small set, so that ties, equal elements and signed zeros meet: integers in
  // {-1, 0, 1, 2} (the bool values for bool), floats in {0, -0, 1, -1, NaN, inf}.
  NDArray few(const Shape& s, DataType t) {
    NDArray a = NDArray::empty(s, t);
    auto* p = static_cast<uint8_t*>(a.mutable_data());
    const size_t es = t.bytes();
    for (int64_t i = 0; i < a.numel(); ++i) {
      uint8_t* e = p + i * static_cast<int64_t>(es);
      const int k = static_cast<int>(next() % 6);
      if (t.is_bool()) {
        *e = static_cast<uint8_t>(k & 1);
      } else if (t == DataType::Float(32)) {
        static const float kF[] = {0.0f, -0.0f, 1.0f, -1.0f, NAN, INFINITY};
        std::memcpy(e, &kF[k], 4);
      } else if (t == DataType::Float(64)) {
        static const double kD[] = {0.0, -0.0, 1.0, -1.0, NAN, INFINITY};
        std::memcpy(e, &kD[k], 8);
      } else if (t == DataType::Float(16)) {
        static const uint16_t kH[] = {0x0000, 0x8000, 0x3C00, 0xBC00, 0x7E00, 0x7C00};
        std::memcpy(e, &kH[k], 2);
      } else if (t == DataType::BFloat16()) {
        static const uint16_t kB[] = {0x0000, 0x8000, 0x3F80, 0xBF80, 0x7FC0, 0x7F80};
        std::memcpy(e, &kB[k], 2);
      } else {
        const int64_t v = static_cast<int64_t>(k % 4) - 1;
        std::memcpy(e, &v, es);
      }
    }
    return a;
  }

 private:
  // Edge k (0..6) of an integer dtype's range, as the bits of its little-endian bytes.
  static uint64_t int_edge(DataType t, uint64_t k) {
    const int bits = static_cast<int>(t.bytes()) * 8;
    const uint64_t umax = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    if (t.is_uint()) {
      const uint64_t e[] = {0, 1, 2, umax / 2, umax / 2 + 1, umax - 1, umax};
      return e[k];
    }
    const uint64_t smin = uint64_t{1} << (bits - 1);  // the bits of the minimum
    const uint64_t e[] = {smin, smin + 1, umax /* -1 */, 0, 1, smin - 2, smin - 1};
    return e[k];
  }

  float float32_value(bool specials) {
    static const uint32_t kSpecial[] = {0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x7FBADBADu,
                                        0x7F800000u, 0xFF800000u, 0x80000000u, 0x00000000u,
                                        0x00000001u, 0x807FFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu};
    const uint64_t r = next() % 64;
    float v;
    if (specials && r < 5) {
      std::memcpy(&v, &kSpecial[next() % 12], 4);
    } else if (specials && r < 7) {
      v = std::ldexp(mantissa(), 100 + static_cast<int>(next() % 27));  // products overflow
    } else {
      v = std::ldexp(mantissa(), static_cast<int>(next() % 48) - 24);
    }
    return v;
  }

  double float64_value(bool specials) {
    static const uint64_t kSpecial[] = {0x7FF8000000000000ull, 0xFFF8000000000001ull,
                                        0x7FF0000000000001ull, 0x7FF0000000000000ull,
                                        0xFFF0000000000000ull, 0x8000000000000000ull,
                                        0x0000000000000000ull, 0x0000000000000001ull,
                                        0x7FEFFFFFFFFFFFFFull};
    const uint64_t r = next() % 64;
    double v;
    if (specials && r < 5) {
      std::memcpy(&v, &kSpecial[next() % 9], 8);
    } else {
      v = std::ldexp(static_cast<double>(mantissa()) + std::ldexp(mantissa(), -30),
                     static_cast<int>(next() % 80) - 40);
    }
    return v;
  }

  float mantissa() { return std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng_); }

  std::mt19937_64 rng_;
};

// ---- views ----

// The same logical values as `x` in another layout.
NDArray fortran(const NDArray& x) {
  return x.ndim() < 2 ? x : x.transpose().contiguous().transpose();
}
// The last axis stored reversed (a negative stride).
NDArray reversed_last(const NDArray& x) {
  if (x.ndim() == 0) return x;
  const int last = x.ndim() - 1;
  const int64_t n = x.shape()[last];
  if (n <= 1) return x;
  return x.slice(last, n - 1, -n - 1, -1).contiguous().slice(last, n - 1, -n - 1, -1);
}

// ---- case lists ----

std::string join(const std::vector<NDArray>& in) {
  std::ostringstream s;
  for (size_t i = 0; i < in.size(); ++i) {
    const NDArray& a = in[i];
    s << (i ? " x " : "") << a.shape();
    if (!a.is_contiguous()) s << "[strides " << a.strides() << "]";
  }
  return s.str();
}

std::string attrs_str(const AttrMap& attrs) {
  std::string s;
  for (const auto& [k, v] : attrs) s += (s.empty() ? " " : ", ") + k + "=" + v.text();
  return s;
}

class Cases {
 public:
  Cases(std::string op, DataType t) : op_(std::move(op)), t_(t) {}

  void add(const std::vector<NDArray>& inputs, const AttrMap& attrs = {},
           const std::string& note = "") {
    std::ostringstream what;
    what << op_ << " " << t_ << " " << join(inputs) << attrs_str(attrs);
    if (!note.empty()) what << " (" << note << ")";
    out_.push_back({op_, attrs, inputs, what.str()});
  }
  std::vector<OpCase> take() { return std::move(out_); }

 private:
  std::string op_;
  DataType t_;
  std::vector<OpCase> out_;
};

// Extents around the vector widths: 4 (wasm), 8 (AVX2 int32), 16 (AVX-512), their multiples
// and blocks, and a long row.
const int64_t kLengths[] = {0,  1,  2,   3,   4,   5,   7,    8,    9,   15, 16, 17, 31,
                            32, 33, 63, 64, 65, 100, 127, 128, 129, 1000, 1001, 4099};

// ---- elementwise binary (add, sub, mul, div, maximum, minimum, comparisons; the CVM
// broadcast_* and elemwise_* ops) ----

void binary_cases(Cases& c, Gen& g, DataType t, bool same_shape) {
  auto x = [&](const Shape& s) { return g.full(s, t); };
  for (int64_t n : kLengths) c.add({x({n}), x({n})});
  // Strided: every other element reversed, every other element; a transposed operand.
  for (int64_t n : {17, 64, 1000}) {
    c.add({x({2 * n}).slice(0, -1, -2 * n - 1, -2), x({n})}, {}, "reversed, stride -2");
    c.add({x({n}), x({2 * n}).slice(0, 0, 2 * n, 2)}, {}, "stride 2");
  }
  c.add({x({33, 20}), x({20, 33}).transpose()}, {}, "transposed");
  c.add({fortran(x({2, 3, 4, 5})), x({2, 3, 4, 5})}, {}, "fortran order");
  c.add({reversed_last(x({3, 67})), x({3, 67})}, {}, "last axis reversed");
  // Equal elements, ties, signed zeros and NaNs against each other.
  for (int64_t n : {9, 64}) {
    const NDArray a = g.few({n}, t);
    c.add({a, g.few({n}, t)}, {}, "few values");
    c.add({a, a}, {}, "the same array twice");
  }
  if (is_i32(t)) {
    for (int p : {8, 16, 31}) {
      c.add({g.precision({1000}, p), g.precision({1000}, p)}, {}, "precision");
    }
    // Large quotients and every divisor near zero (0 and -1 against INT32_MIN included).
    NDArray small = NDArray::empty({4099}, t);
    auto* s = static_cast<int32_t*>(small.mutable_data());
    for (int64_t i = 0; i < 4099; ++i) s[i] = static_cast<int32_t>(i % 301) - 150;
    c.add({x({4099}), small}, {}, "small second operand");
    c.add({small, x({4099})}, {}, "small first operand");
    NDArray mins = NDArray::empty({64}, t), neg = NDArray::empty({64}, t);
    for (int64_t i = 0; i < 64; ++i) {
      static_cast<int32_t*>(mins.mutable_data())[i] = i % 2 ? kMin32 : kMax32;
      static_cast<int32_t*>(neg.mutable_data())[i] = static_cast<int32_t>(i % 4) - 2;
    }
    c.add({mins, neg}, {}, "INT32_MIN / -1, x / 0");
  }
  if (same_shape) return;
  // Broadcasting: a row, a column (stride 0 inside rows), either operand, 0-d, empty, 4-D.
  const std::pair<Shape, Shape> pairs[] = {
      {{5, 67}, {67}},       {{5, 67}, {5, 1}},     {{5, 1}, {5, 67}},       {{3, 1, 70}, {4, 1}},
      {{}, {100}},           {{100}, {}},           {{}, {}},                {{2, 0, 3}, {3}},
      {{2, 3, 4, 5}, {3, 1, 5}}, {{1, 1, 1, 17}, {2, 3, 4, 1}}, {{7, 1}, {1, 33}}, {{1}, {129}}};
  for (const auto& [a, b] : pairs) c.add({x(a), x(b)});
  c.add({x({1, 67}).broadcast_to({5, 67}), x({5, 67})}, {}, "broadcast view input");
  // Seeded random pairs: 1-D to 4-D, either side broadcast along random dims, some in Fortran
  // order.
  for (int i = 0; i < 8; ++i) {
    const int nd = 1 + static_cast<int>(g.next() % 4);
    Shape sa, sb;
    for (int d = 0; d < nd; ++d) {
      const int64_t e = 1 + g.uniform(0, 12);
      const uint64_t r = g.next() % 4;
      sa.push_back(r == 1 ? 1 : e);
      sb.push_back(r == 2 ? 1 : e);
    }
    NDArray a = x(sa);
    if (i % 3 == 0 && nd >= 2) a = fortran(a);
    c.add({a, x(sb)}, {}, "random");
  }
}

// ---- elementwise unary (relu, abs, negative, cvm_precision; the clamping ops) ----

// Inputs of every unary case: the lengths, 0-d, empty, strided rows, transposed, reversed, 4-D.
std::vector<std::pair<NDArray, std::string>> unary_inputs(Gen& g, DataType t, int precision = 0) {
  auto x = [&](const Shape& s) { return precision > 0 ? g.precision(s, precision) : g.full(s, t); };
  std::vector<std::pair<NDArray, std::string>> v;
  for (int64_t n : {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 203, 1027}) {
    v.push_back({x({n}), ""});
  }
  v.push_back({x({}), "0-d"});
  v.push_back({x({2, 0}), "empty"});
  v.push_back({x({7, 90}).slice(1, 1, 90, 2), "strided rows"});
  v.push_back({x({45, 7}).transpose(), "transposed"});
  v.push_back({x({130}).slice(0, -1, -131, -2), "reversed, stride -2"});
  v.push_back({x({2, 3, 4, 5}), "4-D"});
  v.push_back({x({1, 9}).broadcast_to({4, 9}), "broadcast view"});
  for (int i = 0; i < 4; ++i) {  // seeded random 2-D to 4-D shapes, Fortran order or reversed
    Shape s;
    const int nd = 2 + static_cast<int>(g.next() % 3);
    for (int d = 0; d < nd; ++d) s.push_back(1 + g.uniform(0, 20));
    v.push_back({i % 2 ? fortran(x(s)) : reversed_last(x(s)), "random"});
  }
  return v;
}

void unary_cases(Cases& c, Gen& g, DataType t, const AttrMap& attrs = {}, int precision = 0) {
  for (const auto& [x, note] : unary_inputs(g, t, precision)) c.add({x}, attrs, note);
}

void clamp_cases(const std::string& op, Cases& c, Gen& g) {
  const DataType t = DataType::Int(32);
  auto both = [&](int p, int shift) {
    AttrMap a{{"precision", std::to_string(p)}};
    if (shift > 0) a["shift_bit"] = std::to_string(shift);
    return a;
  };
  if (op == "clip") {
    std::vector<std::pair<int64_t, int64_t>> ranges = {
        {-5, 5},  {-kMax32, kMax32}, {0, 1}, {-1, 0}, {100, 70000}, {-70000, -100}, {-128, 127}};
    for (int i = 0; i < 3; ++i) {
      int64_t lo = static_cast<int32_t>(g.next()), hi = static_cast<int32_t>(g.next());
      lo = std::max<int64_t>(lo, -kMax32);
      hi = std::max<int64_t>(hi, -kMax32);
      if (lo == hi) lo > -kMax32 ? --lo : ++hi;
      ranges.push_back({std::min(lo, hi), std::max(lo, hi)});
    }
    for (size_t i = 0; i < ranges.size(); ++i) {
      const AttrMap a{{"a_min", std::to_string(ranges[i].first)},
                      {"a_max", std::to_string(ranges[i].second)}};
      if (i < 2) {
        unary_cases(c, g, t, a);
      } else {
        c.add({g.full({1027}, t)}, a);
        c.add({g.full({17}, t)}, a);
      }
    }
    return;
  }
  if (op == "cvm_clip") {
    for (int p : {1, 2, 8, 16, 31, 32}) c.add({g.full({1027}, t)}, both(p, 0));
    unary_cases(c, g, t, both(8, 0));
    unary_cases(c, g, t, both(32, 0));
    return;
  }
  // cvm_right_shift / cvm_left_shift: every shift at the narrowest and widest precisions, then
  // every shape at a few.
  for (int shift = 1; shift <= 32; ++shift) {
    for (int p : {1, 8, 31, 32}) {
      c.add({g.full({17}, t)}, both(p, shift));
      c.add({g.full({1027}, t)}, both(p, shift));
    }
  }
  if (op == "cvm_right_shift") {
    unary_cases(c, g, t, both(8, 3));
    unary_cases(c, g, t, both(32, 1));
    c.add({g.precision({1000}, 16)}, both(8, 8), "precision-16 input");
  } else {
    unary_cases(c, g, t, both(16, 7), 9);  // precision 9 + shift 7 <= 32: the model's case
    unary_cases(c, g, t, both(32, 1));
    c.add({g.precision({1000}, 24)}, both(32, 8), "precision-24 input");
  }
}

// ---- reductions ----

const std::vector<Shape>& reduce_shapes() {
  static const std::vector<Shape> kShapes = {
      Shape{},        Shape{1},        Shape{17},       Shape{1000},       Shape{0},
      Shape{3, 0},    Shape{5, 37},    Shape{37, 5},    Shape{64, 17},     Shape{3, 200},
      Shape{2, 1, 3}, Shape{4, 6, 33}, Shape{9, 16, 8}, Shape{2, 3, 4, 5}, Shape{40, 3, 19},
      Shape{2, 3, 5}, Shape{1, 9, 4},  Shape{4, 1, 17}, Shape{3, 8, 8},    Shape{5, 0, 3},
      Shape{7, 13, 1}, Shape{2, 33, 6}};
  return kShapes;
}

std::string tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// Every subset of axes of every shape, in several layouts. `cvm`: the CVM sum/max (axis () is
// every axis; exclude); else the NumPy reductions (no axis: every axis; () nothing). `identity`:
// defined over zero elements (sums); without, empty reductions into non-empty outputs are left
// out (errors). `quirk`: CVM max, whose axis () starts at 0.
void reduce_cases(Cases& c, Gen& g, DataType t, bool cvm, bool identity, bool quirk) {
  const bool wide = is_i32(t) || t == DataType::Float(32);  // dtypes with SIMD kernels
  int k = 0;
  for (const Shape& s : reduce_shapes()) {
    const int nd = s.ndim();
    // int32: full-range values, or every third shape int8-range ones (narrow accumulation paths).
    const NDArray base = is_i32(t) && k % 3 == 1 ? g.precision(s, 8) : g.full(s, t, k % 2 == 0);
    std::vector<std::pair<NDArray, std::string>> layouts = {{base, ""}};
    if (wide && nd >= 2) layouts.push_back({fortran(base), "fortran order"});
    if (nd >= 1 && s[nd - 1] > 1) layouts.push_back({reversed_last(base), "last axis reversed"});
    for (const auto& [x, layout] : layouts) {
      for (uint32_t mask = 0; mask < (1u << nd); ++mask) {
        ++k;
        int64_t reduced = 1, kept = 1;
        std::vector<int64_t> axes, others;
        for (int d = 0; d < nd; ++d) {
          const bool r = (mask >> d) & 1;
          (r ? reduced : kept) *= s[d];
          // Some axes negative: both spellings count.
          (r ? axes : others).push_back(k % 3 == 0 ? d - nd : d);
        }
        const bool all = mask == (1u << nd) - 1;
        AttrMap a;
        if (k % 2 == 0) a["keepdims"] = "True";
        bool starts_at_zero = false;
        if (cvm) {
          if (all && k % 2 == 1) {
            a["axis"] = "()";  // every axis (CVM max: the start-at-zero quirk)
            starts_at_zero = quirk;
          } else if (mask == 0 || (k % 4 == 2 && !all)) {
            a["axis"] = tuple(others);
            a["exclude"] = "True";
          } else {
            a["axis"] = tuple(axes);
          }
        } else {
          if (all && k % 2 == 1) {
            // no axis: every axis
          } else {
            a["axis"] = tuple(axes);  // () reduces nothing
          }
        }
        // CVM reductions of every axis without keepdims give (1,): never empty.
        const bool out_empty = kept == 0 && !(cvm && all && a.count("keepdims") == 0);
        if (!identity && !starts_at_zero && reduced == 0 && !out_empty) continue;
        if (!wide && nd >= 3 && mask % 3 != 0) continue;  // fewer for the scalar-only dtypes
        c.add({x}, a, layout);
      }
    }
  }
  if (quirk) {
    // All-negative blocks under the start-at-zero quirk, and with explicit axes.
    const NDArray neg = g.ints_in({8, 5}, kMin32, -1);
    c.add({neg}, {{"axis", "()"}}, "all negative");
    c.add({neg}, {{"axis", "(1,)"}}, "all negative");
    c.add({g.ints_in({0}, 0, 0)}, {{"axis", "()"}}, "empty, quirk");
  }
  if (t == DataType::Float(32) && identity) {
    // docs/determinism.md's example: [2^24, 1 x 31] sums to 2^24 + 30 in the 16-lane order.
    std::vector<float> v(32, 1.0f);
    v[0] = 16777216.0f;
    c.add({NDArray::from_bytes(v.data(), 128, {32}, t)}, {}, "2^24 + 31 ones");
    c.add({g.full({1000}, t, false)}, {}, "finite");
    c.add({g.full({3, 5, 41, 37}, t, false)}, {{"axis", "(1, 3)"}}, "finite, 4-D");
  }
  if (is_i32(t)) {
    c.add({g.full({3, 5, 41, 37}, t)}, {{"axis", cvm ? "(2, 3)" : "(0, 2)"}}, "4-D");
    c.add({g.precision({7, 300}, 8)}, {{"axis", "(1,)"}}, "precision 8");
  }
}

// ---- matmul ----

void matmul_cases(Cases& c, Gen& g, DataType t) {
  auto x = [&](const Shape& s) { return g.full(s, t); };
  for (int64_t k : {0, 1, 7, 17, 64}) c.add({x({k}), x({k})}, {}, "vector . vector");
  c.add({x({17}), x({17, 5})}, {}, "vector x matrix");
  c.add({x({4, 17}), x({17})}, {}, "matrix x vector");
  const int64_t mkn[][3] = {{1, 1, 1},   {3, 17, 5},  {4, 100, 9}, {16, 64, 16}, {17, 65, 31},
                            {0, 3, 4},   {3, 0, 4},   {2, 5, 0},   {1, 300, 70}, {33, 8, 9},
                            {5, 129, 3}, {8, 16, 33}};
  for (const auto& d : mkn) c.add({x({d[0], d[1]}), x({d[1], d[2]})});
  c.add({x({2, 1, 3, 4}), x({5, 4, 6})}, {}, "broadcast batch");
  c.add({x({3, 2, 5}), x({5, 7})}, {}, "batch x matrix");
  c.add({x({9, 6}).transpose(), x({9, 4})}, {}, "a transposed");
  c.add({x({6, 9}), x({4, 18}).slice(1, 0, 18, 2).transpose()}, {}, "b strided, transposed");
  c.add({x({3, 40}), x({80, 7}).slice(0, -1, -81, -2)}, {}, "b rows reversed");
  if (t == DataType::Int(8) || is_i32(t)) c.add({g.few({5, 33}, t), g.few({33, 6}, t)}, {}, "few");
}

// ---- cast ----

void cast_cases(Cases& c, Gen& g, DataType t) {
  for (DataType to : kAllDataTypes) {
    const AttrMap a{{"dtype", to.name()}};
    c.add({g.full({17}, t)}, a);
    c.add({g.full({0}, t)}, a);
    c.add({g.full({}, t)}, a, "0-d");
    c.add({g.full({7, 5}, t).transpose()}, a, "transposed");
    c.add({g.full({1, 9}, t).broadcast_to({4, 9})}, a, "broadcast view");
    c.add({g.few({33}, t)}, a, "few values");
  }
  c.add({g.full({1000}, t)}, {{"dtype", "int32"}});
  c.add({g.full({1000}, t)}, {{"dtype", "float32"}});
}

// ---- transforms: views copied out (the "copy" kernel) ----

void transform_cases(const std::string& op, Cases& c, Gen& g, DataType t) {
  auto x = [&](const Shape& s) { return g.full(s, t); };
  const NDArray x234 = x({2, 3, 4});
  const NDArray strided = x({4, 3, 2}).transpose();     // (2, 3, 4), no axis contiguous
  const NDArray sliced = x({2, 6, 4}).slice(1, 1, 6, 2);  // (2, 3, 4), every other row
  if (op == "flatten") {
    for (const NDArray& in : {x234, strided, sliced, x({0, 5, 2}), x({7}), x({3, 1, 5, 1}),
                              x({2, 3, 4, 5})}) {
      c.add({in});
    }
  } else if (op == "reshape") {
    const char* codes[] = {"(6, 4)", "(-1,)", "(0, -1)", "(-2,)", "(-3, -2)", "(4, -1, 3)",
                           "(-4, 1, -1, -2)", "(2, 0, 2, 2)"};
    for (const char* code : codes) {
      c.add({x234}, {{"shape", code}});
      c.add({strided}, {{"shape", code}}, "transposed");
    }
    c.add({sliced}, {{"shape", "(-1, 2)"}}, "sliced");
    c.add({x({4, 0, 3})}, {{"shape", "(0, -1)"}}, "empty");
    c.add({x({1000})}, {{"shape", "(10, 10, 10)"}});
  } else if (op == "expand_dims") {
    c.add({x234}, {{"axis", "0"}});
    c.add({x234}, {{"axis", "-1"}, {"num_newaxis", "2"}});
    c.add({strided}, {{"axis", "1"}}, "transposed");
    c.add({x({})}, {{"axis", "0"}}, "0-d");
    c.add({x({0, 3})}, {{"axis", "1"}});
  } else if (op == "squeeze") {
    const NDArray ones = x({1, 3, 1, 5});
    c.add({ones});
    c.add({ones}, {{"axis", "(0,)"}});
    c.add({ones}, {{"axis", "(-2,)"}});
    c.add({x({5, 1, 3}).permute({1, 2, 0})}, {}, "transposed");
    c.add({x({1, 1})}, {}, "every dim 1");
    c.add({x({1, 0, 1})}, {}, "empty");
  } else if (op == "transpose") {
    c.add({x234});
    c.add({x234}, {{"axes", "(1, 0, 2)"}});
    c.add({x({5, 7})});
    c.add({x({33, 17})});
    c.add({x({2, 3, 4, 5})}, {{"axes", "(0, 2, 3, 1)"}});
    // NHWC images into NCHW planes: rows gathering every 2nd, 3rd or 4th element, with tails
    // of 0 to 16 elements after the vectors and rows of fewer than 17.
    for (int64_t channels : {2, 3, 4}) {
      for (const Shape& hw : {Shape{7, 37}, Shape{2, 16}, Shape{1, 17}, Shape{3, 5}}) {
        c.add({x({1, hw[0], hw[1], channels})}, {{"axes", "(0, 3, 1, 2)"}}, "NHWC to NCHW");
      }
    }
    c.add({x({1, 8, 8, 3}).slice(2, 0, 8, 2)}, {{"axes", "(0, 3, 1, 2)"}}, "NHWC, every 2nd pixel");
    // NCHW planes into NHWC (BlazeFace's heads): transposes of the last two dims, by 16 x 16
    // tiles where a backend has them; channels and widths around the tile's 16, with tails.
    for (int64_t channels : {2, 6, 16, 17, 33, 96}) {
      for (const Shape& hw : {Shape{8, 8}, Shape{2, 16}, Shape{3, 17}, Shape{1, 33}}) {
        c.add({x({1, channels, hw[0], hw[1]})}, {{"axes", "(0, 2, 3, 1)"}}, "NCHW to NHWC");
      }
    }
    c.add({x({2, 3, 40, 19})}, {{"axes", "(0, 1, 3, 2)"}}, "last two dims, batches");
    c.add({x({18, 35}).slice(1, 1, 35, 2)}, {{"axes", "(1, 0)"}}, "tile rows apart");
    c.add({strided}, {{"axes", "(2, 0, 1)"}}, "transposed input");
    c.add({sliced}, {}, "sliced input");
    c.add({x({0, 3})});
    c.add({x({17})});
    c.add({x({})}, {}, "0-d");
  } else if (op == "strided_slice") {
    const NDArray m = x({6, 7});
    c.add({m}, {{"begin", "(1, 2)"}, {"end", "(5, 7)"}, {"stride", "(2, 1)"}});
    c.add({m}, {{"begin", "(5,)"}, {"end", "(0,)"}, {"stride", "(-2,)"}});
    c.add({m}, {{"begin", "(-1, -1)"}, {"end", "(-7, -8)"}, {"stride", "(-1, -3)"}});
    c.add({m}, {{"begin", "(0, 0)"}, {"end", "(6, 7)"}, {"stride", "(100, 100)"}});
    c.add({x({4, 5, 6})}, {{"begin", "(1,)"}, {"end", "(3,)"}});
    c.add({strided}, {{"begin", "(0, 1, 1)"}, {"end", "(2, 3, 4)"}}, "transposed input");
    c.add({x({1000})}, {{"begin", "(3,)"}, {"end", "(999,)"}, {"stride", "(7,)"}});
  } else if (op == "concatenate") {
    c.add({x({2, 3}), x({2, 5})}, {{"axis", "1"}});
    c.add({x({2, 3}), x({4, 3}), x({1, 3})}, {{"axis", "0"}});
    c.add({x234, strided, sliced}, {{"axis", "-1"}}, "strided inputs");
    c.add({x({3, 0}), x({3, 4})}, {{"axis", "1"}}, "an empty input");
    c.add({x({17}), x({64}), x({1})}, {{"axis", "0"}});
    c.add({x({1, 1, 9}).broadcast_to({2, 3, 9}), x234}, {{"axis", "2"}}, "broadcast view");
  } else if (op == "repeat") {
    const NDArray m = x({3, 4});
    c.add({m}, {{"repeats", "3"}, {"axis", "0"}});
    c.add({m}, {{"repeats", "2"}, {"axis", "1"}});
    c.add({m}, {{"repeats", "5"}, {"axis", "-1"}});
    c.add({strided}, {{"repeats", "2"}, {"axis", "1"}}, "transposed input");
    c.add({x({17})}, {{"repeats", "17"}});
    c.add({x({0, 2})}, {{"repeats", "3"}, {"axis", "1"}});
  } else if (op == "tile") {
    c.add({x({2, 3})}, {{"reps", "(2, 2)"}});
    c.add({x({2, 3})}, {{"reps", "(3,)"}});
    c.add({x({2, 3})}, {{"reps", "(2, 1, 2)"}});
    c.add({x({4})}, {{"reps", "(3,)"}});
    c.add({strided}, {{"reps", "(1, 2, 1)"}}, "transposed input");
    c.add({x({2, 1, 2, 1, 2})}, {{"reps", "(2, 2, 2, 2, 2)"}}, "10 interleaved dims");
    c.add({x({0, 3})}, {{"reps", "(2, 2)"}});
  } else if (op == "slice_like") {
    const NDArray big = x({5, 6, 7});
    c.add({big, x({3, 4, 7})});
    c.add({big, x({2, 6})}, {{"axis", "(0,)"}});
    c.add({big, x({5, 2, 3})}, {{"axis", "(1, 2)"}});
    c.add({big, x({4, 4, 4})}, {{"axis", "(-1,)"}});
    c.add({strided, x({1, 2, 3})}, {}, "transposed input");
    c.add({big, x({0, 6, 7})});
  }
}

// ---- take, cvm_lut, where ----

void index_cases(const std::string& op, Cases& c, Gen& g) {
  const DataType t = DataType::Int(32);
  if (op == "take") {
    const NDArray x = g.full({5, 6}, t);
    for (const Shape& is : {Shape{4}, Shape{2, 3}, Shape{0}, Shape{}}) {
      const NDArray idx = g.ints_in(is, -3, 8);  // out of range: clamped
      c.add({x, idx});
      c.add({x, idx}, {{"axis", "0"}});
      c.add({x, idx}, {{"axis", "1"}});
      c.add({x, idx}, {{"axis", "-1"}});
    }
    c.add({g.full({6, 5}, t).transpose(), g.ints_in({7}, 0, 5)}, {{"axis", "1"}}, "transposed");
    c.add({g.full({1000}, t), g.ints_in({64}, kMin32, kMax32)}, {}, "full-range indices");
    c.add({g.full({2, 0, 3}, t), g.ints_in({0}, 0, 0)}, {{"axis", "1"}}, "empty axis");
    c.add({g.full({2, 3, 4}, t), g.ints_in({9}, -1, 4).slice(0, -1, -10, -1)}, {{"axis", "1"}},
          "reversed indices");
  } else if (op == "cvm_lut") {
    for (int64_t in_dim : {1, 17, 256}) {
      const NDArray table = g.full({in_dim}, t);
      const AttrMap a{{"in_dim", std::to_string(in_dim)}};
      c.add({g.ints_in({3, 5}, -3, in_dim + 3), table}, a);
      c.add({g.ints_in({1000}, 0, in_dim - 1), table}, a);
      c.add({g.ints_in({7, 4}, -3, in_dim + 3).transpose(), table}, a, "transposed data");
    }
    c.add({g.ints_in({9}, -1, 17), g.full({4, 4}, t)}, {{"in_dim", "16"}}, "2-D table");
    c.add({g.ints_in({0}, 0, 0), g.full({3}, t)}, {{"in_dim", "3"}}, "empty data");
  } else if (op == "where") {
    auto cond = [&](const Shape& s) { return g.ints_in(s, -7, 1); };
    for (const Shape& s : {Shape{4, 5}, Shape{17}, Shape{1000}, Shape{0, 3}, Shape{2, 3, 4}}) {
      c.add({cond(s), g.full(s, t), g.full(s, t)});
    }
    c.add({cond({4}), g.full({4, 5}, t), g.full({4, 5}, t)}, {}, "1-d cond");
    c.add({cond({3}), g.full({3, 2, 7}, t), g.full({3, 2, 7}, t)}, {}, "1-d cond, 3-D");
    c.add({cond({4, 5}), g.full({5, 4}, t).transpose(), g.full({4, 10}, t).slice(1, 0, 10, 2)}, {},
          "strided x and y");
  }
}

// ---- vision ----

void vision_cases(const std::string& op, Cases& c, Gen& g) {
  const DataType t = DataType::Int(32);
  if (op == "get_valid_counts") {
    const Shape shapes[] = {{1, 5, 6}, {2, 17, 6}, {3, 8, 2}, {1, 7, 31}, {2, 0, 6}, {1, 64, 5}};
    int k = 0;
    for (const Shape& s : shapes) {
      NDArray x = g.full(s, t);
      auto* p = static_cast<int32_t*>(x.mutable_data());
      for (int64_t i = 0; i < x.numel() / s[2]; ++i) {
        p[i * s[2] + 1] = static_cast<int32_t>(g.uniform(-100, 100));  // scores
      }
      for (int32_t threshold : {0, -1, 50, kMin32, kMax32}) {
        if ((k++ % 2) == 0 || threshold == 0) {
          c.add({x}, {{"score_threshold", std::to_string(threshold)}});
        }
      }
    }
    c.add({g.full({2, 9, 6}, t)}, {{"score_threshold", "0"}}, "full-range scores");
  } else if (op == "non_max_suppression") {
    auto boxes = [&](int64_t b, int64_t n, bool wide) {
      NDArray x = NDArray::empty({b, n, 6}, t);
      auto* p = static_cast<int32_t*>(x.mutable_data());
      for (int64_t i = 0; i < b * n; ++i) {
        int32_t* r = p + 6 * i;
        r[0] = static_cast<int32_t>(g.uniform(-1, 2));
        r[1] = static_cast<int32_t>(g.uniform(-5, 100));
        for (int k = 2; k < 4; ++k) {
          r[k] = wide ? static_cast<int32_t>(g.next()) : static_cast<int32_t>(g.uniform(0, 50));
          r[k + 2] = wide ? static_cast<int32_t>(g.next())
                          : static_cast<int32_t>(r[k] + g.uniform(0, 50));
        }
      }
      return x;
    };
    const AttrMap attr_sets[] = {{},
                                 {{"iou_threshold", "1"}},
                                 {{"force_suppress", "True"}, {"top_k", "3"}},
                                 {{"max_output_size", "2"}, {"iou_threshold", "100"}},
                                 {{"top_k", "0"}, {"force_suppress", "True"}}};
    const int64_t sizes[][2] = {{1, 8}, {2, 20}, {1, 1}, {3, 33}, {1, 0}};
    int k = 0;
    for (const auto& bn : sizes) {
      const NDArray data = boxes(bn[0], bn[1], false);
      for (const AttrMap& a : attr_sets) {
        const NDArray counts = g.ints_in({bn[0]}, -1, bn[1] + 1);
        if ((k++ % 2) == 0 || a.empty()) c.add({data, counts}, a);
      }
    }
    c.add({boxes(2, 12, true), g.ints_in({2}, 12, 12)}, {}, "full-range coordinates");
  }
}

// The nn family's operators: nn_cases (kernel_cases_nn.cc) generates theirs.
bool nn_family(const std::string& op) {
  static const char* const kNn[] = {"conv2d",     "dense", "max_pool2d", "upsampling",
                                    "avg_pool2d", "pad",   "softmax",    "leaky_relu",
                                    "clamp",      "sigmoid"};
  for (const char* n : kNn) {
    if (op == n) return true;
  }
  return false;
}

bool one_of(const std::string& op, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (op == n) return true;
  }
  return false;
}

}  // namespace

std::vector<OpCase> other_cases(const std::string& op, DataType t) {
  if (nn_family(op)) return {};
  Cases c(op, t);
  Gen g(seed_of(op, t));
  if (one_of(op, {"add", "sub", "mul", "div", "maximum", "minimum"})) {
    if (is_numeric(t)) binary_cases(c, g, t, false);
  } else if (one_of(op, {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"})) {
    binary_cases(c, g, t, false);
  } else if (one_of(op, {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_max",
                         "broadcast_div", "broadcast_greater"})) {
    if (is_i32(t)) binary_cases(c, g, t, false);
  } else if (one_of(op, {"elemwise_add", "elemwise_sub"})) {
    if (is_i32(t)) binary_cases(c, g, t, true);
  } else if (op == "relu") {
    if (is_i32(t) || t == DataType::Float(32)) {
      unary_cases(c, g, t);
      if (t.is_float()) c.add({g.few({64}, t)}, {}, "signed zeros, NaN, inf");
    }
  } else if (op == "abs" || op == "negative") {
    if (is_signed_or_float(t)) {
      unary_cases(c, g, t);
      c.add({g.few({64}, t)}, {}, "few values");
    }
  } else if (op == "cvm_precision") {
    if (is_i32(t)) {
      unary_cases(c, g, t);
      for (int p : {1, 8, 31}) c.add({g.precision({65}, p)}, {}, "precision-bounded");
    }
  } else if (one_of(op, {"clip", "cvm_clip", "cvm_right_shift", "cvm_left_shift"})) {
    if (is_i32(t)) clamp_cases(op, c, g);
  } else if (op == "sum" || op == "max") {
    if (is_i32(t)) reduce_cases(c, g, t, true, op == "sum", op == "max");
  } else if (one_of(op, {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax"})) {
    if (is_numeric(t)) reduce_cases(c, g, t, false, op == "reduce_sum", false);
  } else if (op == "matmul") {
    const bool takes = t == DataType::Int(8) || is_i32(t) || t == DataType::Float(32) ||
                       t == DataType::Float(64);
    if (takes) matmul_cases(c, g, t);
  } else if (op == "cast") {
    cast_cases(c, g, t);
  } else if (one_of(op, {"flatten", "reshape", "expand_dims", "squeeze", "transpose",
                         "strided_slice", "concatenate"})) {
    transform_cases(op, c, g, t);  // any dtype
  } else if (one_of(op, {"repeat", "tile", "slice_like"})) {
    if (is_i32(t)) transform_cases(op, c, g, t);
  } else if (one_of(op, {"take", "cvm_lut", "where"})) {
    if (is_i32(t)) index_cases(op, c, g);
  } else if (op == "get_valid_counts" || op == "non_max_suppression") {
    if (is_i32(t)) vision_cases(op, c, g);
  }
  return c.take();
}

}  // namespace test
}  // namespace cvm
