// cvmrt inspect: a model's nodes (op, shapes, precisions, cost), the kernels each would run with,
// its cost and its memory plan; or (--system) the CPU, ISA level, threads and kernels this
// process would run with.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/model.h"
#include "cvm/system.h"

namespace cvm {
namespace cli {
namespace {

template <typename T, typename F>
std::string join(const std::vector<T>& items, F&& fn) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + fn(items[i]);
  return out;
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t c = 0; c < row.size(); ++c) {
      // Numbers (the first and the last two columns) right-aligned, text left-aligned.
      const bool right = c == 0 || c + 2 >= row.size();
      const std::string pad(width[c] - row[c].size(), ' ');
      line += " " + (right ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : ""));
    }
    std::cout << line << "\n";
  }
}

std::string io_desc(const TensorInfo& t) {
  return "\"" + t.name + "\" " + shape_str(t.shape) + " precision " + std::to_string(t.precision) +
         " (" + t.io_dtype.name() + ")";
}

// Per operator node, the chain of kernels a session binds it to, and why entries are missing or
// moved: what will run, with nothing falling back silently.
void print_kernels(const std::shared_ptr<const Model>& model, const std::string& backend) {
  const Session session(model, SessionOptions{backend});
  std::cout << "\nkernels (backend " << session.backend()
            << "; per node the entries tried in order, the first that takes the call runs):\n";
  std::vector<std::vector<std::string>> rows;
  for (const NodeKernelPlan& node : session.kernel_plan()) {
    if (!node.fused_into.empty()) {  // computed by another node's clamp pass
      rows.push_back({node.node, node.op, "(in " + node.fused_into + "'s pass)"});
      continue;
    }
    for (size_t i = 0; i < node.chains.size(); ++i) {
      const NodeKernelPlan::Chain& c = node.chains[i];
      std::string chain;
      for (const std::string& e : c.entries) {
        chain += (chain.empty() ? "" : " > ") + e + (e == c.packed_for ? " (weight packed)" : "");
      }
      rows.push_back({i == 0 ? node.node : "", i == 0 ? node.op : "", chain});
      if (i == 0 && node.int8_output) rows.push_back({"", "", "  writes its output as int8"});
      for (const std::string& note : c.notes) rows.push_back({"", "", "  " + note});
    }
  }
  for (const auto& row : rows) {
    std::cout << "  " << row[0] << std::string(row[0].size() < 24 ? 24 - row[0].size() : 1, ' ')
              << row[1] << std::string(row[1].size() < 16 ? 16 - row[1].size() : 1, ' ') << row[2]
              << "\n";
  }
}

void print_system() {
  SystemInfo info = system_info();
  if (threads_option() > 0) info.threads_source = "--threads";
  std::cout << format_system_info(info);
}

int run_inspect(const std::vector<std::string>& words) {
  Args args("inspect", words, {{"params"}, {"backend"}, {"system", false}}, 0, 1);
  const bool system = args.has("system");
  if (!system && args.positional().empty()) throw UsageError("missing argument");
  if (system && args.positional().empty()) {
    print_system();
    return 0;
  }
  const std::string path = args.positional()[0];
  std::shared_ptr<const Model> model = load_model(path, args.get("params"));

  std::cout << "model:    " << path << " (" << model->version() << ", " << model->nodes().size()
            << " nodes, postprocess \"" << model->postprocess() << "\")\n";
  std::string producer = model->producer();
  if (producer.empty()) {
    producer = is_cvm_json(path, args.get("params")) ? "unknown (CVM JSON)"
                                                     : "unknown (written before cvmrt 0.2.0)";
  }
  std::cout << "producer: " << producer << "\n";
  const ModelMetadata& meta = model->metadata();
  if (!meta.name.empty()) std::cout << "name:     " << meta.name << "\n";
  if (!meta.description.empty()) std::cout << "about:    " << meta.description << "\n";
  if (!meta.labels.empty()) {
    std::cout << "labels:   " << meta.labels.size() << " (" << meta.labels.front()
              << (meta.labels.size() > 1 ? ", ..." : "") << ")\n";
  }
  std::cout << "\n";

  std::vector<std::vector<std::string>> rows = {
      {"#", "node", "op", "output shapes", "precision", "cost base", "ops"}};
  uint64_t ops_sum = 0;
  for (size_t i = 0; i < model->nodes().size(); ++i) {
    const NodeInfo& n = model->nodes()[i];
    const bool variable = n.op == "null";
    const uint64_t ops = variable ? 0
                                  : static_cast<uint64_t>(n.cost_base) *
                                        static_cast<uint64_t>(n.output_shapes.at(0).numel());
    ops_sum += ops;
    rows.push_back({std::to_string(i), n.name, n.op,
                    join(n.output_shapes, [](const Shape& s) { return shape_str(s); }),
                    join(n.output_precisions, [](int p) { return std::to_string(p); }),
                    variable ? "-" : with_commas(static_cast<uint64_t>(n.cost_base)),
                    variable ? "-" : with_commas(ops)});
  }
  print_table(rows);

  const ModelCost cost = model->cost();
  std::cout << "\ninput:    " << io_desc(model->inputs().at(0)) << ", " << model->input_length()
            << " bytes\n";
  for (size_t k = 0; k < model->outputs().size(); ++k) {
    std::cout << (k == 0 ? "outputs:  " : "          ") << io_desc(model->outputs()[k]) << "\n";
  }
  std::cout << "result:   " << model->output_length() << " bytes of "
            << (model->output_type_size() == 1 ? "int8" : "int32") << " (CVMAPIInference output)\n";
  std::cout << "\ncost:     ops " << with_commas(cost.ops) << ", mem " << with_commas(cost.mem)
            << ", total " << with_commas(cost.total) << "\n";
  if (ops_sum != cost.ops) {
    std::cout << "          (per-node ops sum to " << with_commas(ops_sum) << ")\n";
  }
  const uint64_t planned = model->planned_bytes(), unplanned = model->unplanned_bytes();
  const double saving =
      unplanned == 0 ? 0.0 : 100.0 * (static_cast<double>(unplanned) - planned) / unplanned;
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f%%", saving);
  std::cout << "memory:   planned " << with_commas(planned) << " bytes (" << human_bytes(planned)
            << ": params " << with_commas(model->params_bytes()) << " + activations "
            << with_commas(model->activation_bytes()) << ")\n"
            << "          unplanned " << with_commas(unplanned) << " bytes ("
            << human_bytes(unplanned) << ", every entry without reuse)\n"
            << "          saving " << pct
            << (planned > unplanned ? " (tiny entries: the plan aligns each block to 64 bytes)"
                                    : "")
            << "\n";
  if (model->storage_id_bytes() != 0) {
    std::cout << "          CVM storage_id pool: " << with_commas(model->storage_id_bytes())
              << " bytes\n";
  }
  print_kernels(model, args.get("backend", "auto"));
  if (system) {
    std::cout << "\nsystem:\n";
    print_system();
  }
  return 0;
}

}  // namespace

const Command kInspectCommand = {
    "inspect", "a model's nodes, shapes, cost and memory plan; --system: CPU, ISA, threads",
    "usage: cvmrt inspect MODEL [--params P] [--backend B] [--system]\n"
    "       cvmrt inspect --system\n"
    "\n"
    "Verifies MODEL (a cvmrt model file, or a CVM graph JSON with --params) and prints:\n"
    "  - who wrote a model file (its producer, e.g. \"cvmrt 0.2.0\"; older files name none);\n"
    "  - one row per node: name, op (null = variable), output shapes, output precisions,\n"
    "    cost base and ops (= cost base x elements of output 0; spec section 6);\n"
    "  - the input, the outputs and the CVMAPIInference byte layout;\n"
    "  - the cost: ops, mem (5 x elements of every variable and op output), total;\n"
    "  - the memory plan: planned bytes (params + one session's activations after\n"
    "    liveness-based reuse) against unplanned bytes (every entry on its own) and the saving;\n"
    "  - per node, the kernels a session binds it to, in the order they are tried (what__how\n"
    "    names; the first that takes the call runs, the scalar reference last), the entry its\n"
    "    constant weight is packed for, and why the backend's other entries are skipped\n"
    "    (CPU features) or moved (shape preference).\n"
    "\n"
    "  --params P   the params of a CVM graph JSON (legacy CVM or cvmrt format)\n"
    "  --backend B  the backend whose kernels head the chains (default: auto, the best)\n"
    "  --system     report what this process runs with (after the model's report, if any):\n"
    "               the CPU and its features, the x86 ISA level chosen and the CVMRT_ISA cap,\n"
    "               whether AMX was permitted, the thread count and where it comes from\n"
    "               (default, CVMRT_THREADS or --threads), the backends, and the kernel\n"
    "               (backend/variant) each op and dtype dispatches to. Warnings first: an\n"
    "               unknown CVMRT_ISA, a malformed CVMRT_THREADS or CVMRT_BACKEND.\n",
    run_inspect};

}  // namespace cli
}  // namespace cvm
