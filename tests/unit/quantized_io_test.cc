// Session::set_input_float / output_float on a quantized model built here: hand-computed
// quantization (ties away from zero, clamping), dequantization, softmax and sigmoid tails, the
// errors, and the metadata through a model file. Also writes the CLI scenario's model files.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "cvm/c_api.h"
#include "cvm/model_builder.h"
#include "graph_test_util.h"

using Catch::Matchers::Contains;
using cvm::DataType;
using cvm::LogicError;
using cvm::Model;
using cvm::ModelBuilder;
using cvm::NDArray;
using cvm::Session;
using cvm::Shape;
using cvm::test::f32;
using cvm::test::floats;
namespace t = cvm::test;

namespace {

std::vector<int64_t> ints(const NDArray& a) { return t::flat_values(a); }

// Input (2, 4) at precision 8, fed as round(x * 64). Heads, each dequantized with its own scale:
//   "plain" = cvm_clip(data, 8)          (the quantized input itself), q / 64;
//   "soft"  = cvm_right_shift(data, 1)   q / 32, then softmax along axis 1;
//   "sig"   = cvm_clip(data, 8)          q / 16, then sigmoid.
// Postprocess argmax, so the CLI also prints the section 7 result.
std::shared_ptr<const Model> quantized_model() {
  ModelBuilder b;
  auto x = b.input({2, 4}, DataType::Int(32), 8);
  auto plain = b.add1("cvm_clip", "plain", {x}, {{"precision", "8"}});
  auto soft = b.add1("cvm_right_shift", "soft", {x}, {{"precision", "8"}, {"shift_bit", "1"}});
  auto sig = b.add1("cvm_clip", "sig", {x}, {{"precision", "8"}});
  b.set_outputs({plain, soft, sig});
  b.set_postprocess("argmax");
  cvm::ModelOptions opts;
  opts.metadata.name = "quantized io test";
  opts.metadata.quantization.inputs = {{"data", 64.0, 8, "", -1}};
  opts.metadata.quantization.outputs = {
      {"plain", 64.0, 0, "", -1}, {"soft", 32.0, 0, "softmax", 1}, {"sig", 16.0, 0, "sigmoid", -1}};
  return b.build(opts);
}

// y = relu(x) * 1.5: a float model (float32 in and out).
std::shared_ptr<const Model> float_model() {
  ModelBuilder b;
  auto x = b.input({2, 3}, DataType::Float(32));
  auto r = b.add1("relu", "relu", {x});
  auto k = b.constant("k", f32({1}, {1.5f}));
  b.set_outputs({b.add1("mul", "scaled", {r, k})});
  return b.build();
}

// Quantized to [1, -1, 3, 127] and [-127, 2, -3, 0]: ties go away from zero, out of range clamps.
const std::vector<float> kInput = {0.5f / 64, -0.5f / 64, 2.5f / 64,  10.0f,
                                   -1000.0f,  1.5f / 64,  -2.5f / 64, 0.49f / 64};
const std::vector<int64_t> kQuantized = {1, -1, 3, 127, -127, 2, -3, 0};

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// Softmax of each row of 4 values, in double.
std::vector<double> softmax_rows(const std::vector<double>& v) {
  std::vector<double> out(v.size());
  for (size_t r = 0; r < v.size(); r += 4) {
    double m = v[r], sum = 0;
    for (size_t j = 0; j < 4; ++j) m = std::max(m, v[r + j]);
    for (size_t j = 0; j < 4; ++j) sum += std::exp(v[r + j] - m);
    for (size_t j = 0; j < 4; ++j) out[r + j] = std::exp(v[r + j] - m) / sum;
  }
  return out;
}

// A .npy file (format 1.0) of a contiguous float32 or int32 array.
void write_npy(const std::string& path, const NDArray& a) {
  const bool f = a.dtype() == DataType::Float(32);
  std::string shape = "(";
  for (int i = 0; i < a.shape().ndim(); ++i) shape += std::to_string(a.shape()[i]) + ", ";
  shape += ")";
  std::string header = std::string("{'descr': '") + (f ? "<f4" : "<i4") +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(header.size() & 0xFF));
  out.put(static_cast<char>(header.size() >> 8));
  out << header;
  const NDArray c = a.contiguous();
  out.write(static_cast<const char*>(c.data()), static_cast<std::streamsize>(c.nbytes()));
  REQUIRE(out.good());
}

}  // namespace

TEST_CASE("quant_io: float inputs are rounded half away from zero and clamped", "[quant_io]") {
  auto m = quantized_model();
  Session s(m);
  s.set_input_float("data", f32({2, 4}, kInput));
  s.run();
  CHECK(ints(s.output(0)) == kQuantized);
  // The model's own quantize_input gives the integers set_input_float feeds.
  CHECK(ints(m->quantize_input(f32({2, 4}, kInput))) == kQuantized);

  const float inf = std::numeric_limits<float>::infinity();
  s.set_input_float("data", f32({2, 4}, {inf, -inf, 126.5f / 64, -126.4f / 64, 127.49f / 64,
                                         -127.5f / 64, 1e30f, -0.0f}));
  s.run();
  CHECK(ints(s.output(0)) == std::vector<int64_t>{127, -127, 127, -126, 127, -127, 127, 0});

  // Any strides: a transposed view is read in its own row-major order.
  const NDArray tr = f32({4, 2}, {0.5f / 64, -1000.0f, -0.5f / 64, 1.5f / 64, 2.5f / 64, -2.5f / 64,
                                  10.0f, 0.49f / 64})
                         .transpose();
  s.set_input_float("data", tr);
  s.run();
  CHECK(ints(s.output(0)) == kQuantized);

  // The same integers through set_input give the same outputs.
  Session i(m);
  NDArray q = NDArray::empty({2, 4}, DataType::Int(32));
  for (int k = 0; k < 8; ++k) q.mutable_data_as<int32_t>()[k] = static_cast<int32_t>(kQuantized[k]);
  i.set_input("data", q);
  i.run();
  s.set_input_float("data", f32({2, 4}, kInput));
  s.run();
  for (size_t k = 0; k < 3; ++k) CHECK(t::bit_equal(i.output(k), s.output(k)));
}

TEST_CASE("quant_io: outputs are dequantized, then their tail applied", "[quant_io]") {
  auto m = quantized_model();
  Session s(m);
  s.set_input_float("data", f32({2, 4}, kInput));
  s.run();

  // plain: q / 64, exact.
  std::vector<float> plain;
  for (int64_t q : kQuantized) plain.push_back(static_cast<float>(q) / 64);
  CHECK(floats(s.output_float(0)) == plain);

  // soft: right shift by 1 rounds half up: [1, 0, 2, 64], [-63, 1, -1, 0]; / 32; softmax by row.
  CHECK(ints(s.output(1)) == std::vector<int64_t>{1, 0, 2, 64, -63, 1, -1, 0});
  const std::vector<double> soft =
      softmax_rows({1 / 32.0, 0, 2 / 32.0, 2, -63 / 32.0, 1 / 32.0, -1 / 32.0, 0});
  const std::vector<float> got_soft = floats(s.output_float(1));
  REQUIRE(got_soft.size() == 8);
  for (size_t k = 0; k < 8; ++k) CHECK(got_soft[k] == Approx(soft[k]).epsilon(1e-6));
  // The tail is the float32 operator on the dequantized values, bit for bit.
  NDArray deq = f32({2, 4}, {1 / 32.0f, 0, 2 / 32.0f, 2, -63 / 32.0f, 1 / 32.0f, -1 / 32.0f, 0});
  CHECK(t::bit_equal(s.output_float(1), cvm::run_op("softmax", {deq}, {{"axis", "1"}})[0]));

  // sig: sigmoid(q / 16); sigmoid(0) is exactly one half.
  const std::vector<float> got_sig = floats(s.output_float(2));
  REQUIRE(got_sig.size() == 8);
  for (size_t k = 0; k < 8; ++k) {
    CHECK(got_sig[k] == Approx(sigmoid(static_cast<double>(kQuantized[k]) / 16)).epsilon(1e-6));
  }
  CHECK(got_sig[7] == 0.5f);
}

TEST_CASE("quant_io: wrong models, arrays and calls are LogicErrors", "[quant_io]") {
  auto m = quantized_model();
  Session s(m);
  CHECK_THROWS_MATCHES(s.output_float(0), LogicError, t::HasMessage("before a successful run"));
  CHECK_THROWS_MATCHES(s.set_input_float("x", f32({2, 4}, kInput)), LogicError,
                       t::HasMessage("unknown input \"x\""));
  NDArray i32 = NDArray::zeros({2, 4}, DataType::Int(32));
  CHECK_THROWS_MATCHES(s.set_input_float("data", i32), LogicError,
                       t::HasMessage("expected dtype float32, found int32"));
  CHECK_THROWS_MATCHES(s.set_input_float("data", f32({1, 8}, kInput)), LogicError,
                       t::HasMessage("expected shape (2, 4), found (1, 8)"));
  std::vector<float> nan = kInput;
  nan[5] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_MATCHES(s.set_input_float("data", f32({2, 4}, nan)), LogicError,
                       t::HasMessage("NaN at flat index 5"));
  CHECK_THROWS_MATCHES(s.run(), LogicError, t::HasMessage("before set_input"));
  s.set_input_float("data", f32({2, 4}, kInput));
  s.run();
  CHECK_THROWS_MATCHES(s.output_float(3), LogicError, t::HasMessage("output 3 does not exist"));

  // Models without quantization metadata: CVM and float models alike.
  ModelBuilder b;
  auto x = b.input({2, 4}, DataType::Int(32), 8);
  b.set_outputs({b.add1("relu", "r", {x})});
  Session plain(b.build());
  CHECK_THROWS_MATCHES(plain.set_input_float("data", f32({2, 4}, kInput)), LogicError,
                       t::HasMessage("is not a quantized model"));
  plain.set_input("data", NDArray::zeros({2, 4}, DataType::Int(32)));
  plain.run();
  CHECK_THROWS_MATCHES(plain.output_float(0), LogicError,
                       t::HasMessage("is not a quantized model"));
  Session fl(float_model());
  CHECK_THROWS_MATCHES(fl.set_input_float("data", f32({2, 3}, {1, 2, 3, 4, 5, 6})), LogicError,
                       t::HasMessage("is not a quantized model"));
}

TEST_CASE("quant_io: the metadata survives the model file", "[quant_io]") {
  auto m = quantized_model();
  const std::vector<uint8_t> bytes = m->save();
  auto back = Model::from_bytes(bytes.data(), bytes.size());
  const cvm::Quantization& q = back->metadata().quantization;
  REQUIRE(q.inputs.size() == 1);
  CHECK(q.inputs[0].name == "data");
  CHECK(q.inputs[0].scale == 64.0);
  CHECK(q.inputs[0].precision == 8);
  REQUIRE(q.outputs.size() == 3);
  CHECK(q.outputs[1].name == "soft");
  CHECK(q.outputs[1].scale == 32.0);
  CHECK(q.outputs[1].tail == "softmax");
  CHECK(q.outputs[1].tail_axis == 1);
  CHECK(q.outputs[2].tail == "sigmoid");
  CHECK(back->save() == bytes);

  Session a(m), b(back);
  a.set_input_float("data", f32({2, 4}, kInput));
  b.set_input_float("data", f32({2, 4}, kInput));
  a.run();
  b.run();
  for (size_t k = 0; k < 3; ++k) CHECK(t::bit_equal(a.output_float(k), b.output_float(k)));

  // The CVM JSON carries no metadata: from_cvm takes it from the options.
  const std::vector<uint8_t> params = m->params().save(cvm::ParamFormat::kLegacy);
  cvm::ModelOptions opts;
  opts.metadata = m->metadata();
  auto from_json = Model::from_cvm(m->cvm_json(), params.data(), params.size(), opts);
  Session c(from_json);
  c.set_input_float("data", f32({2, 4}, kInput));
  c.run();
  for (size_t k = 0; k < 3; ++k) CHECK(t::bit_equal(a.output_float(k), c.output_float(k)));
}

TEST_CASE("quant_io: CVMModelGetQuantization gives the metadata as exact JSON", "[quant_io]") {
  // A scale that needs all 17 digits: the JSON must parse back to the same double.
  ModelBuilder b;
  auto x = b.input({2, 4}, DataType::Int(32), 8);
  b.set_outputs({b.add1("cvm_clip", "y", {x}, {{"precision", "8"}})});
  cvm::ModelOptions opts;
  const double scale = 0.1 + 0.2;
  opts.metadata.quantization.inputs = {{"data", scale, 8, "", -1}};
  opts.metadata.quantization.outputs = {{"y", 1.0 / 3.0, 0, "softmax", 1}};
  const std::vector<uint8_t> bytes = b.build(opts)->save();
  CVMModelHandle h = nullptr;
  REQUIRE(CVMModelLoadBytes(bytes.data(), bytes.size(), &h) == 0);
  const char* text = nullptr;
  REQUIRE(CVMModelGetQuantization(h, &text) == 0);
  const nlohmann::json q = nlohmann::json::parse(text);
  CHECK(q.at("inputs").at(0).at("name") == "data");
  CHECK(q.at("inputs").at(0).at("scale").get<double>() == scale);
  CHECK(q.at("inputs").at(0).at("precision") == 8);
  CHECK(q.at("outputs").at(0).at("scale").get<double>() == 1.0 / 3.0);
  CHECK(q.at("outputs").at(0).at("tail") == "softmax");
  CHECK(q.at("outputs").at(0).at("tail_axis") == 1);
  CHECK(CVMModelGetQuantization(h, nullptr) == CVM_STATUS_LOGIC_ERROR);
  CVMModelFree(h);
  // A model without the metadata: "".
  const std::vector<uint8_t> plain = float_model()->save();
  REQUIRE(CVMModelLoadBytes(plain.data(), plain.size(), &h) == 0);
  REQUIRE(CVMModelGetQuantization(h, &text) == 0);
  CHECK(std::string(text).empty());
  CVMModelFree(h);
}

// Not run by ctest on its own (hidden): tests/cli's quantized_io scenario runs it to get its
// model and input files in $CVMRT_QUANT_CLI_DIR.
TEST_CASE("quant_io: write the CLI scenario's files", "[.quant_cli]") {
  const char* env = std::getenv("CVMRT_QUANT_CLI_DIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : t::tmp_path("quant_cli");
  std::filesystem::create_directories(dir);
  quantized_model()->save_file(dir + "/quant.cvmrt");
  write_npy(dir + "/quant_input.npy", f32({2, 4}, kInput));
  NDArray q = NDArray::empty({2, 4}, DataType::Int(32));
  for (int k = 0; k < 8; ++k) q.mutable_data_as<int32_t>()[k] = static_cast<int32_t>(kQuantized[k]);
  write_npy(dir + "/quant_input_int.npy", q);
  std::vector<float> nan = kInput;
  nan[5] = std::numeric_limits<float>::quiet_NaN();
  write_npy(dir + "/quant_input_nan.npy", f32({2, 4}, nan));
  float_model()->save_file(dir + "/float.cvmrt");
  write_npy(dir + "/float_input.npy", f32({2, 3}, {1, -2, 0.25f, -0.5f, 3, 0.125f}));
  write_npy(dir + "/float_input_int.npy", NDArray::zeros({2, 3}, DataType::Int(32)));
}
