// The cvmrt command-line tool: command dispatch, help and exit codes (commands in cmd_*.cc).
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/error.h"
#include "cvm/system.h"

namespace {

using cvm::cli::Command;

const Command* const kCommands[] = {
    &cvm::cli::kRunCommand,    &cvm::cli::kInspectCommand, &cvm::cli::kConvertCommand,
    &cvm::cli::kBenchCommand,  &cvm::cli::kVerifyCommand,  &cvm::cli::kInfoCommand,
    &cvm::cli::kParamsCommand, &cvm::cli::kDemoCommand,  &cvm::cli::kEvalCommand,
#ifdef CVMRT_HAVE_ONNX_IMPORT
    &cvm::cli::kImportCommand, &cvm::cli::kQuantizeCommand,
#endif
};

const Command* find_command(const std::string& name) {
  for (const Command* c : kCommands) {
    if (name == c->name) return c;
  }
  return nullptr;
}

void print_usage(std::ostream& os) {
  os << "usage: cvmrt [--threads N] <command> [args]   (cvmrt <command> --help for its options)\n"
        "\n"
        "commands:\n";
  for (const Command* c : kCommands) {
    os << "  " << c->name << std::string(10 - std::strlen(c->name), ' ') << c->summary << "\n";
  }
  os << "  help      this text, or `cvmrt help <command>`\n"
        "\n"
     << cvm::cli::kGlobalOptionsHelp
     << "\n"
        "MODEL is a cvmrt model file (cvmrt convert writes one) or a CVM graph JSON given with\n"
        "--params. Set CVMRT_BACKEND (or --backend where offered) to pick the kernels, CVMRT_ISA\n"
        "(scalar, avx2, avx512 or amx) to cap the x86 ISA level; `cvmrt inspect --system` shows\n"
        "what was chosen.\n"
        "\n"
        "exit status: 0 ok, 1 bad input (wrong arguments, malformed or missing files, a model\n"
        "that fails verification, a failed check), 2 runtime error (out of memory, I/O, ...)\n";
}

void print_command_help(const Command& c) {
  std::cout << c.help << "\n" << cvm::cli::kGlobalOptionsHelp;
}

bool wants_help(const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    if (w == "--") break;
    if (w == "--help" || w == "-h") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const cvm::cli::GlobalOptions global = cvm::cli::extract_global_options(&args);
  const std::string name = args.empty() ? "help" : args[0];
  if (name == "help" || name == "--help" || name == "-h") {
    if (args.size() >= 2) {
      if (const Command* c = find_command(args[1])) {
        print_command_help(*c);
        return 0;
      }
      std::cerr << "cvmrt: unknown command \"" << args[1] << "\"\n\n";
      print_usage(std::cerr);
      return 1;
    }
    print_usage(std::cout);
    return 0;
  }
  if (name == "--version") args = {"info"};
  const Command* command = find_command(name == "--version" ? "info" : name);
  if (command == nullptr) {
    std::cerr << "cvmrt: unknown command \"" << name << "\"\n\n";
    print_usage(std::cerr);
    return 1;
  }
  const std::vector<std::string> words(args.begin() + 1, args.end());
  if (wants_help(words)) {
    print_command_help(*command);
    return 0;
  }
  const std::string prefix = std::string("cvmrt ") + command->name;
  try {
    cvm::cli::apply_global_options(global);
    // Settings the library ignores (an unknown CVMRT_ISA) would otherwise pass unnoticed.
    for (const std::string& w : cvm::environment_warnings()) {
      std::cerr << "cvmrt: warning: " << w << "\n";
    }
    return command->run(words);
  } catch (const cvm::cli::UsageError& e) {
    std::cerr << prefix << ": error: " << e.what() << "\n(see `" << prefix << " --help`)\n";
    return 1;
  } catch (const cvm::LogicError& e) {
    std::cerr << prefix << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << prefix << ": runtime error: out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prefix << ": runtime error: " << e.what() << "\n";
    return 2;
  }
}
