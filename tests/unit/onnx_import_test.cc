// ONNX import: the models of tests/onnx against ONNX Runtime's outputs, targeted graphs built
// with the onnx protobuf classes (mapping, folding, errors), and seeded mutations of every model
// that may only ever give cvm::LogicError.
#include "cvm/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"  // parse_npy (tools/)
#include "cvm/model.h"
#include "test_util.h"

using Catch::Matchers::Contains;
using cvm::DataType;
using cvm::LogicError;
using cvm::Model;
using cvm::NDArray;
using cvm::Session;
using cvm::Shape;
using cvm::test::f32;
using cvm::test::floats;
namespace fs = std::filesystem;

namespace {

const std::string kOnnxDir = std::string(CVM_TEST_DATA_DIR) + "/onnx";

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Files NAME.onnx of a folder, sorted (empty when the folder does not exist).
std::vector<std::string> onnx_names(const std::string& dir) {
  std::vector<std::string> names;
  if (!fs::is_directory(dir)) return names;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".onnx") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<float> run_model(const std::shared_ptr<const Model>& m, const NDArray& input) {
  Session s(m);
  s.set_input("data", input);
  s.run();
  return floats(s.output(0));
}

// The ops of a model's operator nodes, in order ("null" variables left out).
std::vector<std::string> ops_of(const Model& m) {
  std::vector<std::string> ops;
  for (const auto& n : m.nodes()) {
    if (n.op != "null") ops.push_back(n.op);
  }
  return ops;
}

const cvm::NodeInfo& node_named(const Model& m, const std::string& name) {
  for (const auto& n : m.nodes()) {
    if (n.name == name) return n;
  }
  FAIL("no node named " << name);
  throw std::logic_error("unreachable");
}

// ---- ONNX models built in the test ----

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int opset = 13) {
    m_.set_ir_version(8);
    m_.set_producer_name("cvmrt-test");
    m_.set_producer_version("1");
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m_.mutable_graph()->set_name("test_graph");
  }

  // A float32 graph input; a negative extent is symbolic ("N", "H"...).
  OnnxBuilder& input(const std::string& name, const std::vector<int64_t>& dims,
                     int elem = onnx::TensorProto::FLOAT) {
    auto* v = m_.mutable_graph()->add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* s = t->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = s->add_dim();
      if (d < 0) {
        dim->set_dim_param(d == -1 ? "N" : "H");
      } else {
        dim->set_dim_value(d);
      }
    }
    return *this;
  }

  OnnxBuilder& output(const std::string& name) {
    auto* v = m_.mutable_graph()->add_output();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape();  // the checker wants a shape, even an unknown one
    return *this;
  }

  OnnxBuilder& init(const std::string& name, const std::vector<int64_t>& dims,
                    const std::vector<float>& values, bool raw = false) {
    auto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    if (raw) {
      t->set_raw_data(
          std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    } else {
      for (float v : values) t->add_float_data(v);
    }
    return *this;
  }

  OnnxBuilder& init_i64(const std::string& name, const std::vector<int64_t>& dims,
                        const std::vector<int64_t>& values) {
    auto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }

  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = m_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }

  onnx::ModelProto& proto() { return m_; }
  std::string bytes() const { return m_.SerializeAsString(); }
  std::shared_ptr<const Model> import(const cvm::onnx::ImportOptions& o = {}) const {
    const std::string b = bytes();
    return cvm::onnx::import_onnx_bytes(b.data(), b.size(), o);
  }

 private:
  onnx::ModelProto m_;
};

void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void set_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void set_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

std::vector<float> seq(size_t n, float scale = 0.1f, float offset = -0.5f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = offset + scale * static_cast<float>((i * 7) % 13);
  return v;
}

// Conv 3x3 (4 -> 3 channels, bias) followed by a BatchNormalization, optionally with the conv
// output also a graph output (which keeps the BN from being folded).
OnnxBuilder conv_bn_model(bool conv_output_too) {
  OnnxBuilder b;
  b.input("x", {1, 4, 6, 6})
      .init("w", {3, 4, 3, 3}, seq(108, 0.05f))
      .init("b", {3}, {0.1f, -0.2f, 0.3f})
      .init("gamma", {3}, {1.5f, 0.5f, -1.0f})
      .init("beta", {3}, {0.25f, 0.0f, -0.5f})
      .init("mean", {3}, {0.1f, -0.3f, 0.2f})
      .init("var", {3}, {0.8f, 1.2f, 0.3f});
  set_ints(b.node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  set_float(b.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"y"}, "bn"),
            "epsilon", 1e-3f);
  b.output("y");
  if (conv_output_too) b.output("c");
  return b;
}

// ---- mutations for the fuzz test ----

std::string mutate_bytes(std::string s, std::mt19937_64& rng) {
  if (s.empty()) return s;
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  switch (rng() % 5) {
    case 0:  // bit flips
      for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) {
        s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
      }
      break;
    case 1:  // byte values
      for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) {
        const uint8_t values[] = {0x00, 0xFF, 0x7F, 0x80, static_cast<uint8_t>(rng())};
        s[pick(s.size())] = static_cast<char>(values[rng() % 5]);
      }
      break;
    case 2:  // truncation
      s.resize(pick(s.size()));
      break;
    case 3: {  // a chunk duplicated
      const size_t at = pick(s.size()), len = std::min<size_t>(1 + rng() % 16, s.size() - at);
      s.insert(at, s.substr(at, len));
      break;
    }
    default: {  // a varint-looking run overwritten
      const size_t at = pick(s.size());
      for (size_t i = at; i < std::min(s.size(), at + 4); ++i) s[i] = static_cast<char>(0xFF);
      break;
    }
  }
  return s;
}

int64_t interesting_int(std::mt19937_64& rng) {
  const int64_t values[] = {0,
                            -1,
                            1,
                            2,
                            3,
                            -2,
                            7,
                            1 << 20,
                            int64_t{1} << 40,
                            std::numeric_limits<int64_t>::max(),
                            std::numeric_limits<int64_t>::min(),
                            -(int64_t{1} << 31)};
  return values[rng() % (sizeof(values) / sizeof(values[0]))];
}

void mutate_dims(google::protobuf::RepeatedField<int64_t>* dims, std::mt19937_64& rng) {
  if (dims->empty()) {
    dims->Add(interesting_int(rng));
  } else {
    dims->Set(static_cast<int>(rng() % dims->size()), interesting_int(rng));
  }
}

std::string mutate_proto(onnx::ModelProto m, std::mt19937_64& rng) {
  onnx::GraphProto* g = m.mutable_graph();
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  const char* kOps[] = {"Conv",   "Gemm",    "MatMul",    "Add",     "Relu",      "Reshape",
                        "Concat", "MaxPool", "Transpose", "Squeeze", "Unsqueeze", "Pad",
                        "Clip",   "Softmax", "Flatten",   "Shape",   "Gather",    "Einsum"};
  for (int step = 1 + pick(2); step > 0; --step) {
    switch (rng() % 12) {
      case 0:  // a node input deleted, emptied or renamed
        if (g->node_size() > 0) {
          auto* n = g->mutable_node(pick(g->node_size()));
          if (n->input_size() > 0) {
            const int k = pick(n->input_size());
            const int how = pick(3);
            if (how == 0) {
              n->mutable_input()->DeleteSubrange(k, 1);
            } else {
              n->set_input(k, how == 1 ? "" : "no_such_tensor");
            }
          }
        }
        break;
      case 1:  // an attribute's int changed
        if (g->node_size() > 0) {
          auto* n = g->mutable_node(pick(g->node_size()));
          if (n->attribute_size() > 0) {
            auto* a = n->mutable_attribute(pick(n->attribute_size()));
            if (a->ints_size() > 0) {
              a->set_ints(pick(a->ints_size()), interesting_int(rng));
            } else {
              a->set_i(interesting_int(rng));
            }
          }
        }
        break;
      case 2:  // a dim of the input changed
        if (g->input_size() > 0) {
          auto* s = g->mutable_input(pick(g->input_size()))
                        ->mutable_type()
                        ->mutable_tensor_type()
                        ->mutable_shape();
          if (s->dim_size() > 0) {
            auto* d = s->mutable_dim(pick(s->dim_size()));
            if (rng() % 4 == 0) {
              d->set_dim_param("Q");
            } else {
              d->set_dim_value(interesting_int(rng));
            }
          }
        }
        break;
      case 3:  // an initializer's dims, data type or data changed
        if (g->initializer_size() > 0) {
          auto* t = g->mutable_initializer(pick(g->initializer_size()));
          const int how = pick(4);
          if (how == 0) {
            mutate_dims(t->mutable_dims(), rng);
          } else if (how == 1) {
            t->set_data_type(pick(17));
          } else if (how == 2) {
            if (t->float_data_size() > 0) t->mutable_float_data()->RemoveLast();
            if (!t->raw_data().empty()) t->mutable_raw_data()->pop_back();
            if (t->int64_data_size() > 0) t->set_int64_data(0, interesting_int(rng));
          } else {
            t->clear_dims();
          }
        }
        break;
      case 4:  // a node's op type changed
        if (g->node_size() > 0) {
          g->mutable_node(pick(g->node_size()))
              ->set_op_type(kOps[rng() % (sizeof(kOps) / sizeof(kOps[0]))]);
        }
        break;
      case 5:  // two nodes swapped
        if (g->node_size() > 1) {
          g->mutable_node()->SwapElements(pick(g->node_size()), pick(g->node_size()));
        }
        break;
      case 6:  // an initializer removed
        if (g->initializer_size() > 0) {
          g->mutable_initializer()->SwapElements(pick(g->initializer_size()),
                                                 g->initializer_size() - 1);
          g->mutable_initializer()->RemoveLast();
        }
        break;
      case 7:  // an attribute's type changed or the attribute removed
        if (g->node_size() > 0) {
          auto* n = g->mutable_node(pick(g->node_size()));
          if (n->attribute_size() > 0) {
            const int k = pick(n->attribute_size());
            if (rng() % 2) {
              n->mutable_attribute(k)->set_type(
                  static_cast<onnx::AttributeProto::AttributeType>(pick(15)));
            } else {
              n->mutable_attribute()->DeleteSubrange(k, 1);
            }
          }
        }
        break;
      case 8:  // an output name changed or removed
        if (g->output_size() > 0) {
          if (rng() % 2) {
            const onnx::NodeProto* n =
                g->node_size() > 0 ? &g->node(pick(g->node_size())) : nullptr;
            g->mutable_output(0)->set_name(n != nullptr && n->input_size() > 0 ? n->input(0) : "x");
          } else {
            g->mutable_output()->RemoveLast();
          }
        }
        break;
      case 9:  // the opset changed
        if (m.opset_import_size() > 0) {
          const int64_t versions[] = {1, 5, 6, 7, 9, 10, 11, 12, 14, 17, 18, 1000};
          m.mutable_opset_import(0)->set_version(versions[rng() % 12]);
        }
        break;
      case 10: {  // an attribute added with an odd value
        if (g->node_size() > 0) {
          const char* names[] = {"axis", "pads", "strides", "group", "perm", "auto_pad", "transB"};
          auto* n = g->mutable_node(pick(g->node_size()));
          auto* a = n->add_attribute();
          a->set_name(names[rng() % 7]);
          const int kind = pick(4);
          if (kind == 0) {
            const char* texts[] = {"SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET", "", "reflect"};
            a->set_name(rng() % 2 ? "auto_pad" : "mode");
            a->set_type(onnx::AttributeProto::STRING);
            a->set_s(texts[rng() % 6]);
          } else if (kind == 1) {
            const float values[] = {std::numeric_limits<float>::quiet_NaN(),
                                    std::numeric_limits<float>::infinity(), -1.0f, 0.0f, 1e30f};
            a->set_name(rng() % 2 ? "alpha" : "epsilon");
            a->set_type(onnx::AttributeProto::FLOAT);
            a->set_f(values[rng() % 5]);
          } else if (kind == 2) {
            a->set_type(onnx::AttributeProto::INTS);
            for (int k = pick(5); k > 0; --k) a->add_ints(interesting_int(rng));
          } else {
            a->set_type(onnx::AttributeProto::INT);
            a->set_i(interesting_int(rng));
          }
        }
        break;
      }
      default:  // a node duplicated (outputs defined twice) or removed
        if (g->node_size() > 0) {
          if (rng() % 2) {
            *g->add_node() = g->node(pick(g->node_size()));
          } else {
            g->mutable_node()->DeleteSubrange(pick(g->node_size()), 1);
          }
        }
        break;
    }
  }
  return m.SerializeAsString();
}

// Imports bytes: 0 when it imports, 1 for a LogicError with the "onnx: " prefix, 2 (reported)
// for anything else.
int import_outcome(const std::string& bytes, const cvm::onnx::ImportOptions& options,
                   const std::string& what) {
  try {
    cvm::onnx::import_onnx_bytes(bytes.data(), bytes.size(), options);
    return 0;
  } catch (const LogicError& e) {
    const std::string msg = e.what();
    if (msg.rfind("onnx: ", 0) == 0) return 1;
    UNSCOPED_INFO(what << ": LogicError without the onnx: prefix: " << msg);
  } catch (const std::exception& e) {
    UNSCOPED_INFO(what << ": not a LogicError: " << e.what());
  } catch (...) {
    UNSCOPED_INFO(what << ": a non-std exception");
  }
  return 2;
}

}  // namespace

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

// ---------------------------------------------------------------------------------------------
// Errors

TEST_CASE("onnx: unsupported and malformed models are LogicErrors naming the cause", "[onnx]") {
  SECTION("bytes that are not a model") {
    const std::string junk = "\x0a\xff\xff\xff\xff\xff garbage";
    CHECK_THROWS_WITH(cvm::onnx::import_onnx_bytes(junk.data(), junk.size()),
                      Contains("onnx: cannot parse"));
    CHECK_THROWS_WITH(cvm::onnx::import_onnx_file("/nonexistent/model.onnx"),
                      Contains("cannot open"));
  }
  SECTION("the checker's verdict") {
    OnnxBuilder b;
    b.input("x", {1, 3});
    b.node("Relu", {"nowhere"}, {"y"});
    b.output("y");
    CHECK_THROWS_WITH(b.import(), Contains("onnx: the ONNX checker rejected the model"));
  }
  SECTION("an unsupported operator names the node") {
    OnnxBuilder b;
    b.input("x", {1, 3});
    b.node("Relu", {"x"}, {"r"});
    b.node("Tanh", {"r"}, {"y"}, "act");
    b.output("y");
    CHECK_THROWS_WITH(b.import(), Contains("onnx: node 1 \"act\" (Tanh): operator Tanh is not "
                                           "supported"));
  }
  SECTION("dynamic dimensions, several inputs, non-float inputs") {
    OnnxBuilder b;
    b.input("x", {1, -2, 4});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    CHECK_THROWS_WITH(b.import(), Contains("dynamic dimension 1"));
    OnnxBuilder two;
    two.input("x", {1, 4}).input("z", {1, 4});
    two.node("Add", {"x", "z"}, {"y"});
    two.output("y");
    CHECK_THROWS_WITH(two.import(), Contains("the graph has 2 inputs"));
    OnnxBuilder ints;
    ints.input("x", {1, 4}, onnx::TensorProto::INT64);
    ints.node("Relu", {"x"}, {"y"});
    ints.output("y");
    CHECK_THROWS_WITH(ints.import(), Contains("int64; only float32 inputs"));
  }
  SECTION("external data") {
    OnnxBuilder b;
    b.input("x", {1, 4}).init("B", {4, 2}, {});
    auto* t = b.proto().mutable_graph()->mutable_initializer(0);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = t->add_external_data();
    e->set_key("location");
    e->set_value("weights.bin");
    b.node("MatMul", {"x", "B"}, {"y"});
    b.output("y");
    CHECK_THROWS_WITH(b.import(), Contains("initializer \"B\": external data is not supported"));
  }
  SECTION("1-D convolution, reflect padding, dilated pooling, a non-constant weight") {
    OnnxBuilder conv1d;
    conv1d.input("x", {1, 2, 8}).init("w", {3, 2, 3}, seq(18));
    conv1d.node("Conv", {"x", "w"}, {"y"}, "c1");
    conv1d.output("y");
    CHECK_THROWS_WITH(conv1d.import(),
                      Contains("node 0 \"c1\" (Conv): only 2-D convolution is supported"));
    OnnxBuilder reflect;
    reflect.input("x", {1, 2, 4, 4}).init_i64("p", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
    set_string(reflect.node("Pad", {"x", "p"}, {"y"}), "mode", "reflect");
    reflect.output("y");
    CHECK_THROWS_WITH(reflect.import(), Contains("(Pad): mode \"reflect\" is not supported"));
    OnnxBuilder pool;
    pool.input("x", {1, 2, 6, 6});
    auto& n = pool.node("MaxPool", {"x"}, {"y"});
    set_ints(n, "kernel_shape", {2, 2});
    set_ints(n, "dilations", {2, 2});
    pool.output("y");
    CHECK_THROWS_WITH(pool.import(), Contains("(MaxPool): dilations (2, 2) are not supported"));
    OnnxBuilder weight;
    weight.input("x", {1, 2, 4, 4});
    weight.node("Conv", {"x", "x"}, {"y"});
    weight.output("y");
    CHECK_THROWS_WITH(weight.import(), Contains("the weight (input 1) must be a constant"));
  }
  SECTION("Reshape that cannot be resolved") {
    OnnxBuilder b;
    b.input("x", {1, 6}).init_i64("s", {2}, {-1, 4});
    b.node("Reshape", {"x", "s"}, {"y"}, "rs");
    b.output("y");
    CHECK_THROWS_WITH(b.import(), Contains("node 0 \"rs\" (Reshape): shape (-1, 4) cannot be "
                                           "resolved"));
  }
  SECTION("shapes: an output may leave its shape out, the input may not; constant outputs") {
    OnnxBuilder b;
    b.input("x", {1, 4});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    b.proto()
        .mutable_graph()
        ->mutable_output(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->clear_shape();
    CHECK(b.import()->outputs()[0].shape == Shape{1, 4});
    b.proto()
        .mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->clear_shape();
    CHECK_THROWS_WITH(b.import(), Contains("onnx: input \"x\" has no shape"));
    OnnxBuilder k;
    k.input("x", {1, 4}).init("c", {2}, {1, 2});
    k.node("Relu", {"x"}, {"r"});
    k.node("Relu", {"c"}, {"y"});
    k.output("r").output("y");
    CHECK_THROWS_WITH(k.import(), Contains("graph output \"y\" is a constant"));
  }
  SECTION("limits apply to the built model") {
    OnnxBuilder b;
    b.input("x", {1, 64});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    cvm::onnx::ImportOptions options;
    options.limits.max_dim = 32;
    CHECK_THROWS_AS(b.import(options), LogicError);
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations

TEST_CASE("onnx: seeded mutations of every model give LogicErrors only", "[onnx]") {
  std::vector<std::pair<std::string, std::string>> corpus;  // (name, bytes)
  for (const std::string& name : onnx_names(kOnnxDir + "/models")) {
    corpus.emplace_back(name, read_bytes(kOnnxDir + "/models/" + name + ".onnx"));
  }
  corpus.emplace_back("conv_bn (test)", conv_bn_model(false).bytes());
  {
    OnnxBuilder b;
    b.input("x", {1, 2, 3, 4}).init_i64("minus1", {1}, {-1}).init_i64("zero", {}, {0});
    b.node("Shape", {"x"}, {"s"});
    b.node("Gather", {"s", "zero"}, {"n"});
    b.node("Unsqueeze", {"n", "zero"}, {"n1"});
    set_int(b.node("Concat", {"n1", "minus1"}, {"shape"}), "axis", 0);
    b.node("Reshape", {"x", "shape"}, {"y"});
    b.output("y");
    corpus.emplace_back("flatten pattern (test)", b.bytes());
  }
  // Small limits keep every mutated size cheap to reject.
  cvm::onnx::ImportOptions options;
  options.limits.max_elements = int64_t{1} << 20;
  options.limits.max_storage_bytes = uint64_t{1} << 26;
  // About 8000 in all by default; CVMRT_ONNX_FUZZ=N runs N per model (and CVMRT_ONNX_FUZZ_SEED
  // another seed series) for a longer search by hand.
  constexpr int kTotal = 8000;
  int per_model = std::max(100, kTotal / static_cast<int>(corpus.size()));
  uint64_t seed_base = 0x5eed0000u;
  if (const char* n = std::getenv("CVMRT_ONNX_FUZZ")) per_model = std::max(1, std::atoi(n));
  if (const char* n = std::getenv("CVMRT_ONNX_FUZZ_SEED")) seed_base = std::strtoull(n, nullptr, 0);
  const auto start = std::chrono::steady_clock::now();
  int imported = 0, rejected = 0, failures = 0;
  for (size_t m = 0; m < corpus.size(); ++m) {
    onnx::ModelProto proto;
    REQUIRE(proto.ParseFromString(corpus[m].second));
    for (int i = 0; i < per_model; ++i) {
      std::mt19937_64 rng(seed_base + m * 100003u + static_cast<uint64_t>(i));
      const std::string bytes =
          i % 2 ? mutate_bytes(corpus[m].second, rng) : mutate_proto(proto, rng);
      const std::string what = corpus[m].first + " mutation " + std::to_string(i);
      const int outcome = import_outcome(bytes, options, what);
      imported += outcome == 0;
      rejected += outcome == 1;
      failures += outcome == 2;
      if (failures > 0) break;
    }
    if (failures > 0) break;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(failures == 0);
  WARN(corpus.size() << " models, " << imported + rejected << " mutations: " << imported
                     << " imported, " << rejected << " refused with a LogicError, " << seconds
                     << " s");
}
