// cvmrt import: convert an ONNX model (float32, static shapes) into a cvmrt model file.
#include <iostream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/model.h"
#include "cvm/onnx_import.h"

namespace cvm {
namespace cli {
namespace {

int run_import(const std::vector<std::string>& words) {
  Args args("import", words, {{"output", true, false, 'o'}, {"batch"}}, 1, 1);
  if (!args.has("output")) throw UsageError("missing -o MODEL.cvmrt (the file to write)");
  const std::string in = args.positional()[0];
  const std::string out = args.get("output");
  onnx::ImportOptions options;
  options.batch = args.get_int("batch", 1, 1, int64_t{1} << 24);
  std::shared_ptr<const Model> model = onnx::import_onnx_file(in, options);
  model->save_file(out);
  // Read back: the file must load and describe the same model.
  std::shared_ptr<const Model> back = Model::load_file(out);
  CVM_CHECK(back->cost().total == model->cost().total)
      << out << ": the written model's cost differs from the imported one";
  std::cout << "wrote " << out << ": " << model->nodes().size() << " nodes, params "
            << with_commas(model->params_bytes()) << " bytes, cost " << cost_str(model->cost())
            << "\n";
  return 0;
}

}  // namespace

const Command kImportCommand = {
    "import", "convert an ONNX model into a cvmrt model file",
    "usage: cvmrt import MODEL.onnx -o OUT.cvmrt [--batch N]\n"
    "\n"
    "Imports a float32 ONNX model with static shapes (docs/onnx-import.md lists the supported\n"
    "operators), folds its constant parts, and writes it as one cvmrt model file (a float graph\n"
    "with its params). The written file is read back and checked. An unsupported operator,\n"
    "attribute or dynamic dimension is an error (exit status 1) naming the node.\n"
    "\n"
    "  -o, --output FILE    the model file to write (required)\n"
    "  --batch N            the extent of a symbolic first (batch) input dimension (default 1)\n",
    run_import};

}  // namespace cli
}  // namespace cvm
