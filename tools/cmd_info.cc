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
  std::cout << "\npreferred backend: " << current_backend() << "\n\nkernels:\n";
  for (const KernelInfo& k : list_kernels()) {
    std::printf("  %-8s %-18s %-9s %-8s %s\n", k.backend.c_str(), k.op.c_str(), k.dtype.c_str(),
                k.variant.c_str(), k.usable ? "" : "(CPU lacks it)");
  }
  return 0;
}

}  // namespace

const Command kInfoCommand = {
    "info", "version, build, compiled backends and their kernels",
    "usage: cvmrt info\n"
    "\n"
    "Prints the library version and build, the compiled backends (best first), the backend\n"
    "in use (CVMRT_BACKEND may change it) and every kernel of every backend, marking those the\n"
    "CPU cannot run.\n",
    run_info};

}  // namespace cli
}  // namespace cvm
