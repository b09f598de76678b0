// Helpers shared by the unit tests: arrays from values, seeded random arrays, element access.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cvm/ndarray.h"
#include "kernel_abi.h"

namespace cvm {
namespace test {

// Fills a contiguous CPU array with seeded random bytes; for float types, random finite values
// in [-1000, 1000] instead, so arithmetic results are comparable.
NDArray random_array(const Shape& shape, DataType dtype, uint64_t seed);

// A contiguous int32 array of seeded random values in [lo, hi], with lo and hi themselves
// sprinkled in more often (1 in 16 each), so kernels meet the bounds of their value ranges.
NDArray random_in(const Shape& shape, int32_t lo, int32_t hi, uint64_t seed);

// Contiguous CPU arrays of `shape` holding `v` (row-major); LogicError unless the sizes agree.
NDArray f32(const Shape& shape, const std::vector<float>& v);
NDArray i32(const Shape& shape, const std::vector<int32_t>& v);

// The values of a float32 array (any strides), row-major; std::invalid_argument for another dtype.
std::vector<float> floats(const NDArray& a);

// Row-major element i of any (strided) array as raw bytes.
std::vector<uint8_t> element_bytes(const NDArray& a, int64_t i);

// True when two arrays have equal shapes, dtypes and element bytes (bit-exact).
bool bit_equal(const NDArray& a, const NDArray& b);

// Element i (row-major) of an integer array of any width, sign- or zero-extended.
int64_t int_at(const NDArray& a, int64_t i);
// Element i of a float16/bfloat16/float32/float64 array as a double.
double float_at(const NDArray& a, int64_t i);

// One direct call of kernel `fn` on (inputs -> out), as the op layer makes it: plain views, the
// thread pool's ParallelFor at the current thread count, `params` and `prepacked` weights (or
// null). Returns what the kernel returned.
kernel::KernelStatus call_kernel(kernel::KernelFn fn, const std::vector<NDArray>& inputs,
                                 NDArray& out, const void* params,
                                 const void* prepacked = nullptr);

// The CPU features whose SIMD kernel-table entries a test may call directly: everything the CPU
// has, whatever CVMRT_ISA caps dispatch to (so the parity tests cover every level in every run),
// except AMX unless this process was allowed the tile state. 0 without a SIMD backend.
uint32_t simd_testable_features();

// The compiled backends that can run here: the CPU ones, and a device backend ("cuda") only
// where a device of its kind is present (its own suite, cuda_test.cc, says why it skips). Tests
// that loop over backends use this, so on a GPU machine they run on the GPU too.
std::vector<std::string> runnable_backends();
// Where a backend's sessions run: cuda:0 for "cuda", else the CPU.
Device backend_device(const std::string& backend);

inline bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Whether a chain's notes say `entry` was moved behind for shapes it does not suit.
inline bool moved_behind(const std::string& entry, const std::vector<std::string>& notes) {
  for (const std::string& n : notes) {
    if (n.rfind(entry + ": moved behind", 0) == 0) return true;
  }
  return false;
}

// The entry of a chain (its entries and notes) that a call runs when every entry takes what it
// heads: the first one not moved behind for shapes it does not suit.
inline std::string expected_runner(const std::vector<std::string>& entries,
                                   const std::vector<std::string>& notes) {
  for (const std::string& e : entries) {
    if (!moved_behind(e, notes)) return e;
  }
  return entries.empty() ? "" : entries.back();
}

// The reference that ends a chain: its last entry not moved behind (on a device, entries that
// do not suit the shapes follow the device's general kernel).
inline std::string chain_reference(const std::vector<std::string>& entries,
                                   const std::vector<std::string>& notes) {
  for (auto e = entries.rbegin(); e != entries.rend(); ++e) {
    if (!moved_behind(*e, notes)) return *e;
  }
  return "";
}

// A path for a scratch file: `name` inside a folder of this process's own (created on first
// use) under $CVMRT_TEST_TMP, else the build's tests/tmp. ctest runs the whole binary in the
// dispatch entries next to the single-case entries, so fixed names would race between them.
std::string tmp_path(const std::string& name);

}  // namespace test
}  // namespace cvm
