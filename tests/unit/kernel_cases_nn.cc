// The nn family of the table-driven kernel parity suite (kernel_cases.h): seeded operator calls
// of max_pool2d, upsampling, avg_pool2d, pad, softmax, leaky_relu, clamp and sigmoid (conv2d and
// dense: kernel_cases_gemm.cc) whose shapes, views and values select every path of every
// backend's kernels, including the calls a SIMD kernel declines and passes on to the next entry
// of the chain.
//
// Where the paths are chosen (read the kernels before changing a case):
// - x86 int32 conv2d (backends/simd/gemm_conv2d.inc, gemm_depthwise.inc, gemm_amx.inc):
//   output channels per group >= 4 take the narrow lanes (int16 pairs on AVX2, int8 on AVX-512
//   VNNI and AMX, AMX tiles from 16 channels per group), in tiles one vector narrower when that
//   wastes fewer lanes, and fall back to int32 lanes for values beyond the narrow range; fewer
//   take int32 lanes of one row, except depthwise (one input and one output channel per group)
//   which takes output columns in lanes for wide rows (>= 12 / 17 outputs with few channels, 32
//   with many; 3x3 kernels pair taps when every value fits int16) or channels in lanes for
//   narrow ones. Several images or groups run in per-thread slots. Declined: no input channels,
//   or scratch out of proportion to the operands (huge padding and dilation of a tiny input).
// - x86 int32 dense (gemm_dense.inc): up to 4 rows straight from int32 (x and w contiguous along
//   K), more rows through the narrow lanes (int16 on AVX2, int8 on AVX-512/AMX) and, for values
//   beyond them, straight from int32 again. Declined: K = 0, and x or w strided along K when the
//   narrow path did not run.
// - wasm int32 conv2d / dense / max_pool2d (backends/wasm/nn_simd128.cc, depthwise_simd128.cc):
//   declined on a non-unit inner stride of x (and for conv2d without input channels); conv2d
//   depthwise packed planes (int16 pairs or int32 words per channel), an int16 GEMM for >= 4
//   output channels per group, else direct, each with stride_w 1, 2 or other.
// - x86 int32 max_pool2d / upsampling (spatial.inc): buffered rows in chunks of 4096 cells,
//   windows wider than 2048 without the buffer, horizontal strides 1, 2 and other, strided rows;
//   scales below and above the vector width.
// - float32 kernels (float_nn.inc, float_pool.inc, float_act.inc, wasm copies): output rows at
//   most one vector wide or wider, unit and gathered (strided) loads, windows inside the input or
//   masked at its borders, 1 to 4 output channels per block, dense with w packed (> 4 rows) or
//   not, K in chunks of 64, softmax slices longer than 512, NaN/inf/-0 everywhere.
// - pad (pad_rows.h): contiguous rows as a copy and vector fills, strided rows element by element.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cvm/op.h"
#include "float_test_util.h"
#include "kernel_cases.h"
#include "kernel_cases_nn_values.h"
#include "test_util.h"

namespace cvm {
namespace test {
namespace {

using namespace nn_detail;  // the values and views shared with kernel_cases_gemm.cc

// ---- max_pool2d, avg_pool2d ---------------------------------------------------------------------

struct Pool {
  int64_t n, c, h, w, pool_h, pool_w, sh, sw;
  std::vector<int64_t> pad;  // 1 or 2 values (avg_pool2d: or 4)
  bool ceil;
  Lay lay;
  const char* note;
};

OpCase pool_case(const std::string& op, const Pool& p, const Values& v, uint64_t seed,
                 bool include_pad = false) {
  OpCase c;
  c.op = op;
  c.attrs = {{"pool_size", tup({p.pool_h, p.pool_w})},
             {"strides", tup({p.sh, p.sw})},
             {"padding", tup(p.pad)},
             {"ceil_mode", p.ceil ? "true" : "false"}};
  if (op == "avg_pool2d") c.attrs["count_include_pad"] = include_pad ? "true" : "false";
  const Shape xs{p.n, p.c, p.h, p.w};
  c.inputs.push_back(laid_out(xs, p.lay, v, seed));
  std::ostringstream s;
  s << op << " x" << str(xs) << lay_name(p.lay) << " pool (" << p.pool_h << ", " << p.pool_w
    << ") stride (" << p.sh << ", " << p.sw << ") pad " << AttrValue::tuple(p.pad).text()
    << (p.ceil ? " ceil" : "") << (include_pad ? " count_include_pad" : "") << ", " << v.str()
    << ": " << p.note;
  c.what = s.str();
  return c;
}

// Shapes for max_pool2d, int32 and float32.
std::vector<Pool> max_pool_shapes() {
  const Lay P = Lay::kPlain;
  return {
      {1, 4, 16, 16, 3, 3, 2, 2, {1, 1}, false, P, "3x3 stride 2"},
      {1, 2, 13, 15, 2, 2, 2, 2, {0, 0}, true, P, "2x2 stride 2, ceil"},
      {2, 3, 7, 9, 3, 3, 1, 1, {1, 1}, false, P, "3x3 stride 1, batch 2"},
      {1, 3, 5, 7, 2, 2, 1, 1, {0}, false, P, "odd sizes"},
      {1, 2, 12, 33, 5, 5, 3, 3, {2, 2}, true, P, "5x5 stride 3, ceil"},
      {1, 1, 7, 40, 1, 1, 3, 5, {0, 0}, false, P, "1x1 windows, stride (3, 5)"},
      {2, 3, 1, 1, 3, 3, 1, 1, {2, 2}, true, P, "one pixel, mostly padding"},
      {1, 2, 9, 37, 3, 3, 2, 4, {1, 1}, false, P, "stride_w 4"},
      {1, 1, 4, 5000, 3, 3, 1, 1, {1, 1}, false, P, "rows over several buffer chunks"},
      {1, 1, 3, 9001, 2, 4, 1, 2, {1, 3}, true, P, "chunks at stride_w 2"},
      {1, 1, 2, 9000, 2, 5, 2, 3, {0, 2}, false, P, "chunks at stride_w 3"},
      {1, 1, 3, 2300, 2, 2100, 1, 7, {1, 50}, false, P, "window wider than the buffer's half"},
      {2, 3, 6, 17, 3, 3, 2, 2, {1, 1}, false, Lay::kStepLast, "strided rows"},
      {1, 2, 9, 19, 2, 3, 2, 1, {1, 1}, true, Lay::kSwapLast2, "transposed: gathered rows"},
      {2, 2, 6, 10, 3, 2, 2, 1, {1, 0}, false, Lay::kReverseFirst, "reversed batch"},
      {0, 2, 4, 4, 2, 2, 1, 1, {0, 0}, false, P, "empty batch"},
      {1, 1, 1, 1, 1, 1, 1, 1, {0}, false, P, "one cell"},
      // Windows of 2 or 3 columns at stride 2: the x86 register path (whole vectors over the
      // output columns whose windows lie inside the row, the last one overlapping, the edge
      // columns one at a time; fewer inside columns than a vector: one masked vector).
      {1, 16, 28, 28, 2, 2, 2, 2, {0, 0}, false, P, "2x2 stride 2, 28 wide (Fashion CNN)"},
      {2, 3, 9, 64, 2, 2, 2, 2, {0, 0}, false, P, "2x2 stride 2, 64 wide, odd height"},
      {1, 2, 6, 33, 2, 2, 2, 2, {0, 0}, false, P, "2x2 stride 2, odd width"},
      {1, 2, 4, 70, 2, 2, 2, 2, {0, 0}, true, P, "2x2 stride 2, ceil on even sizes"},
      {1, 3, 4, 2, 2, 2, 2, 2, {0, 0}, false, P, "2x2 stride 2, one output column"},
      {1, 2, 8, 40, 2, 2, 2, 2, {0, 0}, false, Lay::kStepLast, "2x2 stride 2, strided rows"},
      {1, 3, 12, 112, 3, 3, 2, 2, {1, 1}, false, P, "3x3 stride 2 pad 1, 112 wide (ResNet)"},
      {1, 2, 9, 35, 3, 3, 2, 2, {1, 1}, true, P, "3x3 stride 2 pad 1, odd width, ceil"},
      {1, 2, 8, 38, 3, 3, 2, 2, {0, 0}, false, P, "3x3 stride 2, no padding, overlapping tail"},
      {1, 2, 7, 48, 3, 2, 1, 2, {1, 1}, false, P, "3x2 stride (1, 2), pad 1"},
      {1, 2, 6, 41, 2, 3, 3, 2, {1, 2}, true, P, "2x3 stride (3, 2), pad (1, 2), ceil"},
      {1, 2, 5, 34, 5, 2, 2, 2, {2, 1}, false, P, "5x2 stride 2, pad (2, 1)"},
      {1, 2, 6, 33, 3, 3, 2, 2, {1, 1}, false, P, "3x3 stride 2, 16 inside columns"},
      {1, 2, 6, 31, 3, 3, 2, 2, {1, 1}, false, P, "3x3 stride 2, 15 inside columns"},
      {1, 2, 4, 64, 3, 3, 2, 2, {1, 1}, false, Lay::kStepLast, "3x3 stride 2, strided rows"},
      {1, 5, 16, 16, 2, 2, 2, 2, {0, 0}, false, P, "2x2 stride 2, 8 outputs (BlazeFace)"},
      {1, 3, 14, 14, 3, 3, 2, 2, {1, 1}, false, P, "3x3 stride 2 pad 1, 6 inside columns"},
      {1, 2, 5, 3, 3, 3, 2, 2, {1, 1}, true, P, "3x3 stride 2 pad 1, 1 inside column"},
      {1, 2, 6, 23, 2, 2, 2, 2, {0, 0}, true, P, "2x2 stride 2, 11 outputs, ceil"},
      {1, 2, 5, 4, 3, 3, 2, 2, {0, 0}, false, P, "3x3 stride 2, one window"},
  };
}

void fill_all(NDArray& a, const void* bits) {
  auto* p = static_cast<char*>(a.mutable_data());
  for (int64_t i = 0; i < a.numel(); ++i) std::memcpy(p + 4 * i, bits, 4);
}

std::vector<OpCase> max_pool2d_cases(bool is_float) {
  std::vector<OpCase> out;
  uint64_t seed = is_float ? 6000 : 5000;
  const std::vector<Pool> shapes = max_pool_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Values v = is_float ? of_floats(i % 3 == 2 ? Mix::kZerosAndInf : Mix::kSpecials)
                              : of_ints(i % 2 == 0 ? Ints::kFull : Ints::kInt8);
    out.push_back(pool_case("max_pool2d", shapes[i], v, seed += 8));
  }
  // Every cell the padding value (int32: INT32_MIN; float32: -inf, then one NaN).
  const Pool p{1, 2, 5, 8, 2, 2, 1, 1, {1, 1}, false, Lay::kPlain, "all the lowest value"};
  OpCase c = pool_case("max_pool2d", p, is_float ? of_floats(Mix::kPlain) : of_ints(Ints::kInt8),
                       seed += 8);
  if (is_float) {
    const float lowest = -std::numeric_limits<float>::infinity();
    fill_all(c.inputs[0], &lowest);
    static_cast<float*>(c.inputs[0].mutable_data())[13] = from_bits(0xFFC00001u);
  } else {
    const int32_t lowest = INT32_MIN;
    fill_all(c.inputs[0], &lowest);
  }
  out.push_back(std::move(c));
  return out;
}

std::vector<OpCase> avg_pool2d_cases() {
  const Lay P = Lay::kPlain;
  struct Spec {
    Pool p;
    bool include_pad;
    Mix m;
  };
  const Spec specs[] = {
      {{1, 4, 16, 16, 3, 3, 2, 2, {1}, false, P, "3x3 stride 2"}, false, Mix::kPlain},
      {{1, 2, 13, 15, 2, 2, 2, 2, {0}, true, P, "2x2 stride 2, ceil"}, false, Mix::kPlain},
      {{2, 3, 7, 9, 3, 3, 1, 1, {1, 1}, false, P, "3x3 stride 1"}, true, Mix::kSpecials},
      {{1, 3, 5, 7, 2, 2, 1, 1, {0, 1, 1, 0}, false, P, "asymmetric padding"}, true, Mix::kPlain},
      {{1, 2, 12, 33, 5, 5, 3, 3, {2, 1, 0, 2}, true, P, "5x5 stride 3"}, false, Mix::kPlain},
      {{1, 2, 12, 33, 5, 5, 3, 3, {2, 2}, true, P, "5x5 stride 3"}, true, Mix::kPlain},
      {{1, 1, 7, 40, 1, 1, 3, 5, {0}, false, P, "1x1 windows"}, false, Mix::kSpecials},
      {{2, 3, 1, 1, 3, 3, 1, 1, {2}, true, P, "one pixel, mostly padding"}, true, Mix::kPlain},
      {{1, 2, 9, 37, 3, 3, 2, 4, {1}, false, P, "stride_w 4"}, false, Mix::kPlain},
      {{1, 1, 4, 300, 3, 3, 1, 1, {1}, false, P, "long rows"}, true, Mix::kPlain},
      {{1, 2, 8, 19, 3, 3, 1, 1, {1}, false, P, "zeros and infinities"}, false, Mix::kZerosAndInf},
      {{1, 2, 6, 6, 6, 6, 1, 1, {0}, false, P, "global pooling"}, false, Mix::kPlain},
      {{2, 3, 6, 17, 3, 3, 2, 2, {1}, false, Lay::kStepLast, "strided rows"}, false, Mix::kPlain},
      {{1, 2, 9, 19, 2, 3, 2, 1, {1, 1, 0, 2}, true, Lay::kSwapLast2, "transposed: gathered rows"},
       true, Mix::kSpecials},
      {{2, 2, 6, 10, 3, 2, 2, 1, {1, 0}, false, Lay::kReverseFirst, "reversed batch"}, false,
       Mix::kPlain},
      {{0, 2, 4, 4, 2, 2, 1, 1, {0}, false, P, "empty batch"}, false, Mix::kPlain},
      {{1, 1, 1, 1, 1, 1, 1, 1, {0}, false, P, "one cell"}, false, Mix::kSpecials},
  };
  std::vector<OpCase> out;
  uint64_t seed = 7000;
  for (const Spec& s : specs) {
    out.push_back(pool_case("avg_pool2d", s.p, of_floats(s.m), seed += 8, s.include_pad));
  }
  return out;
}

// ---- upsampling -------------------------------------------------------------------------------

std::vector<OpCase> upsampling_cases() {
  struct Spec {
    int64_t n, c, h, w, scale;
    Lay lay;
  };
  // Scales below the vector width (a lane permutation), at it and above (runs of splats).
  const Spec specs[] = {
      {1, 1, 1, 1, 1, Lay::kPlain},         {2, 2, 3, 5, 2, Lay::kPlain},
      {1, 3, 4, 13, 3, Lay::kPlain},        {1, 2, 3, 8, 7, Lay::kPlain},
      {1, 2, 3, 17, 8, Lay::kPlain},        {1, 2, 2, 9, 9, Lay::kPlain},
      {1, 1, 2, 3, 16, Lay::kPlain},        {1, 2, 3, 5, 17, Lay::kPlain},
      {1, 1, 2, 2, 33, Lay::kPlain},        {1, 2, 3, 16, 4, Lay::kStepLast},
      {2, 2, 5, 3, 2, Lay::kSwapLast2},     {2, 3, 5, 7, 11, Lay::kReverseFirst},
      {0, 2, 3, 3, 2, Lay::kPlain},
  };
  std::vector<OpCase> out;
  uint64_t seed = 8000;
  for (const Spec& s : specs) {
    OpCase c;
    c.op = "upsampling";
    c.attrs = {{"scale", std::to_string(s.scale)}};
    const Shape xs{s.n, s.c, s.h, s.w};
    c.inputs.push_back(laid_out(xs, s.lay, of_ints(Ints::kFull), seed += 8));
    c.what = "upsampling x" + str(xs) + lay_name(s.lay) + " scale " + std::to_string(s.scale);
    out.push_back(std::move(c));
  }
  return out;
}

// ---- pad --------------------------------------------------------------------------------------

std::vector<OpCase> pad_cases(bool is_float) {
  struct Spec {
    Shape x;
    std::vector<int64_t> pads;
    const char* fvalue;  // float32 fill
    const char* ivalue;  // int32 fill
    Lay lay;
    const char* note;
  };
  const Spec specs[] = {
      {{2, 3, 4, 5}, {0, 1, 1, 2, 1, 0, 2, 3}, "0", "0", Lay::kPlain, "4-D, every side"},
      {{1, 3, 5, 7}, {0, 0, 1, 1, 0, 0, 1, 1}, "-1.5", "-7", Lay::kPlain, "spatial padding"},
      {{17}, {3, 9}, "inf", "2147483647", Lay::kPlain, "1-D"},
      {{}, {}, "5", "5", Lay::kPlain, "0-d"},
      {{4, 9}, {0, 0, 0, 0}, "1", "1", Lay::kPlain, "no padding"},
      {{2, 0, 3}, {1, 2, 0, 0, 1, 1}, "-inf", "-3", Lay::kPlain, "an empty axis: all fill"},
      {{2, 3, 33}, {1, 0, 8, 0, 2, 9}, "-0", "-2147483648", Lay::kPlain, "long rows"},
      {{3, 10}, {0, 20, 0, 40}, "1e-45", "9", Lay::kPlain, "long fills"},
      {{1, 3, 9, 64}, {0, 0, 0, 0, 0, 1, 0, 1}, "0", "0", Lay::kPlain,
       "bottom and right (a stride-2 SAME conv): rows of whole vectors"},
      {{2, 2, 3, 2}, {0, 0, 0, 1, 1, 0, 2, 1}, "7", "-5", Lay::kPlain,
       "rows shorter than a vector"},
      {{1, 2, 1, 2, 1, 3}, {1, 0, 0, 1, 0, 2, 0, 1, 1, 0, 0, 1}, "2.5", "-1", Lay::kPlain, "6-D"},
      {{3, 5}, {1, 1, 2, 2}, "-2", "4", Lay::kStepLast, "strided rows"},
      {{4, 6}, {2, 0, 0, 3}, "3.25", "8", Lay::kSwapLast2, "transposed"},
      {{3, 7}, {1, 1, 1, 1}, "0.5", "6", Lay::kReverseFirst, "reversed rows"},
  };
  std::vector<OpCase> out;
  uint64_t seed = is_float ? 9500 : 9000;
  for (const Spec& s : specs) {
    OpCase c;
    c.op = "pad";
    const char* value = is_float ? s.fvalue : s.ivalue;
    c.attrs = {{"pads", tup(s.pads)}, {"value", value}};
    const Values v = is_float ? of_floats(Mix::kSpecials) : of_ints(Ints::kFull);
    c.inputs.push_back(laid_out(s.x, s.lay, v, seed += 8));
    c.what = "pad x" + str(s.x) + lay_name(s.lay) + " pads " + AttrValue::tuple(s.pads).text() +
             " value " + value + ": " + s.note;
    out.push_back(std::move(c));
  }
  return out;
}

// ---- softmax ----------------------------------------------------------------------------------

std::vector<OpCase> softmax_cases() {
  struct Spec {
    Shape x;
    int64_t axis;
    Mix m;
    Lay lay;
  };
  const Spec specs[] = {
      {{7}, -1, Mix::kPlain, Lay::kPlain},
      {{3, 8}, -1, Mix::kPlain, Lay::kPlain},
      {{2, 9}, 1, Mix::kSpecials, Lay::kPlain},
      {{4, 17}, 0, Mix::kExp, Lay::kPlain},
      {{2, 3, 5}, 1, Mix::kExp, Lay::kPlain},
      {{2, 600}, -1, Mix::kExp, Lay::kPlain},  // slices over two chunks of 512
      {{2, 3, 4, 5}, -2, Mix::kSpecials, Lay::kPlain},
      {{1, 1}, 0, Mix::kPlain, Lay::kPlain},
      {{3, 33}, -1, Mix::kZerosAndInf, Lay::kPlain},
      {{4, 1}, -1, Mix::kExp, Lay::kPlain},
      {{5, 16}, -1, Mix::kPlain, Lay::kStepLast},
      {{6, 10}, 0, Mix::kExp, Lay::kSwapLast2},
      {{3, 12}, -1, Mix::kSpecials, Lay::kReverseFirst},
      {{0, 5}, -1, Mix::kPlain, Lay::kPlain},
  };
  std::vector<OpCase> out;
  uint64_t seed = 10000;
  for (const Spec& s : specs) {
    OpCase c;
    c.op = "softmax";
    c.attrs = {{"axis", std::to_string(s.axis)}};
    c.inputs.push_back(laid_out(s.x, s.lay, of_floats(s.m), seed += 8));
    c.what = "softmax x" + str(s.x) + lay_name(s.lay) + " axis " + std::to_string(s.axis) + ", " +
             float_mix_name(s.m);
    out.push_back(std::move(c));
  }
  // Slices of infinities only, of NaN, of -inf and finite values.
  const float inf = std::numeric_limits<float>::infinity(), nan = from_bits(0x7FC00000u);
  std::vector<float> v;
  for (int i = 0; i < 9; ++i) v.push_back(-inf);
  for (int i = 0; i < 9; ++i) v.push_back(inf);
  for (int i = 0; i < 9; ++i) v.push_back(i % 2 == 0 ? -inf : static_cast<float>(i));
  for (int i = 0; i < 9; ++i) v.push_back(i == 4 ? nan : -static_cast<float>(i));
  OpCase c;
  c.op = "softmax";
  c.attrs = {{"axis", "1"}};
  c.inputs.push_back(f32({4, 9}, v));
  c.what = "softmax x(4, 9) axis 1: slices of -inf, +inf, -inf and finite, one NaN";
  out.push_back(std::move(c));
  return out;
}

// ---- leaky_relu, clamp, sigmoid: elementwise float32 ----------------------------------------

// The shapes of the elementwise cases: 0-d, empty, tails around 4, 8 and 16 lanes, long rows,
// strided and transposed views.
struct Elem {
  Shape x;
  Mix m;
  Lay lay;
};

std::vector<Elem> elem_shapes() {
  return {{{}, Mix::kPlain, Lay::kPlain},
          {{1}, Mix::kSpecials, Lay::kPlain},
          {{7}, Mix::kSpecials, Lay::kPlain},
          {{8}, Mix::kZerosAndInf, Lay::kPlain},
          {{9}, Mix::kSpecials, Lay::kPlain},
          {{17}, Mix::kExp, Lay::kPlain},
          {{33}, Mix::kZerosAndInf, Lay::kPlain},
          {{1000}, Mix::kSpecials, Lay::kPlain},
          {{2, 3, 17}, Mix::kSpecials, Lay::kStepLast},
          {{7, 33}, Mix::kExp, Lay::kSwapLast2},
          {{3, 5}, Mix::kSpecials, Lay::kReverseFirst},
          {{0}, Mix::kPlain, Lay::kPlain}};
}

std::vector<OpCase> elem_cases(const std::string& op, const std::vector<AttrMap>& params,
                               uint64_t seed) {
  std::vector<OpCase> out;
  const std::vector<Elem> shapes = elem_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Elem& e = shapes[i];
    OpCase c;
    c.op = op;
    c.attrs = params[i % params.size()];
    c.inputs.push_back(laid_out(e.x, e.lay, of_floats(e.m), seed += 8));
    std::ostringstream s;
    s << op << " x" << str(e.x) << lay_name(e.lay) << ", " << float_mix_name(e.m);
    for (const auto& kv : c.attrs) s << " " << kv.first << " " << kv.second;
    c.what = s.str();
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<OpCase> leaky_relu_cases() {
  return elem_cases("leaky_relu",
                    {{},
                     {{"alpha", "0.2"}},
                     {{"alpha", "0"}},
                     {{"alpha", "-1.5"}},
                     {{"alpha", "3e38"}},
                     {{"alpha", "1e-40"}},
                     {{"alpha", "0.01"}}},
                    11000);
}

std::vector<OpCase> clamp_cases() {
  return elem_cases("clamp",
                    {{},
                     {{"a_min", "0"}, {"a_max", "6"}},
                     {{"a_min", "-0"}, {"a_max", "0"}},
                     {{"a_min", "0"}, {"a_max", "0"}},
                     {{"a_min", "-1"}, {"a_max", "1"}},
                     {{"a_min", "-inf"}, {"a_max", "-2"}},
                     {{"a_min", "2.5"}, {"a_max", "inf"}},
                     {{"a_min", "-0"}, {"a_max", "-0"}},
                     {{"a_max", "3"}},
                     {{"a_min", "-1e-45"}, {"a_max", "1e-45"}},
                     {{"a_min", "-3"}}},
                    12000);
}

std::vector<OpCase> sigmoid_cases() {
  std::vector<OpCase> out = elem_cases("sigmoid", {{}}, 13000);
  // Every value from the exponential's edges.
  OpCase c;
  c.op = "sigmoid";
  c.inputs.push_back(float_values({4, 37}, Mix::kExp, 13500));
  c.what = "sigmoid x(4, 37), exp edges";
  out.push_back(std::move(c));
  return out;
}

}  // namespace

std::vector<OpCase> nn_cases(const std::string& op, DataType t) {
  const bool is_i32 = t == DataType::Int(32), is_f32 = t == DataType::Float(32);
  if (!is_i32 && !is_f32) return {};
  if (op == "conv2d") return nn_detail::conv2d_cases(is_f32);
  if (op == "dense") return nn_detail::dense_cases(is_f32);
  if (op == "max_pool2d") return max_pool2d_cases(is_f32);
  if (op == "upsampling") return is_i32 ? upsampling_cases() : std::vector<OpCase>{};
  if (op == "pad") return pad_cases(is_f32);
  if (!is_f32) return {};
  if (op == "avg_pool2d") return avg_pool2d_cases();
  if (op == "softmax") return softmax_cases();
  if (op == "leaky_relu") return leaky_relu_cases();
  if (op == "clamp") return clamp_cases();
  if (op == "sigmoid") return sigmoid_cases();
  return {};
}

}  // namespace test
}  // namespace cvm

namespace {

// The operators of the nn family and whether each takes int32 and float32.
struct NnOp {
  const char* op;
  bool int32, float32;
};
const NnOp kNnOps[] = {{"conv2d", true, true},     {"dense", true, true},
                       {"max_pool2d", true, true}, {"upsampling", true, false},
                       {"pad", true, true},        {"avg_pool2d", false, true},
                       {"softmax", false, true},   {"leaky_relu", false, true},
                       {"clamp", false, true},     {"sigmoid", false, true}};

}  // namespace

TEST_CASE("nn kernel cases: every case is a valid call of its operator", "[kernels]") {
  using cvm::DataType;
  for (const NnOp& o : kNnOps) {
    for (const DataType t : {DataType::Int(32), DataType::Float(32)}) {
      const bool takes = t == DataType::Int(32) ? o.int32 : o.float32;
      const std::vector<cvm::test::OpCase> cases = cvm::test::nn_cases(o.op, t);
      INFO(o.op << " " << t << ": " << cases.size() << " cases");
      REQUIRE(cases.empty() == !takes);
      REQUIRE(cases.size() <= 45);  // the parity driver runs each through every entry, twice
      std::set<std::string> seen;
      for (const cvm::test::OpCase& c : cases) {
        INFO(c.what);
        REQUIRE(c.op == o.op);
        REQUIRE(!c.inputs.empty());
        REQUIRE(c.inputs[0].dtype() == t);
        REQUIRE(seen.insert(c.what).second);  // descriptions tell the cases apart
        REQUIRE_NOTHROW(cvm::run_op(c.op, c.inputs, c.attrs));
      }
    }
  }
  // Other dtypes and operators are not this family's.
  CHECK(cvm::test::nn_cases("conv2d", DataType::Int(8)).empty());
  CHECK(cvm::test::nn_cases("pad", DataType::Float(64)).empty());
  CHECK(cvm::test::nn_cases("relu", DataType::Float(32)).empty());
  CHECK(cvm::test::nn_cases("add", DataType::Int(32)).empty());
}

TEST_CASE("nn kernel cases are the same on every call (seeded)", "[kernels]") {
  using cvm::DataType;
  for (const NnOp& o : kNnOps) {
    for (const DataType t : {DataType::Int(32), DataType::Float(32)}) {
      const std::vector<cvm::test::OpCase> a = cvm::test::nn_cases(o.op, t);
      const std::vector<cvm::test::OpCase> b = cvm::test::nn_cases(o.op, t);
      REQUIRE(a.size() == b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        INFO(a[i].what);
        REQUIRE(a[i].what == b[i].what);
        REQUIRE(a[i].attrs == b[i].attrs);
        REQUIRE(a[i].inputs.size() == b[i].inputs.size());
        for (size_t k = 0; k < a[i].inputs.size(); ++k) {
          REQUIRE(a[i].inputs[k].strides() == b[i].inputs[k].strides());
          REQUIRE(cvm::test::bit_equal(a[i].inputs[k], b[i].inputs[k]));
        }
      }
    }
  }
}
