// Every kernel of every compiled backend equals the scalar reference bit for bit, and the
// registry honours backend selection.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "cvm/registry.h"
#include "kernel_abi.h"
#include "kernel_views.h"
#include "test_util.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

#ifdef CVMRT_HAVE_BACKEND_SIMD
// Shapes with every remainder modulo the vector widths, strides, broadcasts and edge sizes.
std::vector<std::pair<Shape, Shape>> parity_shapes() {
  std::vector<std::pair<Shape, Shape>> s;
  for (int64_t n : {0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000})
    s.push_back({Shape{n}, Shape{n}});
  s.push_back({Shape{5, 67}, Shape{67}});     // row broadcast
  s.push_back({Shape{5, 67}, Shape{5, 1}});   // column broadcast: stride 0 inside rows
  s.push_back({Shape{3, 1, 70}, Shape{4, 1}});
  s.push_back({Shape{}, Shape{100}});
  return s;
}

// The scalar reference kernel's output vs `fn`'s on the same inputs.
void compare_kernel(const std::string& op, kernel::KernelFn fn, kernel::KernelFn ref, DataType t,
                    const NDArray& a, const NDArray& b) {
  Shape shape = broadcast_shapes(a.shape(), b.shape());
  NDArray ba = a.broadcast_to(shape), bb = b.broadcast_to(shape);
  NDArray got = NDArray::empty(shape, t), want = NDArray::empty(shape, t);
  for (auto [out, k] : {std::pair<NDArray*, kernel::KernelFn>{&got, fn}, {&want, ref}}) {
    auto views = ops::elementwise_views({{out, out->mutable_data()},
                                         {&ba, const_cast<void*>(ba.data())},
                                         {&bb, const_cast<void*>(bb.data())}});
    ops::run_kernel(k, views, 1, nullptr);
  }
  INFO(op << " " << t << " " << a.shape() << " x " << b.shape());
  REQUIRE(test::bit_equal(got, want));
}

const kernel::KernelEntry* scalar_entry(const std::string& op, kernel::ElemType t) {
  const kernel::BackendTable& s = kernel::kScalarBackend;
  for (size_t i = 0; i < s.count; ++i) {
    if (op == s.entries[i].op && (s.entries[i].dtype == t || s.entries[i].dtype == kernel::ElemType::kAny))
      return &s.entries[i];
  }
  return nullptr;
}
#endif  // CVMRT_HAVE_BACKEND_SIMD

}  // namespace

TEST_CASE("every usable SIMD kernel equals the scalar reference", "[backend][parity]") {
#ifdef CVMRT_HAVE_BACKEND_SIMD
  const kernel::BackendTable& simd = kernel::kSimdBackend;
  uint32_t have = test::simd_testable_features();
  int tested = 0;
  uint64_t seed = 100;
  for (size_t i = 0; i < simd.count; ++i) {
    const kernel::KernelEntry& e = simd.entries[i];
    // This test drives parameter-free binary elementwise kernels; the other families have
    // their own parity tests (simd_parity_test.cc, gemm_parity_test.cc).
    const std::string op = e.op;
    if (op != "add" && op != "sub" && op != "mul" && op != "maximum" && op != "minimum") continue;
    if ((have & e.required_features) != e.required_features) {
      WARN("skipping " << e.op << "/" << e.variant << ": CPU lacks it");
      continue;
    }
    const kernel::KernelEntry* ref = scalar_entry(e.op, e.dtype);
    REQUIRE(ref != nullptr);
    DataType t = kAllDataTypes[static_cast<int>(e.dtype)];
    for (const auto& [sa, sb] : parity_shapes()) {
      NDArray a = test::random_array(sa, t, seed++);
      NDArray b = test::random_array(sb, t, seed++);
      compare_kernel(e.op, e.fn, ref->fn, t, a, b);
      // Strided inputs: reversed views of larger arrays.
      if (sa.ndim() == 1 && sa[0] > 1) {
        NDArray wide = test::random_array({sa[0] * 2}, t, seed++);
        compare_kernel(e.op, e.fn, ref->fn, t, wide.slice(0, -1, -2 * sa[0] - 1, -2), b.broadcast_to(sa));
      }
    }
    ++tested;
  }
  INFO("tested " << tested << " SIMD kernels");
  REQUIRE(tested > 0);
#else
  WARN("no SIMD backend in this build");
#endif
}

TEST_CASE("backend selection: forced, auto, unknown", "[backend][registry]") {
  std::vector<std::string> compiled = compiled_backends();
  REQUIRE(compiled.back() == "scalar");
  set_backend("scalar");
  REQUIRE(current_backend() == "scalar");
  REQUIRE(resolve_kernel("add", DataType::Int(32)) == "scalar/ref");
  NDArray a = test::random_array({1000}, DataType::Int(8), 5);
  NDArray b = test::random_array({1000}, DataType::Int(8), 6);
  NDArray scalar_sum = add(a, b);
  set_backend("auto");
  REQUIRE(current_backend() == compiled.front());
  NDArray best_sum = add(a, b);
  REQUIRE(test::bit_equal(scalar_sum, best_sum));
  // Ops the preferred backend lacks fall back to the reference.
  REQUIRE(resolve_kernel("mul", DataType::Float(32)) == "scalar/ref");
  REQUIRE_THROWS_WITH(set_backend("tpu"), Contains("unknown backend \"tpu\""));
  REQUIRE_THROWS_WITH(resolve_kernel("conv9d", DataType::Int(8)), Contains("no kernel for op"));
  bool listed_add = false;
  for (const KernelInfo& k : list_kernels()) listed_add |= k.op == "add" && k.backend == "scalar";
  REQUIRE(listed_add);
}

TEST_CASE("a scoped thread backend applies to its own thread only", "[backend][registry][threads]") {
  set_backend("auto");
  const std::string best = current_backend();
  {
    ScopedThreadBackend scalar("scalar");
    REQUIRE(current_backend() == "scalar");
    REQUIRE(resolve_kernel("add", DataType::Int(32)) == "scalar/ref");
    std::string other;
    std::thread t([&] { other = current_backend(); });
    t.join();
    REQUIRE(other == best);
    {
      ScopedThreadBackend nested(best);
      REQUIRE(current_backend() == best);
    }
    REQUIRE(current_backend() == "scalar");
  }
  REQUIRE(current_backend() == best);
  REQUIRE_THROWS_WITH(ScopedThreadBackend("tpu"), Contains("unknown backend"));
}
