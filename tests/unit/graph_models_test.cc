// Hand-built CVM models (tests/models): outputs, precisions, cost and the section 7 byte layout
// against values computed by hand from spec/cvm-ops.md, for both params formats.
#include <catch2/catch.hpp>

#include "graph_test_util.h"

using cvm::DataType;
using cvm::LogicError;
using cvm::Model;
using cvm::NDArray;
using cvm::ParamFormat;
using cvm::Session;
namespace t = cvm::test;

namespace {

void check_case(const t::ModelCase& c, const std::shared_ptr<const Model>& model) {
  INFO("model " << c.name);
  const auto& spec = c.spec;
  const auto cost = model->cost();
  CHECK(cost.ops == spec.at("cost").at("ops").get<uint64_t>());
  CHECK(cost.mem == spec.at("cost").at("mem").get<uint64_t>());
  CHECK(cost.total == spec.at("cost").at("total").get<uint64_t>());

  const auto& precisions = spec.at("precisions");
  REQUIRE(model->outputs().size() == precisions.size());
  for (size_t i = 0; i < precisions.size(); ++i) {
    CHECK(model->outputs()[i].precision == precisions[i].get<int>());
    CHECK(model->outputs()[i].dtype == DataType::Int(32));
  }

  const auto outputs = t::run_outputs(model, c.input());
  const auto& expected = spec.at("outputs");
  REQUIRE(outputs.size() == expected.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    INFO("output " << i << " (" << model->outputs()[i].name << ")");
    CHECK(outputs[i] == expected[i].get<std::vector<int64_t>>());
  }

  Session s(model);
  const std::vector<char> in = t::input_bytes(c.input(), model->input_type_size());
  REQUIRE(in.size() == model->input_length());
  std::vector<char> out(model->output_length() + 8, 0x55);
  if (spec.contains("infer_bytes")) {
    const size_t ts = spec.at("infer_bytes").at("type_size").get<size_t>();
    CHECK(model->output_type_size() == ts);
    s.infer_bytes(in.data(), in.size(), out.data(), out.size());
    std::vector<char> written(out.begin(), out.begin() + static_cast<long>(model->output_length()));
    CHECK(t::decode_values(written, ts) ==
          spec.at("infer_bytes").at("values").get<std::vector<int64_t>>());
    // Nothing beyond output_length() is touched.
    for (size_t i = model->output_length(); i < out.size(); ++i) CHECK(out[i] == 0x55);
  } else {
    const std::string msg = spec.at("infer_error").get<std::string>();
    CHECK_THROWS_MATCHES(s.infer_bytes(in.data(), in.size(), out.data(), out.size()), LogicError,
                         t::HasMessage(msg));
  }
}

}  // namespace

TEST_CASE("hand-built models give the hand-computed outputs, precisions and cost", "[graph]") {
  for (const char* name : t::kModelCases) {
    const t::ModelCase c = t::load_case(name);
    SECTION(std::string(name) + " (legacy params)") { check_case(c, c.load(ParamFormat::kLegacy)); }
    SECTION(std::string(name) + " (cvmrt params)") { check_case(c, c.load(ParamFormat::kCvmrt)); }
    SECTION(std::string(name) + " (model file round trip)") {
      auto model = c.load();
      std::vector<uint8_t> bytes = model->save();
      auto back = Model::from_bytes(bytes.data(), bytes.size());
      check_case(c, back);
      CHECK(back->save() == bytes);
      CHECK(back->planned_bytes() == model->planned_bytes());
      CHECK(back->storage_id_bytes() == model->storage_id_bytes());
    }
  }
}

TEST_CASE("spec section 6 worked example: dense 131 and with bias 149", "[graph]") {
  const auto nobias = t::load_case("dense_nobias").load();
  CHECK(nobias->cost().mem == 95);
  CHECK(nobias->cost().ops == 36);
  CHECK(nobias->cost().total == 131);
  const auto bias = t::load_case("dense_bias").load();
  CHECK(bias->cost().mem == 110);
  CHECK(bias->cost().ops == 39);
  CHECK(bias->cost().total == 149);
  // Known from the graph alone, without params (CVMAPIGetGasFromGraphFile).
  CHECK(Model::estimate_cost(t::load_case("dense_bias").graph).total == 149);
  // Node inspection: cost bases and inferred precisions.
  const auto& nodes = bias->nodes();
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[3].op == "dense");
  CHECK(nodes[3].cost_base == 13);
  CHECK(nodes[3].output_precisions == std::vector<int>{20});
  CHECK(nodes[3].output_shapes[0] == cvm::Shape{1, 3});
  CHECK(nodes[0].op == "null");
  CHECK(nodes[0].cost_base == 0);
}

TEST_CASE("section 7: input and output layout sizes", "[graph]") {
  // dense: input p8 -> int8, output p19 -> int32.
  auto dense = t::load_case("dense_nobias").load();
  CHECK(dense->input_type_size() == 1);
  CHECK(dense->input_length() == 4);
  CHECK(dense->output_type_size() == 4);
  CHECK(dense->output_length() == 12);
  CHECK(dense->inputs()[0].io_dtype == DataType::Int(8));
  // argmax: 4 rows -> 4 int32 (all rows written: fixed).
  auto argmax = t::load_case("argmax").load();
  CHECK(argmax->input_type_size() == 4);
  CHECK(argmax->output_type_size() == 4);
  CHECK(argmax->output_length() == 16);
  CHECK(argmax->postprocess() == "argmax");
  // elementwise: four int8 heads (every head precision <= 8).
  auto ew = t::load_case("elementwise").load();
  CHECK(ew->output_type_size() == 1);
  CHECK(ew->output_length() == 64);
  // detection: forced int32.
  auto det = t::load_case("detection").load();
  CHECK(det->output_type_size() == 4);
  CHECK(det->output_length() == 2 * 24 * 4);
}

TEST_CASE("argmax compares after int8 truncation: 100, 200, 50 -> 0", "[graph]") {
  auto model = t::load_case("argmax").load();
  Session s(model);
  const int32_t in[12] = {100, 200, 50, 7, 1, 9, 0, 0, 0, -1, -128, 127};
  std::vector<char> out(model->output_length());
  s.infer_bytes(reinterpret_cast<const char*>(in), sizeof(in), out.data(), out.size());
  // int8: (100, -56, 50) -> 0; (7, 1, 9) -> 2; ties -> first; (-1, -128, 127) -> 2.
  CHECK(t::decode_values(out, 4) == std::vector<int64_t>{0, 2, 0, 2});
}

TEST_CASE("infer_bytes rejects wrong lengths and buffers", "[graph]") {
  auto model = t::load_case("dense_nobias").load();
  Session s(model);
  std::vector<char> in(4, 1), out(12);
  CHECK_THROWS_MATCHES(s.infer_bytes(in.data(), 3, out.data(), out.size()), LogicError,
                       t::HasMessage("input is 3 bytes, expected 4"));
  CHECK_THROWS_MATCHES(s.infer_bytes(in.data(), 4, out.data(), 11), LogicError,
                       t::HasMessage("expected at least 12"));
  s.infer_bytes(in.data(), 4, out.data(), out.size());
  CHECK(t::decode_values(out, 4) == std::vector<int64_t>{1, 1, 4});
}

TEST_CASE("inputs are clipped to the input precision, int8 and int32 accepted", "[graph]") {
  auto model = t::load_case("elementwise").load();  // data p8: clip to [-127, 127]
  Session s(model);
  std::vector<int32_t> v(16, 0);
  v[0] = 1000;
  v[1] = -1000;
  v[2] = INT32_MIN;
  s.set_input("data", NDArray::from_bytes(v.data(), 64, cvm::Shape{2, 8}, DataType::Int(32)));
  s.run();
  // cvm_precision head: bit length of the clipped values 127, -127, -127 -> 7.
  const auto prec = t::flat_values(s.output("precision_0"));
  CHECK(prec[0] == 7);
  CHECK(prec[1] == 7);
  CHECK(prec[2] == 7);
  // clip head (a_min -5, a_max 10)
  const auto clip = t::flat_values(s.output(1));
  CHECK(clip[0] == 10);
  CHECK(clip[1] == -5);
  // int8 with -128 is sign-extended and clipped to -127.
  std::vector<int8_t> b(16, 0);
  b[0] = -128;
  s.set_input("data", NDArray::from_bytes(b.data(), 16, cvm::Shape{2, 8}, DataType::Int(8)));
  s.run();
  CHECK(t::flat_values(s.output(3))[0] == 7);
  // A strided (transposed) view is accepted too.
  std::vector<int8_t> tb(16);
  for (int i = 0; i < 16; ++i) tb[i] = static_cast<int8_t>(i);
  NDArray tr = NDArray::from_bytes(tb.data(), 16, cvm::Shape{8, 2}, DataType::Int(8)).transpose();
  s.set_input("data", tr);
  s.run();
  CHECK(t::flat_values(s.output(1))[1] == 2);  // element (0, 1) of the transpose = tb[2]
}
