// The thread pool behind cvm::set_num_threads: the count (API, default, CVMRT_THREADS, C ABI),
// and parallel_for covering every index once at any count, nested and from concurrent callers.
// (Kernel results at several thread counts: kernel_table_parity_test.cc.)
#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cvm/c_api.h"
#include "cvm/error.h"
#include "cvm/op.h"
#include "cvm/registry.h"
#include "cvm/threads.h"
#include "test_util.h"
#include "thread_pool.h"

using namespace cvm;
using Catch::Matchers::Contains;

namespace {

// Restores the default thread count, task size and backend when a test ends.
struct Restore {
  std::string backend = current_backend();
  int64_t min_work = threads::min_task_work();
  ~Restore() {
    set_num_threads(0);
    threads::set_min_task_work(min_work);
    set_backend(backend);
  }
};

bool same_bits(const NDArray& a, const NDArray& b) {
  if (a.is_contiguous() && b.is_contiguous() && a.shape() == b.shape() && a.dtype() == b.dtype())
    return std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
  return test::bit_equal(a, b);
}

}  // namespace

TEST_CASE("thread count: set, default, errors, C ABI", "[simd][threads]") {
  Restore restore;
  set_num_threads(3);
  REQUIRE(num_threads() == 3);
  int n = 0;
  REQUIRE(CVMGetNumThreads(&n) == 0);
  REQUIRE(n == 3);
  REQUIRE(CVMSetNumThreads(5) == 0);
  REQUIRE(num_threads() == 5);
  REQUIRE_THROWS_AS(set_num_threads(-1), LogicError);
  REQUIRE_THROWS_WITH(set_num_threads(1025), Contains("found 1025"));
  REQUIRE(CVMSetNumThreads(-2) == CVM_STATUS_LOGIC_ERROR);
  REQUIRE_THAT(std::string(CVMGetLastError()), Contains("set_num_threads"));
  REQUIRE(num_threads() == 5);
  REQUIRE(CVMGetNumThreads(nullptr) == CVM_STATUS_LOGIC_ERROR);
  REQUIRE(CVMSetNumThreads(0) == 0);
  REQUIRE(num_threads() >= 1);
}

TEST_CASE("CVMRT_THREADS values", "[simd][threads]") {
  REQUIRE(threads::parse_thread_count(nullptr) == 0);
  REQUIRE(threads::parse_thread_count("") == 0);
  REQUIRE(threads::parse_thread_count("1") == 1);
  REQUIRE(threads::parse_thread_count("16") == 16);
  REQUIRE(threads::parse_thread_count("1024") == 1024);
  for (const char* bad : {"0", "1025", "-2", " 4", "+4", "4 ", "4x", "abc", "99999999999999999999"})
    REQUIRE(threads::parse_thread_count(bad) == -1);
}

TEST_CASE("parallel_for covers every index once, at any count, nested and concurrent",
          "[simd][threads]") {
  Restore restore;
  struct Hits {
    std::vector<std::atomic<int>> count;
    std::atomic<int> nested_calls{0};
    explicit Hits(int64_t n) : count(n) {}
  };
  for (int threads : {1, 2, 3, 7, 16}) {
    set_num_threads(threads);
    for (int64_t n : {0, 1, 2, 5, 7, 100, 1001}) {
      Hits hits(n);
      threads::parallel_for(
          n,
          [](void* user, int64_t begin, int64_t end) {
            auto& h = *static_cast<Hits*>(user);
            for (int64_t i = begin; i < end; ++i) h.count[i]++;
            // A nested region runs serially on this thread instead of deadlocking.
            threads::parallel_for(
                3,
                [](void* u, int64_t b, int64_t e) {
                  static_cast<Hits*>(u)->nested_calls += static_cast<int>(e - b);
                },
                user);
          },
          &hits);
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += hits.count[i].load() != 1;
      INFO("threads " << threads << " n " << n);
      REQUIRE(bad == 0);
      REQUIRE(hits.nested_calls.load() % 3 == 0);
    }
  }
  // Several threads running ops at once share the pool (all but one run serially).
  set_num_threads(7);
  threads::set_min_task_work(1);
  const NDArray x = test::random_array(Shape{64, 1000}, DataType::Int(32), 3);
  set_backend("scalar");
  const NDArray want = run_op("relu", {x}).at(0);
  set_backend("auto");
  std::atomic<int> mismatches{0};
  std::vector<std::thread> runners;
  for (int t = 0; t < 4; ++t) {
    runners.emplace_back([&] {
      for (int i = 0; i < 20; ++i) mismatches += !same_bits(run_op("relu", {x}).at(0), want);
    });
  }
  for (std::thread& t : runners) t.join();
  REQUIRE(mismatches.load() == 0);
}
