// cvmrt params: list the tensors of a param dict (cvmrt or legacy CVM format).
#include <cstdio>

#include "cli_util.h"
#include "commands.h"
#include "cvm/params.h"

namespace cvm {
namespace cli {
namespace {

int run_params(const std::vector<std::string>& words) {
  Args args("params", words, {}, 1, 1);
  ParamDict dict = ParamDict::load_file(args.positional()[0]);
  std::printf("%zu tensors\n", dict.size());
  for (const auto& [name, array] : dict.entries()) {
    std::printf("  %-24s %-8s %-18s %zu bytes\n", name.c_str(), array.dtype().name().c_str(),
                array.shape().str().c_str(), array.nbytes());
  }
  for (const auto& [key, value] : dict.metadata()) {
    std::printf("  meta %s = %s\n", key.c_str(), value.c_str());
  }
  return 0;
}

}  // namespace

const Command kParamsCommand = {
    "params", "list the tensors of a param dict (cvmrt or legacy CVM format)",
    "usage: cvmrt params FILE\n"
    "\n"
    "Lists every tensor of the param dict FILE (name, dtype, shape, bytes) and its metadata.\n"
    "Both the cvmrt format and the legacy CVM binary format are read.\n",
    run_params};

}  // namespace cli
}  // namespace cvm
