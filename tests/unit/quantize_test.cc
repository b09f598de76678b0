// The quantizer: float models built with ModelBuilder, calibrated and turned into CVM graphs
// whose dequantized outputs follow the float ones, with the same bits on every backend.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "cvm/model_builder.h"
#include "cli_util.h"  // parse_npy (tools/)
#include "cvm/onnx_import.h"
#include "cvm/op.h"
#include "cvm/quantize.h"
#include "cvm/registry.h"
#include "cvm/threads.h"
#include "test_util.h"

using cvm::DataType;
using cvm::Model;
using cvm::ModelBuilder;
using cvm::NDArray;
using cvm::Session;
using cvm::Shape;
using Catch::Matchers::Contains;

namespace {

NDArray random_f32(const Shape& shape, float scale, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  NDArray a = NDArray::empty(shape, DataType::Float(32));
  float* p = a.mutable_data_as<float>();
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = dist(rng);
  return a;
}

// Weights of a conv2d whose output channels differ in magnitude by up to 2^6.
NDArray uneven_weights(const Shape& shape, uint64_t seed) {
  NDArray w = random_f32(shape, 0.3f, seed);
  float* p = w.mutable_data_as<float>();
  const int64_t per = w.numel() / shape[0];
  for (int64_t c = 0; c < shape[0]; ++c) {
    for (int64_t i = 0; i < per; ++i) p[c * per + i] *= std::ldexp(1.0f, -static_cast<int>(c % 7));
  }
  return w;
}

// conv 3x3 (4 -> 8) + relu + max_pool 2x2 + conv 1x1 (8 -> 8, per-channel spread) + global
// average pool + dense (8 -> 5) + softmax.
std::shared_ptr<const Model> small_cnn(const std::string& tail = "softmax") {
  ModelBuilder b;
  auto x = b.input({1, 4, 10, 10}, DataType::Float(32));
  auto w1 = b.constant("w1", random_f32({8, 4, 3, 3}, 0.4f, 1));
  auto b1 = b.constant("b1", random_f32({8}, 0.2f, 2));
  auto c1 = b.add1("conv2d", "conv1", {x, w1, b1},
                   {{"channels", "8"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"}});
  auto r1 = b.add1("relu", "relu1", {c1});
  auto p1 = b.add1("max_pool2d", "pool1", {r1}, {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}});
  auto w2 = b.constant("w2", uneven_weights({8, 8, 1, 1}, 3));
  auto c2 = b.add1("conv2d", "conv2", {p1, w2},
                   {{"channels", "8"}, {"kernel_size", "(1, 1)"}, {"use_bias", "False"}});
  auto s = b.add1("add", "residual", {c2, p1});
  auto g = b.add1("reduce_mean", "gap", {s}, {{"axis", "(2, 3)"}, {"keepdims", "False"}});
  auto w3 = b.constant("w3", random_f32({5, 8}, 0.5f, 4));
  auto b3 = b.constant("b3", random_f32({5}, 0.1f, 5));
  auto d = b.add1("dense", "fc", {g, w3, b3}, {{"units", "5"}});
  auto y = tail.empty() ? d : b.add1(tail, "probs", {d});
  b.set_outputs({y});
  return b.build();
}

std::vector<double> dequantized(const Model& m, const NDArray& q, size_t output) {
  const double scale = m.metadata().quantization.outputs.at(output).scale;
  const NDArray c = q.contiguous();
  std::vector<double> out;
  for (int64_t i = 0; i < c.numel(); ++i) out.push_back(c.data_as<int32_t>()[i] / scale);
  return out;
}

std::vector<double> softmax(const std::vector<double>& v) {
  double m = v[0], s = 0;
  for (double x : v) m = std::max(m, x);
  std::vector<double> e;
  for (double x : v) e.push_back(std::exp(x - m)), s += e.back();
  for (double& x : e) x /= s;
  return e;
}

NDArray run_int(const std::shared_ptr<const Model>& m, const NDArray& x) {
  Session s(m);
  s.set_input_float("data", x);
  s.run();
  return s.output(0);
}

std::vector<float> run_float(const std::shared_ptr<const Model>& m, const NDArray& x) {
  Session s(m);
  s.set_input("data", x);
  s.run();
  const NDArray o = s.output(0);
  return std::vector<float>(o.data_as<float>(), o.data_as<float>() + o.numel());
}

}  // namespace

TEST_CASE("quantize: a small CNN becomes a CVM graph that follows the float model",
          "[quantize]") {
  auto fm = small_cnn();
  const NDArray calib = random_f32({48, 4, 10, 10}, 1.0f, 100);
  cvm::quant::QuantizeReport report;
  auto qm = cvm::quant::quantize(*fm, calib, {}, &report);
  CHECK(report.calibration_samples == 48);
  CHECK(!report.tensors.empty());

  std::set<std::string> cvm_ops;
  for (const cvm::OpInfo& op : cvm::list_ops()) {
    if (op.cvm) cvm_ops.insert(op.name);
  }
  for (const cvm::NodeInfo& n : qm->nodes()) {
    if (n.op != "null") CHECK(cvm_ops.count(n.op) == 1);
  }
  CHECK(qm->inputs()[0].precision == 8);
  CHECK(qm->inputs()[0].dtype == DataType::Int(32));
  const cvm::Quantization& q = qm->metadata().quantization;
  REQUIRE(q.outputs.size() == 1);
  CHECK(q.outputs[0].name == "probs");
  CHECK(q.outputs[0].tail == "softmax");
  CHECK(qm->outputs()[0].name == "probs");

  double worst = 0;
  int agree = 0;
  const int samples = 24;
  for (int i = 0; i < samples; ++i) {
    const NDArray x = random_f32({1, 4, 10, 10}, 1.0f, 1000 + i);
    const std::vector<float> ref = run_float(fm, x);
    const std::vector<double> got = softmax(dequantized(*qm, run_int(qm, x), 0));
    size_t best_ref = 0, best_got = 0;
    for (size_t j = 0; j < ref.size(); ++j) {
      worst = std::max(worst, std::fabs(got[j] - ref[j]));
      if (ref[j] > ref[best_ref]) best_ref = j;
      if (got[j] > got[best_got]) best_got = j;
    }
    agree += best_ref == best_got;
  }
  INFO("largest probability difference " << worst << ", top-1 agreement " << agree << "/"
                                         << samples);
  CHECK(worst < 0.06);
  CHECK(agree >= samples - 2);
}

TEST_CASE("quantize: per-channel weight scales keep small channels that per-tensor ones lose",
          "[quantize]") {
  // One conv2d whose output channels differ in magnitude by up to 2^6, as the model's output
  // (16 bits): its channels' relative errors show the weight scales alone.
  ModelBuilder b;
  auto x = b.input({1, 4, 6, 6}, DataType::Float(32));
  auto w = b.constant("w", uneven_weights({7, 4, 3, 3}, 3));
  b.set_outputs({b.add1("conv2d", "conv", {x, w},
                        {{"channels", "7"}, {"kernel_size", "(3, 3)"}, {"use_bias", "False"}})});
  auto fm = b.build();
  const NDArray calib = random_f32({32, 4, 6, 6}, 1.0f, 200);
  cvm::quant::QuantizeOptions per_tensor;
  per_tensor.per_channel = false;
  auto qc = cvm::quant::quantize(*fm, calib);
  auto qt = cvm::quant::quantize(*fm, calib, per_tensor);
  // Per channel: the largest error relative to the channel's largest |value|.
  std::vector<double> err_c(7, 0), err_t(7, 0), peak(7, 0);
  for (int i = 0; i < 8; ++i) {
    const NDArray xi = random_f32({1, 4, 6, 6}, 1.0f, 2000 + i);
    const std::vector<float> ref = run_float(fm, xi);
    const std::vector<double> c = dequantized(*qc, run_int(qc, xi), 0);
    const std::vector<double> t = dequantized(*qt, run_int(qt, xi), 0);
    for (size_t j = 0; j < ref.size(); ++j) {
      const size_t ch = j / 16;
      peak[ch] = std::max(peak[ch], std::fabs(static_cast<double>(ref[j])));
      err_c[ch] = std::max(err_c[ch], std::fabs(c[j] - ref[j]));
      err_t[ch] = std::max(err_t[ch], std::fabs(t[j] - ref[j]));
    }
  }
  double worst_c = 0, worst_t = 0;
  for (int ch = 0; ch < 7; ++ch) {
    worst_c = std::max(worst_c, err_c[ch] / peak[ch]);
    worst_t = std::max(worst_t, err_t[ch] / peak[ch]);
  }
  INFO("worst relative channel error: per channel " << worst_c << ", per tensor " << worst_t);
  CHECK(worst_c < 0.03);
  CHECK(worst_t > 4 * worst_c);
}

TEST_CASE("quantize: the quantized model gives the same bits on every backend and thread count",
          "[quantize]") {
  auto qm = cvm::quant::quantize(*small_cnn(), random_f32({16, 4, 10, 10}, 1.0f, 300));
  const NDArray x = random_f32({1, 4, 10, 10}, 1.0f, 301);
  const NDArray ref = [&] {
    cvm::ScopedThreadBackend scalar("scalar");
    return run_int(qm, x);
  }();
  for (const std::string& backend : cvm::test::runnable_backends()) {
    cvm::ScopedThreadBackend use(backend);
    for (int threads : {1, 2, 7}) {
      cvm::set_num_threads(threads);
      CHECK(cvm::test::bit_equal(run_int(qm, x), ref));
    }
  }
  cvm::set_num_threads(0);
  // The file keeps the graph and the metadata.
  const auto bytes = qm->save();
  auto back = Model::from_bytes(bytes.data(), bytes.size());
  CHECK(cvm::test::bit_equal(run_int(back, x), ref));
  CHECK(back->metadata().quantization.outputs[0].tail == "softmax");
}

TEST_CASE("quantize: operators without a CVM form and bad calibration are LogicErrors",
          "[quantize]") {
  const NDArray calib = random_f32({4, 1, 3, 4}, 1.0f, 400);
  {
    ModelBuilder b;
    auto x = b.input({1, 3, 4}, DataType::Float(32));
    auto s = b.add1("sigmoid", "gate", {x});
    b.set_outputs({b.add1("relu", "out", {s})});
    auto fm = b.build();
    CHECK_THROWS_WITH(cvm::quant::quantize(*fm, calib),
                      Contains("\"gate\" (sigmoid)") && Contains("float tail"));
    CHECK_THROWS_WITH(cvm::quant::quantize(*fm, random_f32({4, 5}, 1.0f, 1)),
                      Contains("calibration batch shape"));
    NDArray ints = NDArray::zeros({4, 1, 3, 4}, DataType::Int(32));
    CHECK_THROWS_WITH(cvm::quant::quantize(*fm, ints), Contains("must be float32"));
  }
  {
    ModelBuilder b;
    auto x = b.input({1, 3, 4}, DataType::Float(32));
    b.set_outputs({b.add1("matmul", "mm", {x, b.add1("transpose", "t", {x}, {{"axes", "(0, 2, 1)"}})})});
    CHECK_THROWS_WITH(cvm::quant::quantize(*b.build(), calib),
                      Contains("\"mm\" (matmul)") && Contains("no CVM int8 form"));
  }
  {
    ModelBuilder b;
    auto x = b.input({1, 4}, DataType::Int(32), 8);
    b.set_outputs({b.add1("relu", "r", {x})});
    CHECK_THROWS_WITH(cvm::quant::quantize(*b.build(), calib), Contains("not a float model"));
  }
}

namespace {

std::string file_bytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

}  // namespace

TEST_CASE("quantize: imported ONNX models it has never seen follow ONNX Runtime", "[quantize]") {
  // Models of tests/onnx with a batch-norm to fold, pooling, residual adds, padding and a
  // softmax tail; each is calibrated on seeded random inputs of the committed input's scale
  // and compared with ONNX Runtime's float output on the committed input.
  const std::string dir = std::string(CVM_TEST_DATA_DIR) + "/onnx/models/";
  const char* const kModels[] = {
      "conv_bn",         "conv_nobias_bn_relu", "conv_pads_asym", "conv_same_upper_s2",
      "conv_depthwise",  "conv_group2",         "maxpool_pads_s2", "avgpool_2x2",
      "globalavgpool",   "add_branches",        "concat_const",   "pad_then_conv",
      "gemm_transb",     "clip_relu6",          "leakyrelu",      "batchnorm",
      "softmax_2d",      "mul_const_c11",       "reshape_then_gemm"};
  for (const char* name : kModels) {
    SECTION(name) {
      auto fm = cvm::onnx::import_onnx_file(dir + name + ".onnx");
      const NDArray input =
          cvm::cli::parse_npy(file_bytes(dir + name + ".input.npy"), std::string(name));
      const NDArray ref = cvm::cli::parse_npy(file_bytes(dir + name + ".ort.npy"), name);
      Shape batch = input.shape();
      batch.insert(0, 32);
      NDArray calib = random_f32(batch, 1.0f, 77);
      std::memcpy(calib.mutable_data_as<float>(), input.data(), input.nbytes());
      auto qm = cvm::quant::quantize(*fm, calib);
      Session s(qm);
      s.set_input_float("data", input.reshape(qm->inputs()[0].shape));
      s.run();
      const NDArray got = s.output_float(0);
      REQUIRE(got.numel() == ref.numel());
      double peak = 0, worst = 0;
      for (int64_t i = 0; i < ref.numel(); ++i) {
        const double r = ref.data_as<float>()[i];
        peak = std::max(peak, std::fabs(r));
        worst = std::max(worst, std::fabs(got.data_as<float>()[i] - r));
      }
      INFO(name << ": largest difference " << worst << " against a largest |output| " << peak);
      CHECK(worst <= 0.05 * std::max(peak, 1e-3));
    }
  }
  // A sigmoid inside the model (not at an output) has no CVM form: the node is named.
  auto fm = cvm::onnx::import_onnx_file(dir + "small_cnn.onnx");
  CHECK_THROWS_WITH(cvm::quant::quantize(*fm, random_f32({4, 1, 3, 12, 12}, 1.0f, 5)),
                    Contains("(sigmoid)") && Contains("float tail"));
}

TEST_CASE("quantize: percentile calibration gives finer or equal scales and still follows",
          "[quantize]") {
  auto fm = small_cnn();
  const NDArray calib = random_f32({32, 4, 10, 10}, 1.0f, 500);
  cvm::quant::QuantizeReport by_max, by_pct;
  cvm::quant::QuantizeOptions pct;
  pct.percentile = 99.0;
  auto qm = cvm::quant::quantize(*fm, calib, {}, &by_max);
  auto qp = cvm::quant::quantize(*fm, calib, pct, &by_pct);
  REQUIRE(by_max.tensors.size() == by_pct.tensors.size());
  bool finer = false;
  for (size_t i = 0; i < by_max.tensors.size(); ++i) {
    INFO(by_max.tensors[i].node);
    CHECK(by_pct.tensors[i].max_abs <= by_max.tensors[i].max_abs);
    CHECK(by_pct.tensors[i].exponent >= by_max.tensors[i].exponent);
    finer = finer || by_pct.tensors[i].exponent > by_max.tensors[i].exponent;
  }
  CHECK(finer);
  CHECK(by_pct.tensors[0].node == "data");
  CHECK(by_pct.tensors[0].max_abs == by_max.tensors[0].max_abs);  // the input keeps its maximum
  const NDArray x = random_f32({1, 4, 10, 10}, 1.0f, 501);
  const std::vector<float> ref = run_float(fm, x);
  const std::vector<double> got = softmax(dequantized(*qp, run_int(qp, x), 0));
  for (size_t j = 0; j < ref.size(); ++j) CHECK(std::fabs(got[j] - ref[j]) < 0.1);
  pct.percentile = 40;
  CHECK_THROWS_WITH(cvm::quant::quantize(*fm, calib, pct), Contains("percentile 40 outside"));
}

namespace {

// One 1x1 conv2d (1 -> 1 channel, weight `w`, no bias) over a row of n values in [-1, 1]: the
// model's output, so its result keeps 16 bits.
std::shared_ptr<const Model> scale_by(float w, int64_t n) {
  ModelBuilder b;
  auto x = b.input({1, 1, 1, n}, DataType::Float(32));
  NDArray wv = NDArray::empty({1, 1, 1, 1}, DataType::Float(32));
  wv.mutable_data_as<float>()[0] = w;
  auto c = b.add1("conv2d", "conv", {x, b.constant("w", wv)},
                  {{"channels", "1"}, {"kernel_size", "(1, 1)"}, {"use_bias", "False"}});
  b.set_outputs({c});
  return b.build();
}

// Every 15-bit input value -16383..16383 once, as floats at the split model's input scale 2^13.
NDArray every_15bit_value() {
  NDArray x = NDArray::empty({1, 1, 1, 32767}, DataType::Float(32));
  for (int i = 0; i < 32767; ++i) x.mutable_data_as<float>()[i] = std::ldexp(i - 16383.0f, -13);
  return x;
}

cvm::quant::QuantizeOptions split_options() {
  cvm::quant::QuantizeOptions o;
  o.split = true;
  return o;
}

int64_t param_max_abs(const Model& m, const std::string& name) {
  const NDArray p = m.params().at(name).contiguous();
  int64_t big = 0;
  for (int64_t i = 0; i < p.numel(); ++i) {
    const int64_t v = p.dtype() == DataType::Int(8) ? p.data_as<int8_t>()[i]
                                                    : p.data_as<int32_t>()[i];
    big = std::max<int64_t>(big, v < 0 ? -v : v);
  }
  return big;
}

}  // namespace

TEST_CASE("quantize --split: the int8 halves of every 15-bit input and weight add up exactly",
          "[quantize]") {
  // Weight 1.0 at 15 bits: exponent 13 (8192 <= 16383 < 16384), so hi = 8192 >> 7 = 64, lo = 0.
  // The input (max |x| = 16383 / 2^13) gets exponent 13: x = q / 2^13, q in [-16383, 16383],
  // split into hi = round(q / 128) (8 bits) and lo = q - 128 hi. The partials x_hi * 64
  // (exponent 12) and x_lo * 64 (exponent 19) meet at exponent 17 (the 16-bit output's exponent
  // 13 plus 4 guard bits) as 2048 x_hi and 16 x_lo, exactly 16q; the last shift gives q at
  // exponent 13, so every input value must come back exactly.
  const NDArray x = every_15bit_value();
  cvm::quant::QuantizeReport report;
  auto qm = cvm::quant::quantize(*scale_by(1.0f, 32767), x, split_options(), &report);
  CHECK(qm->inputs()[0].precision == 15);
  CHECK(qm->metadata().quantization.inputs[0].scale == 8192.0);
  CHECK(qm->metadata().quantization.inputs[0].precision == 15);
  CHECK(cvm::test::bit_equal(qm->params().at("conv_weight_hi"),
                             [] {
                               NDArray h = NDArray::empty({1, 1, 1, 1}, DataType::Int(8));
                               h.mutable_data_as<int8_t>()[0] = 64;
                               return h;
                             }()));
  CHECK(param_max_abs(*qm, "conv_weight_lo") == 0);
  const std::vector<double> y = dequantized(*qm, run_int(qm, x), 0);
  const float* xf = x.data_as<float>();
  int exact = 0;
  for (int i = 0; i < 32767; ++i) exact += y[i] == static_cast<double>(xf[i]);
  CHECK(exact == 32767);

  // Weight 0.7: 15-bit wq = round(0.7 * 2^14) = 11469 = 90 * 128 - 51 (hi 90, lo -51); the
  // output (max 1.4) gets exponent 14 at 16 bits. The partials at exponent 13 + 14 - 14 = 13
  // (A = x_hi * 90) and 20 (B = x_hi * -51, C = x_lo * 90; x_lo * -51 is dropped) meet at
  // 14 + 4 guard bits: A << 5, B >> 2, C >> 2 (rounding half up), then >> 4 to the output.
  auto q7 = cvm::quant::quantize(*scale_by(0.7f, 32767), x, split_options(), &report);
  CHECK(q7->params().at("conv_weight_hi").data_as<int8_t>()[0] == 90);
  CHECK(q7->params().at("conv_weight_lo").data_as<int8_t>()[0] == -51);
  REQUIRE(q7->metadata().quantization.outputs[0].scale == 16384.0);
  const NDArray y7 = run_int(q7, x);
  auto shr = [](int64_t v, int s) { return (v + (int64_t{1} << (s - 1))) >> s; };
  int matched = 0;
  double worst = 0;
  for (int i = 0; i < 32767; ++i) {
    const int64_t q = i - 16383;
    const int64_t hi = std::clamp<int64_t>(shr(q, 7), -127, 127), lo = q - 128 * hi;
    const int64_t want = shr(hi * 90 * 32 + shr(hi * -51, 2) + shr(lo * 90, 2), 4);
    const int32_t got = y7.data_as<int32_t>()[i];
    matched += got == want;
    // Against the exact product: the roundings and the dropped lo*lo term (|x_lo| <= 127
    // where x_hi saturates, |w_lo| = 51: at most 0.8 of a step) stay within 1.5 steps.
    worst = std::max(worst, std::fabs(got - static_cast<double>(q) * 11469.0 / 8192.0));
  }
  INFO("worst " << worst << " steps");
  CHECK(matched == 32767);
  CHECK(worst <= 1.5);
}

TEST_CASE("quantize --split: int8 operands, precisions within 32 bits, CVM operators only",
          "[quantize]") {
  auto fm = small_cnn("");
  const NDArray calib = random_f32({32, 4, 10, 10}, 1.0f, 600);
  auto qm = cvm::quant::quantize(*fm, calib, split_options());
  std::set<std::string> cvm_ops;
  for (const cvm::OpInfo& op : cvm::list_ops()) {
    if (op.cvm) cvm_ops.insert(op.name);
  }
  std::vector<int> prec;  // per entry
  for (const cvm::NodeInfo& n : qm->nodes()) {
    for (int p : n.output_precisions) prec.push_back(p);
  }
  int convs = 0;
  for (const cvm::NodeInfo& n : qm->nodes()) {
    for (int p : n.output_precisions) CHECK((p >= 1 && p <= 32));
    if (n.op == "null") continue;
    CHECK(cvm_ops.count(n.op) == 1);
    if (n.op == "conv2d" || n.op == "dense") {
      ++convs;
      INFO(n.name);
      CHECK(prec.at(n.input_entries[0]) <= 8);
      CHECK(prec.at(n.input_entries[1]) <= 8);
    }
  }
  // conv1, conv2 and fc as three partial products each (hi*hi, hi*lo, lo*hi).
  CHECK(convs == 9);
  CHECK(qm->inputs()[0].precision == 15);
  CHECK(param_max_abs(*qm, "conv1_weight_hi") <= 127);
  CHECK(param_max_abs(*qm, "conv1_weight_lo") <= 127);
  // The CVM JSON export keeps working and gives the same bits.
  const std::string text = qm->cvm_json();
  const std::vector<uint8_t> params = qm->params().save(cvm::ParamFormat::kLegacy);
  auto back = Model::from_cvm(text, params.data(), params.size());
  CHECK(back->cost().total == qm->cost().total);
  const NDArray xq = qm->quantize_input(random_f32({1, 4, 10, 10}, 1.0f, 601));
  Session a(qm), c(back);
  a.set_input("data", xq);
  c.set_input("data", xq);
  a.run();
  c.run();
  CHECK(cvm::test::bit_equal(a.output(0), c.output(0)));
}

TEST_CASE("quantize --split: a random conv model follows the float model far more closely",
          "[quantize]") {
  // small_cnn's logits (no tail): the split model's largest error is well below the 8-bit one's,
  // at about three times the cost.
  auto fm = small_cnn("");
  const NDArray calib = random_f32({48, 4, 10, 10}, 1.0f, 700);
  auto q8 = cvm::quant::quantize(*fm, calib);
  auto q15 = cvm::quant::quantize(*fm, calib, split_options());
  double err8 = 0, err15 = 0;
  for (int i = 0; i < 16; ++i) {
    const NDArray x = random_f32({1, 4, 10, 10}, 1.0f, 7000 + i);
    const std::vector<float> ref = run_float(fm, x);
    const std::vector<double> a = dequantized(*q8, run_int(q8, x), 0);
    const std::vector<double> b = dequantized(*q15, run_int(q15, x), 0);
    for (size_t j = 0; j < ref.size(); ++j) {
      err8 = std::max(err8, std::fabs(a[j] - ref[j]));
      err15 = std::max(err15, std::fabs(b[j] - ref[j]));
    }
  }
  INFO("largest logit error: 8-bit " << err8 << ", split " << err15 << "; cost "
                                     << q8->cost().total << " -> " << q15->cost().total);
  CHECK(err15 < err8 / 8);
  CHECK(q15->cost().total > 2 * q8->cost().total);
  CHECK(q15->cost().total < 4 * q8->cost().total);
}
