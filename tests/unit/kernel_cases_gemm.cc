// The conv2d and dense cases of the kernel parity suite (kernel_cases.h): seeded calls whose
// shapes, views and values select every path of every backend's GEMM kernels, including the
// calls a SIMD kernel declines (see kernel_cases_nn.cc for where the paths are chosen).
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
namespace nn_detail {
namespace {

// ---- conv2d -----------------------------------------------------------------------------------

struct Conv {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias;
};

OpCase conv_case(const Conv& k, const Values& v, Lay xl, Lay wl, uint64_t seed,
                 const std::string& note) {
  OpCase c;
  c.op = "conv2d";
  c.attrs = {{"channels", std::to_string(k.oc)},
             {"kernel_size", tup({k.kh, k.kw})},
             {"strides", tup({k.sh, k.sw})},
             {"padding", tup({k.ph, k.pw})},
             {"dilation", tup({k.dh, k.dw})},
             {"groups", std::to_string(k.groups)},
             {"use_bias", k.bias ? "true" : "false"}};
  const Shape xs{k.n, k.c, k.h, k.w}, ws{k.oc, k.c / k.groups, k.kh, k.kw};
  c.inputs.push_back(laid_out(xs, xl, v, seed));
  c.inputs.push_back(laid_out(ws, wl, v, seed + 1));
  if (k.bias) {
    c.inputs.push_back(laid_out({k.oc}, xl == Lay::kPlain ? Lay::kPlain : Lay::kStepLast,
                                v.bias(), seed + 2));
  }
  std::ostringstream s;
  s << "conv2d x" << str(xs) << lay_name(xl) << " w" << str(ws) << lay_name(wl) << " stride ("
    << k.sh << ", " << k.sw << ") pad (" << k.ph << ", " << k.pw << ") dilation (" << k.dh << ", "
    << k.dw << ") groups " << k.groups << (k.bias ? " bias" : " no bias") << ", " << v.str()
    << ": " << note;
  c.what = s.str();
  return c;
}

std::vector<OpCase> conv2d_int_cases() {
  const Lay P = Lay::kPlain;
  struct Spec {
    Conv k;
    Ints r;
    Lay xl, wl;
    const char* note;
  };
  // clang-format off
  const Spec specs[] = {
      // >= 4 output channels per group: narrow tiles (int32 lanes beyond the narrow range);
      // wasm: the int16 GEMM (stride_w 1, 2, other), or direct beyond int16.
      {{1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Ints::kInt8, P, P,
       "odd channels, narrow tiles"},
      {{2, 8, 13, 15, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, true}, Ints::kInt8, P, P,
       "batch 2, stride 2, AMX tiles"},
      {{1, 16, 10, 10, 24, 3, 3, 1, 1, 2, 2, 2, 2, 1, false}, Ints::kInt16, P, P,
       "dilation 2, int16: AVX2 narrow, AVX-512 int32 lanes"},
      {{1, 64, 7, 9, 70, 1, 1, 1, 1, 0, 0, 1, 1, 1, true}, Ints::kInt8, P, P,
       "pointwise, 70 channels: row tile edges"},
      {{1, 20, 14, 14, 33, 1, 1, 2, 2, 0, 0, 1, 1, 1, false}, Ints::kInt8, P, P,
       "1x1 stride 2: unread phases"},
      {{1, 5, 6, 16, 17, 1, 3, 2, 1, 0, 2, 1, 2, 1, true}, Ints::kInt8, P, P,
       "1x3, asymmetric stride, dilation_w 2"},
      {{1, 6, 13, 8, 7, 5, 2, 1, 3, 2, 1, 2, 3, 1, false}, Ints::kWide, P, P,
       "5x2, stride_w 3, dilation (2, 3), int32 lanes, wasm direct"},
      {{1, 4, 5, 5, 19, 3, 3, 1, 3, 4, 4, 1, 1, 1, true}, Ints::kInt8, P, P,
       "padding beyond the kernel, stride_w 3"},
      {{1, 7, 1, 16, 9, 1, 8, 1, 2, 0, 1, 1, 1, 1, true}, Ints::kInt8, P, P,
       "one input row, 1x8: 8 taps innermost"},
      {{1, 9, 16, 1, 10, 3, 1, 2, 1, 1, 0, 1, 1, 1, false}, Ints::kInt8, P, P, "one input column"},
      {{2, 12, 6, 6, 48, 2, 2, 2, 2, 0, 0, 1, 1, 3, true}, Ints::kInt8, P, P,
       "3 groups of 16: AMX per group"},
      {{1, 66, 9, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Ints::kInt8, P, P,
       "66 channels: AMX channel chunks"},
      {{1, 3, 16, 16, 16, 7, 7, 2, 2, 3, 3, 1, 1, 1, true}, Ints::kInt8, P, P,
       "7x7 stride 2 stem: taps innermost"},
      {{1, 259, 5, 7, 14, 1, 1, 1, 1, 0, 0, 1, 1, 1, true}, Ints::kInt8, P, P, "1x1, long odd K"},
      {{2, 8, 6, 7, 16, 3, 3, 1, 1, 1, 1, 1, 1, 2, true}, Ints::kFull, P, P,
       "int32 wrapping: int32 lanes (slots at 1 thread), wasm direct"},
      {{1, 6, 5, 12, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Ints::kInt16Edges, P, P,
       "int16 extremes: vpmaddwd / i32x4.dot wrap"},
      {{1, 64, 4, 5, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Ints::kInt8Edges, P, P,
       "int8 extremes, K 576: VNNI offset correction"},
      {{1, 6, 26, 25, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Ints::kInt8Edges, P, P,
       "3x3 stride 1, 169 tiles: Winograd transforming its own weights"},
      // < 4 output channels per group, not depthwise: int32 tiles of one row; wasm direct.
      {{1, 8, 15, 15, 16, 3, 3, 2, 2, 1, 1, 1, 1, 8, false}, Ints::kInt8, P, P,
       "depth multiplier 2: one-row int32 tiles in slots"},
      {{1, 3, 6, 9, 1, 3, 3, 1, 1, 0, 0, 1, 1, 1, true}, Ints::kInt8, P, P, "one output channel"},
      // Depthwise: channels in lanes (narrow rows) or output columns in lanes (wide rows).
      {{2, 8, 11, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, true}, Ints::kInt8, P, P,
       "depthwise, channel lanes, 3x3"},
      {{1, 16, 12, 12, 16, 3, 3, 1, 1, 1, 1, 3, 3, 16, true}, Ints::kInt8, P, P,
       "depthwise dilated 3, channel lanes"},
      {{1, 17, 1, 1, 17, 1, 1, 1, 1, 0, 0, 1, 1, 17, true}, Ints::kInt8, P, P,
       "depthwise 1x1 on one pixel"},
      {{1, 20, 7, 7, 20, 3, 3, 2, 2, 1, 1, 1, 1, 20, false}, Ints::kWide, P, P,
       "depthwise stride 2, channel tail, int32 words"},
      {{1, 3, 5, 40, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, true}, Ints::kInt8, P, P,
       "depthwise column lanes, paired taps, stride 1"},
      {{1, 3, 6, 40, 3, 3, 3, 2, 2, 1, 1, 1, 1, 3, false}, Ints::kInt16Edges, P, P,
       "depthwise column lanes, paired taps, stride 2, int16 wrap"},
      {{2, 4, 5, 36, 4, 3, 3, 1, 1, 1, 1, 1, 1, 4, true}, Ints::kFull, P, P,
       "depthwise column lanes, 9 int32 taps"},
      {{1, 3, 9, 56, 3, 3, 3, 3, 3, 1, 1, 2, 2, 3, true}, Ints::kInt8, P, P,
       "depthwise column lanes, stride 3, dilation 2"},
      {{1, 5, 7, 34, 5, 5, 5, 1, 2, 2, 2, 1, 1, 5, false}, Ints::kInt16, P, P,
       "depthwise column lanes, 5x5"},
      {{1, 16, 6, 36, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16, true}, Ints::kInt8, P, P,
       "depthwise column lanes, 16 channels"},
      {{1, 4, 6, 40, 4, 1, 1, 2, 2, 0, 0, 1, 1, 4, true}, Ints::kInt8, P, P,
       "depthwise column lanes, 1x1 stride 2: an unread phase"},
      // Depthwise quads (VNNI: vpdpbusd on four taps of a row) for int8 values, else columns;
      // int8_activation_kernel_test.cc adds strides 2 and 4 and 5x5 on int8 views.
      {{1, 3, 7, 150, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, true}, Ints::kInt8Edges, P, P,
       "depthwise quads: 3 groups of 64 outputs, int8 extremes"},
      {{1, 3, 12, 80, 3, 2, 7, 3, 1, 1, 3, 2, 1, 3, false}, Ints::kInt8, P, P,
       "depthwise quads 2x7, stride_h 3, dilation_h 2: any kernel"},
      {{1, 3, 5, 70, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, true}, Ints::kInt16, P, P,
       "depthwise beyond int8 on wide rows: quads decline, columns"},
      // Strided views: the wasm kernel declines (inner stride of x), the x86 ones gather.
      {{2, 6, 9, 10, 10, 3, 3, 2, 1, 1, 1, 1, 1, 2, true},
       Ints::kInt8, Lay::kStepLast, Lay::kReverseFirst,
       "strided x, reversed w"},
      {{1, 17, 7, 7, 17, 3, 3, 1, 1, 1, 1, 1, 1, 17, true}, Ints::kWide, Lay::kStepLast, P,
       "depthwise, strided x"},
      {{1, 8, 7, 9, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
       Ints::kInt16, Lay::kSwapLast2, Lay::kSwapLast2,
       "transposed x and w"},
      {{2, 5, 8, 40, 5, 3, 3, 1, 1, 1, 1, 1, 1, 5, true}, Ints::kInt8, Lay::kSwapLast2, P,
       "depthwise column lanes, transposed x"},
      {{2, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, false}, Ints::kInt8, Lay::kReverseFirst, P,
       "batch reversed"},
      // Degenerate: nothing to write; no input channels (declined: the bias alone); scratch out
      // of proportion to a tiny input (declined by the x86 kernels).
      {{0, 4, 5, 5, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Ints::kInt8, P, P, "empty batch"},
      {{1, 0, 5, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Ints::kInt8, P, P,
       "no input channels: declined"},
      {{1, 1, 1, 1, 4, 3, 3, 1, 1, 1100, 1100, 1100, 1100, 1, true}, Ints::kInt8, P, P,
       "huge padding and dilation: x86 declines"},
  };
  // clang-format on
  std::vector<OpCase> out;
  uint64_t seed = 1000;
  for (const Spec& s : specs) {
    out.push_back(conv_case(s.k, of_ints(s.r), s.xl, s.wl, seed += 8, s.note));
  }
  // int8 values but one, beyond the narrow lanes of some ISA: the kernels pack the weights,
  // then x, and leave the narrow lanes when either does not fit.
  const Conv k{1, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  for (const Outlier& o : outliers()) {
    OpCase c = conv_case(k, of_ints(Ints::kInt8), Lay::kPlain, Lay::kPlain, seed += 8, o.note);
    if (o.x != 0) set_int(c.inputs[0], 100, o.x);
    if (o.w != 0) set_int(c.inputs[1], 300, o.w);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<OpCase> conv2d_float_cases() {
  const Lay P = Lay::kPlain;
  struct Spec {
    Conv k;
    Mix m;
    Lay xl, wl;
    const char* note;
  };
  // clang-format off
  const Spec specs[] = {
      {{1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Mix::kPlain, P, P,
       "odd channels, 4 + 1 output channels"},
      {{2, 8, 13, 15, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, true}, Mix::kPlain, P, P,
       "stride 2: gathered lanes"},
      {{1, 16, 10, 10, 24, 3, 3, 1, 1, 2, 2, 2, 2, 1, false}, Mix::kSpecials, P, P,
       "dilation 2, specials"},
      {{1, 8, 12, 12, 12, 3, 3, 1, 1, 1, 1, 1, 1, 2, true}, Mix::kPlain, P, P,
       "2 groups: 4 + 2 output channels"},
      {{2, 8, 11, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, true}, Mix::kZerosAndInf, P, P,
       "depthwise, zeros and infinities"},
      {{1, 8, 5, 40, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Mix::kSpecials, P, P,
       "wide rows: interior and masked blocks"},
      {{1, 4, 4, 17, 4, 7, 7, 2, 3, 3, 3, 1, 2, 2, true}, Mix::kZerosAndInf, P, P,
       "7x7, padding 3: skipped taps vs 0 * inf"},
      {{1, 3, 1, 1, 5, 1, 1, 1, 1, 0, 0, 1, 1, 1, false}, Mix::kZerosAndInf, P, P, "one pixel"},
      {{1, 5, 6, 16, 7, 1, 3, 2, 1, 0, 2, 1, 2, 1, true}, Mix::kPlain, P, P,
       "1x3, 4 + 3 output channels"},
      {{1, 6, 13, 8, 6, 5, 2, 1, 3, 2, 1, 2, 3, 1, false}, Mix::kPlain, P, P, "5x2, stride_w 3"},
      {{1, 4, 5, 5, 4, 3, 3, 1, 1, 4, 4, 1, 1, 1, true}, Mix::kSpecials, P, P,
       "padding beyond the kernel"},
      {{1, 2, 3, 8, 4, 1, 1, 1, 1, 0, 0, 1, 1, 1, true}, Mix::kPlain, P, P, "8 outputs a row"},
      {{1, 2, 3, 16, 4, 1, 1, 1, 1, 0, 0, 1, 1, 1, false}, Mix::kPlain, P, P, "16 outputs a row"},
      {{1, 2, 3, 17, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Mix::kPlain, P, P, "17 outputs a row"},
      {{1, 16, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16, true}, Mix::kPlain, P, P, "depthwise 16"},
      {{1, 3, 6, 10, 6, 3, 3, 1, 1, 1, 1, 1, 1, 3, true}, Mix::kPlain, Lay::kStepLast, P,
       "strided x: gathered lanes"},
      {{2, 4, 7, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
       Mix::kSpecials, Lay::kSwapLast2, Lay::kSwapLast2,
       "transposed x and w"},
      {{2, 4, 5, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, false},
       Mix::kPlain, Lay::kReverseFirst, Lay::kReverseFirst,
       "reversed batch and w"},
      {{0, 4, 5, 5, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Mix::kPlain, P, P, "empty batch"},
      {{1, 0, 5, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, Mix::kSpecials, P, P,
       "no input channels: the bias alone"},
  };
  // clang-format on
  std::vector<OpCase> out;
  uint64_t seed = 2000;
  for (const Spec& s : specs) {
    out.push_back(conv_case(s.k, of_floats(s.m), s.xl, s.wl, seed += 8, s.note));
  }
  return out;
}

// ---- dense ------------------------------------------------------------------------------------

struct Dense {
  int64_t m, k, units;
  bool bias;
};

// x (m, k): kStepLast strides K by 2, kSwapLast2 is a transposed (k, m) buffer (K stride m).
OpCase dense_case(const Dense& d, const Values& v, Lay xl, Lay wl, uint64_t seed,
                  const std::string& note) {
  OpCase c;
  c.op = "dense";
  c.attrs = {{"units", std::to_string(d.units)}, {"use_bias", d.bias ? "true" : "false"}};
  const Shape xs{d.m, d.k}, ws{d.units, d.k};
  c.inputs.push_back(laid_out(xs, xl, v, seed));
  c.inputs.push_back(laid_out(ws, wl, v, seed + 1));
  if (d.bias) {
    c.inputs.push_back(laid_out({d.units}, wl == Lay::kPlain ? Lay::kPlain : Lay::kStepLast,
                                v.bias(), seed + 2));
  }
  std::ostringstream s;
  s << "dense x" << str(xs) << lay_name(xl) << " w" << str(ws) << lay_name(wl)
    << (d.bias ? " bias" : " no bias") << ", " << v.str() << ": " << note;
  c.what = s.str();
  return c;
}

std::vector<OpCase> dense_int_cases() {
  const Lay P = Lay::kPlain;
  struct Spec {
    Dense d;
    Ints r;
    Lay xl, wl;
    const char* note;
  };
  // clang-format off
  const Spec specs[] = {
      // Up to 4 rows: straight from int32 (row and unit remainders); wasm rows of 1.
      {{1, 1, 1, true}, Ints::kInt8, P, P, "one of everything"},
      {{1, 1030, 16, false}, Ints::kInt8, P, P, "one row, long K (K % 4 = 2)"},
      {{1, 64, 15, true}, Ints::kFull, P, P, "one row, int32 wrapping"},
      {{1, 33, 33, true}, Ints::kInt16, P, P, "one row, 33 units"},
      {{2, 5, 3, true}, Ints::kInt8, P, P, "two rows"},
      {{3, 17, 33, false}, Ints::kInt8, P, P, "three rows, 33 units"},
      {{3, 17, 16, true}, Ints::kWide, P, P, "three rows, 16 units, beyond int16"},
      {{4, 100, 9, true}, Ints::kInt8, P, P, "four rows"},
      // More rows: narrow tiles (int16 on AVX2, int8 on AVX-512/AMX), else int32 again; wasm
      // blocks of 4 rows.
      {{5, 64, 70, true}, Ints::kInt8, P, P, "5 rows: narrow tiles, row remainder"},
      {{6, 64, 64, false}, Ints::kInt16, P, P, "int16: AVX2 narrow, AVX-512 int32"},
      {{7, 33, 31, true}, Ints::kInt16Edges, P, P, "int16 extremes: vpmaddwd wrap"},
      {{16, 64, 16, true}, Ints::kInt8, P, P, "16 x 16"},
      {{17, 65, 15, false}, Ints::kInt8, P, P, "17 rows, 15 units, odd K"},
      {{17, 65, 33, true}, Ints::kFull, P, P, "17 rows, int32: narrow declines, int32 path"},
      {{17, 16, 1, true}, Ints::kInt8, P, P, "one unit"},
      {{64, 130, 33, true}, Ints::kInt8, P, P, "64 rows: more rows than units"},
      {{64, 16, 1, false}, Ints::kWide, P, P, "64 rows, one unit, beyond int16"},
      {{64, 7, 16, true}, Ints::kInt16, P, P, "64 rows, K 7"},
      {{40, 70, 6, true}, Ints::kInt8, P, P, "40 rows, 6 units"},
      {{12, 1, 40, true}, Ints::kInt8, P, P, "K 1"},
      {{9, 1024, 20, true}, Ints::kInt8Edges, P, P,
       "int8 extremes, K 1024: VNNI offset correction"},
      // Strided views: the wasm kernel declines; x86 narrow tiles gather, the int32 path declines.
      {{9, 40, 30, true}, Ints::kInt8, Lay::kSwapLast2, Lay::kStepLast,
       "transposed x, strided w: narrow tiles"},
      {{9, 40, 30, true}, Ints::kFull, Lay::kSwapLast2, P, "transposed x, int32: x86 declines"},
      {{3, 20, 15, false}, Ints::kInt8, Lay::kStepLast, P, "3 rows, strided x: x86 declines"},
      {{5, 24, 17, true}, Ints::kInt16, P, Lay::kStepLast, "strided w"},
      // Degenerate: K = 0 (declined: the bias alone), no rows.
      {{3, 0, 5, true}, Ints::kInt8, P, P, "K 0: declined"},
      {{0, 8, 4, true}, Ints::kInt8, P, P, "no rows"},
  };
  // clang-format on
  std::vector<OpCase> out;
  uint64_t seed = 3000;
  for (const Spec& s : specs) {
    out.push_back(dense_case(s.d, of_ints(s.r), s.xl, s.wl, seed += 8, s.note));
  }
  // As conv2d's: more than 4 rows, so that the narrow lanes are tried.
  const Dense d{5, 64, 16, true};
  for (const Outlier& o : outliers()) {
    OpCase c = dense_case(d, of_ints(Ints::kInt8), Lay::kPlain, Lay::kPlain, seed += 8, o.note);
    if (o.x != 0) set_int(c.inputs[0], 77, o.x);
    if (o.w != 0) set_int(c.inputs[1], 500, o.w);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<OpCase> dense_float_cases() {
  const Lay P = Lay::kPlain;
  struct Spec {
    Dense d;
    Mix m;
    Lay xl, wl;
    const char* note;
  };
  // clang-format off
  const Spec specs[] = {
      // Up to 4 rows (or no scratch): tiles straight from w, K in chunks of 64.
      {{1, 1, 1, true}, Mix::kPlain, P, P, "one of everything"},
      {{1, 65, 16, false}, Mix::kPlain, P, P, "one row, K 65: two chunks"},
      {{1, 130, 33, true}, Mix::kSpecials, P, P, "one row, 33 units, specials"},
      {{2, 17, 15, true}, Mix::kPlain, P, P, "two rows"},
      {{3, 17, 33, false}, Mix::kSpecials, P, P, "three rows"},
      {{4, 64, 16, true}, Mix::kZerosAndInf, P, P, "four rows, zeros and infinities"},
      // More rows: w packed in blocks of 4 vectors, row remainders 1 to 3.
      {{5, 33, 70, true}, Mix::kPlain, P, P, "5 rows, 70 units"},
      {{6, 9, 64, false}, Mix::kPlain, P, P, "6 rows, 64 units"},
      {{7, 20, 33, true}, Mix::kSpecials, P, P, "7 rows, 33 units"},
      {{17, 65, 15, true}, Mix::kPlain, P, P, "17 rows"},
      {{17, 8, 1, false}, Mix::kZerosAndInf, P, P, "one unit"},
      {{64, 16, 33, true}, Mix::kPlain, P, P, "64 rows"},
      {{64, 130, 16, false}, Mix::kPlain, P, P, "64 rows, K 130"},
      {{12, 1, 40, true}, Mix::kSpecials, P, P, "K 1"},
      {{9, 40, 30, true}, Mix::kPlain, Lay::kSwapLast2, Lay::kStepLast, "transposed x, strided w"},
      {{3, 20, 17, false}, Mix::kSpecials, Lay::kStepLast, P, "strided x"},
      {{3, 0, 5, true}, Mix::kSpecials, P, P, "K 0: the bias alone"},
      {{0, 8, 4, true}, Mix::kPlain, P, P, "no rows"},
  };
  // clang-format on
  std::vector<OpCase> out;
  uint64_t seed = 4000;
  for (const Spec& s : specs) {
    out.push_back(dense_case(s.d, of_floats(s.m), s.xl, s.wl, seed += 8, s.note));
  }
  return out;
}

}  // namespace

std::vector<OpCase> conv2d_cases(bool is_float) {
  return is_float ? conv2d_float_cases() : conv2d_int_cases();
}

std::vector<OpCase> dense_cases(bool is_float) {
  return is_float ? dense_float_cases() : dense_int_cases();
}

}  // namespace nn_detail
}  // namespace test
}  // namespace cvm
