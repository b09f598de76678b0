// cuBLASLt's int8 GEMM of a conv2d/dense workload: cuda_bench's yardstick for the CUDA backend.
#include "cublaslt_gemm.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cvm/device.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"

namespace cvm {
namespace bench {

void check_cuda(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  cudaGetLastError();
  CVM_RUNTIME_ERROR() << what << ": " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err)
                      << ")";
}

namespace {

std::string lt_status(cublasStatus_t s) {
  const char* name = cublasLtGetStatusName(s);
  return name != nullptr ? name : ("cublasStatus " + std::to_string(static_cast<int>(s)));
}

// Device memory freed on scope exit.
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { CUDA_OK(cudaMalloc(&p, bytes == 0 ? 1 : bytes)); }
  ~DeviceBuffer() {
    if (p != nullptr) cudaFree(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Runs the registered functions in reverse order on scope exit (cuBLASLt descriptors).
struct Cleanup {
  std::vector<std::function<void()>> fns;
  ~Cleanup() {
    for (auto it = fns.rbegin(); it != fns.rend(); ++it) (*it)();
  }
};

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

}  // namespace

GemmShape gemm_shape(const Work& w) {
  GemmShape g;
  if (w.conv) {
    const Shape y = w.y();
    g.m = y[0] * y[2] * y[3];
    g.n = w.w[0];
    g.k = w.w[1] * w.w[2] * w.w[3];
  } else {
    g.m = w.x[0];
    g.n = w.w[0];
    g.k = w.x[1];
  }
  g.mp = round_up(g.m, 16);
  g.np = round_up(g.n, 16);
  g.kp = round_up(g.k, 16);
  return g;
}

LtContext::LtContext() {
  const cublasStatus_t s = cublasLtCreate(&handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    handle = nullptr;
    why = "cublasLtCreate: " + lt_status(s);
    return;
  }
  const cudaError_t err = cudaMalloc(&workspace, workspace_bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    workspace = nullptr;
    why = std::string("cudaMalloc(cuBLASLt workspace): ") + cudaGetErrorName(err);
  }
}

LtContext::~LtContext() {
  if (workspace != nullptr) cudaFree(workspace);
  if (handle != nullptr) cublasLtDestroy(handle);
}

// D (M x N, int32) = op(A) B with A stored K x M (transposed: "TN"), B K x N, both int8, all
// column-major: the int8 IMMA layout cuBLASLt documents for regular (non-COL32) ordering, with
// M, N, K and every leading dimension padded to a multiple of 16 (zeros). A column of A is one
// output pixel's im2col taps; a column of B is one output channel's OIHW weights; column n of C
// is output channel n in NCHW order.
GemmResult run_cublaslt(LtContext& lt, const Work& w, const NDArray& x, const NDArray& wt,
                        const NDArray& bias, const NDArray& y_ref, const Timing& timing) {
  GemmResult r;
  if (!lt.why.empty()) {
    r.why = lt.why;
    return r;
  }
  if (w.conv && w.p.groups > 1) {
    r.why = "groups=" + std::to_string(w.p.groups) +
            ": depthwise/grouped, not one GEMM (no cuBLASLt yardstick)";
    return r;
  }
  const GemmShape g = gemm_shape(w);
  // Host operands: the padded im2col matrix and the weight, as int8.
  std::vector<int8_t> a(static_cast<size_t>(g.kp * g.mp), 0),
      b(static_cast<size_t>(g.kp * g.np), 0);
  const int32_t* xs = x.data_as<int32_t>();
  const int32_t* ws = wt.data_as<int32_t>();
  if (w.conv) {
    const Shape y = w.y();
    const int64_t c_in = w.x[1], h = w.x[2], wd = w.x[3], kh = w.w[2], kw = w.w[3];
    for (int64_t bi = 0; bi < y[0]; ++bi) {
      for (int64_t oh = 0; oh < y[2]; ++oh) {
        for (int64_t ow = 0; ow < y[3]; ++ow) {
          const int64_t m = (bi * y[2] + oh) * y[3] + ow;
          int8_t* col = a.data() + m * g.kp;
          for (int64_t c = 0; c < c_in; ++c) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t ih = oh * w.p.stride_h - w.p.pad_h + i;
                const int64_t iw = ow * w.p.stride_w - w.p.pad_w + j;
                const int64_t k = (c * kh + i) * kw + j;
                if (ih >= 0 && ih < h && iw >= 0 && iw < wd) {
                  col[k] = static_cast<int8_t>(xs[((bi * c_in + c) * h + ih) * wd + iw]);
                }
              }
            }
          }
        }
      }
    }
  } else {
    for (int64_t m = 0; m < g.m; ++m) {
      for (int64_t k = 0; k < g.k; ++k) a[m * g.kp + k] = static_cast<int8_t>(xs[m * g.k + k]);
    }
  }
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t k = 0; k < g.k; ++k) b[n * g.kp + k] = static_cast<int8_t>(ws[n * g.k + k]);
  }
  DeviceBuffer da(a.size()), db(b.size()), dc(static_cast<size_t>(g.mp * g.np) * 4);
  CUDA_OK(cudaMemcpy(da.p, a.data(), a.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db.p, b.data(), b.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dc.p, 0, static_cast<size_t>(g.mp * g.np) * 4));

  // Every cuBLASLt status is checked: the first failure ends the row as n/a with its reason.
  std::string why_not;
  auto ok = [&](cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return true;
    why_not = std::string(what) + ": " + lt_status(s);
    if (s == CUBLAS_STATUS_NOT_SUPPORTED) why_not += " (no int8 kernel for this problem)";
    return false;
  };
  Cleanup cleanup;  // the descriptors, destroyed in reverse order of creation
  cublasLtMatmulDesc_t op = nullptr;
  if (!ok(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32I, CUDA_R_32I),
          "cublasLtMatmulDescCreate(CUBLAS_COMPUTE_32I, CUDA_R_32I)")) {
    r.why = why_not;
    return r;
  }
  cleanup.fns.push_back([op] { cublasLtMatmulDescDestroy(op); });
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  if (!ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a),
          "CUBLASLT_MATMUL_DESC_TRANSA") ||
      !ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b),
          "CUBLASLT_MATMUL_DESC_TRANSB")) {
    r.why = why_not;
    return r;
  }
  // rows x cols, leading dimension = rows (column-major, the default order).
  auto layout = [&](cudaDataType_t type, int64_t rows, int64_t cols, const char* what) {
    cublasLtMatrixLayout_t l = nullptr;
    if (!ok(cublasLtMatrixLayoutCreate(&l, type, static_cast<uint64_t>(rows),
                                       static_cast<uint64_t>(cols), rows),
            what)) {
      return static_cast<cublasLtMatrixLayout_t>(nullptr);
    }
    cleanup.fns.push_back([l] { cublasLtMatrixLayoutDestroy(l); });
    return l;
  };
  const cublasLtMatrixLayout_t la = layout(CUDA_R_8I, g.kp, g.mp, "cublasLtMatrixLayoutCreate(A)");
  const cublasLtMatrixLayout_t lb =
      la ? layout(CUDA_R_8I, g.kp, g.np, "cublasLtMatrixLayoutCreate(B)") : nullptr;
  const cublasLtMatrixLayout_t lc =
      lb ? layout(CUDA_R_32I, g.mp, g.np, "cublasLtMatrixLayoutCreate(C)") : nullptr;
  if (lc == nullptr) {
    r.why = why_not;
    return r;
  }
  cublasLtMatmulPreference_t pref = nullptr;
  if (!ok(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate")) {
    r.why = why_not;
    return r;
  }
  cleanup.fns.push_back([pref] { cublasLtMatmulPreferenceDestroy(pref); });
  const uint64_t ws_bytes = lt.workspace_bytes;
  if (!ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &ws_bytes, sizeof ws_bytes),
          "CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES")) {
    r.why = why_not;
    return r;
  }
  cublasLtMatmulHeuristicResult_t heuristic;
  std::memset(&heuristic, 0, sizeof heuristic);
  int found = 0;
  if (!ok(cublasLtMatmulAlgoGetHeuristic(lt.handle, op, la, lb, lc, lc, pref, 1, &heuristic,
                                         &found),
          "cublasLtMatmulAlgoGetHeuristic")) {
    r.why = why_not;
    return r;
  }
  if (found == 0 || heuristic.state != CUBLAS_STATUS_SUCCESS) {
    r.why = "cublasLtMatmulAlgoGetHeuristic found no algorithm (" +
            (found == 0 ? std::string("0 results") : lt_status(heuristic.state)) + ")";
    return r;
  }
  const int32_t alpha = 1, beta = 0;
  auto matmul = [&] {
    return cublasLtMatmul(lt.handle, op, &alpha, da.p, la, db.p, lb, &beta, dc.p, lc, dc.p, lc,
                          &heuristic.algo, lt.workspace, lt.workspace_bytes, nullptr);
  };
  if (!ok(matmul(), "cublasLtMatmul")) {
    r.why = why_not;
    return r;
  }
  CUDA_OK(cudaDeviceSynchronize());

  // The check: C[m + n * Mp] == y - bias[n], y the cvmrt output (NCHW, or (M, units)).
  std::vector<int32_t> c(static_cast<size_t>(g.mp * g.np));
  CUDA_OK(cudaMemcpy(c.data(), dc.p, c.size() * 4, cudaMemcpyDeviceToHost));
  const NDArray y = y_ref.to(Device::cpu()).contiguous();
  const int32_t* ys = y.data_as<int32_t>();
  const int32_t* bs = bias.data_as<int32_t>();
  const int64_t pixels = w.conv ? y.shape()[2] * y.shape()[3] : 1;
  r.equal = true;
  for (int64_t m = 0; m < g.m && r.equal; ++m) {
    for (int64_t n = 0; n < g.n; ++n) {
      const int64_t yi = w.conv ? ((m / pixels) * g.n + n) * pixels + m % pixels : m * g.n + n;
      const int64_t want = static_cast<int64_t>(ys[yi]) - bs[n];
      const int32_t got = c[static_cast<size_t>(m + n * g.mp)];
      if (got != want) {
        r.equal = false;
        r.where = "m=" + std::to_string(m) + " n=" + std::to_string(n) + ": cuBLASLt " +
                  std::to_string(got) + ", cvmrt - bias " + std::to_string(want);
        break;
      }
    }
  }

  r.t = time_per_call(
      [&] {
        const cublasStatus_t s = matmul();
        if (s != CUBLAS_STATUS_SUCCESS) CVM_RUNTIME_ERROR() << "cublasLtMatmul: " << lt_status(s);
      },
      [] { CUDA_OK(cudaDeviceSynchronize()); }, timing);
  r.ran = true;
  return r;
}

}  // namespace bench
}  // namespace cvm
