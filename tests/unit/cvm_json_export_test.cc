// Model::cvm_json: example, hand-built and builder models exported as CVM graph JSON and legacy
// params load back with the same outputs, cost and section 7 bytes, and export the same text.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "cvm/model_builder.h"
#include "graph_test_util.h"

using Catch::Matchers::Contains;
using cvm::DataType;
using cvm::LogicError;
using cvm::Model;
using cvm::ModelBuilder;
using cvm::NDArray;
using cvm::ParamFormat;
using cvm::Session;
using cvm::Shape;
using cvm::test::i32;
namespace t = cvm::test;

namespace {

// What Session::infer_bytes gives for `input`: the bytes, or the LogicError's message.
std::string section7(const std::shared_ptr<const Model>& m, const NDArray& input) {
  Session s(m);
  const std::vector<char> in = t::input_bytes(input, m->input_type_size());
  std::string out(m->output_length(), '\0');
  try {
    s.infer_bytes(in.data(), in.size(), &out[0], out.size());
  } catch (const LogicError& e) {
    return std::string("error: ") + e.what();
  }
  return out;
}

// Exports `m`, loads the export back and checks that nothing observable changed.
void check_round_trip(const std::string& what, const std::shared_ptr<const Model>& m) {
  INFO("model " << what);
  const std::string text = m->cvm_json();
  const std::vector<uint8_t> params = m->params().save(ParamFormat::kLegacy);
  std::shared_ptr<const Model> back;
  REQUIRE_NOTHROW(back = Model::from_cvm(text, params.data(), params.size()));

  CHECK(back->cost().ops == m->cost().ops);
  CHECK(back->cost().mem == m->cost().mem);
  CHECK(back->cost().total == m->cost().total);
  CHECK(Model::estimate_cost(text).total == m->cost().total);
  CHECK(back->version() == "cvm_1.0.0");
  CHECK(back->postprocess() == m->postprocess());
  CHECK(back->input_length() == m->input_length());
  CHECK(back->output_length() == m->output_length());
  CHECK(back->params().save(ParamFormat::kLegacy) == params);
  REQUIRE(back->nodes().size() == m->nodes().size());
  for (size_t i = 0; i < m->nodes().size(); ++i) {
    CHECK(back->nodes()[i].name == m->nodes()[i].name);
    CHECK(back->nodes()[i].op == m->nodes()[i].op);
    CHECK(back->nodes()[i].attrs == m->nodes()[i].attrs);
    CHECK(back->nodes()[i].input_entries == m->nodes()[i].input_entries);
    CHECK(back->nodes()[i].output_precisions == m->nodes()[i].output_precisions);
  }
  REQUIRE(back->outputs().size() == m->outputs().size());
  for (size_t i = 0; i < m->outputs().size(); ++i) {
    CHECK(back->outputs()[i].name == m->outputs()[i].name);
    CHECK(back->outputs()[i].shape == m->outputs()[i].shape);
    CHECK(back->outputs()[i].precision == m->outputs()[i].precision);
  }
  // Every entry has a storage of its own: CVM's storage size is the sum of the entries.
  CHECK(back->storage_id_bytes() == back->unplanned_bytes());

  const cvm::TensorInfo& in = m->inputs()[0];
  const int32_t bound = static_cast<int32_t>((int64_t{1} << (in.precision - 1)) - 1);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const NDArray input = t::random_in(in.shape, -bound, bound, seed);
    Session a(m), b(back);
    a.set_input("data", input);
    b.set_input("data", input);
    a.run();
    b.run();
    for (size_t k = 0; k < a.num_outputs(); ++k) {
      CHECK(t::bit_equal(a.output(k), b.output(k)));
    }
    CHECK(section7(m, input) == section7(back, input));
  }
  // The export is a fixed point and does not depend on where the model came from.
  CHECK(back->cvm_json() == text);
  CHECK(m->cvm_json() == text);
  const std::vector<uint8_t> file = back->save();
  CHECK(Model::from_bytes(file.data(), file.size())->cvm_json() == text);
}

std::vector<std::string> sorted_files(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string p = e.path().string();
    if (p.size() > ext.size() && p.compare(p.size() - ext.size(), ext.size(), ext) == 0) {
      out.push_back(p.substr(0, p.size() - ext.size()));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// conv2d (tuple attributes, bias), max_pool2d, flatten, dense, shift; argmax postprocess.
std::shared_ptr<const Model> builder_cnn() {
  ModelBuilder b;
  auto x = b.input({1, 2, 6, 6}, DataType::Int(32), 8);
  std::vector<int32_t> wv(4 * 2 * 3 * 3);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<int32_t>(i * 37 % 255) - 127;
  auto w = b.constant("conv_w", i32({4, 2, 3, 3}, wv), 8);
  auto bias = b.constant("conv_b", i32({4}, {5, -300, 1000, 0}));
  auto c = b.add1("conv2d", "conv", {x, w, bias},
                  {{"channels", "4"},
                   {"kernel_size", "(3, 3)"},
                   {"padding", "(1, 1)"},
                   {"strides", "(1, 1)"},
                   {"use_bias", "True"}});
  auto s = b.add1("cvm_right_shift", "conv_shift", {c},
                  {{"precision", "8"}, {"shift_bit", "8"}, {"is_sign", "True"}});
  auto p = b.add1("max_pool2d", "pool", {s}, {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}});
  auto f = b.add1("flatten", "flat", {p});
  std::vector<int32_t> dv(3 * 36);
  for (size_t i = 0; i < dv.size(); ++i) dv[i] = static_cast<int32_t>(i * 53 % 201) - 100;
  auto dw = b.constant("fc_w", i32({3, 36}, dv), 8);
  auto d = b.add1("dense", "fc", {f, dw}, {{"units", "3"}, {"use_bias", "False"}});
  auto y = b.add1("cvm_clip", "fc_clip", {d}, {{"precision", "8"}});
  b.set_outputs({y});
  b.set_postprocess("argmax");
  return b.build();
}

// A wide input (precision 16: int32 bytes), an operator with two outputs used by index, names
// that need escaping, and two heads with the same rows (interleaved section 7 output).
std::shared_ptr<const Model> builder_two_heads() {
  ModelBuilder b;
  auto x = b.input({1, 4, 6}, DataType::Int(32), 16);
  auto k = b.constant("odd \"name\" \\ \xc3\xa9", i32({6}, {1, -2, 3, -4, 5, -6}));
  auto sum = b.add1("broadcast_add", "add \"quoted\"", {x, k});
  auto vc = b.add("get_valid_counts", "valid", {sum}, {{"score_threshold", "0"}});
  auto rows = b.add1("cvm_clip", "rows", {vc[1]}, {{"precision", "12"}});
  auto head2 = b.add1("strided_slice", "cols", {rows},
                      {{"begin", "(0, 0, 1)"}, {"end", "(1, 4, 4)"}, {"stride", "(1, 1, 1)"}});
  b.set_outputs({rows, head2});
  return b.build();
}

}  // namespace

TEST_CASE("cvm_json: the example models round-trip bit for bit", "[cvm_json]") {
  const std::string dir = std::string(CVM_TEST_DATA_DIR) + "/../examples/models/";
  const std::vector<std::string> models = sorted_files(dir, ".json");
  size_t done = 0;
  for (const std::string& base : models) {
    if (!std::filesystem::exists(base + ".params")) continue;  // expected.json
    const std::string graph = t::read_text(base + ".json");
    const std::string params = t::read_text(base + ".params");
    check_round_trip(base, Model::from_cvm(graph, params.data(), params.size()));
    ++done;
  }
  CHECK(done >= 7);
}

TEST_CASE("cvm_json: the hand-built test models round-trip bit for bit", "[cvm_json]") {
  size_t done = 0;
  for (const std::string& base : sorted_files(t::models_dir(), ".case.json")) {
    const t::ModelCase c = t::load_case(std::filesystem::path(base).filename().string());
    check_round_trip(c.name, c.load(ParamFormat::kCvmrt));
    ++done;
  }
  CHECK(done >= 13);
}

TEST_CASE("cvm_json: builder models round-trip bit for bit", "[cvm_json]") {
  check_round_trip("builder_cnn", builder_cnn());
  auto two = builder_two_heads();
  check_round_trip("builder_two_heads", two);
  // The names came through the JSON escapes.
  const std::string text = two->cvm_json();
  const std::vector<uint8_t> params = two->params().save(ParamFormat::kLegacy);
  auto back = Model::from_cvm(text, params.data(), params.size());
  CHECK(back->nodes()[1].name == "odd \"name\" \\ \xc3\xa9");
  CHECK(back->nodes()[2].name == "add \"quoted\"");
  CHECK(back->outputs()[0].name == "rows");
}

TEST_CASE("cvm_json: the text follows spec section 3", "[cvm_json]") {
  ModelBuilder b;
  auto x = b.input({1, 4}, DataType::Int(32), 8);
  auto w = b.constant("w", i32({3, 4}, {1, 2, 3, 4, -1, -2, -3, -4, 5, 0, -5, 127}), 8);
  auto y = b.add1("dense", "dense_0", {x, w}, {{"units", "3"}, {"use_bias", "False"}});
  b.set_outputs({y});
  b.set_postprocess("argmax");
  const std::string text = b.build()->cvm_json();
  const nlohmann::json j = nlohmann::json::parse(text);
  CHECK(j.at("version") == "cvm_1.0.0");
  CHECK(j.at("postprocess") == "argmax");
  CHECK(j.at("arg_nodes") == nlohmann::json::parse("[0, 1]"));
  CHECK(j.at("node_row_ptr") == nlohmann::json::parse("[0, 1, 2, 3]"));
  CHECK(j.at("heads") == nlohmann::json::parse("[[2, 0, 0]]"));
  CHECK(j.at("nodes")[0] == nlohmann::json::parse(R"({"op":"null","name":"data","inputs":[]})"));
  CHECK(j.at("nodes")[2] == nlohmann::json::parse(R"({"op":"cvm_op","name":"dense_0",
      "inputs":[[0,0,0],[1,0,0]],
      "attrs":{"func_name":"dense","num_inputs":"2","num_outputs":"1","flatten_data":"0"}})"));
  const nlohmann::json& a = j.at("attrs");
  CHECK(a.at("shape") == nlohmann::json::parse(R"(["list_shape",[[1,4],[3,4],[1,3]]])"));
  CHECK(a.at("precision") == nlohmann::json::parse(R"(["list_int",[8,8,19]])"));
  CHECK(a.at("storage_id") == nlohmann::json::parse(R"(["list_int",[0,1,2]])"));
  CHECK(a.at("dltype") == nlohmann::json::parse(R"(["list_str",["int32","int32","int32"]])"));
  CHECK(a.at("op_attrs") ==
        nlohmann::json::parse(
            R"(["list_str",["{}","{}","{\"units\":\"3\",\"use_bias\":\"False\"}"]])"));
  CHECK(Model::estimate_cost(text).total == 131);  // spec section 6's worked example
}

TEST_CASE("cvm_json: float models and names JSON cannot carry are refused", "[cvm_json]") {
  ModelBuilder b;
  auto x = b.input({2, 3}, DataType::Float(32));
  b.set_outputs({b.add1("relu", "r", {x})});
  auto m = b.build();
  CHECK_THROWS_MATCHES(m->cvm_json(), LogicError, t::HasMessage("a float model"));

  ModelBuilder b2;
  auto x2 = b2.input({1, 2}, DataType::Int(32), 8);
  b2.set_outputs({b2.add1("relu", "bad \xff name", {x2})});
  auto m2 = b2.build();
  CHECK_THROWS_MATCHES(m2->cvm_json(), LogicError, t::HasMessage("not valid UTF-8"));
}
