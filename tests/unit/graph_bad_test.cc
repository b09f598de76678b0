// The malformed-model corpus (tests/models/bad, indexed by its README.md): every file is
// rejected with a LogicError carrying the expected message; truncated and mutated graph JSON
// never gets anything but a LogicError.
#include <catch2/catch.hpp>
#include <filesystem>
#include <random>
#include <set>

#include "graph_test_util.h"

using cvm::LogicError;
using cvm::Model;
using cvm::ParamFormat;
namespace t = cvm::test;

namespace {

struct BadCase {
  std::string file, expect, rule;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<BadCase> bad_cases() {
  std::istringstream in(t::read_text(t::models_dir() + "bad/README.md"));
  std::vector<BadCase> out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) != 0 || line.find(".json |") == std::string::npos) continue;
    std::vector<std::string> cells;
    size_t start = 1;
    for (size_t bar; (bar = line.find('|', start)) != std::string::npos; start = bar + 1) {
      cells.push_back(trim(line.substr(start, bar - start)));
    }
    REQUIRE(cells.size() == 3);
    out.push_back({cells[0], cells[1], cells[2]});
  }
  return out;
}

std::vector<uint8_t> from_hex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// The params of a bad case: its .params.json sidecar, or none.
std::vector<uint8_t> case_params(const std::string& file, bool* has_sidecar) {
  const std::string sidecar =
      t::models_dir() + "bad/" + file.substr(0, file.size() - 5) + ".params.json";
  *has_sidecar = std::filesystem::exists(sidecar);
  if (!*has_sidecar) return {};
  const auto spec = nlohmann::json::parse(t::read_text(sidecar));
  if (spec.contains("raw_hex")) return from_hex(spec.at("raw_hex").get<std::string>());
  std::vector<uint8_t> bytes = t::params_from_json(spec.at("params")).save(ParamFormat::kLegacy);
  if (spec.contains("truncate")) bytes.resize(bytes.size() - spec.at("truncate").get<size_t>());
  return bytes;
}

}  // namespace

TEST_CASE("every malformed model is rejected with a LogicError naming the rule", "[graph]") {
  const std::vector<BadCase> cases = bad_cases();
  REQUIRE(cases.size() >= 80);
  std::set<std::string> listed;
  for (const BadCase& c : cases) {
    INFO(c.file << " (" << c.rule << ")");
    listed.insert(c.file);
    const std::string graph = t::read_text(t::models_dir() + "bad/" + c.file);
    bool has_params = false;
    const std::vector<uint8_t> params = case_params(c.file, &has_params);
    CHECK_THROWS_MATCHES(Model::from_cvm(graph, params.data(), params.size()), LogicError,
                         t::HasMessage(c.expect));
    if (!has_params) {
      // A graph fault is found without params too (CVMAPIGetGasFromGraphFile).
      CHECK_THROWS_MATCHES(Model::estimate_cost(graph), LogicError, t::HasMessage(c.expect));
    }
  }
  // Every graph in the folder is indexed.
  for (const auto& entry : std::filesystem::directory_iterator(t::models_dir() + "bad")) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 &&
        name.find(".params.json") == std::string::npos) {
      INFO(name);
      CHECK(listed.count(name) == 1);
    }
  }
}

TEST_CASE("a graph JSON cut at every byte is a LogicError, never a crash", "[graph]") {
  for (const char* name : {"dense_bias", "detection", "transform"}) {
    const t::ModelCase c = t::load_case(name);
    const std::vector<uint8_t> params = c.params();
    size_t failures = 0;
    // Every prefix that stops before the closing brace of the top-level object.
    const size_t end = c.graph.rfind('}');
    REQUIRE(end != std::string::npos);
    for (size_t n = 0; n <= end; ++n) {
      const std::string cut = c.graph.substr(0, n);
      try {
        (void)Model::from_cvm(cut, params.data(), params.size());
        ++failures;  // a strict prefix of a JSON object is never valid
      } catch (const LogicError&) {
      }
    }
    INFO(name);
    CHECK(failures == 0);
  }
}

TEST_CASE("randomly mutated graph JSON loads or is a LogicError", "[graph]") {
  const t::ModelCase c = t::load_case("nn");
  const std::vector<uint8_t> params = c.params();
  std::mt19937_64 rng(20240601);
  const char kBytes[] = "0123456789-[]{}\",:. aez\\";
  size_t loaded = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string g = c.graph;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % g.size();
      switch (rng() % 3) {
        case 0:
          g[pos] = kBytes[rng() % (sizeof(kBytes) - 1)];
          break;
        case 1:
          g.erase(pos, 1 + rng() % 4);
          break;
        default:
          g.insert(pos, 1, kBytes[rng() % (sizeof(kBytes) - 1)]);
      }
    }
    try {
      auto m = Model::from_cvm(g, params.data(), params.size());
      cvm::Session s(m);
      s.set_input("data", c.input());
      s.run();
      ++loaded;
    } catch (const LogicError&) {
      ++rejected;
    }
  }
  CHECK(loaded + rejected == 3000);
  CHECK(rejected > 1000);
}

TEST_CASE("storage sharing is allowed for in-place operators", "[graph]") {
  // relu_0 (entry 1) sharing data's storage id 0 is legal: relu is in the in-place list.
  auto g = nlohmann::json::parse(t::load_case("elementwise").graph);
  g["attrs"]["storage_id"][1][1] = 0;
  const auto model = Model::from_cvm(g.dump(), nullptr, 0);
  CHECK(model->outputs().size() == 4);
  // The storage pool CVM reports shrinks by the shared entry.
  const auto plain = t::load_case("elementwise").load();
  CHECK(model->storage_id_bytes() + 16 * 4 == plain->storage_id_bytes());
}

TEST_CASE("limits are configurable", "[graph]") {
  const t::ModelCase c = t::load_case("dense_bias");
  const std::vector<uint8_t> p = c.params();
  cvm::ModelOptions o;
  o.limits.max_ops = 38;  // the model needs 39
  CHECK_THROWS_MATCHES(Model::from_cvm(c.graph, p.data(), p.size(), o), LogicError,
                       t::HasMessage("running ops exceeds the limit 38"));
  o = {};
  o.limits.max_mem = 109;
  CHECK_THROWS_MATCHES(Model::from_cvm(c.graph, p.data(), p.size(), o), LogicError,
                       t::HasMessage("running mem exceeds the limit 109"));
  o = {};
  o.limits.max_cost_base = 12;
  CHECK_THROWS_MATCHES(Model::from_cvm(c.graph, p.data(), p.size(), o), LogicError,
                       t::HasMessage("cost base 13 exceeds the limit 12"));
  o = {};
  o.limits.max_dim = 3;
  CHECK_THROWS_MATCHES(Model::from_cvm(c.graph, p.data(), p.size(), o), LogicError,
                       t::HasMessage("must be in [1, 3], found 4"));
  o = {};
  o.limits.max_ndim = 1;
  CHECK_THROWS_MATCHES(Model::from_cvm(c.graph, p.data(), p.size(), o), LogicError,
                       t::HasMessage("expected 1 to 1 dimensions"));
  o = {};
  o.limits.max_elements = 11;
  CHECK_THROWS_MATCHES(Model::from_cvm(c.graph, p.data(), p.size(), o), LogicError,
                       t::HasMessage("element count exceeds the limit 11"));
  o = {};
  o.limits.max_storage_bytes = 70;  // 80 bytes of entries, 64 + 60 planned
  CHECK_THROWS_MATCHES(Model::from_cvm(c.graph, p.data(), p.size(), o), LogicError,
                       t::HasMessage("exceeds the limit 70"));
  CHECK_NOTHROW(Model::from_cvm(c.graph, p.data(), p.size()));
}

TEST_CASE("param values are checked against the symmetric bound, 32 bits included", "[graph]") {
  // data (1, 2) p32 + w (1, 2) p32 -> elemwise_add would be 33 bits: use broadcast_max (p32).
  const std::string graph = R"({"nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "w", "inputs": []},
    {"op": "cvm_op", "name": "max_0", "attrs": {"func_name": "broadcast_max"},
     "inputs": [[0, 0], [1, 0]]}],
   "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3], "heads": [[2, 0]],
   "attrs": {"shape": ["list_shape", [[1, 2], [1, 2], [1, 2]]],
             "precision": ["list_int", [32, 32, -1]],
             "storage_id": ["list_int", [0, 1, 2]],
             "op_attrs": ["list_str", ["{}", "{}", "{}"]]}})";
  auto params = [](int32_t a, int32_t b) {
    cvm::ParamDict d;
    const int32_t v[2] = {a, b};
    d.set("w", cvm::NDArray::from_bytes(v, 8, cvm::Shape{1, 2}, cvm::DataType::Int(32)));
    return d.save(ParamFormat::kLegacy);
  };
  const auto ok = params(INT32_MAX, -INT32_MAX);
  const auto model = Model::from_cvm(graph, ok.data(), ok.size());
  const int32_t in[2] = {INT32_MIN, 5};  // the input is clipped to -(2^31 - 1)
  const auto out = t::run_outputs(
      model, cvm::NDArray::from_bytes(in, 8, cvm::Shape{1, 2}, cvm::DataType::Int(32)));
  CHECK(out[0] == std::vector<int64_t>{INT32_MAX, 5});
  const auto bad = params(0, INT32_MIN);
  CHECK_THROWS_MATCHES(Model::from_cvm(graph, bad.data(), bad.size()), LogicError,
                       t::HasMessage("value -2147483648 at flat index 1 is outside "
                                     "[-2147483647, 2147483647] (precision 32)"));
}
