// The cvmrt model file: round trips, params by reference, metadata, and corrupt or tampered
// files (truncated, bit-flipped, rewritten tables) rejected with a LogicError.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "cvm/schema/model_generated.h"
#include "cvm/version.h"
#include "graph_test_util.h"

using cvm::LogicError;
using cvm::Model;
using cvm::ParamFormat;
namespace t = cvm::test;
namespace fb = flatbuffers;
namespace sc = cvm::schema;

namespace {

std::string tmp_dir() { return t::tmp_path(""); }

uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// A decoded model file that tests can edit and re-encode.
struct FileImage {
  struct EntryData {
    std::vector<int64_t> shape;
    int precision;
    int64_t storage_id;
  };
  struct NodeData {
    std::string op, name;
    std::vector<std::pair<uint32_t, uint32_t>> inputs;
    std::vector<std::pair<std::string, std::string>> attrs;
    std::vector<EntryData> outputs;
  };
  std::string version, postprocess, params_file, name;
  std::vector<NodeData> nodes;
  std::vector<std::pair<uint32_t, uint32_t>> heads;
  std::vector<uint8_t> params;  // inline params section
  bool inline_params = true;

  static FileImage decode(const std::vector<uint8_t>& file) {
    const uint64_t toc_size = le64(file.data() + 16);
    std::vector<uint8_t> toc(file.begin() + 24, file.begin() + 24 + static_cast<long>(toc_size));
    const sc::ModelToc* root = sc::GetModelToc(toc.data());
    FileImage img;
    img.version = root->cvm_version()->str();
    img.postprocess = root->postprocess()->str();
    img.name = root->name()->str();
    for (const sc::GraphNode* n : *root->nodes()) {
      NodeData nd;
      nd.op = n->op()->str();
      nd.name = n->name()->str();
      for (const sc::GraphEntryRef* r : *n->inputs()) nd.inputs.emplace_back(r->node(), r->index());
      for (const sc::ModelAttr* a : *n->attrs())
        nd.attrs.emplace_back(a->key()->str(), a->value()->str());
      for (const sc::GraphEntry* e : *n->outputs()) {
        nd.outputs.push_back({std::vector<int64_t>(e->shape()->begin(), e->shape()->end()),
                              e->precision(), e->storage_id()});
      }
      img.nodes.push_back(std::move(nd));
    }
    for (const sc::GraphEntryRef* r : *root->heads()) img.heads.emplace_back(r->node(), r->index());
    img.inline_params = root->params() != nullptr;
    if (img.inline_params) {
      img.params.assign(file.begin() + static_cast<long>(root->params()->offset()), file.end());
    }
    return img;
  }

  // Layout: header, table, zero padding to 64, params. The payload offset is known only once
  // the table's size is: build it twice (the size does not depend on the struct's values).
  std::vector<uint8_t> encode() const {
    fb::FlatBufferBuilder sizing;
    build(sizing, 0);
    const uint64_t offset = (24 + sizing.GetSize() + 63) / 64 * 64;
    fb::FlatBufferBuilder b;
    build(b, offset);
    REQUIRE(b.GetSize() == sizing.GetSize());
    std::vector<uint8_t> out(inline_params ? offset + params.size() : 24 + b.GetSize(), 0);
    std::memcpy(out.data(), "CVMRTMDL", 8);
    out[8] = 1;
    for (int i = 0; i < 8; ++i)
      out[16 + i] = static_cast<uint8_t>(uint64_t{b.GetSize()} >> (8 * i));
    std::memcpy(out.data() + 24, b.GetBufferPointer(), b.GetSize());
    if (inline_params && !params.empty()) {
      std::memcpy(out.data() + offset, params.data(), params.size());
    }
    return out;
  }

 private:
  void build(fb::FlatBufferBuilder& b, uint64_t offset) const {
    b.ForceDefaults(true);
    std::vector<fb::Offset<sc::GraphNode>> ns;
    for (const NodeData& n : nodes) {
      std::vector<sc::GraphEntryRef> ins;
      for (auto [node, index] : n.inputs) ins.emplace_back(node, index);
      std::vector<fb::Offset<sc::ModelAttr>> as;
      for (const auto& [k, v] : n.attrs) {
        as.push_back(sc::CreateModelAttr(b, b.CreateString(k), b.CreateString(v)));
      }
      std::vector<fb::Offset<sc::GraphEntry>> outs;
      for (const EntryData& e : n.outputs) {
        outs.push_back(sc::CreateGraphEntry(b, b.CreateVector(e.shape), e.precision, e.storage_id));
      }
      ns.push_back(sc::CreateGraphNode(b, b.CreateString(n.op), b.CreateString(n.name),
                                       b.CreateVectorOfStructs(ins), b.CreateVector(as),
                                       b.CreateVector(outs)));
    }
    std::vector<sc::GraphEntryRef> hs;
    for (auto [node, index] : heads) hs.emplace_back(node, index);
    auto v = b.CreateString(version);
    auto pp = b.CreateString(postprocess);
    auto nv = b.CreateVector(ns);
    auto hv = b.CreateVectorOfStructs(hs);
    fb::Offset<fb::String> pf;
    if (!params_file.empty()) pf = b.CreateString(params_file);
    auto nm = b.CreateString(name);
    sc::ModelTocBuilder tb(b);
    tb.add_format_version(1);
    tb.add_cvm_version(v);
    tb.add_postprocess(pp);
    tb.add_nodes(nv);
    tb.add_heads(hv);
    sc::ModelPayload payload(offset, params.size());
    if (inline_params) tb.add_params(&payload);
    if (!pf.IsNull()) tb.add_params_file(pf);
    tb.add_name(nm);
    sc::FinishModelTocBuffer(b, tb.Finish());
  }
};

std::vector<uint8_t> dense_file() { return t::load_case("dense_bias").load()->save(); }

std::vector<uint8_t> edited(const std::function<void(FileImage&)>& edit) {
  FileImage img = FileImage::decode(dense_file());
  edit(img);
  return img.encode();
}

}  // namespace

TEST_CASE("the rewriting helper itself reproduces a valid file", "[graph]") {
  const std::vector<uint8_t> file = dense_file();
  const std::vector<uint8_t> again = edited([](FileImage&) {});
  auto m = Model::from_bytes(again.data(), again.size());
  CHECK(t::run_outputs(m, t::load_case("dense_bias").input())[0] ==
        std::vector<int64_t>{11, -18, 10});
}

// schemas/model.fbs `producer` (appended in 0.2.0, format version still 1).
TEST_CASE("model files name their producer, files from before 0.2.0 load without one", "[graph]") {
  const std::vector<uint8_t> file = dense_file();
  const auto fresh = Model::from_bytes(file.data(), file.size());
  CHECK(fresh->producer() == "cvmrt " CVMRT_VERSION_STRING);
  CHECK(file[8] == 1);  // the format version
  // FileImage writes the table as cvmrt 0.1.0 did, without the field: it loads unchanged with
  // no producer, and saving it again names this library and gives the fresh file's bytes.
  const std::vector<uint8_t> old = edited([](FileImage&) {});
  const auto before = Model::from_bytes(old.data(), old.size());
  CHECK(before->producer().empty());
  CHECK(t::run_outputs(before, t::load_case("dense_bias").input())[0] ==
        std::vector<int64_t>{11, -18, 10});
  CHECK(before->save() == file);
  CHECK(t::load_case("dense_bias").load()->producer().empty());  // CVM JSON
}

TEST_CASE("model files keep metadata, labels and storage ids, saving is deterministic", "[graph]") {
  cvm::ModelOptions o;
  o.metadata.name = "mlp";
  o.metadata.description = "a small test network";
  o.metadata.labels = {"zero", "one", "two"};
  const t::ModelCase c = t::load_case("mlp");
  const auto p = c.params(ParamFormat::kCvmrt);
  const auto model = Model::from_cvm(c.graph, p.data(), p.size(), o);
  const std::vector<uint8_t> bytes = model->save();
  CHECK(model->save() == bytes);
  const auto back = Model::from_bytes(bytes.data(), bytes.size());
  CHECK(back->metadata().name == "mlp");
  CHECK(back->metadata().description == "a small test network");
  CHECK(back->metadata().labels == std::vector<std::string>{"zero", "one", "two"});
  CHECK(back->storage_id_bytes() == model->storage_id_bytes());
  CHECK(back->cost().total == model->cost().total);
  CHECK(back->nodes().size() == model->nodes().size());
  CHECK(back->nodes()[4].attrs == model->nodes()[4].attrs);
  // Params are stored narrow: int8 where the precision is <= 8.
  const cvm::ParamDict params = back->params();
  CHECK(params.at("w1").dtype() == cvm::DataType::Int(8));
  CHECK(params.size() == 3);
  // A misaligned copy of the bytes loads too.
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  CHECK(Model::from_bytes(shifted.data() + 1, bytes.size())->save() == bytes);
}

// Several writers saving one path at once (threads here; processes alike): each save succeeds
// and the file that stays is a whole one. A fixed temporary name made one writer's rename fail.
TEST_CASE("concurrent save_file calls on one path all succeed", "[graph][params][threads]") {
  const t::ModelCase c = t::load_case("mlp");
  const auto model = c.load();
  const cvm::ParamDict params = model->params();
  const std::string model_path = tmp_dir() + "shared.cvmrt";
  const std::string params_path = tmp_dir() + "shared.params";
  std::vector<std::thread> writers;
  std::vector<int> failures(4, 0);
  for (size_t i = 0; i < failures.size(); ++i) {
    writers.emplace_back([&, i] {
      for (int k = 0; k < 25; ++k) {
        try {
          model->save_file(model_path);
          params.save_file(params_path);
        } catch (const std::exception&) {
          ++failures[i];
        }
      }
    });
  }
  for (std::thread& w : writers) w.join();
  CHECK(failures == std::vector<int>(failures.size(), 0));
  CHECK(Model::load_file(model_path)->save() == model->save());
  CHECK(cvm::ParamDict::load_file(params_path).save() == params.save());
}

TEST_CASE("save_file / load_file, inline and with params by reference", "[graph]") {
  const t::ModelCase c = t::load_case("nn");
  const auto model = c.load();
  const std::string dir = tmp_dir();
  model->save_file(dir + "nn.cvmrt");
  const auto inline_model = Model::load_file(dir + "nn.cvmrt");
  CHECK(t::run_outputs(inline_model, c.input()) == t::run_outputs(model, c.input()));

  cvm::SaveOptions so;
  so.params_file = "nn.params";
  model->save_file(dir + "nn_ref.cvmrt", so);
  model->params().save_file(dir + "nn.params");
  const auto ref_model = Model::load_file(dir + "nn_ref.cvmrt");
  CHECK(t::run_outputs(ref_model, c.input()) == t::run_outputs(model, c.input()));
  CHECK(ref_model->save() == model->save());  // re-saved inline: the same file
  // from_bytes resolves the reference against base_dir.
  const std::vector<uint8_t> ref_bytes = model->save(so);
  CHECK_THROWS_AS(Model::from_bytes(ref_bytes.data(), ref_bytes.size()), LogicError);
  cvm::ModelOptions o;
  o.base_dir = dir;
  CHECK(Model::from_bytes(ref_bytes.data(), ref_bytes.size(), o)->cost().total ==
        model->cost().total);

  CHECK_THROWS_MATCHES(Model::load_file(dir + "missing.cvmrt"), LogicError,
                       t::HasMessage("missing.cvmrt"));
  std::remove((dir + "nn.params").c_str());
  CHECK_THROWS_AS(Model::load_file(dir + "nn_ref.cvmrt"), LogicError);
}

TEST_CASE("a model file cut at every byte is a LogicError", "[graph]") {
  const std::vector<uint8_t> file = dense_file();
  size_t accepted = 0;
  for (size_t n = 0; n < file.size(); ++n) {
    try {
      (void)Model::from_bytes(file.data(), n);
      ++accepted;
    } catch (const LogicError&) {
    }
  }
  CHECK(accepted == 0);
}

TEST_CASE("a model file with random bytes flipped loads or is a LogicError", "[graph]") {
  const std::vector<uint8_t> file = t::load_case("transform").load()->save();
  std::mt19937_64 rng(7);
  size_t rejected = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::vector<uint8_t> f = file;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) f[rng() % f.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    try {
      auto m = Model::from_bytes(f.data(), f.size());
      cvm::Session s(m);
      s.set_input("data", t::load_case("transform").input());
      s.run();
    } catch (const LogicError&) {
      ++rejected;
    }
  }
  CHECK(rejected > 100);
}

TEST_CASE("tampered model files fail the same structural checks as an import", "[graph]") {
  using Img = FileImage;
  auto reject = [](const std::function<void(Img&)>& edit, const std::string& msg) {
    const std::vector<uint8_t> f = edited(edit);
    CHECK_THROWS_MATCHES(Model::from_bytes(f.data(), f.size()), LogicError, t::HasMessage(msg));
  };
  reject([](Img& i) { i.nodes[3].outputs[0].precision = 19; },
         "stored precision 19 does not match the inferred precision 20");
  reject([](Img& i) { i.nodes[1].outputs[0].precision = 0; },
         "a variable's precision must be in [1, 32], found 0");
  reject(
      [](Img& i) {
        i.nodes[3].outputs[0].shape = {1, 4};
      },
      "inferred shape (1, 3) does not match the stored shape (1, 4)");
  reject([](Img& i) { i.nodes[1].outputs[0].shape = {3, 4, 1, 1, 1, 1, 1}; },
         "expected 1 to 6 dimensions, found 7");
  reject([](Img& i) { i.nodes[3].op = "dense2"; }, "unknown operator \"dense2\"");
  reject([](Img& i) { i.nodes[3].op = "matmul"; }, "is not a CVM model operator");
  reject([](Img& i) { i.nodes[3].attrs.emplace_back("foo", "1"); }, "unknown attribute \"foo\"");
  reject([](Img& i) { i.nodes[3].attrs.emplace_back("units", "3"); },
         "duplicate attribute \"units\"");
  reject([](Img& i) { i.nodes[1].attrs.emplace_back("units", "3"); },
         "a variable has no attributes");
  reject([](Img& i) { i.nodes[3].inputs.pop_back(); }, "expected 3 inputs");
  reject([](Img& i) { i.nodes[3].inputs[0] = {3, 0}; }, "topological order");
  reject([](Img& i) { i.nodes[3].inputs[0] = {0, 1}; }, "index 1 does not exist");
  reject([](Img& i) { i.nodes[3].inputs[0] = {8, 0}; }, "node 8 does not exist");
  reject([](Img& i) { i.nodes[3].outputs.push_back(i.nodes[3].outputs[0]); },
         "expected 1 output(s), found 2");
  reject([](Img& i) { i.nodes[2].name = "w"; }, "duplicate variable name \"w\"");
  reject([](Img& i) { i.nodes[0].name = "input"; }, "no variable named \"data\"");
  reject([](Img& i) { i.heads = {}; }, "no outputs");
  reject([](Img& i) { i.heads = {{3, 2}}; }, "head 0: node 3 \"dense_0\" has 1 output(s)");
  reject([](Img& i) { i.version = "cvm_9"; }, "cvm_version");
  reject([](Img& i) { i.nodes[3].outputs[0].storage_id = 1; }, "shares storage_id 1");
  reject([](Img& i) { i.nodes[3].outputs[0].storage_id = -1; }, "all or none");
  reject([](Img& i) { i.nodes[3].outputs[0].storage_id = -2; }, "must be -1 (none) or >= 0");
  reject(
      [](Img& i) {
        i.inline_params = false;
        i.params_file = "../x.params";
      },
      "must not leave the model's folder");
  reject(
      [](Img& i) {
        i.inline_params = false;
        i.params_file = "/etc/x.params";
      },
      "must be a relative path");
  reject([](Img& i) { i.params_file = "x.params"; }, "both inline params and a params_file");
  reject([](Img& i) { i.inline_params = false; }, "param \"b\": missing from the params");
  reject([](Img& i) { i.params.pop_back(); }, "params");
  // Trailing bytes after the params, or padding that is not zero.
  std::vector<uint8_t> f = dense_file();
  f.push_back(0);
  CHECK_THROWS_AS(Model::from_bytes(f.data(), f.size()), LogicError);
  f = dense_file();
  const uint64_t toc_end = 24 + le64(f.data() + 16);
  if (toc_end % 64 != 0) {
    f[toc_end] = 1;
    CHECK_THROWS_MATCHES(Model::from_bytes(f.data(), f.size()), LogicError,
                         t::HasMessage("non-zero padding"));
  }
  f = dense_file();
  f[0] = 'X';
  CHECK_THROWS_MATCHES(Model::from_bytes(f.data(), f.size()), LogicError,
                       t::HasMessage("bad magic"));
  f = dense_file();
  f[8] = 2;
  CHECK_THROWS_MATCHES(Model::from_bytes(f.data(), f.size()), LogicError,
                       t::HasMessage("format version 2"));
  f = dense_file();
  f[24 + 4] = 'X';  // the flatbuffers file identifier
  CHECK_THROWS_MATCHES(Model::from_bytes(f.data(), f.size()), LogicError,
                       t::HasMessage("identifier"));
}
