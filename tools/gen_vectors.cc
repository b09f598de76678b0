// Writes tests/vectors/generated/<op>.json: seeded random cases for every CVM operator, with the
// expected outputs of the scalar reference backend (run_op) and precisions and cost (infer_op).
//
// Usage: gen_vectors OUT_DIR [--keep-going] [op ...]. The output is a pure function of the seed
// and the library: the same bytes on every run and platform (std::mt19937_64 is specified
// exactly; the distributions below are written out because std ones differ between libraries).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/registry.h"

namespace {

using cvm::AttrMap;
using cvm::NDArray;
using Dims = std::vector<int64_t>;
using Ints = std::vector<int32_t>;
using json = nlohmann::ordered_json;

// The attributes as a JSON object of their CVM text, in the std::map's key order.
json attrs_json(const AttrMap& attrs) {
  json j = json::object();
  for (const auto& [key, value] : attrs) j[key] = value.text();
  return j;
}

constexpr uint64_t kSeed = 0x6376'6d72'7476'6563;  // "cvmrtvec"

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n) for n >= 1: rejection keeps it unbiased and portable.
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return x % n;
  }
  int64_t range(int64_t lo, int64_t hi) {  // inclusive; hi - lo < 2^63
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }
  bool chance(int num, int den) {
    return below(static_cast<uint64_t>(den)) < static_cast<uint64_t>(num);
  }
  template <typename T>
  T pick(std::initializer_list<T> items) {
    return *(items.begin() + below(items.size()));
  }
  uint64_t bits() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

int nb(uint64_t n) {  // bit length
  int b = 0;
  for (; n != 0; n >>= 1) ++b;
  return b;
}
int64_t alpha(int p) { return (int64_t(1) << (p - 1)) - 1; }
int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}
std::string tup(const Dims& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// One int32 value: within +-alpha(p) with its edges often, or anywhere in int32 (`full`) with
// the overflow edges often.
int32_t value(Rng& r, int p, bool full) {
  if (full) {
    if (r.chance(1, 3)) {
      return r.pick<int32_t>({INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 0, 1, -1, 1 << 30,
                              -(1 << 30), 65536, -65536, 46341, -46341});
    }
    return static_cast<int32_t>(static_cast<uint32_t>(r.bits()));
  }
  const int64_t a = alpha(p);
  if (r.chance(1, 6)) {
    int64_t v = r.pick<int64_t>({0, 1, -1, a, -a, a - 1, 1 - a});
    return static_cast<int32_t>(v < -a ? -a : v > a ? a : v);
  }
  return static_cast<int32_t>(r.range(-a, a));
}
Ints values(Rng& r, int64_t n, int p, bool full) {
  Ints v(static_cast<size_t>(n));
  for (auto& x : v) x = value(r, p, full);
  return v;
}
Ints uniform(Rng& r, int64_t n, int64_t lo, int64_t hi) {
  Ints v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<int32_t>(r.range(lo, hi));
  return v;
}

// A dimension: mostly small, sometimes a SIMD tile edge.
int64_t dim(Rng& r, int64_t small_max = 6) {
  if (r.chance(1, 5)) return r.pick<int64_t>({15, 16, 17, 31, 32, 33});
  return r.range(1, small_max);
}
// A shape of ndim in [lo, hi] with at most `cap` elements (dims shrink to fit).
Dims shape(Rng& r, int lo, int hi, int64_t cap, int64_t small_max = 6) {
  Dims d(static_cast<size_t>(r.range(lo, hi)));
  for (auto& x : d) x = dim(r, small_max);
  for (size_t i = 0; numel(d) > cap; i = (i + 1) % d.size()) d[i] = (d[i] + 1) / 2;
  return d;
}

struct Case {
  std::string desc;
  AttrMap attrs;
  std::vector<Dims> shapes;
  std::vector<Ints> data;
  std::vector<int> precisions;
  void input(const Dims& s, Ints v, int p) {
    shapes.push_back(s);
    data.push_back(std::move(v));
    precisions.push_back(p);
  }
};

// Data of `shape` at precision p, full int32 range one time in `full_den`.
void add_input(Case& c, Rng& r, const Dims& s, int p, int full_den = 4) {
  bool full = full_den > 0 && r.chance(1, full_den);
  c.input(s, values(r, numel(s), p, full), p);
  if (full) c.desc += " full-range";
}

// ---- generators, one per operator family ----

// 1-D lengths across vector-width remainders first, then random shapes of rank 1..4.
Dims elementwise_shape(Rng& r, int index) {
  static const int64_t kEdges[] = {1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129};
  if (index < 14) return Dims{kEdges[index]};
  return shape(r, 1, 4, 240);
}

Case unary(Rng& r, int i) {
  Case c;
  Dims s = elementwise_shape(r, i);
  add_input(c, r, s, static_cast<int>(r.range(1, 32)), 3);
  c.desc = tup(s) + c.desc;
  return c;
}

Case same_shape_binary(Rng& r, int i) {
  Case c;
  Dims s = elementwise_shape(r, i);
  add_input(c, r, s, static_cast<int>(r.range(1, 31)), 3);
  add_input(c, r, s, static_cast<int>(r.range(1, 31)), 3);
  c.desc = tup(s) + c.desc;
  return c;
}

Case clip(Rng& r, int i) {
  Case c = unary(r, i);
  int64_t mag = r.pick<int64_t>({200, 70000, 1 << 30, INT32_MAX - 1});
  int64_t lo = r.range(-mag, mag - 1), hi = r.range(lo + 1, mag);
  c.attrs = {{"a_min", std::to_string(lo)}, {"a_max", std::to_string(hi)}};
  return c;
}

Case cvm_clip(Rng& r, int i) {
  Case c = unary(r, i);
  c.attrs = {{"precision", std::to_string(r.range(1, 32))}};
  if (r.chance(1, 3)) c.attrs["is_sign"] = r.chance(1, 2) ? "True" : "False";
  return c;
}

Case right_shift(Rng& r, int i) {
  Case c = cvm_clip(r, i);
  c.attrs["shift_bit"] = std::to_string(r.chance(1, 5) ? r.range(29, 32) : r.range(1, 32));
  return c;
}

Case left_shift(Rng& r, int i) {
  Case c;
  Dims s = elementwise_shape(r, i);
  int shift = static_cast<int>(r.range(1, 31));
  add_input(c, r, s, static_cast<int>(r.range(1, 32 - shift)), 3);
  c.desc = tup(s) + c.desc;
  c.attrs = {{"precision", std::to_string(r.range(1, 32))}, {"shift_bit", std::to_string(shift)}};
  return c;
}

// Two shapes that broadcast: size-1 dims and dropped leading dims on either side.
std::pair<Dims, Dims> broadcast_pair(Rng& r, int i) {
  if (i < 6) {  // long rows against a row or a column
    int64_t n = r.pick<int64_t>({15, 16, 17, 31, 33, 65});
    return i % 2 ? std::pair{Dims{3, n}, Dims{n}} : std::pair{Dims{3, n}, Dims{3, 1}};
  }
  Dims out = shape(r, 1, 4, 240), a = out, b = out;
  for (size_t k = 0; k < out.size(); ++k) {
    if (r.chance(1, 3))
      a[k] = 1;
    else if (r.chance(1, 3))
      b[k] = 1;
  }
  if (r.chance(1, 3))
    a.erase(a.begin(), a.begin() + r.range(0, static_cast<int64_t>(a.size()) - 1));
  if (r.chance(1, 3))
    b.erase(b.begin(), b.begin() + r.range(0, static_cast<int64_t>(b.size()) - 1));
  return r.chance(1, 2) ? std::pair{a, b} : std::pair{b, a};
}

// max_p: the largest input precision the op's rule allows; `sum_rule`: p0 + p1 <= 32.
Case broadcast(Rng& r, int i, int max_p, bool sum_rule, bool divisor_zeros) {
  Case c;
  auto [a, b] = broadcast_pair(r, i);
  int p0 = static_cast<int>(r.range(1, sum_rule ? 31 : max_p));
  int p1 = static_cast<int>(r.range(1, sum_rule ? 32 - p0 : max_p));
  add_input(c, r, a, p0);
  add_input(c, r, b, p1);
  if (divisor_zeros) {
    for (auto& x : c.data[1]) {
      if (r.chance(1, 5)) x = r.pick<int32_t>({0, 1, -1});
    }
  }
  c.desc = tup(a) + " x " + tup(b) + c.desc;
  return c;
}

Case reduce(Rng& r, int i, bool is_sum) {
  Case c;
  Dims s = shape(r, 1, 4, 300);
  const int n = static_cast<int>(s.size());
  int mode = static_cast<int>(r.below(4));
  if (mode == 1) c.attrs["axis"] = "()";
  if (mode >= 2) {
    Dims axes;
    for (int k = 0; k < n; ++k) {
      if (r.chance(1, 2)) axes.push_back(r.chance(1, 3) ? k - n : k);
    }
    if (axes.empty()) axes.push_back(r.range(-n, n - 1));
    if (r.chance(1, 3)) std::reverse(axes.begin(), axes.end());
    c.attrs["axis"] = tup(axes);
    if (mode == 3) c.attrs["exclude"] = "True";
  }
  if (r.chance(1, 2)) c.attrs["keepdims"] = r.chance(1, 2) ? "True" : "False";
  add_input(c, r, s,
            static_cast<int>(r.range(1, is_sum ? 32 - nb(static_cast<uint64_t>(numel(s))) : 32)));
  c.desc = tup(s) + c.desc;
  return c;
}

// Precision of weights/data for conv2d and dense (<= 8), bias precision, full-range chance.
Case conv2d(Rng& r, int) {
  for (;;) {
    Case c;
    int64_t g = r.pick<int64_t>({1, 1, 1, 2, 3});
    int64_t cg = g == 1 ? r.pick<int64_t>({1, 3, 4, 8, 16, 17}) : r.pick<int64_t>({1, 2, 4});
    int64_t ocg = g == 1 ? r.pick<int64_t>({1, 2, 4, 16, 17}) : r.pick<int64_t>({1, 2, 3});
    int64_t kh = r.pick<int64_t>({1, 2, 3, 3, 5}), kw = r.pick<int64_t>({1, 2, 3, 3, 5});
    int64_t sh = r.range(1, 3), sw = r.range(1, 3), dh = r.range(1, 2), dw = r.range(1, 2);
    int64_t ph = r.range(0, 2), pw = r.range(0, 2);
    int64_t ekh = dh * (kh - 1) + 1, ekw = dw * (kw - 1) + 1;
    int64_t h = r.range(std::max<int64_t>(1, ekh - 2 * ph), ekh - 2 * ph + 9);
    int64_t w = r.range(std::max<int64_t>(1, ekw - 2 * pw), ekw - 2 * pw + 9);
    int64_t n = r.range(1, 2), ch = g * cg, oc = g * ocg;
    int64_t oh = (h + 2 * ph - ekh) / sh + 1, ow = (w + 2 * pw - ekw) / sw + 1;
    if (n * ch * h * w > 1500 || n * oc * oh * ow > 1500 || oc * cg * kh * kw > 1500) continue;
    bool bias = r.chance(1, 2);
    c.attrs = {{"channels", std::to_string(oc)},     {"kernel_size", tup({kh, kw})},
               {"strides", tup({sh, sw})},           {"padding", tup({ph, pw})},
               {"dilation", tup({dh, dw})},          {"groups", std::to_string(g)},
               {"use_bias", bias ? "True" : "False"}};
    add_input(c, r, {n, ch, h, w}, static_cast<int>(r.range(1, 8)), 6);
    add_input(c, r, {oc, cg, kh, kw}, static_cast<int>(r.range(1, 8)), 6);
    if (bias) add_input(c, r, {oc}, static_cast<int>(r.range(1, 31)), 0);
    c.desc = "x " + tup(c.shapes[0]) + " w " + tup(c.shapes[1]) + c.desc;
    return c;
  }
}

Case dense(Rng& r, int) {
  Case c;
  int64_t m = r.pick<int64_t>({1, 2, 3, 5, 16, 17});
  int64_t k = r.pick<int64_t>({1, 3, 4, 15, 16, 17, 31, 32, 33, 63, 64, 65});
  int64_t units = r.pick<int64_t>({1, 2, 3, 7, 16, 17});
  bool bias = r.chance(1, 2);
  c.attrs = {{"units", std::to_string(units)}};
  if (!bias || r.chance(1, 2)) c.attrs["use_bias"] = bias ? "True" : "False";
  add_input(c, r, {m, k}, static_cast<int>(r.range(1, 8)), 6);
  add_input(c, r, {units, k}, static_cast<int>(r.range(1, 8)), 6);
  if (bias) add_input(c, r, {units}, static_cast<int>(r.range(1, 31)), 0);
  c.desc = "x " + tup(c.shapes[0]) + " w " + tup(c.shapes[1]) + c.desc;
  return c;
}

Case max_pool2d(Rng& r, int) {
  Case c;
  int64_t kh = r.range(1, 4), kw = r.range(1, 4);
  int64_t ph = r.range(0, kh - 1), pw = r.chance(1, 3) ? ph : r.range(0, kw - 1);
  if (pw >= kw) pw = kw - 1;
  Dims s{r.range(1, 2), r.range(1, 3), r.range(std::max<int64_t>(1, kh - 2 * ph), 12),
         r.range(std::max<int64_t>(1, kw - 2 * pw), 12)};
  c.attrs = {{"pool_size", tup({kh, kw})},
             {"strides", tup({r.range(1, 3), r.range(1, 3)})},
             {"padding", ph == pw && r.chance(1, 2) ? tup({ph}) : tup({ph, pw})}};
  if (r.chance(1, 2)) c.attrs["ceil_mode"] = r.chance(1, 2) ? "True" : "False";
  add_input(c, r, s, static_cast<int>(r.range(1, 32)));
  c.desc = tup(s) + c.desc;
  return c;
}

Case upsampling(Rng& r, int) {
  Case c;
  Dims s{r.range(1, 2), r.range(1, 3), r.range(1, 6), r.range(1, 6)};
  c.attrs = {{"scale", std::to_string(r.range(1, 4))}};
  add_input(c, r, s, static_cast<int>(r.range(1, 32)));
  c.desc = tup(s) + c.desc;
  return c;
}

Case get_valid_counts(Rng& r, int) {
  Case c;
  Dims s{r.range(1, 3), r.range(1, 20), r.pick<int64_t>({2, 3, 5, 6, 6, 6, 16, 31})};
  int64_t threshold = r.range(0, 10);
  if (threshold != 0 || r.chance(1, 2)) c.attrs["score_threshold"] = std::to_string(threshold);
  Ints v = uniform(r, numel(s), -50, 50);
  for (int64_t row = 0; row < s[0] * s[1]; ++row)
    v[row * s[2] + 1] = static_cast<int32_t>(r.range(-5, 15));
  c.input(s, v, 8);
  c.desc = tup(s);
  return c;
}

Case nms(Rng& r, int) {
  Case c;
  int64_t b = r.range(1, 2), n = r.range(1, 24);
  const bool big = r.chance(1, 6);  // coordinates near 2^29: overlap * 100 overflows int64
  const int64_t scale = big ? (int64_t(1) << 24) : 1;
  Ints v;
  for (int64_t i = 0; i < b * n; ++i) {
    int64_t x1 = r.range(0, 40), y1 = r.range(0, 40);
    v.push_back(r.pick<int32_t>({-1, 0, 0, 1, 1, 2}));
    v.push_back(
        static_cast<int32_t>(r.chance(1, 3) ? r.pick<int64_t>({10, 50, 90}) : r.range(-5, 99)));
    for (int64_t x : {x1, y1, x1 + r.range(0, 30), y1 + r.range(0, 30)}) {
      v.push_back(static_cast<int32_t>(x * scale));
    }
  }
  c.input({b, n, 6}, v, big ? 32 : 8);
  c.input({b}, uniform(r, b, -2, n + 2), 8);
  if (r.chance(2, 3)) c.attrs["iou_threshold"] = std::to_string(r.range(1, 100));
  if (r.chance(1, 3)) c.attrs["force_suppress"] = r.chance(1, 2) ? "True" : "False";
  if (r.chance(1, 3)) c.attrs["top_k"] = std::to_string(r.chance(1, 3) ? -1 : r.range(0, n + 1));
  if (r.chance(1, 3))
    c.attrs["max_output_size"] = std::to_string(r.chance(1, 3) ? -1 : r.range(0, n));
  c.desc = tup({b, n, 6}) + (big ? " large boxes" : "");
  return c;
}

// ---- transforms ----

Case with_shape(Rng& r, const Dims& s) {
  Case c;
  add_input(c, r, s, static_cast<int>(r.range(1, 32)), 0);
  c.desc = tup(s);
  return c;
}

Case flatten(Rng& r, int) { return with_shape(r, shape(r, 1, 5, 300)); }

// Builds a target with MXNet codes by walking the input dims.
Case reshape(Rng& r, int) {
  Dims s = shape(r, 1, 4, 300);
  Case c = with_shape(r, s);
  Dims t;
  bool inferred = false;
  for (size_t i = 0; i < s.size(); ++i) {
    int action = static_cast<int>(r.below(6));
    int64_t d = s[i];
    if (action == 0) {
      t.push_back(0);
    } else if (action == 1 && i + 1 < s.size()) {
      t.push_back(-3);
      ++i;
    } else if (action == 2 && d > 1) {
      int64_t a = 1;
      for (int64_t k = 2; k < d; ++k) {
        if (d % k == 0 && r.chance(1, 2)) a = k;
      }
      bool infer_half = !inferred && r.chance(1, 2);
      t.insert(t.end(), {-4, infer_half ? -1 : a, d / a});
      inferred = inferred || infer_half;
    } else if (action == 3) {
      t.push_back(-2);
      break;
    } else if (action == 4 && !inferred) {
      t.push_back(-1);
      inferred = true;
    } else {
      t.push_back(d);
    }
  }
  if (r.chance(1, 4) && (t.empty() || t.back() != -2)) t.push_back(1);
  c.attrs["shape"] = tup(t);
  return c;
}

Case expand_dims(Rng& r, int) {
  Dims s = shape(r, 1, 4, 300);
  Case c = with_shape(r, s);
  int64_t n = static_cast<int64_t>(s.size());
  c.attrs["axis"] = std::to_string(r.range(-n - 1, n));
  if (r.chance(1, 2)) c.attrs["num_newaxis"] = std::to_string(r.range(1, 2));
  return c;
}

Case squeeze(Rng& r, int) {
  Dims s = shape(r, 1, 5, 300);
  for (auto& d : s) {
    if (r.chance(1, 2)) d = 1;
  }
  Case c = with_shape(r, s);
  Dims axes;
  const int64_t n = static_cast<int64_t>(s.size());
  for (int64_t k = 0; k < n; ++k) {
    if (s[k] == 1 && r.chance(1, 2)) axes.push_back(r.chance(1, 3) ? k - n : k);
  }
  if (!axes.empty()) c.attrs["axis"] = tup(axes);
  return c;
}

Case transpose(Rng& r, int) {
  Dims s = shape(r, 1, 5, 300);
  Case c = with_shape(r, s);
  if (r.chance(2, 3)) {
    Dims axes;
    for (size_t k = 0; k < s.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    for (size_t k = axes.size(); k > 1; --k) std::swap(axes[k - 1], axes[r.below(k)]);
    c.attrs["axes"] = tup(axes);
  }
  return c;
}

Case strided_slice(Rng& r, int) {
  Dims s = shape(r, 1, 4, 300, 9);
  Case c = with_shape(r, s);
  Dims begin, end, stride;
  int64_t k = r.range(1, static_cast<int64_t>(s.size()));
  for (int64_t a = 0; a < k; ++a) {
    int64_t d = s[a], st = r.pick<int64_t>({1, 1, 2, 3, -1, -2});
    begin.push_back(r.range(-d - 2, d + 1));
    end.push_back(r.range(-d - 2, d + 1));
    stride.push_back(st);
  }
  c.attrs = {{"begin", tup(begin)}, {"end", tup(end)}};
  bool unit = std::all_of(stride.begin(), stride.end(), [](int64_t x) { return x == 1; });
  if (!unit || r.chance(1, 2)) c.attrs["stride"] = tup(stride);
  return c;
}

Case take(Rng& r, int) {
  Dims s = shape(r, 1, 3, 200, 8);
  Case c = with_shape(r, s);
  int64_t n = static_cast<int64_t>(s.size());
  int64_t bound = numel(s);
  int mode = static_cast<int>(r.below(3));
  if (mode == 1) c.attrs["axis"] = "None";
  if (mode == 2) {
    int64_t axis = r.range(-n, n - 1);
    c.attrs["axis"] = std::to_string(axis);
    bound = s[axis < 0 ? axis + n : axis];
  }
  Dims is = shape(r, 1, 2, 40);
  c.input(is, uniform(r, numel(is), -3, bound + 2), static_cast<int>(r.range(1, 32)));
  c.desc += " indices " + tup(is);
  return c;
}

Case cvm_lut(Rng& r, int) {
  int64_t in_dim = r.pick<int64_t>({1, 2, 16, 255, 256});
  Dims ds = shape(r, 1, 3, 200);
  Case c;
  c.input(ds, uniform(r, numel(ds), -5, in_dim + 4), static_cast<int>(r.range(1, 32)));
  Dims ts = in_dim % 2 == 0 && r.chance(1, 2) ? Dims{2, in_dim / 2} : Dims{in_dim};
  add_input(c, r, ts, static_cast<int>(r.range(1, 32)), 0);
  c.attrs["in_dim"] = std::to_string(in_dim);
  c.desc = tup(ds) + " table " + tup(ts);
  return c;
}

Case concatenate(Rng& r, int) {
  Dims s = shape(r, 1, 4, 120);
  int64_t n = static_cast<int64_t>(s.size());
  Case c;
  int64_t axis = n >= 2 && r.chance(1, 3) ? 1 : r.range(-n, n - 1);
  if (axis != 1 || n < 2 || r.chance(1, 2)) c.attrs["axis"] = std::to_string(axis);
  int64_t k = r.range(1, 4);
  for (int64_t i = 0; i < k; ++i) {
    s[axis < 0 ? axis + n : axis] = r.range(1, 5);
    add_input(c, r, s, static_cast<int>(r.range(1, 32)), 0);
    c.desc += (i ? " + " : "") + tup(s);
  }
  return c;
}

Case repeat(Rng& r, int) {
  Dims s = shape(r, 1, 3, 150);
  Case c = with_shape(r, s);
  int64_t n = static_cast<int64_t>(s.size());
  c.attrs["repeats"] = std::to_string(r.range(1, 4));
  if (r.chance(2, 3)) c.attrs["axis"] = std::to_string(r.range(-n, n - 1));
  return c;
}

Case tile(Rng& r, int) {
  Dims s = shape(r, 1, 3, 60, 5);
  Case c = with_shape(r, s);
  Dims reps(static_cast<size_t>(r.range(1, static_cast<int64_t>(s.size()) + 1)));
  for (auto& x : reps) x = r.range(1, 3);
  c.attrs["reps"] = tup(reps);
  return c;
}

Case slice_like(Rng& r, int) {
  Dims s = shape(r, 1, 4, 300);
  Case c = with_shape(r, s);
  const int64_t n = static_cast<int64_t>(s.size());
  Dims like = s;
  if (r.chance(1, 2)) {  // default axes: equal ranks
    for (auto& d : like) d = r.range(1, d);
  } else {
    Dims axes;
    for (int64_t k = 0; k < n; ++k) {
      if (r.chance(1, 2)) axes.push_back(k);
    }
    if (axes.empty()) axes.push_back(r.range(0, n - 1));
    like.resize(static_cast<size_t>(r.range(axes.back() + 1, n)));
    for (size_t k = 0; k < like.size(); ++k) like[k] = r.range(1, s[k]);
    c.attrs["axis"] = tup(axes);
  }
  add_input(c, r, like, static_cast<int>(r.range(1, 32)), 0);
  c.desc += " like " + tup(like);
  return c;
}

Case where(Rng& r, int) {
  Dims s = shape(r, 1, 4, 300);
  Dims cs = r.chance(1, 3) ? Dims{s[0]} : s;
  Case c;
  Ints cond(static_cast<size_t>(numel(cs)));
  for (auto& x : cond) x = r.chance(1, 2) ? 0 : r.pick<int32_t>({1, -1, 7, INT32_MIN});
  c.input(cs, cond, static_cast<int>(r.range(1, 32)));
  add_input(c, r, s, static_cast<int>(r.range(1, 32)), 0);
  add_input(c, r, s, static_cast<int>(r.range(1, 32)), 0);
  c.desc = "cond " + tup(cs) + " x " + tup(s);
  return c;
}

struct Generator {
  const char* op;
  int count;
  std::function<Case(Rng&, int)> fn;
  bool may_reject = false;  // random attributes may be invalid: retry silently
};

std::vector<Generator> generators() {
  auto bc = [](int max_p, bool sum_rule, bool zeros) {
    return [=](Rng& r, int i) { return broadcast(r, i, max_p, sum_rule, zeros); };
  };
  return {
      {"relu", 32, unary},
      {"abs", 32, unary},
      {"negative", 32, unary},
      {"cvm_precision", 32, unary},
      {"elemwise_add", 32, same_shape_binary},
      {"elemwise_sub", 32, same_shape_binary},
      {"clip", 32, clip},
      {"cvm_clip", 32, cvm_clip},
      {"cvm_right_shift", 40, right_shift},
      {"cvm_left_shift", 40, left_shift},
      {"broadcast_add", 32, bc(31, false, false)},
      {"broadcast_sub", 32, bc(31, false, false)},
      {"broadcast_mul", 32, bc(0, true, false)},
      {"broadcast_max", 32, bc(32, false, false)},
      {"broadcast_div", 40, bc(32, false, true)},
      {"broadcast_greater", 32, bc(32, false, false)},
      {"sum", 40, [](Rng& r, int i) { return reduce(r, i, true); }},
      {"max", 40, [](Rng& r, int i) { return reduce(r, i, false); }},
      {"conv2d", 48, conv2d},
      {"dense", 36, dense},
      {"max_pool2d", 40, max_pool2d, true},
      {"upsampling", 20, upsampling},
      {"get_valid_counts", 30, get_valid_counts},
      {"non_max_suppression", 60, nms},
      {"flatten", 16, flatten},
      {"reshape", 40, reshape},
      {"expand_dims", 20, expand_dims},
      {"squeeze", 24, squeeze},
      {"transpose", 24, transpose},
      {"strided_slice", 40, strided_slice, true},
      {"take", 32, take},
      {"cvm_lut", 24, cvm_lut},
      {"concatenate", 30, concatenate},
      {"repeat", 20, repeat},
      {"tile", 20, tile},
      {"slice_like", 30, slice_like},
      {"where", 30, where},
  };
}

// ---- running and writing ----

json tensor_json(const Dims& shape, const int32_t* data) {
  json t;
  t["shape"] = shape;
  t["dtype"] = "int32";
  t["data"] = Ints(data, data + numel(shape));
  return t;
}

// The case with expectations, or an error message when the library rejects it.
bool evaluate(const std::string& op, const Case& c, int index, json* out, std::string* error) {
  try {
    std::vector<NDArray> inputs;
    std::vector<json> in_json;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      NDArray a = NDArray::empty(cvm::Shape(c.shapes[i]), cvm::DataType::Int(32));
      a.copy_from_bytes(c.data[i].data(), c.data[i].size() * sizeof(int32_t));
      inputs.push_back(a);
      in_json.push_back(tensor_json(c.shapes[i], c.data[i].data()));
    }
    std::vector<NDArray> outputs = cvm::run_op(op, inputs, c.attrs);
    cvm::OpInference inf = cvm::infer_op(op, c.shapes, c.precisions, c.attrs);
    json expected;
    expected["outputs"] = json::array();
    for (const NDArray& o : outputs) {
      if (o.dtype() != cvm::DataType::Int(32)) throw cvm::RuntimeError("non-int32 output");
      NDArray dense = o.contiguous();
      expected["outputs"].push_back(tensor_json(o.shape().to_vector(), dense.data_as<int32_t>()));
    }
    expected["precisions"] = inf.output_precisions;
    expected["cost_base"] = inf.cost_base;
    json j;
    j["name"] = "#" + std::to_string(index) + " " + c.desc;
    j["op"] = op;
    j["source"] = "generated";
    j["attrs"] = attrs_json(c.attrs);
    j["inputs"] = in_json;
    j["input_precisions"] = c.precisions;
    j["expected"] = expected;
    *out = std::move(j);
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ULL;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [--keep-going] [op ...]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path out_dir = argv[1];
  bool keep_going = false;
  std::vector<std::string> only;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--keep-going") {
      keep_going = true;
    } else {
      only.push_back(a);
    }
  }
  cvm::set_backend("scalar");
  std::map<std::string, bool> registered;
  for (const cvm::OpInfo& info : cvm::list_ops()) registered[info.name] = info.cvm;
  std::filesystem::create_directories(out_dir);

  int failures = 0;
  size_t total_cases = 0;
  std::map<std::string, bool> covered;
  for (const Generator& g : generators()) {
    covered[g.op] = true;
    if (!only.empty() && std::find(only.begin(), only.end(), g.op) == only.end()) continue;
    if (!registered.count(g.op)) {
      std::fprintf(stderr, "skip %s: not registered\n", g.op);
      continue;
    }
    Rng rng(kSeed ^ fnv1a(g.op));  // per-op streams: adding an op changes no other file
    std::string text = "[\n";
    int written = 0, retries = 0, dropped = 0;
    while (written < g.count) {
      Case c = g.fn(rng, written);
      json j;
      std::string error;
      if (!evaluate(g.op, c, written, &j, &error)) {
        if (g.may_reject && ++retries < 50 * g.count) continue;
        std::fprintf(stderr, "%s: case %s %s rejected: %s\n", g.op, c.desc.c_str(),
                     attrs_json(c.attrs).dump().c_str(), error.c_str());
        ++dropped;
        if (dropped > g.count) break;
        continue;
      }
      text += (written ? ",\n" : "") + j.dump();
      ++written;
    }
    text += "\n]\n";
    failures += dropped;
    total_cases += static_cast<size_t>(written);
    std::ofstream(out_dir / (std::string(g.op) + ".json"), std::ios::binary) << text;
    std::printf("%-20s %3d cases %7zu bytes, %d rejected and retried, %d dropped\n", g.op, written,
                text.size(), retries, dropped);
  }
  for (const auto& [name, cvm_op] : registered) {
    if (cvm_op && !covered.count(name)) {
      std::fprintf(stderr, "no generator for CVM operator %s\n", name.c_str());
      ++failures;
    }
  }
  std::printf("%zu cases\n", total_cases);
  return failures > 0 && !keep_going ? 1 : 0;
}
