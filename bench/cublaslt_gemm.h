// cuda_bench's yardstick: cuBLASLt's int8 GEMM of a workload's implicit GEMM, timed and checked.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "conv_workloads.h"
#include "cvm/ndarray.h"

namespace cvm {
namespace bench {

// Raises a RuntimeError naming `what` and the CUDA error unless err is cudaSuccess.
void check_cuda(cudaError_t err, const char* what);
#define CUDA_OK(call) ::cvm::bench::check_cuda((call), #call)

// ---- timing -------------------------------------------------------------------------------------

struct Timing {
  int warmup;      // calls before anything is timed
  int batches;     // batches timed; the median one is reported
  double batch_s;  // aimed-at length of a batch (the calls per batch come from one call)
  int max_calls;   // calls per batch at most
  int model_runs;  // whole-model runs timed one by one (p50)
  int model_warmup;
};

struct Timed {
  double s = 0;   // median seconds per call
  int calls = 0;  // calls per batch
};

// `call` enqueues device work; `sync` waits for it (and raises on a failed kernel). Times both the
// cvmrt kernels (cuda_bench.cc) and cuBLASLt's GEMM (run_cublaslt) the same way.
template <class Call, class Sync>
Timed time_per_call(Call&& call, Sync&& sync, const Timing& t) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < t.warmup; ++i) call();
  sync();
  auto t0 = Clock::now();
  call();
  sync();
  const double one = std::chrono::duration<double>(Clock::now() - t0).count();
  Timed r;
  r.calls = static_cast<int>(std::min<double>(t.max_calls, std::max(1.0, t.batch_s / one)));
  std::vector<double> per_call;
  for (int b = 0; b < t.batches; ++b) {
    t0 = Clock::now();
    for (int i = 0; i < r.calls; ++i) call();
    sync();
    per_call.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / r.calls);
  }
  std::sort(per_call.begin(), per_call.end());
  r.s = per_call[per_call.size() / 2];
  return r;
}

// ---- the cuBLASLt yardstick ---------------------------------------------------------------------

// The implicit GEMM of a workload: output pixels x output channels x taps.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;     // M = N*OH*OW (dense: rows), N = OC (units), K = C*KH*KW
  int64_t mp = 0, np = 0, kp = 0;  // padded up to multiples of 16 for cuBLASLt's int8 kernels
};

GemmShape gemm_shape(const Work& w);

// A cuBLASLt handle and its workspace, for every row.
struct LtContext {
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = size_t{32} << 20;
  std::string why;  // non-empty: cuBLASLt is unusable, every row says n/a
  LtContext();
  ~LtContext();
  LtContext(const LtContext&) = delete;
  LtContext& operator=(const LtContext&) = delete;
};

struct GemmResult {
  bool ran = false;
  std::string why;  // why not (ran == false)
  Timed t;
  bool equal = false;  // its C equals the cvmrt output minus the bias
  std::string where;   // the first difference
};

// cuBLASLt's GEMM of workload w's operands: x and wt are the int32 CPU arrays (int8 values) that
// cvmrt ran on, bias its bias and y_ref its output. ran == false (with why) when it cannot run:
// cuBLASLt unusable, a grouped conv (not one GEMM) or a cuBLASLt call that failed.
GemmResult run_cublaslt(LtContext& lt, const Work& w, const NDArray& x, const NDArray& wt,
                        const NDArray& bias, const NDArray& y_ref, const Timing& timing);

}  // namespace bench
}  // namespace cvm
