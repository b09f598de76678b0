// cvmrt info: version, build, compiled backends and their kernels.
#include <cstdio>
#include <iostream>

#include "cli_util.h"
#include "commands.h"
#include "cvm/cvm.h"

namespace cvm {
namespace cli {
namespace {

int run_info(const std::vector<std::string>& words) {
  Args args("info", words, {}, 0, 0);
  std::cout << "cvmrt " << CVMRT_VERSION_STRING << " (build " << CVMRT_BUILD_HASH << ")\n";
  std::cout << "backends (best first):";
  for (const std::string& b : compiled_backends()) std::cout << " " << b;
  std::cout << "\npreferred backend: " << current_backend() << "\n";
  // Devices: whether models can run on a GPU here, and why not.
  std::string why;
  const int gpus = device_count(kDLCUDA, &why);
  if (gpus > 0) {
    for (int id = 0; id < gpus; ++id) {
      std::cout << "cuda:" << id << ": " << describe_device(Device::cuda(id)) << "\n";
    }
  } else {
    std::cout << "cuda: unavailable: " << why << "\n";
  }
  std::cout << "\nkernels:\n";
  for (const KernelInfo& k : list_kernels()) {
    std::printf("  %-8s %-18s %-9s %-8s %s\n", k.backend.c_str(), k.op.c_str(), k.dtype.c_str(),
                k.variant.c_str(), k.usable                ? ""
                : k.backend == "cuda" ? "(no GPU)"
                                      : "(CPU lacks it)");
  }
  return 0;
}

}  // namespace

const Command kInfoCommand = {
    "info", "version, build, compiled backends and their kernels",
    "usage: cvmrt info\n"
    "\n"
    "Prints the library version and build, the compiled backends (best first), the backend\n"
    "in use (CVMRT_BACKEND may change it), the CUDA devices models can run on (or why there are\n"
    "none), and every kernel of every backend, marking those the CPU cannot run.\n",
    run_info};

}  // namespace cli
}  // namespace cvm
