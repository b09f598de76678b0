// The process-wide persistent thread pool behind cvm::set_num_threads and the kernels'
// ParallelFor (kernel_abi.h): plain std::thread workers, no OpenMP.
//
// One parallel region runs at a time. A region started while another is running (sessions on
// several threads) or from inside a region's body runs serially on its caller, so the pool can
// never deadlock and nested parallelism never oversubscribes. Work partitioning is the kernels'
// business: they split only over independent outputs, so results never depend on the thread
// count or on which thread ran which range.
#pragma once

#include <cstdint>

#include "kernel_abi.h"

namespace cvm {
namespace threads {

// Threads parallel regions use now (>= 1): set_num_threads()'s value, else CVMRT_THREADS (read
// at first use; LogicError while it is not an integer in [1, kMaxThreads]), else the hardware
// concurrency.
int num_threads();

// Where num_threads() takes its count from now: a count given to set_num_threads(), else
// CVMRT_THREADS (set and not empty, well-formed or not), else the hardware concurrency (1 in a
// wasm build without pthreads).
enum class CountSource { kApi, kEnv, kDefault };
CountSource count_source();

// Most threads a pool may have.
constexpr int kMaxThreads = 1024;

// A CVMRT_THREADS value: 0 when null or empty (unset), the count when it is an integer in
// [1, kMaxThreads], else -1.
int parse_thread_count(const char* text);

// Runs body(user, begin, end) over contiguous ranges covering [0, n), on up to num_threads()
// threads including the caller, and returns when all are done. body must not throw.
void parallel_for(int64_t n, kernel::ParallelBody body, void* user);

// The ParallelFor for one kernel call now; its num_threads is num_threads(), or 1 under a
// SerialScope (1: run serially, give the kernel a null ParallelFor*). Same errors as
// num_threads().
kernel::ParallelFor kernel_parallel_for();

// While one lives on a thread, kernel_parallel_for() there gives kernels no ParallelFor: their
// calls run serially on that thread (a session's nodes measured faster so: thread_choice.h).
// Nests; parallel_for itself is unaffected.
class SerialScope {
 public:
  SerialScope();
  ~SerialScope();
  SerialScope(const SerialScope&) = delete;
  SerialScope& operator=(const SerialScope&) = delete;

 private:
  bool was_serial_;
};

// Smallest task (in element operations) kernels may split off; the default suits memory-bound
// kernels. Tests lower it to 1 to exercise every split on small shapes. Not for production.
void set_min_task_work(int64_t work);
int64_t min_task_work();

}  // namespace threads
}  // namespace cvm
