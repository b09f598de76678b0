// A model input's values into its session entry, clipped to the input's precision
// (input_values.h).
#include "input_values.h"

#include "params_format.h"

namespace cvm {
namespace graph {
namespace {

// One loop for every pair of types: plain enough for the compiler to vectorise.
template <class Src, class Dst, class Load>
void clip_into(const Src* src, int64_t n, int32_t lo, int32_t hi, Dst* dst, Load load) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = load(src, i);
    dst[i] = static_cast<Dst>(v < lo ? lo : v > hi ? hi : v);
  }
}

int32_t load_s8(const int8_t* p, int64_t i) { return p[i]; }
int32_t load_le(const uint8_t* p, int64_t i) {
  return static_cast<int32_t>(params_detail::load_le32(p + 4 * i));
}

}  // namespace

void clip_input(const int8_t* src, int64_t n, int32_t lo, int32_t hi, int8_t* dst) {
  clip_into(src, n, lo, hi, dst, load_s8);
}
void clip_input(const int8_t* src, int64_t n, int32_t lo, int32_t hi, int32_t* dst) {
  clip_into(src, n, lo, hi, dst, load_s8);
}
void clip_input_le32(const uint8_t* src, int64_t n, int32_t lo, int32_t hi, int8_t* dst) {
  clip_into(src, n, lo, hi, dst, load_le);
}
void clip_input_le32(const uint8_t* src, int64_t n, int32_t lo, int32_t hi, int32_t* dst) {
  clip_into(src, n, lo, hi, dst, load_le);
}

}  // namespace graph
}  // namespace cvm
