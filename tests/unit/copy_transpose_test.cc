// The copy entries on transposes of the last two dims (copy_rows.h's copy_transposes_tiles):
// either dim contiguous in the input and the other in the output, tile edges, outer dims,
// outputs whose rows lie apart, at 1 and 3 threads: every copy entry of every table equals the
// reference's copy, for 4-byte elements and (where the entry takes them) int8 views.
// op_def.h brings the library's CHECK/VERIFY macros: included first, then dropped for Catch2's.
#include "op_def.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "entry_checks.h"

using namespace cvm;
using namespace cvm::entry_checks;

namespace {

// The reference's copy: one kernel for every element type.
kernel::KernelFn reference_copy() {
  for (size_t i = 0; i < kernel::kScalarBackend.count; ++i) {
    if (std::strcmp(kernel::kScalarBackend.entries[i].op, "copy") == 0) {
      return kernel::kScalarBackend.entries[i].fn;
    }
  }
  FAIL("the scalar table has no copy");
  return nullptr;
}

// The usable copy entries (int32 and float32 keys: one kernel moves any 4-byte type).
std::vector<const kernel::KernelEntry*> copy_entries() {
  std::vector<const kernel::KernelEntry*> found;
  for (const kernel::BackendTable* b : backend_tables()) {
    for (size_t i = 0; i < b->count; ++i) {
      const kernel::KernelEntry& e = b->entries[i];
      if (std::strcmp(e.op, "copy") == 0 && e.dtype == kernel::ElemType::kInt32 &&
          entry_usable(*b, e) && e.fn != reference_copy()) {
        found.push_back(&e);
      }
    }
  }
  return found;
}

// `x` copied by entry e into view(room) of a room of `shape` poisoned with 0x5A: the whole room
// equals the reference's copy into the same view of another such room (the view's elements,
// and every byte outside it untouched).
template <class View>
void check_copy(const kernel::KernelEntry& e, const NDArray& x, const Shape& shape,
                const View& view) {
  NDArray room = NDArray::empty(shape, x.dtype()), want = NDArray::empty(shape, x.dtype());
  std::memset(room.mutable_data(), 0x5A, room.nbytes());
  std::memset(want.mutable_data(), 0x5A, want.nbytes());
  NDArray got_view = view(room), want_view = view(want);
  REQUIRE(call_kernel(reference_copy(), {x}, want_view, nullptr, nullptr) ==
          kernel::KernelStatus::kDone);
  REQUIRE(call_kernel(e.fn, {x}, got_view, nullptr, nullptr) == kernel::KernelStatus::kDone);
  CHECK(test::bit_equal(room, want));
}

}  // namespace

TEST_CASE("copy entries: transposes of the last two dims equal the reference's copy",
          "[kernels]") {
  const std::vector<const kernel::KernelEntry*> entries = copy_entries();
  if (entries.empty()) WARN("no copy entry besides the reference's here");
  const int64_t lengths[] = {2, 3, 15, 16, 17, 40};
  uint64_t seed = 9100;
  for (const kernel::KernelEntry* e : entries) {
    for (const bool int8 : {false, true}) {
      if (int8 && !e->takes_int8_activations) continue;
      at_thread_counts([&] {
        for (int64_t a : lengths) {
          for (int64_t b : lengths) {
            INFO("entry " << e->name << (int8 ? ", int8" : ", int32") << ", (2, " << a << ", "
                          << b << "), threads " << num_threads());
            NDArray planes = random_in({2, b, a}, -128, 127, ++seed);
            if (int8) planes = as_int8(planes);
            const NDArray x = planes.permute({0, 2, 1});  // (2, a, b): a contiguous
            {
              INFO("the output's last dim contiguous");
              check_copy(*e, x, {2, a, b}, [](const NDArray& r) { return r; });
            }
            {
              INFO("the output's last dim contiguous, its rows 3 elements apart");
              check_copy(*e, x, {2, a, b + 3},
                         [&](const NDArray& r) { return r.slice(2, 0, b, 1); });
            }
            {
              INFO("the input's last dim contiguous, the output's second-to-last");
              const NDArray rows = x.contiguous();  // (2, a, b): b contiguous
              check_copy(*e, rows, {2, b, a + 2}, [&](const NDArray& r) {
                return r.slice(2, 0, a, 1).permute({0, 2, 1});
              });
            }
          }
        }
      });
    }
  }
}
