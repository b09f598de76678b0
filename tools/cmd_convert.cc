// cvmrt convert: import a CVM model (graph JSON + params) into one cvmrt model file.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/model.h"

namespace cvm {
namespace cli {
namespace {

// One label per line; trailing spaces and CR dropped; empty lines kept (a class without name).
std::vector<std::string> read_labels(const std::string& path) {
  std::vector<std::string> labels;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    labels.push_back(line);
  }
  while (!labels.empty() && labels.back().empty()) labels.pop_back();
  return labels;
}

int run_convert(const std::vector<std::string>& words) {
  Args args("convert", words, {{"output", true, false, 'o'}, {"name"}, {"description"}, {"labels"}},
            2, 2);
  if (!args.has("output")) throw UsageError("missing -o MODEL.cvmrt (the file to write)");
  const std::string graph = args.positional()[0], params = args.positional()[1];
  const std::string out = args.get("output");
  ModelOptions options;
  options.metadata.name = args.get("name");
  options.metadata.description = args.get("description");
  if (args.has("labels")) options.metadata.labels = read_labels(args.get("labels"));
  std::shared_ptr<const Model> model = load_model(graph, params, options);
  model->save_file(out);
  // Read back: the file must load and describe the same model.
  std::shared_ptr<const Model> back = Model::load_file(out);
  CVM_CHECK(back->cost().total == model->cost().total)
      << out << ": the written model's cost differs from the imported one";
  std::cout << "wrote " << out << " (" << with_commas(model->save().size()) << " bytes, "
            << model->nodes().size() << " nodes";
  if (!options.metadata.labels.empty()) {
    std::cout << ", " << options.metadata.labels.size() << " labels";
  }
  std::cout << ")\ncost: " << cost_str(model->cost()) << "\n";
  return 0;
}

}  // namespace

const Command kConvertCommand = {
    "convert", "import a CVM graph JSON + params into a cvmrt model file",
    "usage: cvmrt convert GRAPH.json PARAMS -o MODEL.cvmrt [--name N] [--description D]\n"
    "                     [--labels FILE]\n"
    "\n"
    "Verifies the CVM model (graph JSON + params in the legacy CVM or the cvmrt format) and\n"
    "writes it as one cvmrt model file holding the graph and the params; the same input always\n"
    "gives the same bytes. The written file is read back and checked.\n"
    "\n"
    "  -o, --output FILE    the model file to write (required)\n"
    "  --name N             a name stored in the model\n"
    "  --description D      a description stored in the model\n"
    "  --labels FILE        class labels, one per line (index = class id)\n",
    run_convert};

}  // namespace cli
}  // namespace cvm
