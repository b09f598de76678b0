// Helpers of the ONNX importer tests: the test data folders, model files and runs, and ONNX
// graphs built with the onnx protobuf classes.
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cvm/model.h"
#include "test_util.h"

namespace onnx_test {

using cvm::Model;
using cvm::NDArray;
using cvm::Session;
using cvm::test::floats;

inline const std::string kOnnxDir = std::string(CVM_TEST_DATA_DIR) + "/onnx";

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Files NAME.onnx of a folder, sorted (empty when the folder does not exist).
inline std::vector<std::string> onnx_names(const std::string& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(dir)) return names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".onnx") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline std::vector<float> run_model(const std::shared_ptr<const Model>& m, const NDArray& input) {
  Session s(m);
  s.set_input("data", input);
  s.run();
  return floats(s.output(0));
}

// The ops of a model's operator nodes, in order ("null" variables left out).
inline std::vector<std::string> ops_of(const Model& m) {
  std::vector<std::string> ops;
  for (const auto& n : m.nodes()) {
    if (n.op != "null") ops.push_back(n.op);
  }
  return ops;
}

inline const cvm::NodeInfo& node_named(const Model& m, const std::string& name) {
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

inline void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void set_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void set_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

inline std::vector<float> seq(size_t n, float scale = 0.1f, float offset = -0.5f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = offset + scale * static_cast<float>((i * 7) % 13);
  return v;
}

// Conv 3x3 (4 -> 3 channels, bias) followed by a BatchNormalization, optionally with the conv
// output also a graph output (which keeps the BN from being folded).
inline OnnxBuilder conv_bn_model(bool conv_output_too) {
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

}  // namespace onnx_test
