// Threads used inside one operator or model run (the kernels' parallel loops).
#pragma once

#include "cvm/export.h"

namespace cvm {

// Sets how many threads one kernel may use, the calling thread included: n >= 1 (at most 1024),
// or 0 to restore the default (the environment variable CVMRT_THREADS read at first use, else
// the hardware concurrency; 1 in a WebAssembly build without threads). LogicError for other
// values. Results are bit-identical for every count. Process-wide; safe to call from any thread
// (it waits for a parallel region in flight).
CVM_EXPORT void set_num_threads(int n);

// The number of threads kernels use now (>= 1). LogicError when it comes from a CVMRT_THREADS
// value that is not an integer in [1, 1024].
CVM_EXPORT int num_threads();

}  // namespace cvm
