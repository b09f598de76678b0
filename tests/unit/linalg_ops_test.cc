// matmul and the cast operator: hand-computed products, NumPy vector and batch rules, int8
// wrapping with large K, no fused multiply-add, errors, and seeded random cases against a naive
// reference written here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "cvm/op.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

template <typename T>
NDArray make(const Shape& shape, const std::vector<T>& v, DataType t) {
  REQUIRE(static_cast<int64_t>(v.size()) == shape.numel());
  REQUIRE(sizeof(T) == t.bytes());
  return NDArray::from_bytes(v.data(), v.size() * sizeof(T), shape, t);
}

std::vector<int64_t> ints(const NDArray& a) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < a.numel(); ++i) v.push_back(test::int_at(a, i));
  return v;
}
std::vector<double> floats(const NDArray& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.numel(); ++i) v.push_back(test::float_at(a, i));
  return v;
}

// Element [idx...] of a (any strides) by multi-index.
template <typename T>
T at(const NDArray& a, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * a.strides()[static_cast<int>(d)];
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(a.data()) + off * static_cast<int64_t>(sizeof(T)),
              sizeof(T));
  return v;
}

// Naive batched reference for 2-D-or-more a (B, M, K) and b (B, K, N) of equal batch (B may be
// absent): integers accumulate exactly in int64 and wrap to int32 at the end (equal to int32
// wrapping at every step); floats do acc = acc + (x * y) in the dtype, k ascending.
template <typename T, typename Out>
std::vector<Out> reference(const NDArray& a, const NDArray& b) {
  const int nd = a.ndim();
  const int64_t batch = nd == 3 ? a.shape()[0] : 1;
  const int64_t m = a.shape()[nd - 2], k = a.shape()[nd - 1], n = b.shape()[nd - 1];
  std::vector<Out> out;
  for (int64_t z = 0; z < batch; ++z) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        auto ia = [&](int64_t kk) {
          return nd == 3 ? std::vector<int64_t>{z, i, kk} : std::vector<int64_t>{i, kk};
        };
        auto ib = [&](int64_t kk) {
          return nd == 3 ? std::vector<int64_t>{z, kk, j} : std::vector<int64_t>{kk, j};
        };
        if constexpr (std::is_integral_v<T>) {
          // Each int32 product is exact in int64; the sum wraps, so accumulate in uint64 (the
          // low 32 bits are the int32 wrapping result).
          uint64_t acc = 0;
          for (int64_t kk = 0; kk < k; ++kk) {
            acc += static_cast<uint64_t>(static_cast<int64_t>(at<T>(a, ia(kk))) *
                                         static_cast<int64_t>(at<T>(b, ib(kk))));
          }
          out.push_back(static_cast<Out>(static_cast<uint32_t>(acc)));
        } else {
          T acc = 0;
          for (int64_t kk = 0; kk < k; ++kk) {
            const T p = at<T>(a, ia(kk)) * at<T>(b, ib(kk));
            acc = acc + p;
          }
          out.push_back(acc);
        }
      }
    }
  }
  return out;
}

// Random values: int8 full range; int32 full range for wrapping (the reference wraps too);
// floats in [-4, 4] with fractional bits so rounding order matters.
NDArray random_values(const Shape& s, DataType t, std::mt19937_64& rng) {
  NDArray x = NDArray::empty(s, t);
  uint8_t* p = static_cast<uint8_t*>(x.mutable_data());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const uint64_t r = rng();
    if (t == DataType::Float(32)) {
      float f = static_cast<float>(static_cast<int64_t>(r % 80000) - 40000) / 9999.0f;
      std::memcpy(p + 4 * i, &f, 4);
    } else if (t == DataType::Float(64)) {
      double d = static_cast<double>(static_cast<int64_t>(r % 80000) - 40000) / 9999.0;
      std::memcpy(p + 8 * i, &d, 8);
    } else {
      std::memcpy(p + t.bytes() * i, &r, t.bytes());
    }
  }
  return x;
}

template <typename T, typename Out>
void check_random(DataType t, std::mt19937_64& rng, int& checked) {
  const int64_t sizes[] = {0, 1, 2, 3, 7, 17};
  for (int rep = 0; rep < 40; ++rep) {
    const int64_t m = sizes[rng() % 6], k = sizes[rng() % 6], n = sizes[rng() % 6];
    const bool batched = rep % 3 == 0;
    const int64_t batch = 1 + static_cast<int64_t>(rng() % 3);
    Shape sa = batched ? Shape{batch, m, k} : Shape{m, k};
    Shape sb = batched ? Shape{batch, k, n} : Shape{k, n};
    NDArray a = random_values(sa, t, rng), b = random_values(sb, t, rng);
    // Strided forms of b: a transposed copy viewed back, and a reversed slice of a reversed copy.
    const int last = sb.ndim() - 1;
    std::vector<int> swap;
    for (int d = 0; d <= last; ++d) swap.push_back(d);
    std::swap(swap[last], swap[last - 1]);
    NDArray bt = b.permute(swap).contiguous().permute(swap);
    NDArray br = b.slice(last, -1, -n - 1, -1).contiguous().slice(last, -1, -n - 1, -1);
    std::vector<Out> want = reference<T, Out>(a, b);
    for (const NDArray& bb : {b, bt, br}) {
      NDArray out = matmul(a, bb);
      INFO(t << " a " << sa << " b " << sb);
      Shape so = batched ? Shape{batch, m, n} : Shape{m, n};
      REQUIRE(out.shape() == so);
      REQUIRE(static_cast<size_t>(out.numel()) == want.size());
      const Out* got = out.data_as<Out>();
      // memcmp with an empty vector's null data() is undefined even for 0 bytes.
      if (!want.empty()) REQUIRE(std::memcmp(got, want.data(), want.size() * sizeof(Out)) == 0);
      ++checked;
    }
  }
}

}  // namespace

TEST_CASE("matmul: hand-computed 2-D products for every dtype", "[ops][linalg]") {
  NDArray a32 = make<int32_t>({2, 2}, {1, 2, 3, 4}, DataType::Int(32));
  NDArray b32 = make<int32_t>({2, 2}, {5, 6, 7, 8}, DataType::Int(32));
  REQUIRE(ints(matmul(a32, b32)) == std::vector<int64_t>{19, 22, 43, 50});
  NDArray a8 = make<int8_t>({2, 3}, {1, -2, 3, -4, 5, -6}, DataType::Int(8));
  NDArray b8 = make<int8_t>({3, 1}, {7, 8, 9}, DataType::Int(8));
  NDArray c8 = matmul(a8, b8);
  REQUIRE(c8.dtype() == DataType::Int(32));
  REQUIRE(c8.shape() == Shape{2, 1});
  REQUIRE(ints(c8) == std::vector<int64_t>{7 - 16 + 27, -28 + 40 - 54});
  NDArray af = make<float>({1, 2}, {0.5f, -1.5f}, DataType::Float(32));
  NDArray bf = make<float>({2, 3}, {2, 4, 6, 1, 0, -2}, DataType::Float(32));
  NDArray cf = matmul(af, bf);
  REQUIRE(cf.dtype() == DataType::Float(32));
  REQUIRE(floats(cf) == std::vector<double>{-0.5, 2.0, 6.0});
  NDArray ad = make<double>({2, 1}, {3, -1}, DataType::Float(64));
  NDArray bd = make<double>({1, 2}, {0.25, 8}, DataType::Float(64));
  REQUIRE(floats(matmul(ad, bd)) == std::vector<double>{0.75, 24, -0.25, -8});
  // Through run_op, with the transposed view of b32: [[5,7],[6,8]].
  REQUIRE(ints(run_op("matmul", {a32, b32.transpose()})[0]) ==
          std::vector<int64_t>{17, 23, 39, 53});
  // K = 0 gives zeros; M or N = 0 gives empty results.
  NDArray z = matmul(NDArray::zeros({2, 0}, DataType::Float(32)),
                     NDArray::zeros({0, 3}, DataType::Float(32)));
  REQUIRE(z.shape() == Shape{2, 3});
  for (double v : floats(z)) REQUIRE((v == 0.0 && !std::signbit(v)));
  REQUIRE(matmul(NDArray::zeros({0, 4}, DataType::Int(8)), NDArray::zeros({4, 5}, DataType::Int(8)))
              .shape() == Shape{0, 5});
}

TEST_CASE("matmul: NumPy rules for 1-D operands and batch broadcasting", "[ops][linalg]") {
  const DataType i32 = DataType::Int(32);
  NDArray m = make<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}, i32);
  NDArray v3 = make<int32_t>({3}, {1, 0, -1}, i32);
  NDArray mv = matmul(m, v3);  // (2, 3) x (3,) -> (2,)
  REQUIRE(mv.shape() == Shape{2});
  REQUIRE(ints(mv) == std::vector<int64_t>{-2, -2});
  NDArray w = make<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6}, i32);
  NDArray r = make<int32_t>({3}, {1, 2, 3}, i32);
  NDArray vm = matmul(r, w);  // (3,) x (3, 2) -> (2,)
  REQUIRE(vm.shape() == Shape{2});
  REQUIRE(ints(vm) == std::vector<int64_t>{22, 28});
  NDArray dot = matmul(r, r);  // (3,) x (3,) -> ()
  REQUIRE(dot.shape() == Shape{});
  REQUIRE(ints(dot) == std::vector<int64_t>{14});
  // Batched: (2, 2, 3) x (3, 2) broadcasts b over the batch.
  NDArray ab = make<int32_t>({2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, 0, 1, 2, 2, 2}, i32);
  NDArray c = matmul(ab, w);
  REQUIRE(c.shape() == Shape{2, 2, 2});
  REQUIRE(ints(c) == std::vector<int64_t>{22, 28, 49, 64, 4, 4, 18, 24});
  // (2, 1, 2, 3) x (3, 3, 1): batch (2, 1) and (3,) broadcast to (2, 3).
  NDArray b3 = make<int32_t>({3, 3, 1}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, i32);
  NDArray c4 = matmul(ab.reshape({2, 1, 2, 3}), b3);
  REQUIRE(c4.shape() == Shape{2, 3, 2, 1});
  REQUIRE(ints(c4) == std::vector<int64_t>{1, 4, 2, 5, 3, 6, -1, 2, 0, 2, 1, 2});
  // Batched matrix times a vector: (2, 2, 3) x (3,) -> (2, 2).
  REQUIRE(ints(matmul(ab, v3)) == std::vector<int64_t>{-2, -2, -2, 0});
  // A vector times a batch: (3,) x (2, 3, 2) -> (2, 2).
  NDArray wb = make<int32_t>({2, 3, 2}, {1, 2, 3, 4, 5, 6, 1, 1, 1, 1, 1, 1}, i32);
  REQUIRE(ints(matmul(r, wb)) == std::vector<int64_t>{22, 28, 6, 6});
}

TEST_CASE("matmul: int8 at +-127/-128 with large K wraps in int32", "[ops][linalg]") {
  const int64_t k = 140000;
  const DataType i8 = DataType::Int(8);
  // (-128)(-128) = 16384 per term: 2,293,760,000 overflows int32.
  std::vector<int8_t> lo(static_cast<size_t>(k), -128), hi(static_cast<size_t>(k), 127);
  std::vector<int8_t> mixed(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) mixed[i] = i % 3 == 0 ? -128 : 127;
  auto wrap = [](int64_t v) {
    return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v)));
  };
  REQUIRE(ints(matmul(make({1, k}, lo, i8), make({k, 1}, lo, i8))) ==
          std::vector<int64_t>{wrap(16384 * k)});
  REQUIRE(wrap(16384 * k) == -2001207296);
  REQUIRE(ints(matmul(make({1, k}, lo, i8), make({k, 1}, hi, i8))) ==
          std::vector<int64_t>{wrap(-16256 * k)});
  REQUIRE(ints(matmul(make({1, k}, hi, i8), make({k, 1}, hi, i8))) ==
          std::vector<int64_t>{wrap(16129 * k)});
  int64_t mixed_sq = 0;
  for (int8_t v : mixed) mixed_sq += int64_t(v) * v;
  REQUIRE(ints(matmul(make({k}, mixed, i8), make({k}, mixed, i8))) ==
          std::vector<int64_t>{wrap(mixed_sq)});
  // int32 products and sums wrap too.
  const DataType i32 = DataType::Int(32);
  NDArray big = make<int32_t>({1, 2}, {std::numeric_limits<int32_t>::max(), 65536}, i32);
  NDArray col = make<int32_t>({2, 1}, {2, 65536}, i32);
  REQUIRE(ints(matmul(big, col)) == std::vector<int64_t>{-2});  // (2^32 - 2) + 2^32
}

TEST_CASE("matmul: each product and each sum rounds once (no FMA)", "[ops][linalg]") {
  // x = 1 + 2^-12: x * x = 1 + 2^-11 + 2^-24 rounds (ties to even) to 1 + 2^-11. Then
  // -1 + (1 + 2^-11) = 2^-11 exactly. A fused multiply-add would give 2^-11 + 2^-24.
  const float x = 1.0f + std::ldexp(1.0f, -12);
  NDArray a = make<float>({1, 2}, {-1.0f, x}, DataType::Float(32));
  NDArray b = make<float>({2, 1}, {1.0f, x}, DataType::Float(32));
  REQUIRE(test::float_at(matmul(a, b), 0) == std::ldexp(1.0, -11));
  const double y = 1.0 + std::ldexp(1.0, -27);
  NDArray ad = make<double>({2}, {-1.0, y}, DataType::Float(64));
  NDArray bd = make<double>({2}, {1.0, y}, DataType::Float(64));
  REQUIRE(test::float_at(matmul(ad, bd), 0) == std::ldexp(1.0, -26));
  // Accumulation is in k order: (2^24 + 1) + 1 loses both ones, 1 + 1 + 2^24 keeps them.
  NDArray big = make<float>({3}, {16777216.0f, 1.0f, 1.0f}, DataType::Float(32));
  NDArray ones = make<float>({3}, {1.0f, 1.0f, 1.0f}, DataType::Float(32));
  REQUIRE(test::float_at(matmul(big, ones), 0) == 16777216.0);
  NDArray gib = make<float>({3}, {1.0f, 1.0f, 16777216.0f}, DataType::Float(32));
  REQUIRE(test::float_at(matmul(gib, ones), 0) == 16777218.0);
  // A NaN output is the canonical NaN.
  NDArray inf = make<float>({2}, {INFINITY, -INFINITY}, DataType::Float(32));
  NDArray nan_out = matmul(inf, ones.slice(0, 0, 2));
  REQUIRE(test::element_bytes(nan_out, 0) == std::vector<uint8_t>{0x00, 0x00, 0xC0, 0x7F});
}

TEST_CASE("matmul matches a naive reference on random shapes and strides", "[ops][linalg]") {
  std::mt19937_64 rng(31337);
  int checked = 0;
  check_random<int8_t, int32_t>(DataType::Int(8), rng, checked);
  check_random<int32_t, int32_t>(DataType::Int(32), rng, checked);
  check_random<float, float>(DataType::Float(32), rng, checked);
  check_random<double, double>(DataType::Float(64), rng, checked);
  REQUIRE(checked == 4 * 40 * 3);
}

TEST_CASE("matmul errors: K, batch, dtypes, ranks, attributes", "[ops][linalg]") {
  const DataType f = DataType::Float(32);
  REQUIRE_THROWS_MATCHES(
      matmul(NDArray::zeros({2, 3}, f), NDArray::zeros({4, 5}, f)), LogicError,
      Catch::Matchers::Message("op \"matmul\": inner dimensions differ: a shape (2, 3) has K = 3, "
                               "b shape (4, 5) has K = 4"));
  REQUIRE_THROWS_WITH(matmul(NDArray::zeros({3}, f), NDArray::zeros({4}, f)),
                      Contains("a shape (3) has K = 3") && Contains("b shape (4) has K = 4"));
  REQUIRE_THROWS_WITH(matmul(NDArray::zeros({2, 2, 3}, f), NDArray::zeros({3, 3, 2}, f)),
                      Contains("op \"matmul\": batch dimensions of a shape (2, 2, 3) and b shape "
                               "(3, 3, 2) do not broadcast"));
  REQUIRE_THROWS_WITH(
      matmul(NDArray::zeros({2, 3}, f), NDArray::zeros({3, 2}, DataType::Float(64))),
      Contains("expected inputs of one dtype, found a float32 and b float64"));
  REQUIRE_THROWS_WITH(
      matmul(NDArray::zeros({2, 3}, DataType::Int(16)), NDArray::zeros({3, 2}, DataType::Int(16))),
      Contains("expected int8, int32, float32 or float64, found int16"));
  REQUIRE_THROWS_WITH(matmul(NDArray::zeros({}, f), NDArray::zeros({3}, f)),
                      Contains("expected inputs of at least 1 dimension, found a shape ()"));
  REQUIRE_THROWS_WITH(run_op("matmul", {NDArray::zeros({1, 1}, f), NDArray::zeros({1, 1}, f)},
                             {{"transpose_b", "1"}}),
                      Contains("unknown attribute \"transpose_b\""));
  REQUIRE_THROWS_WITH(run_op("matmul", {NDArray::zeros({1, 1}, f)}),
                      Contains("expected 2 input(s), got 1"));
  for (const OpInfo& info : list_ops()) {
    if (info.name == "matmul" || info.name == "cast") REQUIRE_FALSE(info.cvm);
  }
}

TEST_CASE("cast operator: any dtype to any dtype, as cvm::cast", "[ops][linalg]") {
  NDArray x = make<float>({2, 3}, {-1.5f, 0.0f, 2.7f, 300.0f, -300.0f, NAN}, DataType::Float(32));
  NDArray i8 = run_op("cast", {x}, {{"dtype", "int8"}})[0];
  REQUIRE(i8.dtype() == DataType::Int(8));
  REQUIRE(i8.shape() == Shape{2, 3});
  // Truncation toward zero, saturation, NaN -> 0 (the rules of cvm::cast).
  REQUIRE(ints(i8) == std::vector<int64_t>{-1, 0, 2, 127, -128, 0});
  REQUIRE(ints(run_op("cast", {x}, {{"dtype", "bool"}})[0]) ==
          std::vector<int64_t>{1, 0, 1, 1, 1, 1});
  NDArray back = run_op("cast", {i8}, {{"dtype", "float64"}})[0];
  REQUIRE(floats(back) == std::vector<double>{-1, 0, 2, 127, -128, 0});
  // Strided input, and the same dtype (a copy).
  NDArray t = run_op("cast", {x.transpose()}, {{"dtype", "float32"}})[0];
  REQUIRE(t.shape() == Shape{3, 2});
  REQUIRE(test::bit_equal(t, x.transpose()));
  std::mt19937_64 rng(9);
  for (DataType from : kAllDataTypes) {
    NDArray r = test::random_array({5, 3}, from, rng());
    for (DataType to : kAllDataTypes) {
      REQUIRE(test::bit_equal(run_op("cast", {r}, {{"dtype", to.name()}})[0], cast(r, to)));
    }
  }
  REQUIRE_THROWS_WITH(run_op("cast", {x}), Contains("op \"cast\": attribute \"dtype\": expected "
                                                    "a string, found nothing (it is required)"));
  REQUIRE_THROWS_WITH(run_op("cast", {x}, {{"dtype", "float8"}}),
                      Contains("op \"cast\": attribute \"dtype\": expected a dtype name such as "
                               "\"float32\", found \"float8\""));
  REQUIRE_THROWS_WITH(run_op("cast", {x}, {{"dtype", "int32"}, {"axis", "0"}}),
                      Contains("unknown attribute \"axis\""));
}
