// The int32 relu, clip, cvm_right_shift, add / sub (with a clamp), max_pool2d and copy entries
// that take int8 activation views (KernelEntry::takes_int8_activations), on every usable
// table: every view int8 gives the int32 call's results narrowed, on contiguous, strided and
// broadcast views, odd sizes and empty ones, at 1 and 3 threads; views that mix int8 and int32
// decline. The copy entries with the flag copy int8 views as the reference does (the others
// decline them), and the operators' OpDef::int8_activations agree with the entries that take
// int8 views.
// op_def.h brings the library's CHECK/VERIFY macros: included first, then dropped for Catch2's.
#include "op_def.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "entry_checks.h"
#include "params/elementwise.h"

using namespace cvm;
using namespace cvm::entry_checks;

namespace {

// The usable int32 entries of `op` that take int8 views.
std::vector<const kernel::KernelEntry*> int8_view_entries(const char* op) {
  std::vector<const kernel::KernelEntry*> found;
  for (const kernel::BackendTable* b : backend_tables()) {
    for (size_t i = 0; i < b->count; ++i) {
      const kernel::KernelEntry& e = b->entries[i];
      if (std::strcmp(e.op, op) == 0 && e.dtype == kernel::ElemType::kInt32 &&
          e.takes_int8_activations && entry_usable(*b, e)) {
        found.push_back(&e);
      }
    }
  }
  return found;
}

// Entry e on int8 copies of `in` into an int8 output of want's shape (poisoned first) equals
// `want` (the reference's int32 result, within int8) narrowed; with one input int32 instead it
// declines and writes nothing.
void check_int8_views(const kernel::KernelEntry& e, const std::vector<NDArray>& in,
                      const void* params, const NDArray& want) {
  INFO("entry " << e.name << " threads " << num_threads());
  std::vector<NDArray> in8;
  for (const NDArray& a : in) in8.push_back(as_int8(a));
  NDArray got = NDArray::empty(want.shape(), DataType::Int(8));
  REQUIRE(poisoned_call(e.fn, in8, got, params, nullptr) == kernel::KernelStatus::kDone);
  CHECK(test::bit_equal(got, as_int8(want)));
  std::vector<NDArray> mixed = in8;
  mixed.back() = in.back();
  CHECK(poisoned_call(e.fn, mixed, got, params, nullptr) == kernel::KernelStatus::kDeclined);
}

NDArray reference_result(const char* op, const std::vector<NDArray>& in, const Shape& ys,
                         const void* params) {
  NDArray want = NDArray::zeros(ys, DataType::Int(32));
  REQUIRE(call_kernel(reference(op), in, want, params) == kernel::KernelStatus::kDone);
  return want;
}

// Element counts around the vector widths (8 and 16 int32 lanes), and none.
const int64_t kCounts[] = {0, 1, 7, 8, 15, 16, 17, 33, 64, 100, 1031};

}  // namespace

TEST_CASE("int8 views: relu, clip and cvm_right_shift equal the int32 call narrowed",
          "[kernels][int8]") {
  const kernel::CvmClampParams clip{0, -100, 90}, shift{2, -127, 127}, shift32{32, -1, 1};
  struct Op {
    const char* name;
    const kernel::CvmClampParams* params;
  };
  const Op ops[] = {{"relu", nullptr}, {"clip", &clip}, {"cvm_right_shift", &shift},
                    {"cvm_right_shift", &shift32}};
  uint64_t seed = 4100;
  for (const Op& op : ops) {
    const std::vector<const kernel::KernelEntry*> entries = int8_view_entries(op.name);
    if (entries.empty()) WARN("no " << op.name << " entry takes int8 views on this CPU");
    for (int64_t count : kCounts) {
      INFO(op.name << " count " << count);
      // Contiguous, and every other element of a wider array (strided rows).
      const NDArray x = random_in({2, count}, -128, 127, ++seed);
      const NDArray wide = random_in({2, 2 * count}, -128, 127, ++seed);
      const NDArray strided = wide.slice(1, 0, 2 * count, 2);
      for (const NDArray* in : {&x, &strided}) {
        const NDArray want = reference_result(op.name, {*in}, {2, count}, op.params);
        at_thread_counts([&] {
          for (const kernel::KernelEntry* e : entries) check_int8_views(*e, {*in}, op.params, want);
        });
      }
    }
  }
}

TEST_CASE("int8 views: add and sub with a clamp within int8 equal the int32 call narrowed",
          "[kernels][int8]") {
  const kernel::CvmClampParams clamps[] = {{0, -128, 127}, {1, -127, 127}, {0, 0, 127}};
  uint64_t seed = 4200;
  for (const char* op : {"add", "sub"}) {
    const std::vector<const kernel::KernelEntry*> entries = int8_view_entries(op);
    if (entries.empty()) WARN("no " << op << " entry takes int8 views on this CPU");
    for (int64_t count : kCounts) {
      const NDArray a = random_in({3, count}, -128, 127, ++seed);
      const NDArray b = random_in({3, count}, -128, 127, ++seed);
      // b broadcast along the rows (one value a row) and along the columns (one row).
      const NDArray per_row = random_in({3, 1}, -128, 127, ++seed).broadcast_to({3, count});
      const NDArray one_row = random_in({1, count}, -128, 127, ++seed).broadcast_to({3, count});
      for (const NDArray* other : {&b, &per_row, &one_row}) {
        for (const kernel::CvmClampParams& clamp : clamps) {
          INFO(op << " count " << count << " clamp " << clamp.shift << " [" << clamp.lo << ", "
                  << clamp.hi << "] operand " << (other == &b ? 0 : other == &per_row ? 1 : 2));
          NDArray sum = reference_result(op, {a, *other}, {3, count}, nullptr);
          const NDArray want =
              reference_result(clamp.shift > 0 ? "cvm_right_shift" : "clip", {sum}, {3, count},
                               &clamp);
          at_thread_counts([&] {
            for (const kernel::KernelEntry* e : entries) {
              check_int8_views(*e, {a, *other}, &clamp, want);
            }
          });
        }
      }
    }
  }
}

TEST_CASE("int8 views: add without a clamp, or with one past int8, declines", "[kernels][int8]") {
  const NDArray a = as_int8(random_in({40}, -128, 127, 4300));
  const NDArray b = as_int8(random_in({40}, -128, 127, 4301));
  const kernel::CvmClampParams wide{0, -129, 127};
  for (const kernel::KernelEntry* e : int8_view_entries("add")) {
    INFO("entry " << e->name);
    NDArray y = NDArray::empty({40}, DataType::Int(8));
    CHECK(poisoned_call(e->fn, {a, b}, y, nullptr, nullptr) == kernel::KernelStatus::kDeclined);
    CHECK(poisoned_call(e->fn, {a, b}, y, &wide, nullptr) == kernel::KernelStatus::kDeclined);
  }
}

TEST_CASE("int8 views: max_pool2d equals the int32 call narrowed", "[kernels][int8]") {
  struct PoolCase {
    int64_t c, h, w, pool, stride, pad;
    bool ceil;
  };
  const PoolCase cases[] = {
      {3, 8, 8, 2, 2, 0, false},    {2, 16, 16, 2, 2, 0, false},  {2, 9, 33, 2, 2, 0, true},
      {4, 14, 14, 3, 2, 1, false},  {2, 15, 15, 3, 2, 1, true},   {2, 7, 40, 3, 1, 1, false},
      {1, 5, 1, 2, 1, 1, false},    {2, 6, 70, 3, 3, 2, true},    {1, 12, 130, 2, 2, 1, false},
      {2, 4, 9, 4, 1, 0, false},    {2, 9, 41, 3, 2, 1, false},   {1, 6, 100, 3, 2, 0, true},
  };
  uint64_t seed = 4400;
  const std::vector<const kernel::KernelEntry*> entries = int8_view_entries("max_pool2d");
  if (entries.empty()) WARN("no max_pool2d entry takes int8 views on this CPU");
  for (const PoolCase& v : cases) {
    INFO("x(2," << v.c << "," << v.h << "," << v.w << ") pool " << v.pool << " stride "
                << v.stride << " pad " << v.pad << (v.ceil ? " ceil" : ""));
    auto extent = [&](int64_t in) {
      const int64_t room = in + 2 * v.pad - v.pool;
      int64_t out = (v.ceil ? (room + v.stride - 1) / v.stride : room / v.stride) + 1;
      if (v.ceil && (out - 1) * v.stride >= in + v.pad) --out;  // starts inside the input
      return out;
    };
    const kernel::MaxPool2dParams p{v.pool, v.pool, v.stride, v.stride, v.pad, v.pad};
    const Shape ys{2, v.c, extent(v.h), extent(v.w)};
    const NDArray x = random_in({2, v.c, v.h, v.w}, -128, 127, ++seed);
    const NDArray want = reference_result("max_pool2d", {x}, ys, &p);
    at_thread_counts([&] {
      for (const kernel::KernelEntry* e : entries) check_int8_views(*e, {x}, &p, want);
    });
    // An int8 output with column stride 2 (every other column of a wider array), and one
    // with unit columns but 3 columns between rows: nothing written beside the outputs.
    for (const kernel::KernelEntry* e : entries) {
      for (int64_t step : {2, 1}) {
        INFO("entry " << e->name << ", output column stride " << step);
        const int64_t wide_w = step == 2 ? 2 * ys[3] : ys[3] + 3;
        NDArray wide = NDArray::empty({ys[0], ys[1], ys[2], wide_w}, DataType::Int(8));
        std::memset(wide.mutable_data(), 0x5A, wide.nbytes());
        NDArray y = wide.slice(3, 0, step * ys[3], step);
        REQUIRE(call_kernel(e->fn, {as_int8(x)}, y, &p) == kernel::KernelStatus::kDone);
        CHECK(test::bit_equal(y, as_int8(want)));
        const NDArray between =
            step == 2 ? wide.slice(3, 1, wide_w, 2) : wide.slice(3, ys[3], wide_w, 1);
        const NDArray gaps = between.contiguous();
        for (int64_t i = 0; i < gaps.numel(); ++i) {
          CHECK(static_cast<const int8_t*>(gaps.data())[i] == 0x5A);
        }
      }
    }
  }
}

// The copy entries that take int8 views against the reference's copy on the same views: every
// K-th element gathered (an NHWC image into NCHW planes, K = 2, 3, 4, and 5 element by element)
// at row lengths around the 16-byte vectors, contiguous rows, a strided output; on int8 views
// they copy bytes, and a call mixing int8 and int32 they decline. int32 copy entries without
// the flag decline int8 views.
TEST_CASE("int8 views: copy entries taking them equal the reference's copy; others decline",
          "[kernels][int8]") {
  kernel::KernelFn ref = nullptr;  // the reference's copy: one kernel for every element type
  for (size_t i = 0; i < kernel::kScalarBackend.count; ++i) {
    if (std::strcmp(kernel::kScalarBackend.entries[i].op, "copy") == 0) {
      ref = kernel::kScalarBackend.entries[i].fn;
    }
  }
  REQUIRE(ref != nullptr);
  int taking = 0;
  for (const kernel::BackendTable* b : backend_tables()) {
    for (size_t i = 0; i < b->count; ++i) {
      const kernel::KernelEntry& e = b->entries[i];
      // int32 entries only: a session's int8 views are int32 entries of the graph.
      if (std::strcmp(e.op, "copy") != 0 || e.dtype != kernel::ElemType::kInt32 ||
          !entry_usable(*b, e) || e.fn == ref) {
        continue;
      }
      INFO("entry " << e.name);
      if (!e.takes_int8_activations) {
        const NDArray x = as_int8(random_in({5, 9}, -128, 127, 4500));
        NDArray y = NDArray::empty({5, 9}, DataType::Int(8));
        CHECK(poisoned_call(e.fn, {x}, y, nullptr, nullptr) == kernel::KernelStatus::kDeclined);
        continue;
      }
      ++taking;
      at_thread_counts([&] {
        for (int64_t k : {1, 2, 3, 4, 5}) {
          for (int64_t w : {1, 15, 16, 17, 31, 32, 33, 48, 100}) {
            INFO("every " << k << ", row of " << w << ", threads " << num_threads());
            // (2, w, k) -> (2, k, w): rows gathering every k-th byte.
            const NDArray x =
                as_int8(random_in({2, w, k}, -128, 127, static_cast<uint64_t>(100 * k + w)));
            const NDArray view = x.permute({0, 2, 1});
            NDArray want = NDArray::empty(view.shape(), DataType::Int(8));
            REQUIRE(call_kernel(ref, {view}, want, nullptr, nullptr) ==
                    kernel::KernelStatus::kDone);
            NDArray got = NDArray::empty(view.shape(), DataType::Int(8));
            REQUIRE(poisoned_call(e.fn, {view}, got, nullptr, nullptr) ==
                    kernel::KernelStatus::kDone);
            CHECK(test::bit_equal(got, want));
            // Into every other byte of a wider output: the bytes between stay.
            NDArray wide = NDArray::empty({2, k, 2 * w}, DataType::Int(8));
            std::memset(wide.mutable_data(), 0x5A, wide.nbytes());
            NDArray strided = wide.slice(2, 0, 2 * w, 2);
            REQUIRE(call_kernel(e.fn, {view}, strided, nullptr, nullptr) ==
                    kernel::KernelStatus::kDone);
            CHECK(test::bit_equal(strided, want));
            const NDArray between = wide.slice(2, 1, 2 * w, 2).contiguous();
            for (int64_t j = 0; j < between.numel(); ++j) {
              CHECK(static_cast<const int8_t*>(between.data())[j] == 0x5A);
            }
            // (2, k + 15, w) -> (2, w, k + 15): the last two dims transposed (NCHW planes
            // into NHWC pixels), by tiles where a backend has them.
            const NDArray planes = as_int8(
                random_in({2, k + 15, w}, -128, 127, static_cast<uint64_t>(200 * k + w)));
            const NDArray pixels = planes.permute({0, 2, 1});
            NDArray want_t = NDArray::empty(pixels.shape(), DataType::Int(8));
            REQUIRE(call_kernel(ref, {pixels}, want_t, nullptr, nullptr) ==
                    kernel::KernelStatus::kDone);
            NDArray got_t = NDArray::empty(pixels.shape(), DataType::Int(8));
            REQUIRE(poisoned_call(e.fn, {pixels}, got_t, nullptr, nullptr) ==
                    kernel::KernelStatus::kDone);
            CHECK(test::bit_equal(got_t, want_t));
            // Into rows 3 bytes apart: the bytes between stay.
            NDArray roomy = NDArray::empty({2, w, k + 18}, DataType::Int(8));
            std::memset(roomy.mutable_data(), 0x5A, roomy.nbytes());
            NDArray apart = roomy.slice(2, 0, k + 15, 1);
            REQUIRE(call_kernel(e.fn, {pixels}, apart, nullptr, nullptr) ==
                    kernel::KernelStatus::kDone);
            CHECK(test::bit_equal(apart, want_t));
            const NDArray gaps = roomy.slice(2, k + 15, k + 18, 1).contiguous();
            for (int64_t j = 0; j < gaps.numel(); ++j) {
              CHECK(static_cast<const int8_t*>(gaps.data())[j] == 0x5A);
            }
            // An int8 input into an int32 output: declined.
            NDArray wider = NDArray::empty(view.shape(), DataType::Int(32));
            CHECK(poisoned_call(e.fn, {view}, wider, nullptr, nullptr) ==
                  kernel::KernelStatus::kDeclined);
          }
        }
      });
    }
  }
  WARN(taking << " copy entries take int8 views here");
}

// A session holds int8 activations around an operator by its OpDef::int8_activations, and an
// entry's int8 paths run only where one does. In each table compiled in with int8 entries
// (usable here or not; the plain wasm build's portable table has none): an operator that
// declares int8 views (other than a copy of any width) has a kernel there that takes them, and
// every kernel op with such an entry there has an operator declaring them.
TEST_CASE("int8 views: operators declaring int8 activations and entries taking them agree",
          "[kernels][int8]") {
  using cvm::ops::Int8Activations;
  int declaring = 0;
  for (const cvm::ops::OpDef* op : cvm::ops::all_ops()) {
    declaring += op->int8_activations() == Int8Activations::kNo ? 0 : 1;
  }
  // conv2d, dense, relu, clip, cvm_clip, cvm_right_shift, max_pool2d, elemwise_add / _sub,
  // concatenate, and the views copied out: flatten, reshape, expand_dims, squeeze, transpose,
  // strided_slice, slice_like.
  CHECK(declaring == 17);
  int tables = 0;
  for (const kernel::BackendTable* b : backend_tables()) {
    std::set<std::string> taking;  // kernel ops with an entry of b that takes int8 views
    for (size_t i = 0; i < b->count; ++i) {
      if (b->entries[i].takes_int8_activations) taking.insert(b->entries[i].op);
    }
    if (taking.empty()) continue;
    ++tables;
    INFO("table " << b->name);
    std::set<std::string> reached;  // kernel ops of operators that declare int8 views
    for (const cvm::ops::OpDef* op : cvm::ops::all_ops()) {
      const Int8Activations use = op->int8_activations();
      if (use == Int8Activations::kNo) continue;
      INFO("operator " << op->name());
      bool has_taker = false;
      for (const char* k : op->kernel_ops()) {
        reached.insert(k);
        has_taker = has_taker || taking.count(k) == 1;
      }
      if (use != Int8Activations::kTogetherAnyKernel) {
        CHECK(has_taker);
      }
    }
    for (const std::string& k : taking) {
      INFO("kernel op " << k);
      CHECK(reached.count(k) == 1);
    }
  }
  WARN(tables << " kernel tables with int8 entries checked");
}
