// ModelBuilder: CVM and float graphs built node by node, their runs, files and cost, and the
// errors a builder gives for bad nodes, constants and quantization metadata.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "cvm/model_builder.h"
#include "test_util.h"

using cvm::DataType;
using cvm::LogicError;
using cvm::Model;
using cvm::ModelBuilder;
using cvm::NDArray;
using cvm::Session;
using cvm::Shape;
using cvm::test::f32;
using cvm::test::floats;
using cvm::test::i32;
using Catch::Matchers::Contains;

namespace {

// y = (x + c) * 2: a float model of array operators.
std::shared_ptr<const Model> float_model() {
  ModelBuilder b;
  auto x = b.input({2, 3}, DataType::Float(32));
  auto c = b.constant("c", f32({3}, {0.5f, -1.0f, 2.0f}));
  auto two = b.constant("two", f32({1}, {2.0f}));
  b.constant("unused", f32({4}, {1, 2, 3, 4}));
  auto s = b.add1("add", "plus_c", {x, c});
  auto y = b.add1("mul", "times_two", {s, two});
  b.set_outputs({y});
  return b.build();
}

}  // namespace

TEST_CASE("builder: a CVM graph gives the spec's worked-example cost and dense outputs",
          "[builder]") {
  ModelBuilder b;
  auto x = b.input({1, 4}, DataType::Int(32), 8);
  auto w = b.constant("w", i32({3, 4}, {1, 2, 3, 4, -1, -2, -3, -4, 5, 0, -5, 127}), 8);
  auto y = b.add1("dense", "dense_0", {x, w}, {{"units", "3"}, {"use_bias", "False"}});
  CHECK(b.shape(y) == Shape{1, 3});
  CHECK(b.precision(y) == 8 + 8 + 3);
  CHECK(b.dtype(y) == DataType::Int(32));
  b.set_outputs({y});
  auto m = b.build();
  CHECK(m->cost().total == 131);  // spec section 6
  Session s(m);
  s.set_input("data", i32({1, 4}, {1, 1, 1, 1}));
  s.run();
  const NDArray out = s.output(0);
  CHECK(out.data_as<int32_t>()[0] == 10);
  CHECK(out.data_as<int32_t>()[1] == -10);
  CHECK(out.data_as<int32_t>()[2] == 127);
}

TEST_CASE("builder: constants get the smallest precision that holds them", "[builder]") {
  ModelBuilder b;
  b.input({1, 2}, DataType::Int(32), 8);
  CHECK(b.precision(b.constant("zero", i32({1}, {0}))) == 1);
  CHECK(b.precision(b.constant("one", i32({2}, {1, -1}))) == 2);
  CHECK(b.precision(b.constant("s127", i32({1}, {-127}))) == 8);
  CHECK(b.precision(b.constant("s128", i32({1}, {128}))) == 9);
  CHECK_THROWS_WITH(b.constant("big", i32({1}, {200}), 8), Contains("does not fit precision 8"));
  CHECK_THROWS_WITH(b.constant("min", i32({1}, {INT32_MIN})), Contains("no symmetric precision"));
  CHECK_THROWS_WITH(b.constant("zero", i32({1}, {0})), Contains("already used"));
  CHECK_THROWS_WITH(b.constant("f", f32({1}, {1.0f})), Contains("int8 or int32"));
}

TEST_CASE("builder: a float graph runs, saves and loads with identical bits", "[builder]") {
  auto m = float_model();
  CHECK(m->inputs()[0].dtype == DataType::Float(32));
  CHECK(m->inputs()[0].precision == 0);
  CHECK(m->outputs()[0].dtype == DataType::Float(32));
  CHECK(m->params().size() == 2);  // "unused" was dropped
  CHECK(m->cost().total == (6 + 6) + 5 * (6 + 3 + 1 + 6 + 6));
  Session s(m);
  s.set_input("data", f32({2, 3}, {1, 2, 3, -0.5f, 0, 1e30f}));
  s.run();
  const std::vector<float> expect = {3, 2, 10, 0, -2, 2e30f};
  CHECK(floats(s.output(0)) == expect);

  const std::vector<uint8_t> bytes = m->save();
  auto back = Model::from_bytes(bytes.data(), bytes.size());
  CHECK(back->save() == bytes);
  Session s2(back);
  s2.set_input("data", f32({2, 3}, {1, 2, 3, -0.5f, 0, 1e30f}));
  s2.run();
  CHECK(cvm::test::bit_equal(s2.output(0), s.output(0)));

  // The byte interface: float32 little-endian in and out.
  std::vector<float> in = {1, 2, 3, -0.5f, 0, 1e30f}, out(6);
  CHECK(m->input_length() == 24);
  CHECK(m->output_length() == 24);
  s2.infer_bytes(reinterpret_cast<const char*>(in.data()), 24, reinterpret_cast<char*>(out.data()),
                 24);
  CHECK(out == expect);
  CHECK_THROWS_WITH(s2.set_input("data", i32({2, 3}, {1, 2, 3, 4, 5, 6})),
                    Contains("expected dtype float32, found int32"));
}

TEST_CASE("builder: a float graph's byte interface reads every byte, at any alignment",
          "[builder]") {
  auto m = float_model();
  Session s(m);
  // Values whose four bytes all differ and none is zero, from a source one byte off alignment:
  // a conversion that dropped or moved any byte of an input changes (x + c) * 2.
  const uint32_t bits[6] = {0x3F9A5C3Bu, 0x40B1C2D3u, 0xC0E5F617u,
                            0x3FA1B2C3u, 0x41234567u, 0xC1779A5Bu};
  const float c[3] = {0.5f, -1.0f, 2.0f};
  std::vector<char> in(1 + sizeof bits), out(1 + sizeof bits);
  std::memcpy(in.data() + 1, bits, sizeof bits);
  s.infer_bytes(in.data() + 1, sizeof bits, out.data() + 1, sizeof bits);
  for (int i = 0; i < 6; ++i) {
    float x, got;
    std::memcpy(&x, &bits[i], 4);
    std::memcpy(&got, out.data() + 1 + 4 * i, 4);
    const float want = (x + c[i % 3]) * 2.0f;
    CAPTURE(i, x);
    CHECK(std::memcmp(&got, &want, 4) == 0);
  }
}

TEST_CASE("builder: bad nodes name the node and leave the builder usable", "[builder]") {
  ModelBuilder b;
  CHECK_THROWS_WITH(b.add1("relu", "r", {0}), Contains("before input()"));
  auto x = b.input({2, 3}, DataType::Float(32));
  CHECK_THROWS_WITH(b.input({1}, DataType::Float(32)), Contains("called twice"));
  CHECK_THROWS_WITH(b.add1("no_such_op", "n0", {x}), Contains("unknown operator \"no_such_op\""));
  CHECK_THROWS_WITH(b.add1("add", "n1", {x, 7}), Contains("entry 7 does not exist"));
  auto c = b.constant("c", f32({4}, {1, 2, 3, 4}));
  CHECK_THROWS_WITH(b.add1("add", "bad_add", {x, c}), Contains("\"bad_add\" (add)"));
  CHECK_THROWS_WITH(b.add1("add", "one_input", {x}), Contains("expected 2 input(s), found 1"));
  CHECK(b.num_entries() == 2);  // the failed nodes were taken back
  auto y = b.add1("add", "ok", {x, x});
  b.set_outputs({y});
  b.set_postprocess("argmax");
  CHECK_THROWS_WITH(b.build(), Contains("CVM models only"));
}

TEST_CASE("builder: a CVM graph takes CVM operators only", "[builder]") {
  ModelBuilder b;
  auto x = b.input({2, 2}, DataType::Int(32), 8);
  CHECK_THROWS_WITH(b.add1("matmul", "mm", {x, x}), Contains("is not a CVM model operator"));
  CHECK_THROWS_WITH(b.input({1}, DataType::Int(32), 0), Contains("called twice"));
  ModelBuilder b2;
  CHECK_THROWS_WITH(b2.input({1}, DataType::Int(32), 0), Contains("needs a precision"));
  CHECK_THROWS_WITH(b2.input({1}, DataType::Int(8), 8), Contains("int32 (a CVM model)"));
}

TEST_CASE("builder: quantization metadata is kept by the model file and checked", "[builder]") {
  ModelBuilder b;
  auto x = b.input({1, 4}, DataType::Int(32), 8);
  auto y = b.add1("cvm_right_shift", "out", {x}, {{"precision", "8"}, {"shift_bit", "1"}});
  b.set_outputs({y});
  cvm::ModelOptions opts;
  opts.metadata.quantization.inputs = {{"data", 64.0, 8, "", -1}};
  opts.metadata.quantization.outputs = {{"out", 32.0, 0, "softmax", -1}};
  auto m = b.build(opts);
  const auto bytes = m->save();
  auto back = Model::from_bytes(bytes.data(), bytes.size());
  const cvm::Quantization& q = back->metadata().quantization;
  REQUIRE(q.inputs.size() == 1);
  CHECK(q.inputs[0].scale == 64.0);
  CHECK(q.inputs[0].precision == 8);
  REQUIRE(q.outputs.size() == 1);
  CHECK(q.outputs[0].name == "out");
  CHECK(q.outputs[0].tail == "softmax");
  CHECK(back->save() == bytes);

  ModelBuilder b2;
  auto x2 = b2.input({1, 4}, DataType::Int(32), 8);
  b2.set_outputs({b2.add1("relu", "r", {x2})});
  opts.metadata.quantization.outputs[0].name = "wrong";
  CHECK_THROWS_WITH(b2.build(opts), Contains("output 0 is named \"r\", found \"wrong\""));
}
