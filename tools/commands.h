// The commands of the cvmrt tool: one function and one help text per command (tools/cmd_*.cc).
#pragma once

#include <string>
#include <vector>

namespace cvm {
namespace cli {

// A command gets the words after its name and returns the exit status (0 ok, 1 bad input, 2 runtime
// error). It throws UsageError / cvm::LogicError (status 1) or anything else (status 2) for the
// dispatcher in cvmrt.cc to report.
using CommandFn = int (*)(const std::vector<std::string>& words);

struct Command {
  const char* name;
  const char* summary;  // one line for "cvmrt help"
  const char* help;     // the full text of "cvmrt <name> --help"
  CommandFn run;
};

extern const Command kInfoCommand;
extern const Command kParamsCommand;
extern const Command kDemoCommand;
extern const Command kRunCommand;
extern const Command kInspectCommand;
extern const Command kConvertCommand;
extern const Command kBenchCommand;
extern const Command kVerifyCommand;
extern const Command kEvalCommand;
extern const Command kImportCommand;    // built with ONNX only (CVMRT_HAVE_ONNX_IMPORT)
extern const Command kQuantizeCommand;  // likewise

}  // namespace cli
}  // namespace cvm
