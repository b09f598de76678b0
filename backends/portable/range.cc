// The operand range check that picks the portable kernels' int8-pair lanes (lanes.h).
#include <algorithm>
#include <cstdint>

#include "portable_kernels.h"
#include "strided_loop.h"

namespace cvm {
namespace kernel {
namespace portable {

bool fits_int8(const TensorView& v) {
  int32_t lo = 0, hi = 0;
  auto row = [&](char* const* ptr, int64_t n, const int64_t* step) {
    const auto* p = reinterpret_cast<const int32_t*>(ptr[0]);
    const int64_t s = step[0] / static_cast<int64_t>(sizeof(int32_t));
    for (int64_t i = 0; i < n; ++i) {
      lo = std::min(lo, p[i * s]);
      hi = std::max(hi, p[i * s]);
    }
  };
  if (v.contiguous()) {  // one row (a row per innermost row costs a call each)
    char* const ptr[1] = {static_cast<char*>(v.data)};
    const int64_t step[1] = {static_cast<int64_t>(sizeof(int32_t))};
    row(ptr, v.numel(), step);
  } else {
    const TensorView* const views[1] = {&v};
    for_each_row(views, row);
  }
  return lo >= -128 && hi <= 127;
}

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
