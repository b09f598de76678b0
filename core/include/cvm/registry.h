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
  std::string variant;  // "ref", "avx2", ...
  bool usable;          // its CPU features are present on this machine
};

// Backends compiled into this build, best first ("scalar" is always last and always there).
CVM_EXPORT std::vector<std::string> compiled_backends();
// Selects the backend whose kernels are preferred; ops it lacks fall back to "scalar".
// "auto" (or "") restores the default: the best compiled backend, or the one named by the
// environment variable CVMRT_BACKEND at first use. LogicError for an unknown name.
// Process-wide; safe to call from any thread.
CVM_EXPORT void set_backend(const std::string& name);
// The backend preferred now on this thread ("scalar", "simd", ...).
CVM_EXPORT std::string current_backend();

// Overrides the preferred backend for the current thread only, for its lifetime (e.g. a model
// loaded for the scalar reference, run while other threads use the best backend). Nests;
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
// The backend and variant that would run `op` for `dtype` now, e.g. "simd/avx2";
// LogicError when no backend has it.
CVM_EXPORT std::string resolve_kernel(const std::string& op, DataType dtype);

}  // namespace cvm
