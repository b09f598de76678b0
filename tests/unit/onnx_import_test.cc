// ONNX import: the models of tests/onnx against ONNX Runtime's outputs, and targeted graphs built
// with the onnx protobuf classes (operator mapping, folding, names and metadata).
#include "cvm/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "cli_util.h"  // parse_npy (tools/)
#include "cvm/model.h"
#include "onnx_test_util.h"
#include "test_util.h"

using Catch::Matchers::Contains;
using cvm::DataType;
using cvm::LogicError;
using cvm::Model;
using cvm::NDArray;
using cvm::Shape;
using cvm::test::f32;
using cvm::test::floats;
using namespace onnx_test;

// ---------------------------------------------------------------------------------------------
// The generated models against ONNX Runtime

TEST_CASE("onnx: every model of tests/onnx/models matches ONNX Runtime", "[onnx]") {
  const std::string dir = kOnnxDir + "/models";
  const std::vector<std::string> names = onnx_names(dir);
  if (names.empty()) {
    WARN("no models in " << dir << " (tests/onnx/make_models.py writes them)");
    return;
  }
  // |cvmrt - ort| <= kRel * (1 + |ort|) for every element (docs/onnx-import.md).
  constexpr double kRel = 1e-6;  // observed: 4.3e-7 (conv_bn)
  double worst = 0;
  std::string worst_model;
  for (const std::string& name : names) {
    INFO("model " << name);
    const std::string base = dir + "/" + name;
    std::shared_ptr<const Model> m = cvm::onnx::import_onnx_file(base + ".onnx");
    const NDArray input = cvm::cli::parse_npy(read_bytes(base + ".input.npy"), name + ".input");
    const NDArray ref = cvm::cli::parse_npy(read_bytes(base + ".ort.npy"), name + ".ort");
    REQUIRE(ref.dtype() == DataType::Float(32));
    REQUIRE(m->outputs().size() == 1);
    CHECK(m->outputs()[0].shape == ref.shape());
    const std::vector<float> got = run_model(m, input.contiguous().reshape(m->inputs()[0].shape));
    const std::vector<float> want = floats(ref);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const double err = std::fabs(double(got[i]) - double(want[i])) / (1 + std::fabs(want[i]));
      if (err > worst) {
        worst = err;
        worst_model = name;
      }
      if (!(err <= kRel)) {
        FAIL_CHECK("element " << i << ": cvmrt " << got[i] << ", ONNX Runtime " << want[i]);
        break;
      }
    }
  }
  WARN(names.size() << " ONNX models checked; largest |cvmrt - ort| / (1 + |ort|) = " << worst
                    << " (" << worst_model << ")");
}

TEST_CASE("onnx: every model of tests/onnx/bad is refused with its message", "[onnx]") {
  const std::string dir = kOnnxDir + "/bad";
  const std::vector<std::string> names = onnx_names(dir);
  if (names.empty()) {
    WARN("no models in " << dir);
    return;
  }
  for (const std::string& name : names) {
    INFO("model " << name);
    std::string fragment = read_bytes(dir + "/" + name + ".expect");
    while (!fragment.empty() && (fragment.back() == '\n' || fragment.back() == '\r')) {
      fragment.pop_back();
    }
    REQUIRE_THROWS_WITH(cvm::onnx::import_onnx_file(dir + "/" + name + ".onnx"),
                        Contains(fragment) && Contains("onnx: "));
  }
}

// ---------------------------------------------------------------------------------------------
// Mapping

TEST_CASE("onnx: Conv with asymmetric pads becomes pad + conv2d without padding", "[onnx]") {
  OnnxBuilder b;
  b.input("x", {1, 2, 5, 5}).init("w", {3, 2, 3, 3}, seq(54));
  set_ints(b.node("Conv", {"x", "w"}, {"y"}, "conv"), "pads", {0, 1, 1, 0});
  b.output("y");
  auto m = b.import();
  CHECK(ops_of(*m) == std::vector<std::string>{"pad", "conv2d"});
  CHECK(node_named(*m, "conv_pad").attrs.at("pads") == "(0, 0, 0, 1, 0, 0, 1, 0)");
  const auto& conv = node_named(*m, "conv");
  CHECK(conv.attrs.at("padding") == "(0, 0)");
  CHECK(conv.attrs.at("use_bias") == "False");
  CHECK(m->outputs()[0].shape == Shape{1, 3, 4, 4});
}

TEST_CASE("onnx: auto_pad SAME_UPPER and SAME_LOWER compute ONNX's pads", "[onnx]") {
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    INFO(mode);
    OnnxBuilder b;
    b.input("x", {1, 1, 8, 9}).init("w", {2, 1, 3, 3}, seq(18));
    auto& n = b.node("Conv", {"x", "w"}, {"y"}, "conv");
    set_string(n, "auto_pad", mode);
    set_ints(n, "strides", {2, 2});
    b.output("y");
    auto m = b.import();
    // H: out 4, total pad 1; W: out 5, total pad 2 (even: symmetric).
    CHECK(m->outputs()[0].shape == Shape{1, 2, 4, 5});
    CHECK(node_named(*m, "conv_pad").attrs.at("pads") == (std::string(mode) == "SAME_UPPER"
                                                              ? "(0, 0, 0, 1, 0, 0, 1, 1)"
                                                              : "(0, 0, 1, 1, 0, 0, 0, 1)"));
  }
}

TEST_CASE("onnx: Conv + BatchNormalization is folded into the conv2d", "[onnx]") {
  auto folded = conv_bn_model(false).import();
  CHECK(ops_of(*folded) == std::vector<std::string>{"conv2d"});
  auto separate = conv_bn_model(true).import();
  CHECK(ops_of(*separate) == std::vector<std::string>{"conv2d", "mul", "add"});
  const std::vector<float> x = seq(144, 0.3f, -1.5f);
  const std::vector<float> a = run_model(folded, f32({1, 4, 6, 6}, x));
  const std::vector<float> b = run_model(separate, f32({1, 4, 6, 6}, x));
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(std::fabs(a[i] - b[i]) <= 1e-5f * (1 + std::fabs(b[i])));
}

TEST_CASE("onnx: Gemm maps to dense with alpha, beta and transB folded", "[onnx]") {
  OnnxBuilder b;
  const std::vector<float> bw = seq(12, 0.25f, -1.0f);  // B (K=4, N=3), transB = 0
  b.input("x", {2, 4}).init("B", {4, 3}, bw).init("C", {3}, {1.0f, -2.0f, 0.5f});
  auto& n = b.node("Gemm", {"x", "B", "C"}, {"y"}, "fc");
  set_float(n, "alpha", 0.5f);
  set_float(n, "beta", 2.0f);
  b.output("y");
  auto m = b.import();
  CHECK(ops_of(*m) == std::vector<std::string>{"dense"});
  CHECK(node_named(*m, "fc").attrs.at("units") == "3");
  const std::vector<float> x = {1, 2, 3, 4, -1, 0.5f, 0, 2};
  const std::vector<float> got = run_model(m, f32({2, 4}, x));
  const float c[3] = {1.0f, -2.0f, 0.5f};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      double acc = 0;
      for (int k = 0; k < 4; ++k) acc += double(x[i * 4 + k]) * bw[k * 3 + j];
      CHECK(got[i * 3 + j] == Approx(0.5 * acc + 2.0 * c[j]).margin(1e-5));
    }
  }
}

TEST_CASE("onnx: MatMul with a constant 2-D B is dense, otherwise matmul", "[onnx]") {
  OnnxBuilder b;
  b.input("x", {2, 3}).init("B", {3, 2}, seq(6));
  b.node("MatMul", {"x", "B"}, {"h"}, "mm");
  b.node("Transpose", {"h"}, {"t"}, "tr");
  b.node("MatMul", {"h", "t"}, {"y"}, "mm2");
  b.output("y");
  auto m = b.import();
  CHECK(ops_of(*m) == std::vector<std::string>{"dense", "transpose", "matmul"});
  CHECK(node_named(*m, "tr").attrs.at("axes") == "(1, 0)");
  CHECK(m->outputs()[0].shape == Shape{2, 2});
}

TEST_CASE("onnx: constant subgraphs are folded at import", "[onnx]") {
  // Shape -> Gather -> Unsqueeze -> Concat -> Reshape (the flatten pattern of exporters), and a
  // Constant * 2 added to the data.
  OnnxBuilder b;
  b.input("x", {1, 2, 3, 4}).init_i64("zero", {}, {0}).init_i64("minus1", {1}, {-1});
  b.init_i64("axes0", {1}, {0});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "zero"}, {"n"});
  b.node("Unsqueeze", {"n", "axes0"}, {"n1"});
  set_int(b.node("Concat", {"n1", "minus1"}, {"shape"}), "axis", 0);
  b.node("Reshape", {"x", "shape"}, {"flat"}, "flatten");
  auto& k = b.node("Constant", {}, {"k"});
  auto* a = k.add_attribute();
  a->set_name("value_float");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(1.5f);
  b.init("two", {}, {2.0f});
  b.node("Mul", {"k", "two"}, {"k2"});
  b.node("Add", {"flat", "k2"}, {"y"}, "add");
  b.output("y");
  auto m = b.import();
  CHECK(ops_of(*m) == std::vector<std::string>{"reshape", "add"});
  CHECK(node_named(*m, "flatten").attrs.at("shape") == "(1, 24)");
  const std::vector<float> got = run_model(m, f32({1, 2, 3, 4}, seq(24)));
  const std::vector<float> x = seq(24);
  for (size_t i = 0; i < x.size(); ++i) CHECK(got[i] == Approx(x[i] + 3.0f));
}

TEST_CASE("onnx: Clip bounds in attribute and input form", "[onnx]") {
  {
    OnnxBuilder b(9);
    b.input("x", {1, 4});
    auto& n = b.node("Clip", {"x"}, {"y"}, "clip");
    set_float(n, "max", 0.1f);
    b.output("y");
    auto m = b.import();
    CHECK(node_named(*m, "clip").attrs.at("a_min") == "-inf");
    CHECK(node_named(*m, "clip").attrs.at("a_max") == "0.100000001");
  }
  {
    OnnxBuilder b;
    b.input("x", {1, 4}).init("lo", {}, {-0.5f});
    b.node("Clip", {"x", "lo", ""}, {"y"}, "clip");
    b.output("y");
    auto m = b.import();
    CHECK(node_named(*m, "clip").attrs.at("a_min") == "-0.5");
    CHECK(node_named(*m, "clip").attrs.at("a_max") == "inf");
  }
}

TEST_CASE("onnx: Squeeze/Unsqueeze in attribute (opset 11) and input (opset 13) form", "[onnx]") {
  {
    OnnxBuilder b(11);
    b.input("x", {1, 3, 1, 5});
    set_ints(b.node("Squeeze", {"x"}, {"s"}), "axes", {2});
    set_ints(b.node("Unsqueeze", {"s"}, {"y"}), "axes", {0, -1});
    b.output("y");
    CHECK(b.import()->outputs()[0].shape == Shape{1, 1, 3, 5, 1});
  }
  {
    OnnxBuilder b(13);
    b.input("x", {1, 3, 1, 5}).init_i64("ax", {1}, {-2});
    b.node("Squeeze", {"x", "ax"}, {"y"});
    b.output("y");
    CHECK(b.import()->outputs()[0].shape == Shape{1, 3, 5});
  }
}

TEST_CASE("onnx: Softmax before opset 13 normalises over the flattened trailing axes", "[onnx]") {
  OnnxBuilder b(11);
  b.input("x", {1, 2, 3});
  set_int(b.node("Softmax", {"x"}, {"y"}, "sm"), "axis", 1);
  b.output("y");
  auto m = b.import();
  CHECK(ops_of(*m) == std::vector<std::string>{"reshape", "softmax", "reshape"});
  const std::vector<float> got = run_model(m, f32({1, 2, 3}, {0, 1, 2, 3, 4, 5}));
  double sum = 0;
  for (float v : got) sum += v;
  CHECK(sum == Approx(1.0).margin(1e-6));
  CHECK(got[5] / got[0] == Approx(std::exp(5.0)).epsilon(1e-4));
}

TEST_CASE("onnx: names, metadata and the batch option", "[onnx]") {
  OnnxBuilder b;
  b.input("x", {-1, 3});
  b.node("Relu", {"x"}, {"a"}, "same");
  b.node("Relu", {"a"}, {"b"}, "same");
  b.node("Relu", {"b"}, {"y"});
  b.output("y");
  cvm::onnx::ImportOptions options;
  options.batch = 4;
  auto m = b.import(options);
  CHECK(m->inputs()[0].shape == Shape{4, 3});
  std::vector<std::string> names;
  for (const auto& n : m->nodes()) {
    if (n.op != "null") names.push_back(n.name);
  }
  CHECK(names == std::vector<std::string>{"same", "same_1", "Relu_2"});
  CHECK(m->metadata().name == "test_graph");
  CHECK(m->metadata().description == "imported from ONNX (producer cvmrt-test 1, opset 13)");
}

TEST_CASE("onnx: raw_data initializers and typed fields give the same model", "[onnx]") {
  auto make = [](bool raw) {
    OnnxBuilder b;
    b.input("x", {1, 4}).init("B", {4, 2}, seq(8), raw);
    b.node("MatMul", {"x", "B"}, {"y"});
    b.output("y");
    return b.import();
  };
  CHECK(make(true)->save() == make(false)->save());
}

