// Conformance vectors: the loader of tests/vectors/**/*.json and the per-case checks.
#include "vectors.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cvm/error.h"

namespace cvm {
namespace vectors {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw LogicError(where + ": " + what);
}

void allow_keys(const json& obj, const std::string& where,
                std::initializer_list<const char*> allowed) {
  if (!obj.is_object()) bad(where, "expected an object, found " + obj.dump().substr(0, 80));
  for (const auto& item : obj.items()) {
    if (std::none_of(allowed.begin(), allowed.end(),
                     [&](const char* k) { return item.key() == k; })) {
      bad(where, "unknown key \"" + item.key() + "\"");
    }
  }
}

const json& need(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) bad(where, std::string("missing key \"") + key + "\"");
  return *it;
}

// The typed value of `j`, LogicError naming `where` instead of nlohmann's type_error.
template <typename T>
T as(const json& j, const std::string& where) {
  try {
    return j.get<T>();
  } catch (const json::exception& e) {
    bad(where, std::string("unexpected value ") + j.dump().substr(0, 60) + " (" + e.what() + ")");
  }
}

int hex_digit(char c, const std::string& where) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  bad(where, std::string("bad hex digit '") + c + "'");
}

// One integer element appended little-endian, range-checked for `t`.
void append_int(const json& v, DataType t, std::vector<uint8_t>* out, const std::string& where) {
  if (!v.is_number_integer()) bad(where, "data holds a non-integer " + v.dump());
  const int bits = t.bits();
  uint64_t u;
  bool ok;
  if (v.is_number_unsigned()) {
    u = v.get<uint64_t>();
    ok = (t.is_uint() || t.is_bool()) ? (bits == 64 || u < (uint64_t{1} << bits))
                                      : (t.is_int() && u < (uint64_t{1} << (bits - 1)));
  } else {
    const int64_t s = v.get<int64_t>();
    u = static_cast<uint64_t>(s);
    ok = t.is_int() &&
         (bits == 64 || (s >= -(int64_t{1} << (bits - 1)) && s < (int64_t{1} << (bits - 1))));
    ok = ok || (s >= 0 && (t.is_uint() || t.is_bool()) && (bits == 64 || s < (int64_t{1} << bits)));
  }
  if (t.is_bool()) ok = ok && u <= 1;
  if (!ok) bad(where, "value " + v.dump() + " does not fit " + t.name());
  for (int b = 0; b < bits / 8; ++b) out->push_back(static_cast<uint8_t>(u >> (8 * b)));
}

Tensor parse_tensor(const json& j, const std::string& where) {
  allow_keys(j, where, {"shape", "dtype", "data", "data_hex"});
  Tensor t;
  t.shape = as<std::vector<int64_t>>(need(j, "shape", where), where + " shape");
  try {
    t.dtype = DataType::parse(as<std::string>(need(j, "dtype", where), where + " dtype"));
  } catch (const LogicError& e) {
    bad(where, e.what());
  }
  int64_t numel = 1;
  for (int64_t d : t.shape) {
    if (d < 0) bad(where, "negative extent");
    numel = checked_mul(numel, d, "vector tensor elements");
  }
  const bool has_data = j.contains("data"), has_hex = j.contains("data_hex");
  if (has_data == has_hex) bad(where, "exactly one of \"data\" and \"data_hex\" is needed");
  if (has_hex) {
    const std::string hex = as<std::string>(j["data_hex"], where);
    if (hex.size() % 2 != 0) bad(where, "data_hex has an odd number of digits");
    for (size_t i = 0; i < hex.size(); i += 2) {
      t.bytes.push_back(
          static_cast<uint8_t>(hex_digit(hex[i], where) * 16 + hex_digit(hex[i + 1], where)));
    }
  } else {
    if (t.dtype.is_float()) bad(where, "float data must be given as data_hex");
    if (!j["data"].is_array()) bad(where, "data must be a list");
    for (const json& v : j["data"]) append_int(v, t.dtype, &t.bytes, where);
  }
  if (t.bytes.size() != static_cast<size_t>(numel) * t.dtype.bytes()) {
    bad(where, "data holds " + std::to_string(t.bytes.size()) + " bytes, shape and dtype need " +
                   std::to_string(static_cast<size_t>(numel) * t.dtype.bytes()));
  }
  return t;
}

std::vector<Tensor> parse_tensors(const json& j, const std::string& where) {
  if (!j.is_array()) bad(where, "expected a list of tensors");
  std::vector<Tensor> out;
  for (size_t i = 0; i < j.size(); ++i) {
    out.push_back(parse_tensor(j[i], where + " tensor " + std::to_string(i)));
  }
  return out;
}

Case parse_case(const json& j, const std::string& file, size_t index) {
  std::string where = file + " #" + std::to_string(index);
  allow_keys(
      j, where,
      {"name", "op", "source", "note", "attrs", "inputs", "input_precisions", "expected", "error"});
  Case c;
  c.file = file;
  c.name = as<std::string>(need(j, "name", where), where);
  c.op = as<std::string>(need(j, "op", where), where);
  c.where = where = where + " (" + c.op + ": " + c.name + ")";
  c.source = as<std::string>(need(j, "source", where), where);
  if (c.source != "spec" && c.source != "hand" && c.source != "generated") {
    bad(where, "source must be spec, hand or generated");
  }
  if (j.contains("attrs")) {
    if (!j["attrs"].is_object()) bad(where, "attrs must be an object");
    for (const auto& item : j["attrs"].items()) {
      if (!item.value().is_string()) bad(where, "attribute values are CVM strings");
      c.attrs[item.key()] = item.value().get<std::string>();
    }
  }
  c.inputs = parse_tensors(need(j, "inputs", where), where + " inputs");
  if (j.contains("input_precisions")) {
    c.input_precisions = as<std::vector<int>>(j["input_precisions"], where);
    if (c.input_precisions->size() != c.inputs.size()) {
      bad(where, "input_precisions must have one entry per input");
    }
  }
  if (j.contains("expected") == j.contains("error")) {
    bad(where, "exactly one of \"expected\" and \"error\" is needed");
  }
  if (j.contains("expected")) {
    const json& e = j["expected"];
    allow_keys(e, where + " expected", {"outputs", "precisions", "cost_base"});
    c.outputs = parse_tensors(need(e, "outputs", where), where + " outputs");
    if (e.contains("precisions")) c.precisions = as<std::vector<int>>(e["precisions"], where);
    if (e.contains("cost_base")) c.cost_base = as<int64_t>(e["cost_base"], where);
    if (c.precisions.has_value() != c.cost_base.has_value() ||
        c.precisions.has_value() != c.input_precisions.has_value()) {
      bad(where, "input_precisions, precisions and cost_base go together");
    }
  } else {
    const json& e = j["error"];
    allow_keys(e, where + " error", {"kind", "contains", "in"});
    ExpectedError err;
    err.kind = as<std::string>(need(e, "kind", where), where);
    if (err.kind != "logic" && err.kind != "runtime") bad(where, "error kind: logic or runtime");
    const json& contains = need(e, "contains", where);
    err.contains = contains.is_string() ? std::vector<std::string>{contains.get<std::string>()}
                                        : as<std::vector<std::string>>(contains, where);
    if (e.contains("in")) err.in = as<std::string>(e["in"], where);
    if (err.in != "run" && err.in != "infer" && err.in != "both") {
      bad(where, "error in: run, infer or both");
    }
    if (err.in == "infer" && !c.input_precisions)
      bad(where, "an infer error needs input_precisions");
    c.error = err;
  }
  return c;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

std::string element_text(const std::vector<uint8_t>& b, size_t i, DataType t) {
  const size_t w = t.bytes();
  uint64_t u = 0;
  for (size_t k = 0; k < w; ++k) u |= uint64_t{b[i * w + k]} << (8 * k);
  std::ostringstream os;
  if (t.is_int()) {
    if (w < 8 && (u >> (8 * w - 1)) != 0) u |= ~uint64_t{0} << (8 * w);
    os << static_cast<int64_t>(u);
  } else if (t.is_uint() || t.is_bool()) {
    os << u;
  } else {
    os << "0x" << std::hex << u;
  }
  return os.str();
}

std::string compare_output(const Tensor& want, const NDArray& got) {
  if (got.shape().to_vector() != want.shape) {
    return "shape " + shape_text(got.shape().to_vector()) + ", expected " + shape_text(want.shape);
  }
  if (got.dtype() != want.dtype)
    return "dtype " + got.dtype().name() + ", expected " + want.dtype.name();
  std::vector<uint8_t> bytes(got.nbytes());
  got.copy_to_bytes(bytes.data(), bytes.size());
  const size_t w = want.dtype.bytes();
  for (size_t i = 0; w > 0 && i * w < bytes.size(); ++i) {
    if (std::memcmp(&bytes[i * w], &want.bytes[i * w], w) != 0) {
      return "element " + std::to_string(i) + " is " + element_text(bytes, i, want.dtype) +
             ", expected " + element_text(want.bytes, i, want.dtype);
    }
  }
  return "";
}

bool is_cvm_op(const std::string& name) {
  static const std::map<std::string, bool> ops = [] {
    std::map<std::string, bool> m;
    for (const OpInfo& info : list_ops()) m[info.name] = info.cvm;
    return m;
  }();
  auto it = ops.find(name);
  return it != ops.end() && it->second;
}

}  // namespace

std::string compare_error(const Case& c, const std::string& kind, const std::string& message) {
  if (!c.error) return "unexpected " + kind + " error: " + message;
  if (kind != c.error->kind) return kind + " error, expected " + c.error->kind + ": " + message;
  for (const std::string& s : c.error->contains) {
    if (message.find(s) == std::string::npos)
      return "message \"" + message + "\" lacks \"" + s + "\"";
  }
  return "";
}

std::string compare_outputs(const Case& c, const std::vector<NDArray>& got) {
  if (got.size() != c.outputs.size()) {
    return std::to_string(got.size()) + " outputs, expected " + std::to_string(c.outputs.size());
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string d = compare_output(c.outputs[i], got[i]);
    if (!d.empty()) return "output " + std::to_string(i) + ": " + d;
  }
  return "";
}

NDArray Tensor::to_array() const {
  return NDArray::from_bytes(bytes.data(), bytes.size(), Shape(shape), dtype);
}

std::vector<Case> load_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    CVM_LOGIC_ERROR() << "vectors folder '" << dir << "' does not exist (give --vectors DIR)";
  }
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".json") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<Case> cases;
  for (const fs::path& p : paths) {
    const std::string rel = fs::relative(p, dir).generic_string();
    std::ifstream in(p, std::ios::binary);
    if (!in) bad(rel, "cannot open");
    const json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded()) bad(rel, "not valid JSON");
    if (!doc.is_array()) bad(rel, "a vector file holds a list of cases");
    std::set<std::pair<std::string, std::string>> names;
    for (size_t i = 0; i < doc.size(); ++i) {
      cases.push_back(parse_case(doc[i], rel, i));
      if (!names.insert({cases.back().op, cases.back().name}).second) {
        bad(cases.back().where, "duplicate case name");
      }
    }
  }
  if (cases.empty()) CVM_LOGIC_ERROR() << "no vector files (*.json) under '" << dir << "'";
  return cases;
}

bool needs_run(const Case& c) { return !c.error || c.error->in != "infer"; }

bool needs_infer(const Case& c) {
  return is_cvm_op(c.op) && c.input_precisions && (!c.error || c.error->in != "run");
}

std::string check_run(const Case& c, Device device) {
  std::vector<NDArray> inputs;
  for (const Tensor& t : c.inputs) inputs.push_back(t.to_array().to(device));
  std::vector<NDArray> out;
  try {
    out = run_op(c.op, inputs, c.attrs);
    for (NDArray& o : out) o = o.to(Device::cpu());
  } catch (const LogicError& e) {
    return compare_error(c, "logic", e.what());
  } catch (const RuntimeError& e) {
    return compare_error(c, "runtime", e.what());
  }
  if (c.error) return "ran without the expected " + c.error->kind + " error";
  return compare_outputs(c, out);
}

std::string check_infer(const Case& c) {
  std::vector<std::vector<int64_t>> shapes;
  for (const Tensor& t : c.inputs) shapes.push_back(t.shape);
  OpInference r;
  try {
    r = infer_op(c.op, shapes, *c.input_precisions, c.attrs);
  } catch (const LogicError& e) {
    const std::string d = compare_error(c, "logic", e.what());
    return d.empty() ? "" : "infer: " + d;
  } catch (const RuntimeError& e) {
    const std::string d = compare_error(c, "runtime", e.what());
    return d.empty() ? "" : "infer: " + d;
  }
  if (c.error) return "infer: ran without the expected " + c.error->kind + " error";
  std::ostringstream diff;
  if (r.output_shapes.size() != c.outputs.size()) {
    diff << "infer: " << r.output_shapes.size() << " outputs, expected " << c.outputs.size()
         << "; ";
  }
  for (size_t i = 0; i < c.outputs.size() && i < r.output_shapes.size(); ++i) {
    if (r.output_shapes[i] != c.outputs[i].shape) {
      diff << "infer: output " << i << " shape " << shape_text(r.output_shapes[i]) << ", expected "
           << shape_text(c.outputs[i].shape) << "; ";
    }
  }
  if (r.output_precisions != *c.precisions) {
    diff << "infer: precisions";
    for (int p : r.output_precisions) diff << " " << p;
    diff << ", expected";
    for (int p : *c.precisions) diff << " " << p;
    diff << "; ";
  }
  if (r.cost_base != *c.cost_base) {
    diff << "infer: cost_base " << r.cost_base << ", expected " << *c.cost_base << "; ";
  }
  return diff.str();
}

}  // namespace vectors
}  // namespace cvm
