// C ABI views (CVMArrayReshape/Permute/Slice/BroadcastTo/Squeeze/ExpandDims) against hand-computed
// results and a NumPy-semantics reference: shapes, bytes, addresses, sharing and errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cvm/c_api.h"
#include "cvm/ndarray.h"
#include "cvm/params.h"
#include "test_util.h"

using Catch::Matchers::Contains;
using Dims = std::vector<int64_t>;

namespace {

struct DT { int code, bits; };  // a dtype as CVMArrayAlloc takes it
const DT kI32{kDLInt, 32}, kI8{kDLInt, 8}, kF64{kDLFloat, 64}, kI64{kDLInt, 64};

// An owned handle, freed at scope exit.
struct H {
  CVMArrayHandle h = nullptr;
  H() = default;
  explicit H(CVMArrayHandle x) : h(x) {}
  H(const H&) = delete;
  ~H() { CVMArrayFree(h); }
  CVMArrayHandle* out() { return &h; }
  operator CVMArrayHandle() const { return h; }
  CVMArrayHandle operator->() const { return h; }
};

int64_t numel(const Dims& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}
Dims shape_of(CVMArrayHandle h) { return Dims(h->shape, h->shape + h->ndim); }
size_t esize(CVMArrayHandle h) { return h->dtype.bits / 8u; }

std::vector<uint8_t> bytes_of(CVMArrayHandle h) {
  std::vector<uint8_t> b(static_cast<size_t>(numel(shape_of(h))) * esize(h));
  REQUIRE(CVMArrayCopyToBytes(h, b.data(), b.size()) == CVM_STATUS_OK);
  return b;
}

// A new array; byte i holds (7 i + 3) mod 256, or element i holds i (int32 `iota`).
CVMArrayHandle make(const Dims& shape, DT t = kI32, bool iota = false) {
  CVMArrayHandle h = nullptr;
  REQUIRE(CVMArrayAlloc(shape.data(), static_cast<int>(shape.size()), t.code, t.bits, 1, kDLCPU, 0,
                        &h) == CVM_STATUS_OK);
  std::vector<uint8_t> b(static_cast<size_t>(numel(shape)) * (t.bits / 8u));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(7 * i + 3);
  for (size_t i = 0; iota && i < b.size() / 4; ++i) {
    const int32_t v = static_cast<int32_t>(i);
    std::memcpy(&b[4 * i], &v, 4);
  }
  REQUIRE(CVMArrayCopyFromBytes(h, b.data(), b.size()) == CVM_STATUS_OK);
  return h;
}

std::vector<int32_t> ints(CVMArrayHandle h) {
  const std::vector<uint8_t> b = bytes_of(h);
  std::vector<int32_t> v(b.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), b.data(), b.size());
  return v;
}

// ---- the reference: a view is its shape and each element's flat source index, row-major ----
struct Ref {
  Dims shape;
  std::vector<int64_t> index;
};

Ref whole(const Dims& shape) {
  Ref r{shape, {}};
  for (int64_t i = 0; i < numel(shape); ++i) r.index.push_back(i);
  return r;
}

// Calls fn(multi-index) over `shape` in row-major order.
void each(const Dims& shape, const std::function<void(const Dims&)>& fn) {
  if (numel(shape) == 0) return;
  Dims m(shape.size(), 0);
  for (;;) {
    fn(m);
    int d = static_cast<int>(shape.size()) - 1;
    while (d >= 0 && ++m[static_cast<size_t>(d)] == shape[static_cast<size_t>(d)]) m[d--] = 0;
    if (d < 0) return;
  }
}

// The view of `r` with shape `shape` whose element m is r's element to_old(m).
Ref remap(const Ref& r, const Dims& shape, const std::function<Dims(const Dims&)>& to_old) {
  Ref out{shape, {}};
  each(shape, [&](const Dims& m) {
    const Dims o = to_old(m);
    int64_t flat = 0;
    for (size_t d = 0; d < o.size(); ++d) flat = flat * r.shape[d] + o[d];
    out.index.push_back(r.index[static_cast<size_t>(flat)]);
  });
  return out;
}

// Python's slice(start, stop, step).indices(n) (CPython's PySlice_AdjustIndices), `omit` marking
// None; returns {start, length}.
std::pair<int64_t, int64_t> py_slice(int64_t n, int64_t start, int64_t stop, int64_t step,
                                     int64_t omit) {
  const int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? n - 1 : n;
  auto adjust = [&](int64_t v, int64_t dflt) {
    if (v == omit) return dflt;
    if (v < 0) return std::max(v + n, lower);
    return std::min(v, upper);
  };
  const int64_t b = adjust(start, step < 0 ? upper : lower);
  const int64_t e = adjust(stop, step < 0 ? lower : upper);
  if (step < 0) return {b, e < b ? (b - e - 1) / -step + 1 : 0};
  return {b, b < e ? (e - b - 1) / step + 1 : 0};
}

// `view` against `ref` over `src`: shape, bytes and, when it shares src's memory, the address
// of every element through its DLTensor (strides NULL exactly when compact row-major).
void expect_view(CVMArrayHandle view, CVMArrayHandle src, const Ref& ref, bool shares = true) {
  REQUIRE(view != nullptr);
  REQUIRE(view != src);
  REQUIRE(shape_of(view) == ref.shape);
  CHECK(view->byte_offset == 0);
  const size_t es = esize(src);
  const std::vector<uint8_t> s = bytes_of(src), v = bytes_of(view);
  std::vector<uint8_t> want;
  for (int64_t i : ref.index) {
    want.insert(want.end(), s.begin() + static_cast<long>(i * es),
                s.begin() + static_cast<long>((i + 1) * es));
  }
  CHECK(v == want);
  if (!shares) return;
  bool compact = true;
  for (size_t k = 0; k < ref.index.size(); ++k)
    compact &= ref.index[k] == ref.index[0] + static_cast<int64_t>(k);
  CHECK((view->strides == nullptr) == compact);
  Dims strides(ref.shape.size(), 1);
  for (int d = static_cast<int>(ref.shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * ref.shape[d + 1];
  if (view->strides != nullptr) strides.assign(view->strides, view->strides + view->ndim);
  size_t k = 0;
  each(ref.shape, [&](const Dims& m) {
    int64_t off = 0;
    for (size_t d = 0; d < m.size(); ++d) off += m[d] * strides[d];
    CHECK(static_cast<const char*>(view->data) + off * int64_t(es) ==
          static_cast<const char*>(src->data) + ref.index[k++] * int64_t(es));
  });
}

std::string err() { return CVMGetLastError(); }

}  // namespace

TEST_CASE("view calls give the hand-computed results", "[capi][views]") {
  H a(make({3, 4}, kI32, true));
  H s, row, odd;
  const int64_t b1[] = {CVM_SLICE_DEFAULT, 1}, e1[] = {CVM_SLICE_DEFAULT, 3}, st1[] = {-1, 1};
  REQUIRE(CVMArraySlice(a, b1, e1, st1, 2, s.out()) == CVM_STATUS_OK);  // a[::-1, 1:3]
  CHECK((shape_of(s) == Dims{3, 2} && ints(s) == std::vector<int32_t>{9, 10, 5, 6, 1, 2}));
  REQUIRE(s->strides != nullptr);
  CHECK(Dims(s->strides, s->strides + 2) == Dims{-4, 1});
  const int64_t b2[] = {1}, e2[] = {2}, st2[] = {CVM_SLICE_DEFAULT, -2};
  REQUIRE(CVMArraySlice(a, b2, e2, nullptr, 1, row.out()) == CVM_STATUS_OK);  // a[1:2]
  CHECK(row->strides == nullptr);  // rows of a compact array are compact
  REQUIRE(CVMArraySlice(a, nullptr, nullptr, st2, 2, odd.out()) == CVM_STATUS_OK);  // a[:, ::-2]
  CHECK(ints(odd) == std::vector<int32_t>{3, 1, 7, 5, 11, 9});

  H t;
  REQUIRE(CVMArrayPermute(a, nullptr, 0, t.out()) == CVM_STATUS_OK);
  CHECK((shape_of(t) == Dims{4, 3} &&
         ints(t) == std::vector<int32_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));

  H v3(make({3}, kI32, true)), bc, r, sq, ex0, ex1;
  const int64_t to[] = {2, 3};
  REQUIRE(CVMArrayBroadcastTo(v3, to, 2, bc.out()) == CVM_STATUS_OK);
  CHECK(ints(bc) == std::vector<int32_t>{0, 1, 2, 0, 1, 2});
  CHECK(Dims(bc->strides, bc->strides + 2) == Dims{0, 1});
  const int64_t rs[] = {4, -1};
  H c(make({2, 3, 4}, kI32, true));
  REQUIRE(CVMArrayReshape(c, rs, 2, r.out()) == CVM_STATUS_OK);
  CHECK((shape_of(r) == Dims{4, 6} && r->data == c->data && r->strides == nullptr));
  H one(make({1, 3, 1}, kI32, true)), sq2;
  const int last[] = {-1};
  REQUIRE(CVMArraySqueeze(one, nullptr, 0, sq.out()) == CVM_STATUS_OK);
  REQUIRE(CVMArraySqueeze(one, last, 1, sq2.out()) == CVM_STATUS_OK);
  REQUIRE(CVMArrayExpandDims(v3, -1, ex0.out()) == CVM_STATUS_OK);
  REQUIRE(CVMArrayExpandDims(v3, 0, ex1.out()) == CVM_STATUS_OK);
  CHECK((shape_of(sq) == Dims{3} && shape_of(sq2) == Dims{1, 3}));
  CHECK((shape_of(ex0) == Dims{3, 1} && shape_of(ex1) == Dims{1, 3}));
  CHECK((ex0->strides == nullptr && ex1->strides == nullptr && sq->strides == nullptr));
  // An identity view is still a handle of its own.
  H same, z(make({})), zt;
  REQUIRE(CVMArrayBroadcastTo(v3, v3->shape, 1, same.out()) == CVM_STATUS_OK);
  CHECK(same.h != v3.h);
  REQUIRE(CVMArrayPermute(z, nullptr, 0, zt.out()) == CVM_STATUS_OK);
  CHECK((zt.h != z.h && zt->ndim == 0 && bytes_of(zt) == bytes_of(z)));
}

TEST_CASE("random slices follow Python's slice.indices", "[capi][views]") {
  const std::vector<Dims> shapes = {{},     {0},       {1},       {5},   {3, 0, 2},
                                    {1, 4}, {4, 1, 3}, {2, 3, 4}, {6, 5}};
  const DT dtypes[] = {kI32, kI8, kF64, kI64};
  const int64_t huge[] = {INT64_MAX, INT64_MIN + 1, int64_t{1} << 40, -(int64_t{1} << 40)};
  std::mt19937_64 rng(20240611);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 3000; ++trial) {
    const Dims& shape = shapes[static_cast<size_t>(pick(0, int64_t(shapes.size()) - 1))];
    H a(make(shape, dtypes[pick(0, 3)]));
    const int naxes = static_cast<int>(pick(0, static_cast<int64_t>(shape.size())));
    std::vector<int64_t> b, e, st;
    for (int i = 0; i < naxes; ++i) {
      const int64_t n = shape[static_cast<size_t>(i)];
      auto bound = [&] {
        const int64_t roll = pick(0, 99);
        return roll < 20 ? CVM_SLICE_DEFAULT : roll < 85 ? pick(-n - 3, n + 3) : huge[pick(0, 3)];
      };
      b.push_back(bound());
      e.push_back(bound());
      const int64_t r = pick(0, 99);
      int64_t s = r < 10 ? CVM_SLICE_DEFAULT : r < 85 ? pick(-4, 3) : huge[pick(0, 3)];
      if (s == 0) s = 4;
      st.push_back(s);
    }
    const bool nb = pick(0, 9) == 0, ne = pick(0, 9) == 0, ns = pick(0, 9) == 0;
    H v;
    REQUIRE(CVMArraySlice(a, nb ? nullptr : b.data(), ne ? nullptr : e.data(),
                          ns ? nullptr : st.data(), naxes, v.out()) == CVM_STATUS_OK);
    Ref ref = whole(shape);
    for (int i = 0; i < naxes; ++i) {
      const size_t u = static_cast<size_t>(i);
      int64_t s = ns || st[u] == CVM_SLICE_DEFAULT ? 1 : st[u];
      auto [start, len] = py_slice(shape[u], nb ? CVM_SLICE_DEFAULT : b[u],
                                   ne ? CVM_SLICE_DEFAULT : e[u], s, CVM_SLICE_DEFAULT);
      Dims out = ref.shape;
      out[u] = len;
      ref = remap(ref, out, [&, start = start, s](const Dims& m) {
        Dims o = m;
        o[u] = start + m[u] * s;
        return o;
      });
    }
    INFO("trial " << trial);
    expect_view(v, a, ref);
    // Then a random permutation (a view; negative axes on odd trials) and a flattening reshape:
    // a view exactly when the permuted elements are evenly spaced in memory, else a copy.
    const int nd = static_cast<int>(shape.size());
    std::vector<int> axes(shape.size());
    for (int d = 0; d < nd; ++d) axes[static_cast<size_t>(d)] = d - (trial % 2) * nd;
    std::shuffle(axes.begin(), axes.end(), rng);
    auto axis = [&](size_t d) { return static_cast<size_t>((axes[d] + nd) % std::max(nd, 1)); };
    H p, f;
    REQUIRE(CVMArrayPermute(v, axes.data(), nd, p.out()) == CVM_STATUS_OK);
    Dims pshape;
    for (size_t d = 0; d < axes.size(); ++d) pshape.push_back(ref.shape[axis(d)]);
    const Ref permuted = remap(ref, pshape, [&](const Dims& m) {
      Dims o(m.size());
      for (size_t d = 0; d < m.size(); ++d) o[axis(d)] = m[d];
      return o;
    });
    expect_view(p, a, permuted);
    const int64_t minus1 = -1;
    REQUIRE(CVMArrayReshape(p, &minus1, 1, f.out()) == CVM_STATUS_OK);
    const std::vector<int64_t>& ix = permuted.index;
    bool even = true;
    for (size_t k = 2; k < ix.size(); ++k) even &= ix[k] - ix[k - 1] == ix[1] - ix[0];
    expect_view(f, a, Ref{{numel(pshape)}, ix}, even);
    if (!even) {  // a compact copy, outside the source's memory
      const auto lo = reinterpret_cast<uintptr_t>(a->data);
      const auto at = reinterpret_cast<uintptr_t>(f->data);
      CHECK((at < lo || at >= lo + bytes_of(a).size()));
    }
  }
}

TEST_CASE("views share memory and outlive their source", "[capi][views]") {
  H a(make({2, 3}, kI32, true)), v;
  const int64_t b[] = {CVM_SLICE_DEFAULT, 2}, st[] = {-1, -1};
  REQUIRE(CVMArraySlice(a, b, nullptr, st, 2, v.out()) == CVM_STATUS_OK);  // a[::-1, 2::-1]
  CHECK(ints(v) == std::vector<int32_t>{5, 4, 3, 2, 1, 0});
  std::vector<int32_t> w = {50, 40, 30, 20, 10, 0};
  REQUIRE(CVMArrayCopyFromBytes(v, w.data(), 24) == CVM_STATUS_OK);
  CHECK(ints(a) == std::vector<int32_t>{0, 10, 20, 30, 40, 50});
  const std::vector<int32_t> w2 = {7, 8, 9, 10, 11, 12}, w2r = {12, 11, 10, 9, 8, 7};
  REQUIRE(CVMArrayCopyFromBytes(a, const_cast<int32_t*>(w2.data()), 24) == CVM_STATUS_OK);
  CHECK(ints(v) == w2r);
  CHECK(CVMArrayFree(a.h) == CVM_STATUS_OK);
  a.h = nullptr;
  CHECK(ints(v) == w2r);
  REQUIRE(CVMArrayCopyFromBytes(v, w.data(), 24) == CVM_STATUS_OK);
  CHECK(ints(v) == w);
  // Views of a broadcast cannot be written.
  H bc;
  const int64_t to[] = {2, 2, 3};
  REQUIRE(CVMArrayBroadcastTo(v, to, 3, bc.out()) == CVM_STATUS_OK);
  std::vector<int32_t> twelve(12);
  CHECK(CVMArrayCopyFromBytes(bc, twelve.data(), 48) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(err(), Contains("broadcast view"));
}

TEST_CASE("views of read-only memory copy on the first write, for all", "[capi][views]") {
  const std::string path = cvm::test::tmp_path("c_api_view_ro.params");
  cvm::ParamDict dict;
  dict.set("x", cvm::test::i32(cvm::Shape({2, 3}), {0, 1, 2, 3, 4, 5}));
  dict.save_file(path);
  int num = 0;
  void** names = nullptr;
  void** values = nullptr;
  REQUIRE(CVMLoadParamsFile(path.c_str(), 1, &num, &names, &values) == CVM_STATUS_OK);
  H x(static_cast<CVMArrayHandle>(values[0])), t;
  const void* mapped = x->data;
  REQUIRE(CVMArrayPermute(x, nullptr, 0, t.out()) == CVM_STATUS_OK);
  CHECK(t->data == mapped);
  std::vector<int32_t> w = {10, 40, 20, 50, 30, 60};
  REQUIRE(CVMArrayCopyFromBytes(t, w.data(), 24) == CVM_STATUS_OK);
  CHECK((t->data != mapped && ints(t) == w));
  // x's `data` still shows the mapping until a call refreshes it: kept mapped, old values.
  CHECK(x->data == mapped);
  CHECK(static_cast<const int32_t*>(x->data)[5] == 5);
  CHECK(ints(x) == std::vector<int32_t>{10, 20, 30, 40, 50, 60});
  CHECK(x->data == t->data);  // refreshed by the call above
  cvm::ParamDict again = cvm::ParamDict::load_file(path);  // the file is untouched
  CHECK(cvm::test::int_at(again.at("x"), 5) == 5);
  x.h = nullptr;
  CHECK(CVMArrayFree(static_cast<CVMArrayHandle>(values[0])) == CVM_STATUS_OK);
  CHECK(ints(t) == w);
  std::remove(path.c_str());
}

TEST_CASE("reshape of a non-compact view and the chain slice, permute, reshape", "[capi][views]") {
  H a(make({4, 3}, kI32, true)), t, r, s, r2;
  REQUIRE(CVMArrayPermute(a, nullptr, 0, t.out()) == CVM_STATUS_OK);  // (3, 4), not compact
  const int64_t flat[] = {-1};
  REQUIRE(CVMArrayReshape(t, flat, 1, r.out()) == CVM_STATUS_OK);
  CHECK(ints(r) == std::vector<int32_t>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  CHECK(r->strides == nullptr);
  std::vector<int32_t> zeros(12, 0);
  REQUIRE(CVMArrayCopyFromBytes(r, zeros.data(), 48) == CVM_STATUS_OK);  // a copy: a unchanged
  CHECK(ints(a)[11] == 11);
  // A strided view that can be reshaped without copying stays a view.
  const int64_t st[] = {2};
  REQUIRE(CVMArraySlice(a, nullptr, nullptr, st, 1, s.out()) == CVM_STATUS_OK);  // rows 0, 2
  const int64_t shp[] = {2, 1, 3};
  REQUIRE(CVMArrayReshape(s, shp, 3, r2.out()) == CVM_STATUS_OK);
  expect_view(r2, a, remap(whole({4, 3}), {2, 1, 3}, [](const Dims& m) {
                return Dims{2 * m[0], m[2]};
              }));
  // The chain on every dtype: a[1:, ::-2, :] -> permute(2, 0, 1) -> reshape(-1, 2).
  for (DT dt : {kI32, kI8, kF64, kI64}) {
    H c(make({3, 4, 2}, dt)), cs, cp, cr;
    const int64_t b[] = {1, CVM_SLICE_DEFAULT}, step[] = {1, -2};
    REQUIRE(CVMArraySlice(c, b, nullptr, step, 2, cs.out()) == CVM_STATUS_OK);
    const int axes[] = {2, 0, 1};
    REQUIRE(CVMArrayPermute(cs, axes, 3, cp.out()) == CVM_STATUS_OK);
    const int64_t shape[] = {-1, 2};
    REQUIRE(CVMArrayReshape(cp, shape, 2, cr.out()) == CVM_STATUS_OK);
    Ref ref = remap(whole({3, 4, 2}), {2, 2, 2}, [](const Dims& m) {  // (k, i, j) -> [i+1, 3-2j, k]
      return Dims{m[1] + 1, 3 - 2 * m[2], m[0]};
    });
    ref.shape = {4, 2};
    expect_view(cr, c, ref, /*shares=*/false);
  }
}

TEST_CASE("broadcast, squeeze and expand_dims follow NumPy", "[capi][views]") {
  H a(make({3, 1, 2}, kF64)), bc, sq, ex;
  const int64_t to[] = {2, 3, 4, 2};
  REQUIRE(CVMArrayBroadcastTo(a, to, 4, bc.out()) == CVM_STATUS_OK);
  expect_view(bc, a, remap(whole({3, 1, 2}), {2, 3, 4, 2}, [](const Dims& m) {
                return Dims{m[1], 0, m[3]};
              }));
  const int axes[] = {1};
  REQUIRE(CVMArraySqueeze(a, axes, 1, sq.out()) == CVM_STATUS_OK);
  expect_view(sq, a, Ref{{3, 2}, whole({6}).index});
  REQUIRE(CVMArrayExpandDims(sq, 1, ex.out()) == CVM_STATUS_OK);
  expect_view(ex, a, Ref{{3, 1, 2}, whole({6}).index});
  H z(make({})), zb, ze;  // 0-d
  const int64_t to2[] = {2, 2};
  REQUIRE(CVMArrayBroadcastTo(z, to2, 2, zb.out()) == CVM_STATUS_OK);
  expect_view(zb, z, Ref{{2, 2}, {0, 0, 0, 0}});
  REQUIRE(CVMArrayExpandDims(z, -1, ze.out()) == CVM_STATUS_OK);
  expect_view(ze, z, Ref{{1}, {0}});
}

TEST_CASE("view calls reject bad arguments with status 1 and a message", "[capi][views]") {
  H a(make({2, 3}, kI32, true));
  H out;
  auto fails = [&](int rc, const char* text) {
    CHECK(rc == CVM_STATUS_LOGIC_ERROR);
    CHECK_THAT(err(), Contains(text));
    CHECK(out.h == nullptr);
  };
  const int64_t s7[] = {7}, s2[] = {-1, -1}, sneg[] = {-2, -3}, s33[33] = {};
  fails(CVMArrayReshape(a, s7, 1, out.out()), "CVMArrayReshape: reshape: cannot reshape (2, 3)");
  fails(CVMArrayReshape(a, s2, 2, out.out()), "more than one -1");
  fails(CVMArrayReshape(a, sneg, 2, out.out()), "invalid extent -2");
  fails(CVMArrayReshape(a, s33, 33, out.out()), "ndim must be in 0..32, got 33");
  fails(CVMArrayReshape(a, s7, -1, out.out()), "ndim must be in 0..32, got -1");
  fails(CVMArrayReshape(a, nullptr, 2, out.out()), "'shape' is NULL");
  fails(CVMArrayReshape(nullptr, s7, 1, out.out()), "CVMArrayReshape: argument 'handle' is NULL");
  CHECK(CVMArrayReshape(a, s7, 1, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CHECK_THAT(err(), Contains("argument 'out' is NULL"));

  const int rep[] = {0, 0}, far[] = {0, 2}, one[] = {0};
  fails(CVMArrayPermute(a, rep, 2, out.out()), "axis 0 repeated");
  fails(CVMArrayPermute(a, far, 2, out.out()), "axis 2 out of range [-2, 1]");
  fails(CVMArrayPermute(a, one, 1, out.out()), "1 axes given for an array of 2 dims");
  fails(CVMArrayPermute(a, nullptr, 2, out.out()), "'axes' is NULL");
  fails(CVMArrayPermute(nullptr, nullptr, 0, out.out()), "'handle' is NULL");

  const int64_t zero[] = {0, 1}, b[] = {0, 0};
  fails(CVMArraySlice(a, b, nullptr, zero, 2, out.out()), "CVMArraySlice: step 0 for axis 0");
  fails(CVMArraySlice(a, nullptr, nullptr, nullptr, 3, out.out()), "0..2 (the array's dims)");
  fails(CVMArraySlice(a, nullptr, nullptr, nullptr, -1, out.out()), "got -1");
  fails(CVMArraySlice(nullptr, nullptr, nullptr, nullptr, 0, out.out()), "'handle' is NULL");

  const int64_t bad[] = {2, 4}, fewer[] = {3}, negative[] = {-1, 3};
  fails(CVMArrayBroadcastTo(a, bad, 2, out.out()), "cannot broadcast (2, 3) to (2, 4)");
  fails(CVMArrayBroadcastTo(a, fewer, 1, out.out()), "to fewer dims");
  fails(CVMArrayBroadcastTo(a, negative, 2, out.out()), "negative extent");
  fails(CVMArrayBroadcastTo(a, s33, 33, out.out()), "ndim must be in 0..32");

  H c(make({1, 3, 1}));
  const int not1[] = {1}, twice[] = {0, -3}, out_of[] = {3}, many[] = {0, 2, 0, 2};
  fails(CVMArraySqueeze(c, not1, 1, out.out()), "axis 1 of shape (1, 3, 1) has extent 3, not 1");
  fails(CVMArraySqueeze(c, twice, 2, out.out()), "axis -3 repeated");
  fails(CVMArraySqueeze(c, out_of, 1, out.out()), "axis 3 out of range [-3, 2]");
  fails(CVMArraySqueeze(c, many, 4, out.out()), "0..3 (the array's dims), got 4");
  fails(CVMArraySqueeze(c, nullptr, 1, out.out()), "'axes' is NULL");

  fails(CVMArrayExpandDims(a, 3, out.out()), "axis 3 out of range [-3, 2]");
  fails(CVMArrayExpandDims(a, -4, out.out()), "axis -4 out of range");
  fails(CVMArrayReshape(a, nullptr, 0, out.out()), "cannot reshape (2, 3) (6 elements) into ()");
  H wide(make(std::vector<int64_t>(32, 1)));
  fails(CVMArrayExpandDims(wide, 0, out.out()), "already has 32 dims");
  fails(CVMArrayExpandDims(nullptr, 0, out.out()), "CVMArrayExpandDims: argument 'handle' is NULL");
}
