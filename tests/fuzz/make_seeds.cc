// Seed generator for the fuzz corpora: turns the repository's test data into raw seeds per target.
//
// usage: fuzz_make_seeds SOURCE_DIR OUT_DIR
// Writes OUT_DIR/<target>/<name> for the targets params, cvm_graph, model_file, op_run, npy,
// json and (when built with the importer) onnx_import, from tests/models (+ .case.json params),
// tests/models/bad, examples/models, tests/vectors, tests/onnx and a few generated dicts and
// arrays. scripts/fuzz.sh --seeds merges them (libFuzzer -merge=1) into tests/fuzz/corpus.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.h"
#include "cvm/model.h"
#include "cvm/params.h"
#include "fuzz_util.h"
#ifdef CVMRT_FUZZ_HAVE_ONNX
#include "cvm/onnx_import.h"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr uintmax_t kMaxSeedBytes = 16 << 10;  // larger test files are left out

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

fs::path g_out;
std::map<std::string, int> g_count;

void emit(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(g_out / target);
  std::ofstream(g_out / target / name, std::ios::binary) << bytes;
  ++g_count[target];
}
std::string str(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

std::vector<fs::path> files(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (e.is_regular_file() && n.size() >= ext.size() &&
        n.compare(n.size() - ext.size(), ext.size(), ext) == 0) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

// The little-endian bytes of a tensor of the vectors / .case.json format ("data" integers or
// "data_hex").
std::string tensor_bytes(const json& t, cvm::DataType dtype) {
  if (t.contains("data_hex")) return from_hex(t.at("data_hex").get<std::string>());
  std::string out;
  for (const auto& x : t.at("data")) {
    const uint64_t v = x.is_number_unsigned() ? x.get<uint64_t>()
                                              : static_cast<uint64_t>(x.get<int64_t>());
    for (size_t b = 0; b < dtype.bytes(); ++b) out += static_cast<char>((v >> (8 * b)) & 0xff);
  }
  return out;
}

cvm::NDArray array_from_json(const json& t) {
  const cvm::DataType dtype = cvm::DataType::parse(t.at("dtype").get<std::string>());
  const std::string bytes = tensor_bytes(t, dtype);
  return cvm::NDArray::from_bytes(bytes.data(), bytes.size(),
                                  cvm::Shape(t.at("shape").get<std::vector<int64_t>>()), dtype);
}

cvm::ParamDict params_from_json(const json& params) {
  cvm::ParamDict dict;
  for (const auto& item : params.items()) dict.set(item.key(), array_from_json(item.value()));
  return dict;
}

// A seed for fuzz_op_run (layout in fuzz_op_run.cc), or "" when the case does not fit it.
std::string op_run_seed(const json& c) {
  const std::string op = c.at("op").get<std::string>();
  std::string head, data;
  head += static_cast<char>(op.size());
  head += op;
  const json& inputs = c.at("inputs");
  if (inputs.size() > 8) return "";
  head += static_cast<char>(inputs.size());
  for (const json& t : inputs) {
    const cvm::DataType dtype = cvm::DataType::parse(t.at("dtype").get<std::string>());
    const auto it = std::find(std::begin(cvm::kAllDataTypes), std::end(cvm::kAllDataTypes), dtype);
    const std::vector<int64_t> shape = t.at("shape").get<std::vector<int64_t>>();
    if (it == std::end(cvm::kAllDataTypes) || shape.size() > 6) return "";
    head += static_cast<char>(it - std::begin(cvm::kAllDataTypes));
    head += static_cast<char>(shape.size());
    for (int64_t d : shape) {
      if (d < 0 || d > 255) return "";
      head += static_cast<char>(d);
    }
    data += tensor_bytes(t, dtype);
  }
  const std::string attrs = c.contains("attrs") ? c.at("attrs").dump() : "";
  head += static_cast<char>(attrs.size() & 0xff);
  head += static_cast<char>(attrs.size() >> 8);
  return head + attrs + data;
}

void model_seeds(const std::string& stem, const std::string& graph, const cvm::ParamDict& params,
                 bool legacy) {
  const std::vector<uint8_t> p = params.save(legacy ? cvm::ParamFormat::kLegacy
                                                    : cvm::ParamFormat::kCvmrt);
  emit("cvm_graph", stem, cvm_fuzz::join2(graph, str(p)));
  emit("json", stem + ".json", graph);
  emit("params", stem + (legacy ? ".legacy" : ".cvmrt"), str(p));
  try {
    auto model = cvm::Model::from_cvm(graph, p.data(), p.size(), cvm_fuzz::model_options());
    emit("model_file", stem + ".cvmrt", str(model->save()));
  } catch (const cvm::LogicError& e) {
    std::cerr << "note: " << stem << " does not load under the fuzz limits: " << e.what() << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fuzz_make_seeds SOURCE_DIR OUT_DIR\n";
    return 1;
  }
  const fs::path src = argv[1];
  g_out = argv[2];

  // tests/models: the graph with its .case.json params, alternately in either params format.
  int k = 0;
  for (const fs::path& f : files(src / "tests/models", ".case.json")) {
    const std::string stem = f.filename().string().substr(0, f.filename().string().size() - 10);
    const std::string graph = read(src / "tests/models" / (stem + ".json"));
    const json spec = json::parse(read(f));
    model_seeds(stem, graph, params_from_json(spec.at("params")), (k++ % 2) == 0);
  }
  // tests/models/bad: the malformed graphs with their params (legacy, raw or truncated).
  for (const fs::path& f : files(src / "tests/models/bad", ".json")) {
    const std::string name = f.filename().string();
    if (name.find(".params.json") != std::string::npos || fs::file_size(f) > kMaxSeedBytes) {
      continue;
    }
    std::string params;
    const fs::path side = f.parent_path() / (name.substr(0, name.size() - 5) + ".params.json");
    if (fs::exists(side)) {
      const json spec = json::parse(read(side));
      if (spec.contains("raw_hex")) {
        params = from_hex(spec.at("raw_hex").get<std::string>());
      } else {
        params = str(params_from_json(spec.at("params")).save(cvm::ParamFormat::kLegacy));
        if (spec.contains("truncate")) params.resize(params.size() - spec.at("truncate").get<size_t>());
      }
      emit("params", "bad-" + name, params);
    }
    emit("cvm_graph", "bad-" + name, cvm_fuzz::join2(read(f), params));
    emit("json", "bad-" + name, read(f));
  }
  // examples/models: graph + legacy params as shipped, and their .npy inputs.
  for (const fs::path& f : files(src / "examples/models", ".params")) {
    const std::string stem = f.stem().string();
    const fs::path graph = f.parent_path() / (stem + ".json");
    if (fs::file_size(f) > kMaxSeedBytes || !fs::exists(graph)) continue;
    const std::string p = read(f);
    emit("params", "example-" + stem, p);
    emit("cvm_graph", "example-" + stem, cvm_fuzz::join2(read(graph), p));
    try {
      auto model = cvm::Model::from_cvm(read(graph), p.data(), p.size(), cvm_fuzz::model_options());
      emit("model_file", "example-" + stem + ".cvmrt", str(model->save()));
    } catch (const cvm::LogicError& e) {
      std::cerr << "note: example " << stem << ": " << e.what() << "\n";
    }
  }
  for (const fs::path& f : files(src / "examples/models", ".npy")) {
    emit("npy", "example-" + f.filename().string(), read(f));
  }

  // Generated dicts: every dtype, 0-d and empty tensors, metadata; both formats.
  {
    cvm::ParamDict dict;
    int i = 0;
    for (cvm::DataType t : cvm::kAllDataTypes) {
      std::vector<uint8_t> bytes(3 * t.bytes());
      for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = static_cast<uint8_t>(b * 37 + i);
      if (t == cvm::DataType::Bool()) std::fill(bytes.begin(), bytes.end(), 1);
      dict.set("t" + std::to_string(i++),
               cvm::NDArray::from_bytes(bytes.data(), bytes.size(), cvm::Shape({3}), t));
    }
    dict.set("scalar", cvm::NDArray::zeros(cvm::Shape(std::vector<int64_t>{}), cvm::DataType::Int(32)));
    dict.set("empty", cvm::NDArray::zeros(cvm::Shape({0, 4}), cvm::DataType::Float(32)));
    dict.metadata()["producer"] = "fuzz_make_seeds";
    emit("params", "generated-all-dtypes.cvmrt", str(dict.save(cvm::ParamFormat::kCvmrt)));
    try {
      emit("params", "generated-all-dtypes.legacy", str(dict.save(cvm::ParamFormat::kLegacy)));
    } catch (const cvm::LogicError& e) {
      std::cerr << "note: legacy all-dtypes: " << e.what() << "\n";
    }
    emit("params", "generated-empty.cvmrt", str(cvm::ParamDict().save(cvm::ParamFormat::kCvmrt)));
    emit("params", "generated-empty.legacy", str(cvm::ParamDict().save(cvm::ParamFormat::kLegacy)));
    // .npy of each dtype the reader takes, in format 1.0 (to_npy) and 2.0 (patched header).
    int j = 0;
    for (cvm::DataType t : {cvm::DataType::Int(8), cvm::DataType::Int(32), cvm::DataType::Int(64),
                            cvm::DataType::Float(32)}) {
      cvm::NDArray a = dict.at("t" + std::to_string(std::find(std::begin(cvm::kAllDataTypes),
                                                              std::end(cvm::kAllDataTypes), t) -
                                                    std::begin(cvm::kAllDataTypes)));
      const std::string v1 = cvm::cli::to_npy(a.reshape(cvm::Shape(j % 2 ? std::vector<int64_t>{3, 1}
                                                                         : std::vector<int64_t>{3})));
      emit("npy", "generated-" + t.name() + ".npy", v1);
      std::string v2 = v1.substr(0, 6) + '\x02' + '\x00' + v1.substr(8, 2) + std::string(2, '\0') +
                       v1.substr(10);
      emit("npy", "generated-" + t.name() + "-v2.npy", v2);
      ++j;
    }
  }

  // tests/vectors: one fuzz_op_run seed per case that fits the layout, at most 4 per file.
  for (const char* sub : {"tests/vectors/hand", "tests/vectors/generated"}) {
    for (const fs::path& f : files(src / sub, ".json")) {
      const json cases = json::parse(read(f));
      int taken = 0, index = 0;
      for (const json& c : cases) {
        const std::string seed = op_run_seed(c);
        ++index;
        if (seed.empty() || seed.size() > 4096) continue;
        emit("op_run", f.stem().string() + "-" + std::to_string(index), seed);
        if (++taken == 4 && std::string(sub).find("generated") != std::string::npos) break;
      }
    }
  }

  // tests/onnx: the small models (valid and refused) and their .npy inputs.
  for (const char* sub : {"tests/onnx/models", "tests/onnx/bad"}) {
    for (const fs::path& f : files(src / sub, ".onnx")) {
      if (fs::file_size(f) > kMaxSeedBytes) continue;
      emit("onnx_import", f.filename().string(), read(f));
#ifdef CVMRT_FUZZ_HAVE_ONNX
      // Imported (float) models are model-file seeds too.
      try {
        cvm::onnx::ImportOptions options;
        options.limits = cvm_fuzz::limits();
        const std::string bytes = read(f);
        auto model = cvm::onnx::import_onnx_bytes(bytes.data(), bytes.size(), options);
        if (g_count["model_file"] < 60) {
          emit("model_file", "onnx-" + f.stem().string() + ".cvmrt", str(model->save()));
        }
      } catch (const cvm::LogicError&) {
      }
#endif
    }
    for (const fs::path& f : files(src / sub, ".input.npy")) {
      if (fs::file_size(f) <= kMaxSeedBytes) emit("npy", "onnx-" + f.filename().string(), read(f));
    }
  }

  for (const auto& [target, n] : g_count) std::cout << target << ": " << n << " seeds\n";
  return 0;
}
