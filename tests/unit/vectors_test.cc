// Conformance vectors (tests/vectors/**/*.json, format in tests/vectors/README.md): every case
// through run_op and through CVMOpRun on every compiled backend, plus infer_op / CVMOpInfer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cvm/c_api.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/registry.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using cvm::DataType;
using cvm::NDArray;

namespace {

// ---- the case model and its loader ----

struct TensorSpec {
  std::vector<int64_t> shape;
  DataType dtype = DataType::Int(32);
  std::vector<uint8_t> bytes;  // row-major, little-endian
};

struct ErrorSpec {
  std::string kind;                   // "logic" or "runtime"
  std::vector<std::string> contains;  // every one must occur in the message
  std::string in = "both";            // "run", "infer" or "both"
};

struct VectorCase {
  std::string where;  // "hand/nn.json #3 (dense: spec cost example)"
  std::string file;   // path relative to tests/vectors
  std::string name, op, source;
  cvm::AttrMap attrs;
  std::vector<TensorSpec> inputs;
  std::optional<std::vector<int>> input_precisions;
  std::vector<TensorSpec> outputs;
  std::optional<std::vector<int>> precisions;
  std::optional<int64_t> cost_base;
  std::optional<ErrorSpec> error;
};

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

void require_keys(const json& obj, const std::string& where,
                  std::initializer_list<const char*> allowed) {
  if (!obj.is_object()) bad(where, "expected an object, found " + obj.dump().substr(0, 80));
  for (const auto& item : obj.items()) {
    if (std::find_if(allowed.begin(), allowed.end(),
                     [&](const char* k) { return item.key() == k; }) == allowed.end()) {
      bad(where, "unknown key \"" + item.key() + "\"");
    }
  }
}

const json& need(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) bad(where, std::string("missing key \"") + key + "\"");
  return *it;
}

std::vector<uint8_t> parse_hex(const std::string& hex, const std::string& where) {
  if (hex.size() % 2 != 0) bad(where, "data_hex has an odd number of digits");
  std::vector<uint8_t> out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    auto nibble = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      bad(where, std::string("bad hex digit '") + c + "'");
    };
    out.push_back(static_cast<uint8_t>(nibble(hex[i]) * 16 + nibble(hex[i + 1])));
  }
  return out;
}

// One integer or bool element, range-checked for `t`, appended little-endian.
void append_int(const json& v, DataType t, std::vector<uint8_t>* out, const std::string& where) {
  if (!v.is_number_integer()) bad(where, "data holds a non-integer " + v.dump());
  const int bits = t.bits();
  bool ok;
  uint64_t u;
  if (v.is_number_unsigned()) {
    u = v.get<uint64_t>();
    ok = t.is_uint() || t.is_bool() ? (bits == 64 || u < (uint64_t(1) << bits))
                                    : u < (uint64_t(1) << (bits - 1));
  } else {
    int64_t s = v.get<int64_t>();
    u = static_cast<uint64_t>(s);
    ok = t.is_int() &&
         (bits == 64 || (s >= -(int64_t(1) << (bits - 1)) && s < (int64_t(1) << (bits - 1))));
    ok = ok || (s >= 0 && (t.is_uint() || t.is_bool()) && (bits == 64 || s < (int64_t(1) << bits)));
  }
  if (t.is_bool()) ok = ok && u <= 1;
  if (!ok) bad(where, "value " + v.dump() + " does not fit " + t.name());
  for (int b = 0; b < bits / 8; ++b) out->push_back(static_cast<uint8_t>(u >> (8 * b)));
}

TensorSpec parse_tensor(const json& j, const std::string& where) {
  require_keys(j, where, {"shape", "dtype", "data", "data_hex"});
  TensorSpec t;
  t.shape = need(j, "shape", where).get<std::vector<int64_t>>();
  t.dtype = DataType::parse(need(j, "dtype", where).get<std::string>());
  int64_t numel = 1;
  for (int64_t d : t.shape) {
    if (d < 0) bad(where, "negative extent");
    numel *= d;
  }
  const bool has_data = j.contains("data"), has_hex = j.contains("data_hex");
  if (has_data == has_hex) bad(where, "exactly one of \"data\" and \"data_hex\" is needed");
  if (has_hex) {
    t.bytes = parse_hex(j["data_hex"].get<std::string>(), where);
  } else {
    if (t.dtype.is_float()) bad(where, "float data must be given as data_hex (exact bits)");
    for (const json& v : j["data"]) append_int(v, t.dtype, &t.bytes, where);
  }
  if (t.bytes.size() != static_cast<size_t>(numel) * t.dtype.bytes()) {
    bad(where, "data holds " + std::to_string(t.bytes.size()) + " bytes, shape and dtype need " +
                   std::to_string(static_cast<size_t>(numel) * t.dtype.bytes()));
  }
  return t;
}

std::vector<TensorSpec> parse_tensors(const json& j, const std::string& where) {
  std::vector<TensorSpec> out;
  if (!j.is_array()) bad(where, "expected a list of tensors");
  for (size_t i = 0; i < j.size(); ++i) {
    out.push_back(parse_tensor(j[i], where + " tensor " + std::to_string(i)));
  }
  return out;
}

VectorCase parse_case(const json& j, const std::string& file, size_t index) {
  std::string where = file + " #" + std::to_string(index);
  require_keys(
      j, where,
      {"name", "op", "attrs", "inputs", "input_precisions", "expected", "error", "source", "note"});
  VectorCase c;
  c.file = file;
  c.name = need(j, "name", where).get<std::string>();
  c.op = need(j, "op", where).get<std::string>();
  c.where = where + " (" + c.op + ": " + c.name + ")";
  where = c.where;
  c.source = need(j, "source", where).get<std::string>();
  if (c.source != "spec" && c.source != "hand" && c.source != "generated") {
    bad(where, "source must be spec, hand or generated");
  }
  if (j.contains("attrs")) {
    for (const auto& item : j["attrs"].items()) {
      if (!item.value().is_string()) bad(where, "attribute values are CVM strings");
      c.attrs[item.key()] = item.value().get<std::string>();
    }
  }
  c.inputs = parse_tensors(need(j, "inputs", where), where + " inputs");
  if (j.contains("input_precisions"))
    c.input_precisions = j["input_precisions"].get<std::vector<int>>();
  if (c.input_precisions && c.input_precisions->size() != c.inputs.size()) {
    bad(where, "input_precisions must have one entry per input");
  }
  if (j.contains("expected") == j.contains("error")) {
    bad(where, "exactly one of \"expected\" and \"error\" is needed");
  }
  if (j.contains("expected")) {
    const json& e = j["expected"];
    require_keys(e, where + " expected", {"outputs", "precisions", "cost_base"});
    c.outputs = parse_tensors(need(e, "outputs", where), where + " outputs");
    if (e.contains("precisions")) c.precisions = e["precisions"].get<std::vector<int>>();
    if (e.contains("cost_base")) c.cost_base = e["cost_base"].get<int64_t>();
    if (c.precisions.has_value() != c.cost_base.has_value() ||
        c.precisions.has_value() != c.input_precisions.has_value()) {
      bad(where, "input_precisions, precisions and cost_base go together");
    }
  } else {
    const json& e = j["error"];
    require_keys(e, where + " error", {"kind", "contains", "in"});
    ErrorSpec err;
    err.kind = need(e, "kind", where).get<std::string>();
    if (err.kind != "logic" && err.kind != "runtime") bad(where, "error kind: logic or runtime");
    const json& contains = need(e, "contains", where);
    if (contains.is_string()) {
      err.contains.push_back(contains.get<std::string>());
    } else {
      err.contains = contains.get<std::vector<std::string>>();
    }
    if (e.contains("in")) err.in = e["in"].get<std::string>();
    if (err.in != "run" && err.in != "infer" && err.in != "both")
      bad(where, "error in: run/infer/both");
    if (err.in == "infer" && !c.input_precisions)
      bad(where, "an infer error needs input_precisions");
    c.error = err;
  }
  return c;
}

struct Corpus {
  std::vector<VectorCase> cases;
  std::vector<std::string> files;  // relative paths
  std::string load_error;          // non-empty when a file is malformed
};

const Corpus& corpus() {
  static const Corpus* c = [] {
    auto* out = new Corpus();
    const fs::path root = fs::path(CVM_TEST_DATA_DIR) / "vectors";
    try {
      std::vector<fs::path> paths;
      for (const auto& e : fs::recursive_directory_iterator(root)) {
        if (e.is_regular_file() && e.path().extension() == ".json") paths.push_back(e.path());
      }
      std::sort(paths.begin(), paths.end());
      for (const fs::path& p : paths) {
        std::string rel = fs::relative(p, root).generic_string();
        out->files.push_back(rel);
        std::ifstream in(p, std::ios::binary);
        json doc = json::parse(in, nullptr, false);
        if (doc.is_discarded()) bad(rel, "not valid JSON");
        if (!doc.is_array()) bad(rel, "a vector file holds a list of cases");
        std::set<std::pair<std::string, std::string>> names;
        for (size_t i = 0; i < doc.size(); ++i) {
          out->cases.push_back(parse_case(doc[i], rel, i));
          const VectorCase& last = out->cases.back();
          if (!names.insert({last.op, last.name}).second) bad(last.where, "duplicate case name");
        }
      }
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

// ---- running one case ----

NDArray make_array(const TensorSpec& t) {
  NDArray a = NDArray::empty(cvm::Shape(t.shape), t.dtype);
  a.copy_from_bytes(t.bytes.data(), t.bytes.size());
  return a;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

// Empty when `got` (shape, dtype, bytes) equals `want`; else what differs.
std::string compare_tensor(const TensorSpec& want, const std::vector<int64_t>& shape,
                           DataType dtype, const std::vector<uint8_t>& bytes) {
  if (shape != want.shape)
    return "shape " + shape_text(shape) + ", expected " + shape_text(want.shape);
  if (dtype != want.dtype) return "dtype " + dtype.name() + ", expected " + want.dtype.name();
  const size_t w = want.dtype.bytes();
  for (size_t i = 0; i * w < bytes.size(); ++i) {
    if (std::memcmp(&bytes[i * w], &want.bytes[i * w], w) == 0) continue;
    auto value = [&](const std::vector<uint8_t>& b) {
      uint64_t u = 0;
      for (size_t k = 0; k < w; ++k) u |= uint64_t(b[i * w + k]) << (8 * k);
      if (want.dtype.is_int() && w < 8 && (u >> (8 * w - 1)) != 0) u |= ~uint64_t(0) << (8 * w);
      std::ostringstream os;
      if (want.dtype.is_int()) {
        os << static_cast<int64_t>(u);
      } else {
        os << "0x" << std::hex << u;
      }
      return os.str();
    };
    return "element " + std::to_string(i) + " is " + value(bytes) + ", expected " +
           value(want.bytes);
  }
  return "";
}

std::string compare_outputs(const VectorCase& c, const std::vector<NDArray>& got) {
  if (got.size() != c.outputs.size()) {
    return std::to_string(got.size()) + " outputs, expected " + std::to_string(c.outputs.size());
  }
  for (size_t i = 0; i < got.size(); ++i) {
    std::vector<uint8_t> bytes(got[i].nbytes());
    got[i].copy_to_bytes(bytes.data(), bytes.size());
    std::string d = compare_tensor(c.outputs[i], got[i].shape().to_vector(), got[i].dtype(), bytes);
    if (!d.empty()) return "output " + std::to_string(i) + ": " + d;
  }
  return "";
}

// Empty when the error of kind `kind` with `message` is the one expected.
std::string compare_error(const VectorCase& c, const std::string& kind,
                          const std::string& message) {
  if (!c.error) return "unexpected " + kind + " error: " + message;
  if (kind != c.error->kind) return kind + " error, expected " + c.error->kind + ": " + message;
  for (const std::string& s : c.error->contains) {
    if (message.find(s) == std::string::npos) {
      return "message \"" + message + "\" lacks \"" + s + "\"";
    }
  }
  return "";
}

std::string run_cpp(const VectorCase& c) {
  std::vector<NDArray> inputs;
  for (const TensorSpec& t : c.inputs) inputs.push_back(make_array(t));
  try {
    std::vector<NDArray> out = cvm::run_op(c.op, inputs, c.attrs);
    if (c.error) return "ran without the expected " + c.error->kind + " error";
    return compare_outputs(c, out);
  } catch (const cvm::LogicError& e) {
    return compare_error(c, "logic", e.what());
  } catch (const cvm::RuntimeError& e) {
    return compare_error(c, "runtime", e.what());
  }
}

std::string attrs_json(const cvm::AttrMap& attrs) {
  json j = json::object();
  for (const auto& [k, v] : attrs) j[k] = v;
  return j.dump();
}

std::string run_capi(const VectorCase& c) {
  std::vector<CVMArrayHandle> in;
  struct Freer {
    std::vector<CVMArrayHandle>* v;
    ~Freer() {
      for (CVMArrayHandle h : *v) CVMArrayFree(h);
    }
  } free_inputs{&in};
  for (const TensorSpec& t : c.inputs) {
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
  if (out.size() != c.outputs.size()) {
    return "C ABI: " + std::to_string(n) + " outputs, expected " + std::to_string(c.outputs.size());
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const DLTensor* t = out[i];
    std::vector<int64_t> shape(t->shape, t->shape + t->ndim);
    DataType dtype = DataType::from_dl(t->dtype);
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    std::vector<uint8_t> bytes(static_cast<size_t>(numel) * dtype.bytes());
    if (CVMArrayCopyToBytes(out[i], bytes.data(), bytes.size()) != 0) {
      return std::string("C ABI: cannot read an output: ") + CVMGetLastError();
    }
    std::string d = compare_tensor(c.outputs[i], shape, dtype, bytes);
    if (!d.empty()) return "C ABI: output " + std::to_string(i) + ": " + d;
  }
  return "";
}

bool is_cvm_op(const std::string& name) {
  for (const cvm::OpInfo& info : cvm::list_ops()) {
    if (info.name == name) return info.cvm;
  }
  return false;
}

// Shape, precision and cost inference through infer_op and CVMOpInfer.
std::string run_infer(const VectorCase& c) {
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorSpec& t : c.inputs) shapes.push_back(t.shape);
  const std::vector<int>& precisions = *c.input_precisions;
  cvm::OpInference r;
  std::string thrown;  // the kind of error infer_op raised, "" if none
  try {
    r = cvm::infer_op(c.op, shapes, precisions, c.attrs);
  } catch (const cvm::LogicError& e) {
    std::string d = compare_error(c, thrown = "logic", e.what());
    if (!d.empty()) return "infer_op: " + d;
  } catch (const cvm::RuntimeError& e) {
    std::string d = compare_error(c, thrown = "runtime", e.what());
    if (!d.empty()) return "infer_op: " + d;
  }
  if (c.error && thrown.empty()) return "infer_op ran without the expected error";
  std::vector<const int64_t*> shape_ptrs;
  std::vector<int> ndims;
  for (const auto& s : shapes) {
    shape_ptrs.push_back(s.data());
    ndims.push_back(static_cast<int>(s.size()));
  }
  int n = -1;
  const int64_t* const* out_shapes = nullptr;
  const int* out_ndims = nullptr;
  const int* out_precisions = nullptr;
  int64_t cost = -1;
  int rc = CVMOpInfer(c.op.c_str(), shape_ptrs.data(), ndims.data(), precisions.data(),
                      static_cast<int>(shapes.size()), attrs_json(c.attrs).c_str(), &n, &out_shapes,
                      &out_ndims, &out_precisions, &cost);
  if (c.error) {
    if (rc == 0) return "CVMOpInfer ran without the expected error";
    std::string d = compare_error(c, rc == 1 ? "logic" : "runtime", CVMGetLastError());
    return d.empty() ? "" : "CVMOpInfer: " + d;
  }
  if (rc != 0) return std::string("CVMOpInfer failed where infer_op did not: ") + CVMGetLastError();
  std::ostringstream diff;
  for (size_t i = 0; i < c.outputs.size() && i < r.output_shapes.size(); ++i) {
    if (r.output_shapes[i] != c.outputs[i].shape) {
      diff << "infer_op output " << i << " shape " << shape_text(r.output_shapes[i])
           << ", expected " << shape_text(c.outputs[i].shape) << "; ";
    }
  }
  if (r.output_shapes.size() != c.outputs.size()) diff << "infer_op output count differs; ";
  if (r.output_precisions != *c.precisions) {
    diff << "precisions";
    for (int p : r.output_precisions) diff << " " << p;
    diff << ", expected";
    for (int p : *c.precisions) diff << " " << p;
    diff << "; ";
  }
  if (r.cost_base != *c.cost_base) {
    diff << "cost_base " << r.cost_base << ", expected " << *c.cost_base << "; ";
  }
  bool capi_same = n == static_cast<int>(r.output_shapes.size()) && cost == r.cost_base;
  for (int i = 0; capi_same && i < n; ++i) {
    capi_same =
        std::vector<int64_t>(out_shapes[i], out_shapes[i] + out_ndims[i]) == r.output_shapes[i] &&
        out_precisions[i] == r.output_precisions[i];
  }
  if (!capi_same) diff << "CVMOpInfer differs from infer_op; ";
  return diff.str();
}

// Restores the backend selected before the test, whatever happens.
struct BackendRestorer {
  std::string saved = cvm::current_backend();
  ~BackendRestorer() { cvm::set_backend(saved); }
};

// Every failure of one case, "" when it passes everywhere.
std::string check_case(const VectorCase& c) {
  std::string failures;
  const bool cvm_op = is_cvm_op(c.op);
  const bool run = !c.error || c.error->in != "infer";
  const bool infer = cvm_op && c.input_precisions && (!c.error || c.error->in != "run");
  if (run) {
    BackendRestorer restore;
    for (const std::string& backend : cvm::compiled_backends()) {
      cvm::set_backend(backend);
      for (const auto& [path, fn] :
           {std::pair{"run_op", &run_cpp}, std::pair{"CVMOpRun", &run_capi}}) {
        std::string d = fn(c);
        if (!d.empty()) failures += std::string("[") + backend + " " + path + "] " + d + "; ";
      }
    }
  }
  if (infer) {
    std::string d = run_infer(c);
    if (!d.empty()) failures += "[infer] " + d;
  }
  return failures;
}

bool is_hand(const VectorCase& c) { return c.source == "hand" || c.source == "spec"; }

}  // namespace

TEST_CASE("conformance vectors pass on every backend via run_op and CVMOpRun", "[vectors]") {
  const Corpus& all = loaded_corpus();
  struct Count {
    int hand = 0, generated = 0, failed = 0;
  };
  std::map<std::string, Count> per_op;
  for (const VectorCase& c : all.cases) {
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
  for (const VectorCase& c : all.cases) {
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
  for (const VectorCase& c : all.cases) {
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
