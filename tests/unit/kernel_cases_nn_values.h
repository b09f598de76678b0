// Values and views shared by the nn case generators of the kernel parity suite
// (kernel_cases_nn.cc, kernel_cases_gemm.cc): seeded int32 ranges and float mixes, and the
// strided, transposed and reversed layouts that reach the kernels' strided paths and declines.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "float_test_util.h"
#include "kernel_cases.h"
#include "test_util.h"

namespace cvm {
namespace test {
namespace nn_detail {

// ---- values -----------------------------------------------------------------------------------

// int32 value ranges: the narrow lanes of each ISA (int8, int16), beyond them (wide: int32
// lanes, the int16 GEMM declined), every int32 (wrapping products and sums), and the extremes of
// int8/int16 (VNNI's offset correction at -128, vpmaddwd's one wrapping pair (-32768)^2 * 2).
enum class Ints { kInt8, kInt16, kWide, kFull, kInt8Edges, kInt16Edges };

inline const char* ints_name(Ints r) {
  switch (r) {
    case Ints::kInt8: return "int8";
    case Ints::kInt16: return "int16";
    case Ints::kWide: return "+-70000";
    case Ints::kFull: return "int32";
    case Ints::kInt8Edges: return "int8 edges";
    case Ints::kInt16Edges: return "int16 edges";
  }
  return "?";
}

inline NDArray int_values(const Shape& s, Ints r, uint64_t seed) {
  switch (r) {
    case Ints::kInt8: return random_in(s, -128, 127, seed);
    case Ints::kInt16: return random_in(s, -32768, 32767, seed);
    case Ints::kWide: return random_in(s, -70000, 70000, seed);
    case Ints::kFull: return random_in(s, INT32_MIN, INT32_MAX, seed);
    case Ints::kInt8Edges:
    case Ints::kInt16Edges: break;
  }
  // Mostly the minimum, then the maximum and the minimum + 1.
  const int32_t lo = r == Ints::kInt8Edges ? -128 : -32768, hi = -lo - 1;
  NDArray a = random_in(s, 0, 3, seed);
  if (a.numel() == 0) return a;
  auto* p = static_cast<int32_t*>(a.mutable_data());
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = p[i] == 1 ? hi : p[i] == 3 ? lo + 1 : lo;
  return a;
}

// float32 value mixes (float_test_util.h).
using Mix = FloatMix;

inline NDArray float_values(const Shape& s, Mix mix, uint64_t seed) {
  NDArray a = NDArray::empty(s, DataType::Float(32));
  if (a.numel() == 0) return a;
  std::mt19937_64 rng(seed);
  auto* p = static_cast<float*>(a.mutable_data());
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = random_float(rng, mix);
  return a;
}

// The values of one case: int32 in a range, or float32 of a mix.
struct Values {
  bool is_float;
  Ints ints;
  Mix mix;
  NDArray operator()(const Shape& s, uint64_t seed) const {
    return is_float ? float_values(s, mix, seed) : int_values(s, ints, seed);
  }
  // Bias: any int32 (added with wrapping), or the same float mix.
  Values bias() const { return {is_float, Ints::kFull, mix}; }
  const char* str() const { return is_float ? float_mix_name(mix) : ints_name(ints); }
};

inline Values of_ints(Ints r) { return {false, r, Mix::kPlain}; }
inline Values of_floats(Mix m) { return {true, Ints::kInt8, m}; }

// ---- views ------------------------------------------------------------------------------------

// How an input is laid out: contiguous; every other element of a twice longer last axis (inner
// stride 2: the wasm kernels decline, the x86 ones gather); the last two axes a transposed
// buffer (inner stride = the second-to-last extent); the first axis reversed (negative stride).
enum class Lay { kPlain, kStepLast, kSwapLast2, kReverseFirst };

inline const char* lay_name(Lay l) {
  switch (l) {
    case Lay::kPlain: return "";
    case Lay::kStepLast: return " [last axis step 2]";
    case Lay::kSwapLast2: return " [last two axes transposed]";
    case Lay::kReverseFirst: return " [first axis reversed]";
  }
  return "?";
}

// An array of shape s, laid out as l, with values gen(buffer shape, seed).
inline NDArray laid_out(const Shape& s, Lay l, const Values& v, uint64_t seed) {
  const int n = s.ndim();
  switch (l) {
    case Lay::kPlain:
      break;
    case Lay::kStepLast: {
      Shape b = s;
      b[n - 1] = 2 * s[n - 1];
      return v(b, seed).slice(n - 1, 1, b[n - 1], 2);
    }
    case Lay::kSwapLast2: {
      Shape b = s;
      std::swap(b[n - 2], b[n - 1]);
      std::vector<int> axes(static_cast<size_t>(n));
      std::iota(axes.begin(), axes.end(), 0);
      std::swap(axes[n - 2], axes[n - 1]);
      return v(b, seed).permute(axes);
    }
    case Lay::kReverseFirst:
      return v(s, seed).slice(0, s[0] - 1, -s[0] - 1, -1);
  }
  return v(s, seed);
}

inline AttrValue tup(std::vector<int64_t> v) { return AttrValue::tuple(std::move(v)); }

inline std::string str(const Shape& s) { return s.str(); }

// Sets element i of a contiguous int32 array.
inline void set_int(NDArray& a, int64_t i, int32_t v) { static_cast<int32_t*>(a.mutable_data())[i] = v; }

// int8 operands but one x and/or one w value (0: none) beyond the narrow lanes of some ISA.
struct Outlier {
  int32_t x, w;
  const char* note;
};
inline std::vector<Outlier> outliers() {
  return {{128, 0, "x value 128 among int8: AVX-512/AMX leave the narrow lanes at x"},
          {40000, -129, "x 40000, w -129: AVX-512/AMX leave at w, AVX2 at x, wasm GEMM declined"},
          {0, -40000, "w -40000 among int8: every narrow path leaves at w"}};
}

// conv2d and dense cases (kernel_cases_gemm.cc): int32 when !is_float, else float32.
std::vector<OpCase> conv2d_cases(bool is_float);
std::vector<OpCase> dense_cases(bool is_float);

}  // namespace nn_detail
}  // namespace test
}  // namespace cvm
