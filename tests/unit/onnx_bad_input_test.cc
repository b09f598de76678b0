// ONNX import of bad input: unsupported and malformed models give LogicErrors naming the cause,
// and seeded mutations of every model may only ever give cvm::LogicError.
#include "cvm/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cvm/model.h"
#include "onnx_test_util.h"
#include "test_util.h"

using Catch::Matchers::Contains;
using cvm::DataType;
using cvm::LogicError;
using cvm::Model;
using cvm::NDArray;
using cvm::Shape;
using namespace onnx_test;

namespace {

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
