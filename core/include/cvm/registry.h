// Backend selection and kernel capability queries, answered from the backends' kernel tables.
#pragma once

#include <string>
#include <vector>

#include "cvm/dtype.h"
#include "cvm/export.h"

namespace cvm {

struct KernelInfo {
  std::string backend;  // "scalar", "simd", ...
  std::string op;       // "add"
  std::string dtype;    // "int32", or "any"
  std::string variant;  // how: "scalar", "avx2", "avx512vnni", "wasm_simd128", ...
  bool usable;          // its CPU features are present on this machine
  std::string name;     // the entry's name, what__how: "add_i32__scalar", "conv2d_i8i32__amx"
};

// Backends compiled into this build, best first ("scalar" is always last and always there).
CVM_EXPORT std::vector<std::string> compiled_backends();
// Selects the backend whose kernels are preferred by sessions made from now on with backend
// "auto" (the default), and by run_op; ops it lacks fall back to "scalar". A session binds its
// kernels when it is made: a later switch does not change it. "auto" (or "") restores the
// default: the best compiled backend, or the one named by the environment variable
// CVMRT_BACKEND at first use. LogicError for an unknown name. Process-wide; safe to call from
// any thread.
CVM_EXPORT void set_backend(const std::string& name);
// The backend preferred now on this thread ("scalar", "simd", ...).
CVM_EXPORT std::string current_backend();

// Overrides the preferred backend for the current thread only, for its lifetime: for run_op
// and the sessions this thread makes with backend "auto" (a session can also name its backend,
// SessionOptions::backend). Nests;
// LogicError for an unknown name. Not copyable; destroy on the thread that made it.
class CVM_EXPORT ScopedThreadBackend {
 public:
  explicit ScopedThreadBackend(const std::string& name);
  ~ScopedThreadBackend();
  ScopedThreadBackend(const ScopedThreadBackend&) = delete;
  ScopedThreadBackend& operator=(const ScopedThreadBackend&) = delete;

 private:
  int previous_;
};
// Every kernel of every compiled backend, in table order.
CVM_EXPORT std::vector<KernelInfo> list_kernels();
// Whether operator `op` (an operator name, as run_op takes it) has, on `backend` ("" or "auto":
// any compiled backend, the scalar reference included), a kernel usable on this CPU for every
// kernel op it calls (OpDef::kernel_ops: e.g. "sum" calls "reduce_sum", "cast" calls "copy" and
// "cast") with inputs of `dtype`. False for a backend that is not compiled in; LogicError for
// an unknown operator.
CVM_EXPORT bool operator_has_kernel(const std::string& op, DataType dtype,
                                    const std::string& backend = "");
// The backend and how of the kernel that heads the chain for kernel op `op` and `dtype` now,
// e.g. "simd/avx2" or "scalar/scalar"; LogicError when no backend has it.
CVM_EXPORT std::string resolve_kernel(const std::string& op, DataType dtype);

}  // namespace cvm
