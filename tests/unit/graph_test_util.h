// Helpers for the [graph] tests: the hand-built models of tests/models and their .case.json
// sidecars (params, input, expected outputs, cost and section 7 bytes).
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cvm/error.h"
#include "cvm/model.h"
#include "cvm/params.h"
#include "test_util.h"

namespace cvm {
namespace test {

// Catch2 v2 exception matcher: a cvm::LogicError whose message contains `text`.
class HasMessage : public Catch::MatcherBase<LogicError> {
 public:
  explicit HasMessage(std::string text) : text_(std::move(text)) {}
  bool match(const LogicError& e) const override {
    return std::string(e.what()).find(text_) != std::string::npos;
  }
  std::string describe() const override { return "has a message containing \"" + text_ + "\""; }

 private:
  std::string text_;
};

inline std::string models_dir() { return std::string(CVM_TEST_DATA_DIR) + "/models/"; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// {"dtype": "int8"|"int16"|"int32", "shape": [...], "data": [...]} -> array.
inline NDArray array_from_json(const nlohmann::json& t) {
  std::vector<int64_t> dims = t.at("shape").get<std::vector<int64_t>>();
  const DataType dtype = DataType::parse(t.at("dtype").get<std::string>());
  std::vector<uint8_t> bytes;
  for (const auto& x : t.at("data")) {
    const uint64_t v = static_cast<uint64_t>(x.get<int64_t>());
    for (size_t b = 0; b < dtype.bytes(); ++b) bytes.push_back(static_cast<uint8_t>(v >> (8 * b)));
  }
  return NDArray::from_bytes(bytes.data(), bytes.size(), Shape(dims), dtype);
}

inline ParamDict params_from_json(const nlohmann::json& params) {
  ParamDict dict;
  for (const auto& item : params.items()) dict.set(item.key(), array_from_json(item.value()));
  return dict;
}

struct ModelCase {
  std::string name;
  std::string graph;    // the CVM graph JSON text
  nlohmann::json spec;  // the .case.json sidecar
  std::vector<uint8_t> params(ParamFormat format = ParamFormat::kLegacy) const {
    return params_from_json(spec.at("params")).save(format);
  }
  std::shared_ptr<const Model> load(ParamFormat format = ParamFormat::kLegacy,
                                    const ModelOptions& options = {}) const {
    std::vector<uint8_t> p = params(format);
    return Model::from_cvm(graph, p.data(), p.size(), options);
  }
  NDArray input() const { return array_from_json(spec.at("input")); }
};

// The example LeNet of examples/models (CVM JSON and params) and its int8 input.
inline std::string examples_models_dir() {
  return std::string(CVM_TEST_DATA_DIR) + "/../examples/models/";
}
inline std::shared_ptr<const Model> load_lenet() {
  const std::string graph = read_text(examples_models_dir() + "lenet.json");
  const std::string params = read_text(examples_models_dir() + "lenet.params");
  return Model::from_cvm(graph, params.data(), params.size());
}
inline NDArray lenet_input(const Model& lenet) {
  const std::string in = read_text(examples_models_dir() + "lenet_input.bin");
  REQUIRE(in.size() == lenet.input_length());
  REQUIRE(lenet.input_type_size() == 1);
  return NDArray::from_bytes(in.data(), in.size(), lenet.inputs()[0].shape, DataType::Int(8));
}

// Every hand-built model case of tests/models (NAME.json + NAME.case.json): together they cover
// every operator family (elementwise, broadcast, reduce, transform, nn, vision with detection
// output, argmax).
constexpr const char* kModelCases[] = {"argmax",       "broadcast",  "chain",     "dense_bias",
                                       "dense_nobias", "dense_v110", "detection",
                                       "detection_single_head",      "elementwise",
                                       "mlp",          "nn",         "reduce",    "transform"};

inline ModelCase load_case(const std::string& name) {
  ModelCase c;
  c.name = name;
  c.graph = read_text(models_dir() + name + ".json");
  c.spec = nlohmann::json::parse(read_text(models_dir() + name + ".case.json"));
  return c;
}

inline std::vector<int64_t> flat_values(const NDArray& a) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < a.numel(); ++i) out.push_back(int_at(a, i));
  return out;
}

// The bytes Session::infer_bytes reads for `input` (int8, or little-endian int32).
inline std::vector<char> input_bytes(const NDArray& input, size_t type_size) {
  std::vector<char> out;
  for (int64_t i = 0; i < input.numel(); ++i) {
    int64_t v = int_at(input, i);
    if (type_size == 1) {
      out.push_back(static_cast<char>(static_cast<int8_t>(v)));
    } else {
      uint32_t u = static_cast<uint32_t>(static_cast<int32_t>(v));
      for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xFF));
    }
  }
  return out;
}

// Output bytes decoded as values of `type_size` bytes (int8 or little-endian int32).
inline std::vector<int64_t> decode_values(const std::vector<char>& bytes, size_t type_size) {
  std::vector<int64_t> out;
  for (size_t i = 0; i + type_size <= bytes.size(); i += type_size) {
    if (type_size == 1) {
      out.push_back(static_cast<int8_t>(bytes[i]));
    } else {
      uint32_t u = 0;
      for (int b = 3; b >= 0; --b) u = (u << 8) | static_cast<uint8_t>(bytes[i + b]);
      out.push_back(static_cast<int32_t>(u));
    }
  }
  return out;
}

// Runs `model` on `input` and returns every output's values.
inline std::vector<std::vector<int64_t>> run_outputs(const std::shared_ptr<const Model>& model,
                                                     const NDArray& input) {
  Session s(model);
  s.set_input("data", input);
  s.run();
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i < s.num_outputs(); ++i) out.push_back(flat_values(s.output(i)));
  return out;
}

}  // namespace test
}  // namespace cvm
