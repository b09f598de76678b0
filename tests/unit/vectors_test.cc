// Conformance vectors (tests/vectors/**/*.json, format in tests/vectors/README.md): every case
// through run_op and through CVMOpRun on every compiled backend, plus infer_op / CVMOpInfer.
// Loading and the run_op / infer_op checks are tools/vectors.h's (shared with `cvmrt verify`).
#include <catch2/catch.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cvm/c_api.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/registry.h"
#include "test_util.h"
#include "vectors.h"  // tools/: the loader and checks `cvmrt verify` uses

namespace fs = std::filesystem;
using json = nlohmann::json;
using cvm::DataType;
using cvm::NDArray;

namespace {

// ---- the cases, loaded once by the loader `cvmrt verify` uses (tools/vectors.h) ----

using cvm::vectors::Case;
using cvm::vectors::Tensor;
using cvm::vectors::compare_error;

struct Corpus {
  std::vector<Case> cases;
  std::set<std::string> files;  // relative paths of the files holding cases
  std::string load_error;       // non-empty when a file is malformed
};

const Corpus& corpus() {
  static const Corpus* c = [] {
    auto* out = new Corpus();
    try {
      out->cases = cvm::vectors::load_dir((fs::path(CVM_TEST_DATA_DIR) / "vectors").string());
      for (const Case& k : out->cases) out->files.insert(k.file);
    } catch (const std::exception& e) {
      out->load_error = e.what();
    }
    return out;
  }();
  return *c;
}

const Corpus& loaded_corpus() {
  const Corpus& c = corpus();
  INFO(c.load_error);
  REQUIRE(c.load_error.empty());
  REQUIRE(!c.cases.empty());
  return c;
}

// ---- running one case through the C ABI (run_op and infer_op: cvm::vectors::check_*) ----

std::string attrs_json(const cvm::AttrMap& attrs) {
  json j = json::object();
  for (const auto& [k, v] : attrs) j[k] = v.text();
  return j.dump();
}

std::string run_capi(const Case& c) {
  std::vector<CVMArrayHandle> in;
  struct Freer {
    std::vector<CVMArrayHandle>* v;
    ~Freer() {
      for (CVMArrayHandle h : *v) CVMArrayFree(h);
    }
  } free_inputs{&in};
  for (const Tensor& t : c.inputs) {
    CVMArrayHandle h = nullptr;
    if (CVMArrayAlloc(t.shape.data(), static_cast<int>(t.shape.size()), t.dtype.code(),
                      t.dtype.bits(), 1, kDLCPU, 0, &h) != 0) {
      return std::string("C ABI: cannot make an input: ") + CVMGetLastError();
    }
    in.push_back(h);
    if (CVMArrayCopyFromBytes(h, const_cast<uint8_t*>(t.bytes.data()), t.bytes.size()) != 0) {
      return std::string("C ABI: cannot fill an input: ") + CVMGetLastError();
    }
  }
  CVMArrayHandle* outs = nullptr;
  int n = -1;
  int rc = CVMOpRun(c.op.c_str(), in.data(), static_cast<int>(in.size()),
                    attrs_json(c.attrs).c_str(), &outs, &n);
  if (rc != 0) {
    if (outs != nullptr || n != 0) return "C ABI: failure left outputs set";
    return compare_error(c, rc == 1 ? "logic" : "runtime", CVMGetLastError());
  }
  std::vector<CVMArrayHandle> out(outs, outs + n);
  Freer free_outputs{&out};
  if (c.error) return "C ABI: ran without the expected " + c.error->kind + " error";
  // The outputs' bytes, read through the C ABI, as arrays for the shared comparison.
  std::vector<NDArray> got;
  for (CVMArrayHandle h : out) {
    const DLTensor* t = h;
    const cvm::Shape shape(std::vector<int64_t>(t->shape, t->shape + t->ndim));
    const DataType dtype = DataType::from_dl(t->dtype);
    std::vector<uint8_t> bytes(static_cast<size_t>(shape.numel()) * dtype.bytes());
    if (CVMArrayCopyToBytes(h, bytes.data(), bytes.size()) != 0) {
      return std::string("C ABI: cannot read an output: ") + CVMGetLastError();
    }
    got.push_back(NDArray::from_bytes(bytes.data(), bytes.size(), shape, dtype));
  }
  const std::string d = cvm::vectors::compare_outputs(c, got);
  return d.empty() ? "" : "C ABI: " + d;
}

// Shape, precision and cost inference through CVMOpInfer, against the expected values.
std::string capi_infer(const Case& c) {
  std::vector<const int64_t*> shape_ptrs;
  std::vector<int> ndims;
  for (const Tensor& t : c.inputs) {
    shape_ptrs.push_back(t.shape.data());
    ndims.push_back(static_cast<int>(t.shape.size()));
  }
  int n = -1;
  const int64_t* const* out_shapes = nullptr;
  const int* out_ndims = nullptr;
  const int* out_precisions = nullptr;
  int64_t cost = -1;
  const int rc = CVMOpInfer(c.op.c_str(), shape_ptrs.data(), ndims.data(),
                            c.input_precisions->data(), static_cast<int>(c.inputs.size()),
                            attrs_json(c.attrs).c_str(), &n, &out_shapes, &out_ndims,
                            &out_precisions, &cost);
  if (c.error) {
    if (rc == 0) return "CVMOpInfer ran without the expected error";
    const std::string d = compare_error(c, rc == 1 ? "logic" : "runtime", CVMGetLastError());
    return d.empty() ? "" : "CVMOpInfer: " + d;
  }
  if (rc != 0) return std::string("CVMOpInfer failed: ") + CVMGetLastError();
  if (n != static_cast<int>(c.outputs.size())) {
    return "CVMOpInfer: " + std::to_string(n) + " outputs, expected " +
           std::to_string(c.outputs.size());
  }
  std::ostringstream diff;
  for (int i = 0; i < n; ++i) {
    if (std::vector<int64_t>(out_shapes[i], out_shapes[i] + out_ndims[i]) != c.outputs[i].shape) {
      diff << "CVMOpInfer: output " << i << " shape differs; ";
    }
    if (out_precisions[i] != c.precisions->at(static_cast<size_t>(i))) {
      diff << "CVMOpInfer: output " << i << " precision " << out_precisions[i] << ", expected "
           << c.precisions->at(static_cast<size_t>(i)) << "; ";
    }
  }
  if (cost != *c.cost_base) diff << "CVMOpInfer: cost " << cost << ", expected " << *c.cost_base;
  return diff.str();
}

// Restores the backend selected before the test, whatever happens.
struct BackendRestorer {
  std::string saved = cvm::current_backend();
  ~BackendRestorer() { cvm::set_backend(saved); }
};

// Every failure of one case, "" when it passes everywhere.
std::string check_case(const Case& c) {
  std::string failures;
  if (cvm::vectors::needs_run(c)) {
    BackendRestorer restore;
    for (const std::string& backend : cvm::test::runnable_backends()) {
      cvm::set_backend(backend);
      const cvm::Device device = cvm::test::backend_device(backend);
      std::string d = cvm::vectors::check_run(c, device);
      if (!d.empty()) failures += "[" + backend + " run_op] " + d + "; ";
      if (!device.is_cpu()) continue;  // CVMOpRun takes CPU arrays
      d = run_capi(c);
      if (!d.empty()) failures += "[" + backend + " CVMOpRun] " + d + "; ";
    }
  }
  if (cvm::vectors::needs_infer(c)) {
    for (const std::string& d : {cvm::vectors::check_infer(c), capi_infer(c)}) {
      if (!d.empty()) failures += "[infer] " + d + "; ";
    }
  }
  return failures;
}

bool is_hand(const Case& c) { return c.source == "hand" || c.source == "spec"; }

}  // namespace

TEST_CASE("conformance vectors pass on every backend via run_op and CVMOpRun", "[vectors]") {
  const Corpus& all = loaded_corpus();
  struct Count {
    int hand = 0, generated = 0, failed = 0;
  };
  std::map<std::string, Count> per_op;
  for (const Case& c : all.cases) {
    std::string failures = check_case(c);
    Count& n = per_op[c.op];
    (is_hand(c) ? n.hand : n.generated) += 1;
    if (!failures.empty()) ++n.failed;
    INFO(c.where);
    CHECK(failures == "");
  }
  std::cout << "conformance vectors: " << all.cases.size() << " cases in " << all.files.size()
            << " files, backends:";
  for (const std::string& b : cvm::compiled_backends()) std::cout << " " << b;
  std::cout << "\n";
  for (const auto& [op, n] : per_op) {
    std::cout << "  " << op << ": " << n.hand << " hand, " << n.generated << " generated"
              << (n.failed ? ", " + std::to_string(n.failed) + " FAILED" : std::string()) << "\n";
  }
}

TEST_CASE("conformance vector files name registered operators only", "[vectors]") {
  const Corpus& all = loaded_corpus();
  std::map<std::string, bool> registered;
  for (const cvm::OpInfo& info : cvm::list_ops()) registered[info.name] = true;
  for (const Case& c : all.cases) {
    INFO(c.where);
    CHECK(registered.count(c.op) == 1);
    // generated/<op>.json holds exactly that operator's generated cases.
    if (c.file.rfind("generated/", 0) == 0) {
      CHECK(c.file == "generated/" + c.op + ".json");
      CHECK(c.source == "generated");
    } else {
      CHECK(is_hand(c));
    }
  }
}

TEST_CASE("every registered CVM operator has hand and generated vectors", "[vectors]") {
  const Corpus& all = loaded_corpus();
  std::map<std::string, std::pair<int, int>> counts;
  for (const Case& c : all.cases) {
    auto& n = counts[c.op];
    (is_hand(c) ? n.first : n.second) += 1;
  }
  int cvm_ops = 0;
  for (const cvm::OpInfo& info : cvm::list_ops()) {
    if (!info.cvm) continue;
    ++cvm_ops;
    INFO("operator " << info.name);
    CHECK(counts[info.name].first >= 1);
    CHECK(counts[info.name].second >= 1);
  }
  CHECK(cvm_ops >= 1);
}
