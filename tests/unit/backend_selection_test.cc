// Backend selection and the registry's reports: set_backend / current_backend / resolve_kernel
// ("backend/how"), the "auto" choice, unknown names, ScopedThreadBackend on its own thread only,
// which backends are compiled (wasm exactly in the wasm simd module), list_kernels and the
// system report. (Kernel results per entry: kernel_table_parity_test.cc.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cvm/array_ops.h"
#include "cvm/error.h"
#include "cvm/registry.h"
#include "cvm/system.h"
#include "cvm/threads.h"
#include "kernel_abi.h"
#include "test_util.h"
#include "thread_pool.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

// Restores the default thread count and the backend when a test ends.
struct Restore {
  std::string backend = current_backend();
  ~Restore() {
    set_num_threads(0);
    set_backend(backend);
  }
};

}  // namespace

TEST_CASE("backend selection: forced, auto, unknown", "[backend][registry]") {
  Restore restore;
  std::vector<std::string> compiled = compiled_backends();
  REQUIRE(compiled.back() == "scalar");
  set_backend("scalar");
  REQUIRE(current_backend() == "scalar");
  REQUIRE(resolve_kernel("add", DataType::Int(32)) == "scalar/scalar");
  NDArray a = test::random_array({1000}, DataType::Int(8), 5);
  NDArray b = test::random_array({1000}, DataType::Int(8), 6);
  NDArray scalar_sum = add(a, b);
  set_backend("auto");
  REQUIRE(current_backend() == compiled.front());
  NDArray best_sum = add(a, b);
  REQUIRE(test::bit_equal(scalar_sum, best_sum));
  // Ops the preferred backend lacks fall back to the reference.
  REQUIRE(resolve_kernel("mul", DataType::Float(32)) == "scalar/scalar");
  REQUIRE_THROWS_WITH(set_backend("tpu"), Contains("unknown backend \"tpu\""));
  REQUIRE_THROWS_WITH(resolve_kernel("conv9d", DataType::Int(8)), Contains("no kernel for op"));
  bool listed_add = false;
  for (const KernelInfo& k : list_kernels()) {
    listed_add |= k.op == "add" && k.backend == "scalar" && k.dtype == "int32" &&
                  k.variant == "scalar" && k.name == "add_i32__scalar";
  }
  REQUIRE(listed_add);
}

TEST_CASE("a scoped thread backend applies to its own thread only", "[backend][registry][threads]") {
  Restore restore;
  set_backend("auto");
  const std::string best = current_backend();
  {
    ScopedThreadBackend scalar("scalar");
    REQUIRE(current_backend() == "scalar");
    REQUIRE(resolve_kernel("add", DataType::Int(32)) == "scalar/scalar");
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

TEST_CASE("the registry lists the wasm backend exactly when it is compiled", "[backend][wasm]") {
  Restore restore;
  const std::vector<std::string> names = compiled_backends();
  const bool listed = std::find(names.begin(), names.end(), "wasm") != names.end();
#ifdef CVMRT_HAVE_BACKEND_WASM
  REQUIRE(listed);
  REQUIRE(names.front() == "wasm");  // the best backend: the default
  set_backend("auto");
  REQUIRE(current_backend() == "wasm");
  REQUIRE(resolve_kernel("conv2d", DataType::Int(32)) == "wasm/wasm_winograd");
#else
  REQUIRE_FALSE(listed);
#endif
  REQUIRE(names.back() == "scalar");
}

TEST_CASE("system report: features, cap, threads and the kernel per op", "[simd][system]") {
  Restore restore;
  set_num_threads(2);
  set_backend("auto");
  const SystemInfo info = system_info();
  REQUIRE(info.num_threads == 2);
  REQUIRE(info.hardware_threads >= 1);
  REQUIRE(info.backend == compiled_backends().front());
  REQUIRE(info.usable_features.size() <= info.cpu_features.size());
  bool relu = false, add = false;
  for (const KernelChoice& k : info.kernels) {
    if (k.op == "relu" && k.dtype == "int32") {
      relu = true;
      REQUIRE(k.backend + "/" + k.variant == resolve_kernel("relu", DataType::Int(32)));
    }
    add |= k.op == "add" && k.dtype == "float32" && k.backend == "scalar";
  }
  REQUIRE(relu);
  REQUIRE(add);
  const std::string text = format_system_info(info);
  REQUIRE_THAT(text, Contains("threads: 2"));
  // "  relu int32 -> simd/avx2", or where int32 and float32 take one kernel variant (the scalar
  // reference) the grouped "  relu int32 float32 -> scalar/scalar".
  REQUIRE_THAT(text, Contains("  relu int32 -> ") || Contains("  relu int32 float32 -> "));
  // The thread count's source is recorded, not guessed from the count.
  REQUIRE(info.threads_source == "set_num_threads");
  REQUIRE(threads::count_source() == threads::CountSource::kApi);
  set_num_threads(0);
  const SystemInfo by_default = system_info();
  REQUIRE(threads::count_source() != threads::CountSource::kApi);
  REQUIRE(by_default.threads_source ==
          (by_default.threads_env.empty() ? "default" : "CVMRT_THREADS"));
  if (by_default.num_threads > 0) {  // a count equal to the default still came from the API
    set_num_threads(by_default.num_threads);
    REQUIRE(system_info().threads_source == "set_num_threads");
    REQUIRE_THAT(format_system_info(system_info()), Contains("from set_num_threads; hardware"));
  }
#ifdef CVMRT_HAVE_BACKEND_SIMD
  const uint32_t have = kernel::kSimdBackend.cpu_features();
  if (have & kernel::kCpuAvx2) {
    REQUIRE(std::find(info.usable_features.begin(), info.usable_features.end(), "avx2") !=
            info.usable_features.end());
    REQUIRE(resolve_kernel("relu", DataType::Int(32)).rfind("simd/avx", 0) == 0);
  }
#endif
}
