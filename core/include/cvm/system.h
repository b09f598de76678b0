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
  std::string variant;  // how: "avx512", "avx2", "scalar", ...
  std::string name;     // the table entry, what__how: "conv2d_i16i32__avx2" ("" when none)
};

struct SystemInfo {
  std::string cpu_model;                       // the CPU's brand string ("" when unknown)
  std::vector<std::string> cpu_features;       // features the kernels can use that the CPU has
  std::vector<std::string> usable_features;    // the same after the CVMRT_ISA cap and the AMX
                                               // permission
  // x86 ISA levels, lowest first: "scalar", "avx2", "avx512", "amx". All three are "" when no
  // compiled backend has levels (no x86 SIMD backend).
  std::string cpu_level;                       // the widest level the CPU has
  std::string isa_level;                       // the widest level the kernels may use now
  std::string isa_cap;                         // the level CVMRT_ISA caps to ("" when none)
  std::string isa_env;                         // CVMRT_ISA as set ("" when unset)
  // AMX tile state permission (Linux arch_prctl ARCH_REQ_XCOMP_PERM): "granted", "denied",
  // "not requested" (CVMRT_ISA caps below amx) or "no AMX" (the CPU has none; or no x86 SIMD
  // backend).
  std::string amx;
  int hardware_threads = 1;                    // std::thread::hardware_concurrency (>= 1)
  std::string threads_env;                     // CVMRT_THREADS as set ("" when unset)
  int num_threads = 1;                         // threads kernels use now; 0 when CVMRT_THREADS
                                               // is malformed (see threads_error)
  std::string threads_error;                   // that error's message, else ""
  // Where num_threads comes from: "set_num_threads" (a count given to it), "CVMRT_THREADS",
  // or "default" (the hardware concurrency). A caller that knows more (the CLI names its
  // --threads flag) may overwrite it before formatting.
  std::string threads_source;
  std::vector<std::string> compiled_backends;  // best first
  std::string backend;                         // preferred now (this thread); "" on error
  std::string backend_error;                   // why there is none (a bad CVMRT_BACKEND)
  // The kernels of the ops that dominate model time, in this order: conv2d, dense, matmul,
  // add, max_pool2d, reduce_sum (all int32).
  std::vector<KernelChoice> main_kernels;
  std::vector<KernelChoice> kernels;           // every (op, dtype) of any compiled backend, sorted
  // Problems with the environment: settings that are ignored (environment_warnings()) and the
  // errors above.
  std::vector<std::string> warnings;
};

// A snapshot of the above. Never throws LogicError (a bad CVMRT_THREADS or CVMRT_BACKEND is
// reported in it).
CVM_EXPORT SystemInfo system_info();

// The environment settings the library ignores rather than rejects, one message each: today an
// unknown CVMRT_ISA value (the ISA is then not capped). Empty when all is well. The library
// itself prints nothing; tools print these (the cvmrt CLI on stderr).
CVM_EXPORT std::vector<std::string> environment_warnings();

// `info` as readable text, one item per line ("cpu features: avx2 fma ...", "threads: 4 (...)"),
// then the main ops' kernels and every kernel grouped per op and choice
// ("  reduce_sum int32 float32 -> simd/avx512").
CVM_EXPORT std::string format_system_info(const SystemInfo& info);

}  // namespace cvm
