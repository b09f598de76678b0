// A model input's values into its session entry (input_values.h).
#include "input_values.h"

#include <cstring>

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

template <class Dst>
void clip_from(const void* src, bool src_int8, int64_t n, int32_t lo, int32_t hi, Dst* dst) {
  if (src_int8) {
    clip_into(static_cast<const int8_t*>(src), n, lo, hi, dst, load_s8);
  } else {
    clip_into(static_cast<const uint8_t*>(src), n, lo, hi, dst, load_le);
  }
}

}  // namespace

void clip_input(const void* src, bool src_int8, int64_t n, int32_t lo, int32_t hi, void* dst,
                bool dst_int8) {
  if (dst_int8) {
    clip_from(src, src_int8, n, lo, hi, static_cast<int8_t*>(dst));
  } else {
    clip_from(src, src_int8, n, lo, hi, static_cast<int32_t*>(dst));
  }
}

void copy_input_f32(const void* src, int64_t n, void* dst) {
  const auto* bytes = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t bits = params_detail::load_le32(bytes + 4 * i);
    std::memcpy(out + 4 * i, &bits, 4);
  }
}

}  // namespace graph
}  // namespace cvm
