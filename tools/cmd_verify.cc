// cvmrt verify: run the conformance vectors on every (or one) backend, pass/fail per op.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/registry.h"
#include "vectors.h"

namespace cvm {
namespace cli {
namespace {

// Failures listed in full (the rest are counted).
constexpr size_t kMaxListed = 40;

std::string default_vectors_dir() {
  if (const char* env = std::getenv("CVMRT_VECTORS")) return env;
  std::error_code ec;
  if (std::filesystem::is_directory("tests/vectors", ec)) return "tests/vectors";
#ifdef CVMRT_SOURCE_DIR
  return std::string(CVMRT_SOURCE_DIR) + "/tests/vectors";
#else
  return "tests/vectors";
#endif
}

struct Tally {
  int passed = 0, failed = 0;
};

std::string cell(const Tally& t) {
  if (t.passed + t.failed == 0) return "-";
  if (t.failed == 0) return "ok " + std::to_string(t.passed);
  return "FAIL " + std::to_string(t.failed) + "/" + std::to_string(t.passed + t.failed);
}

int run_verify(const std::vector<std::string>& words) {
  Args args("verify", words, {{"vectors"}, {"backend"}, {"op", true, true}}, 0, 0);
  const std::string dir = args.get("vectors", default_vectors_dir());
  std::vector<std::string> backends = compiled_backends();
  if (args.has("backend")) {
    const std::string b = args.get("backend");
    if (std::find(backends.begin(), backends.end(), b) == backends.end()) {
      std::string list;
      for (const std::string& x : backends) list += (list.empty() ? "" : ", ") + x;
      CVM_LOGIC_ERROR() << "unknown backend \"" << b << "\" (compiled: " << list << ")";
    }
    backends = {b};
  }
  // The CUDA backend runs the vectors on GPU 0, with the inputs copied there; without a GPU it
  // is left out, saying why (and asked for by name, that is an error).
  const auto cuda = std::find(backends.begin(), backends.end(), "cuda");
  std::string why;
  if (cuda != backends.end() && device_count(kDLCUDA, &why) == 0) {
    if (args.has("backend")) CVM_RUNTIME_ERROR() << "--backend cuda: " << why;
    std::printf("cuda: skipped, %s\n", why.c_str());
    backends.erase(cuda);
  }
  const std::vector<std::string> only = args.get_all("op");
  std::vector<vectors::Case> cases = vectors::load_dir(dir);
  if (!only.empty()) {
    cases.erase(std::remove_if(cases.begin(), cases.end(),
                               [&](const vectors::Case& c) {
                                 return std::find(only.begin(), only.end(), c.op) == only.end();
                               }),
                cases.end());
    if (cases.empty()) CVM_LOGIC_ERROR() << "no vectors for the operators given with --op";
  }

  // columns: each backend (running), then "infer" (shapes, precisions, cost: no kernels)
  std::vector<std::string> columns = backends;
  columns.push_back("infer");
  std::map<std::string, std::vector<Tally>> table;  // op -> one Tally per column
  std::vector<std::string> failures;
  const std::string saved = current_backend();
  auto record = [&](const vectors::Case& c, size_t column, const std::string& diff) {
    std::vector<Tally>& row = table[c.op];
    row.resize(columns.size());
    if (diff.empty()) {
      ++row[column].passed;
    } else {
      ++row[column].failed;
      failures.push_back("[" + columns[column] + "] " + c.where + ": " + diff);
    }
  };
  for (size_t b = 0; b < backends.size(); ++b) {
    set_backend(backends[b]);
    for (const vectors::Case& c : cases) {
      const Device device = backends[b] == "cuda" ? Device::cuda(0) : Device::cpu();
      if (vectors::needs_run(c)) record(c, b, vectors::check_run(c, device));
    }
  }
  set_backend(saved);
  for (const vectors::Case& c : cases) {
    if (vectors::needs_infer(c)) record(c, columns.size() - 1, vectors::check_infer(c));
  }

  std::printf("conformance vectors: %zu cases from %s\n\n", cases.size(), dir.c_str());
  auto print_row = [](const std::string& first, const std::vector<std::string>& cells) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-22s", first.c_str());
    std::string line = buf;
    for (const std::string& c : cells) {
      std::snprintf(buf, sizeof buf, " %-12s", c.c_str());
      line += buf;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  };
  print_row("op", columns);
  for (const auto& [op, row] : table) {
    std::vector<std::string> cells;
    for (const Tally& t : row) cells.push_back(cell(t));
    print_row(op, cells);
  }
  if (!failures.empty()) {
    std::fprintf(stderr, "\nfailures:\n");
    for (size_t i = 0; i < failures.size() && i < kMaxListed; ++i) {
      std::fprintf(stderr, "  %s\n", failures[i].c_str());
    }
    if (failures.size() > kMaxListed) {
      std::fprintf(stderr, "  ... %zu more\n", failures.size() - kMaxListed);
    }
  }
  std::printf("\n%s: %zu checks failed, backends:", failures.empty() ? "PASS" : "FAIL",
              failures.size());
  for (const std::string& b : backends) std::printf(" %s", b.c_str());
  std::printf("\n");
  return failures.empty() ? 0 : 1;
}

}  // namespace

const Command kVerifyCommand = {
    "verify", "run the conformance vectors on each backend; pass/fail per op",
    "usage: cvmrt verify [--vectors DIR] [--backend B] [--op NAME]...\n"
    "\n"
    "Loads every conformance vector (DIR/**/*.json, format in tests/vectors/README.md), runs\n"
    "each case with run_op on each compiled backend, and checks shape, precision and cost\n"
    "inference (infer_op) for CVM operators. Prints one row per operator with a column per\n"
    "backend and one for inference (\"ok N\" or \"FAIL failed/total\"); failures are listed on\n"
    "stderr. Exit 1 on any failure or a malformed vector file.\n"
    "\n"
    "  --vectors DIR   the vectors folder (default: $CVMRT_VECTORS, else ./tests/vectors, else\n"
    "                  the source tree's tests/vectors)\n"
    "  --backend B     only this backend (default: every compiled backend)\n"
    "  --op NAME       only this operator (repeatable)\n",
    run_verify};

}  // namespace cli
}  // namespace cvm
