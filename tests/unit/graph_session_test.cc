// Session: concurrent sessions of one model, repeat runs, profiling and caller errors.
#include <catch2/catch.hpp>
#include <thread>

#include "cvm/threads.h"
#include "graph_test_util.h"

using cvm::DataType;
using cvm::LogicError;
using cvm::Model;
using cvm::NDArray;
using cvm::Session;
using cvm::Shape;
namespace t = cvm::test;

namespace {

// Seeded inputs within the model's input precision.
NDArray random_input(const Model& m, uint64_t seed) {
  const auto& in = m.inputs()[0];
  const int32_t bound = (int32_t{1} << (std::min(in.precision, 31) - 1)) - 1;
  std::mt19937_64 rng(seed);
  std::vector<int32_t> v(static_cast<size_t>(in.shape.numel()));
  for (auto& x : v)
    x = static_cast<int32_t>(static_cast<int64_t>(rng() % (2 * uint64_t(bound) + 1)) - bound);
  return NDArray::from_bytes(v.data(), v.size() * 4, in.shape, DataType::Int(32));
}

}  // namespace

// Everything a server does at once (run under ThreadSanitizer by the test command): threads that
// load their own copy of a model and run it with multi-threaded kernels, threads that share one
// Model, one that saves it over and over, one that changes the kernel thread count meanwhile.
TEST_CASE("loads and saves of a model while own and shared sessions run and thread counts change",
          "[graph][threads]") {
  const auto model = t::load_case("nn").load();
  const std::vector<uint8_t> bytes = model->save();
  std::vector<NDArray> inputs;
  std::vector<std::vector<std::vector<int64_t>>> expected;
  for (int i = 0; i < 6; ++i) {
    inputs.push_back(random_input(*model, 77 + static_cast<uint64_t>(i)));
    expected.push_back(t::run_outputs(model, inputs.back()));
  }
  std::vector<int> mismatches(5, 0);
  std::vector<std::thread> threads;
  for (size_t th = 0; th < 4; ++th) {
    threads.emplace_back([&, th] {
      // Even threads load their own Model from the bytes; odd ones share the first.
      const auto mine = th % 2 == 0 ? Model::from_bytes(bytes.data(), bytes.size()) : model;
      Session s(mine);
      for (int round = 0; round < 4; ++round) {
        for (size_t i = 0; i < inputs.size(); ++i) {
          s.set_input("data", inputs[i]);
          s.run();
          std::vector<std::vector<int64_t>> outs;
          for (size_t o = 0; o < s.num_outputs(); ++o) outs.push_back(t::flat_values(s.output(o)));
          if (outs != expected[i]) ++mismatches[th];
        }
      }
    });
  }
  threads.emplace_back([&] {
    for (int k = 0; k < 8; ++k) {
      if (model->save() != bytes) ++mismatches[4];
      cvm::set_num_threads(1 + k % 3);
    }
  });
  for (auto& th : threads) th.join();
  cvm::set_num_threads(0);
  CHECK(mismatches == std::vector<int>(mismatches.size(), 0));
}

TEST_CASE("4 threads running 4 sessions of one model give identical results", "[graph][threads]") {
  for (const char* name : {"mlp", "nn", "chain", "transform", "detection"}) {
    INFO(name);
    const auto model = t::load_case(name).load();
    constexpr int kInputs = 24;
    std::vector<NDArray> inputs;
    std::vector<std::vector<std::vector<int64_t>>> expected;
    for (int i = 0; i < kInputs; ++i) {
      inputs.push_back(random_input(*model, 1000 + static_cast<uint64_t>(i)));
      expected.push_back(t::run_outputs(model, inputs.back()));
    }
    std::vector<std::vector<std::vector<std::vector<int64_t>>>> got(4);
    std::vector<std::thread> threads;
    for (int th = 0; th < 4; ++th) {
      threads.emplace_back([&, th] {
        Session s(model);
        for (int round = 0; round < 3; ++round) {
          for (int i = 0; i < kInputs; ++i) {
            const int k = (i + th * 5) % kInputs;
            s.set_input("data", inputs[static_cast<size_t>(k)]);
            s.run();
            std::vector<std::vector<int64_t>> outs;
            for (size_t o = 0; o < s.num_outputs(); ++o)
              outs.push_back(t::flat_values(s.output(o)));
            if (round == 2) got[static_cast<size_t>(th)].push_back(std::move(outs));
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int th = 0; th < 4; ++th) {
      REQUIRE(got[static_cast<size_t>(th)].size() == static_cast<size_t>(kInputs));
      for (int i = 0; i < kInputs; ++i) {
        const int k = (i + th * 5) % kInputs;
        CHECK(got[static_cast<size_t>(th)][static_cast<size_t>(i)] ==
              expected[static_cast<size_t>(k)]);
      }
    }
  }
}

TEST_CASE("a session runs repeatedly without set_input and keeps its input", "[graph]") {
  const auto model = t::load_case("chain").load();
  Session s(model);
  s.set_input("data", t::load_case("chain").input());
  s.run();
  const auto first = t::flat_values(s.output(0));
  s.run();
  CHECK(t::flat_values(s.output(0)) == first);
  // The returned output is a copy: writing to it changes nothing in the session.
  NDArray out = s.output(0);
  out.mutable_data_as<int32_t>()[0] = 12345;
  CHECK(t::flat_values(s.output(0)) == first);
}

TEST_CASE("a session keeps its model alive", "[graph]") {
  const t::ModelCase c = t::load_case("dense_bias");
  std::unique_ptr<Session> s;
  {
    auto model = c.load();
    s = std::make_unique<Session>(model);
  }
  s->set_input("data", c.input());
  s->run();
  CHECK(t::flat_values(s->output(0)) == std::vector<int64_t>{11, -18, 10});
  Session moved = std::move(*s);
  s.reset();
  moved.run();
  CHECK(t::flat_values(moved.output("dense_0")) == std::vector<int64_t>{11, -18, 10});
}

TEST_CASE("profiling records every operator node", "[graph]") {
  const auto model = t::load_case("nn").load();
  Session s(model);
  s.set_input("data", t::load_case("nn").input());
  s.run();
  CHECK(s.profile().empty());
  s.enable_profiling();
  s.run();
  const auto& p = s.profile();
  REQUIRE(p.size() == 5);
  CHECK(p[0].name == "conv_0");
  CHECK(p[0].op == "conv2d");
  CHECK(p[0].output_bytes == 18 * 4);
  CHECK(p[2].op == "upsampling");
  CHECK(p[2].output_bytes == 32 * 4);
  for (const auto& e : p) CHECK(e.microseconds >= 0);
  s.enable_profiling(false);
  CHECK(s.profile().empty());
}

TEST_CASE("session caller errors are LogicErrors", "[graph]") {
  const auto model = t::load_case("dense_nobias").load();
  Session s(model);
  CHECK_THROWS_MATCHES(s.run(), LogicError, t::HasMessage("run() before set_input"));
  CHECK_THROWS_MATCHES(s.output(0), LogicError, t::HasMessage("before a successful run()"));
  const NDArray ok = NDArray::zeros(Shape{1, 4}, DataType::Int(8));
  CHECK_THROWS_MATCHES(s.set_input("w", ok), LogicError, t::HasMessage("unknown input \"w\""));
  CHECK_THROWS_MATCHES(s.set_input("data", NDArray()), LogicError, t::HasMessage("undefined"));
  CHECK_THROWS_MATCHES(s.set_input("data", NDArray::zeros(Shape{4}, DataType::Int(8))), LogicError,
                       t::HasMessage("expected shape (1, 4), found (4)"));
  CHECK_THROWS_MATCHES(s.set_input("data", NDArray::zeros(Shape{1, 4}, DataType::Int(16))),
                       LogicError, t::HasMessage("expected dtype int8 or int32, found int16"));
  CHECK_THROWS_MATCHES(s.set_input("data", NDArray::zeros(Shape{1, 4}, DataType::Float(32))),
                       LogicError, t::HasMessage("found float32"));
  s.set_input("data", ok);
  s.run();
  CHECK(t::flat_values(s.output(0)) == std::vector<int64_t>{0, 0, 0});
  CHECK_THROWS_MATCHES(s.output(1), LogicError,
                       t::HasMessage("output 1 does not exist (1 outputs)"));
  CHECK_THROWS_MATCHES(s.output("nope"), LogicError, t::HasMessage("no output named \"nope\""));
  CHECK_THROWS_MATCHES(Session(nullptr), LogicError, t::HasMessage("null model"));
}

TEST_CASE("model description: inputs, outputs, metadata, version", "[graph]") {
  cvm::ModelOptions o;
  o.metadata.name = "tiny detector";
  o.metadata.labels = {"cat", "dog"};
  const t::ModelCase c = t::load_case("detection");
  const auto p = c.params();
  const auto model = Model::from_cvm(c.graph, p.data(), p.size(), o);
  CHECK(model->version() == "cvm_1.0.0");
  CHECK(model->postprocess() == "detection");
  CHECK(model->metadata().name == "tiny detector");
  REQUIRE(model->inputs().size() == 1);
  CHECK(model->inputs()[0].name == "data");
  CHECK(model->inputs()[0].shape == Shape{1, 4, 6});
  CHECK(model->inputs()[0].precision == 16);
  CHECK(model->inputs()[0].io_dtype == DataType::Int(32));
  REQUIRE(model->outputs().size() == 2);
  CHECK(model->outputs()[0].name == "nms_0");
  CHECK(model->outputs()[1].name == "gvc_0:1");  // output 1 of a two-output node
  CHECK(model->nodes()[1].output_precisions == std::vector<int>{6, 16});  // NP(24) = 6
  CHECK(model->storage_id_bytes() == (24 + 1 + 24 + 24) * 4);
  CHECK(t::load_case("dense_v110").load()->version() == "cvm_1.1.0");
}
