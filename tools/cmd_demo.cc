// cvmrt demo: allocate, fill and compute arrays, save them as param dicts and reload them.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/cvm.h"

namespace cvm {
namespace cli {
namespace {

int run_demo(const std::vector<std::string>& words) {
  Args args("demo", words, {}, 0, 1);
  const std::string dir = args.positional().empty() ? "." : args.positional()[0];
  std::cout << "cvmrt " << CVMRT_VERSION_STRING << ", backend " << current_backend() << "\n";
  NDArray weights = NDArray::empty({4, 8}, DataType::Int(8));
  int8_t* w = weights.mutable_data_as<int8_t>();
  for (int i = 0; i < 32; ++i) w[i] = static_cast<int8_t>(i * 7 - 100);
  NDArray bias = NDArray::zeros({8}, DataType::Int(32));
  fill(bias, 1000);
  NDArray widened = cast(weights, DataType::Int(32));
  NDArray shifted = add(widened, bias);  // (4, 8) + (8,) broadcasts
  std::cout << "allocated weights (4, 8) int8, filled bias (8,) int32 with 1000, computed "
               "cast(weights) + bias -> "
            << shifted.shape() << " " << shifted.dtype() << "\n";

  ParamDict dict;
  dict.set("weights", weights);
  dict.set("bias", bias);
  dict.set("shifted", shifted);
  dict.metadata()["producer"] = "cvmrt demo";
  const std::string modern = dir + "/demo.params";
  const std::string legacy = dir + "/demo.legacy.params";
  dict.save_file(modern, ParamFormat::kCvmrt);
  dict.save_file(legacy, ParamFormat::kLegacy);
  std::cout << "saved " << dict.size() << " tensors to " << modern << " (cvmrt format) and "
            << legacy << " (legacy CVM format)\n";

  struct Load {
    const char* how;
    ParamDict dict;
  };
  std::vector<Load> loads;
  loads.push_back({"mmap, zero-copy", ParamDict::load_file(modern)});
  loads.push_back({"read and copy", ParamDict::load_file_copy(modern)});
  loads.push_back({"legacy format", ParamDict::load_file(legacy)});
  int mismatches = 0;
  for (const Load& l : loads) {
    int bad = 0;
    for (const auto& [name, original] : dict.entries()) {
      const NDArray& back = l.dict.at(name);
      std::vector<uint8_t> a(original.nbytes()), b(back.nbytes());
      original.copy_to_bytes(a.data(), a.size());
      if (back.shape() == original.shape() && back.dtype() == original.dtype()) {
        back.copy_to_bytes(b.data(), b.size());
      }
      if (a != b) ++bad;
    }
    mismatches += bad;
    std::cout << "reloaded (" << l.how << "): " << l.dict.size() << " tensors, "
              << (bad ? "MISMATCH" : "identical") << "\n";
  }
  const int32_t* s = loads[0].dict.at("shifted").data_as<int32_t>();
  std::cout << "shifted[0, 0..3] = " << s[0] << " " << s[1] << " " << s[2] << " " << s[3] << "\n";
  return mismatches == 0 ? 0 : 2;
}

}  // namespace

const Command kDemoCommand = {
    "demo", "arrays, param dicts in both formats, reloaded three ways (the setup demo)",
    "usage: cvmrt demo [DIR]\n"
    "\n"
    "Allocates, fills and computes arrays, saves them as a param dict in both formats under\n"
    "DIR (default .): DIR/demo.params (cvmrt) and DIR/demo.legacy.params (legacy CVM), reloads\n"
    "them three ways (mapped, copied, legacy) and compares. Exit 2 on a mismatch.\n",
    run_demo};

}  // namespace cli
}  // namespace cvm
