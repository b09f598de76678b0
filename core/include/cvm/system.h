// What this process runs on: CPU features, the CVMRT_ISA cap, threads, and the kernel each op
// dispatches to now (printed by `cvmrt inspect --system`).
#pragma once

#include <string>
#include <vector>

#include "cvm/export.h"

namespace cvm {

// The kernel that runs one (op, dtype) pair now.
struct KernelChoice {
  std::string op;       // kernel op name, e.g. "reduce_sum"
  std::string dtype;    // element type of its first input, e.g. "int32", or "any"
  std::string backend;  // "simd", "scalar", ...
  std::string variant;  // "avx512", "avx2", "ref", ...
};

struct SystemInfo {
  std::vector<std::string> cpu_features;       // features the kernels can use that the CPU has
  std::vector<std::string> usable_features;    // the same after the CVMRT_ISA cap
  std::string isa_env;                         // CVMRT_ISA as set ("" when unset)
  std::string isa_cap;                         // the level it caps to ("" when none)
  int hardware_threads = 1;                    // std::thread::hardware_concurrency (>= 1)
  std::string threads_env;                     // CVMRT_THREADS as set ("" when unset)
  int num_threads = 1;                         // threads kernels use now; 0 when CVMRT_THREADS
                                               // is malformed (see threads_error)
  std::string threads_error;                   // that error's message, else ""
  std::vector<std::string> compiled_backends;  // best first
  std::string backend;                         // preferred now (this thread)
  std::vector<KernelChoice> kernels;           // every (op, dtype) of any compiled backend, sorted
};

// A snapshot of the above. Never throws LogicError (a bad CVMRT_THREADS is reported in it).
CVM_EXPORT SystemInfo system_info();

// `info` as readable text, one item per line ("cpu features: avx2 fma ...", then one line per
// kernel: "  reduce_sum int32 -> simd/avx512").
CVM_EXPORT std::string format_system_info(const SystemInfo& info);

}  // namespace cvm
