// The memory planner: an independent check that no two live entries share bytes (except an
// in-place output taking over its input at that input's last use, and concatenate inputs
// computed in place), and the savings it gives.
// The planner's internals first: they bring the library's CHECK, which Catch redefines.
#include "graph/model_impl.h"
#undef CHECK
#undef VERIFY

#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>

#include "cvm/model_builder.h"
#include "cvm/op.h"

#include "graph_test_util.h"
#include "test_util.h"

using cvm::Model;
namespace t = cvm::test;
namespace g = cvm::graph;

namespace {

// [first, last] node positions in which entry e must hold its value; data is live from before
// node 0 to after the last node (a session may run again without set_input), heads until after
// the last node.
struct Life {
  int64_t def, last;
};

void check_plan(const Model& model) {
  const g::Graph& gr = model.impl().graph;
  const g::MemoryPlan& plan = model.impl().plan;
  const size_t ne = gr.entries.size();
  const uint32_t data = gr.nodes[gr.data_node].first_entry;
  std::vector<Life> life(ne);
  for (uint32_t nid = 0; nid < gr.nodes.size(); ++nid) {
    for (uint32_t k = 0; k < gr.nodes[nid].num_outputs; ++k) {
      life[gr.nodes[nid].first_entry + k] = {nid, nid};
    }
  }
  life[data].def = -1;
  for (uint32_t nid = 0; nid < gr.nodes.size(); ++nid) {
    for (uint32_t e : gr.nodes[nid].inputs) life[e].last = std::max<int64_t>(life[e].last, nid);
  }
  for (uint32_t h : gr.heads) life[h].last = static_cast<int64_t>(gr.nodes.size());
  life[data].last = static_cast<int64_t>(gr.nodes.size());  // kept for the next run

  auto bytes = [&](size_t e) { return static_cast<int64_t>(gr.entries[e].shape.numel() * 4); };
  for (size_t e = 0; e < ne; ++e) {
    const bool is_param =
        gr.nodes[g::node_of_entry(gr, static_cast<uint32_t>(e))].is_variable() && e != data;
    CHECK((plan.offset[e] < 0) == is_param);
    if (plan.offset[e] >= 0) {
      CHECK(plan.offset[e] % 64 == 0);
      CHECK(static_cast<uint64_t>(plan.offset[e] + bytes(e)) <= plan.arena_bytes);
    }
  }
  for (size_t a = 0; a < ne; ++a) {
    for (size_t b = a + 1; b < ne; ++b) {
      if (plan.offset[a] < 0 || plan.offset[b] < 0) continue;
      const bool overlap_time = life[a].def <= life[b].last && life[b].def <= life[a].last;
      const bool overlap_bytes =
          plan.offset[a] < plan.offset[b] + bytes(b) && plan.offset[b] < plan.offset[a] + bytes(a);
      if (!overlap_time || !overlap_bytes) continue;
      // Allowed only for an in-place takeover: b is output 0 of the node where a (its input 0)
      // is used for the last time, in the same place; or for a concatenate input computed in
      // place: b is the concatenate's output, a one of its inputs, at its slice.
      const g::Node& n = gr.nodes[static_cast<size_t>(life[b].def)];
      const bool takeover = n.op != nullptr && n.op->reuses_input0() && n.first_entry == b &&
                            !n.inputs.empty() && n.inputs[0] == a && life[a].last == life[b].def &&
                            plan.offset[a] == plan.offset[b];
      int64_t slice_at = plan.offset[b];
      bool at_slice = false;
      for (uint32_t in : n.inputs) {
        at_slice = at_slice || (in == a && plan.offset[a] == slice_at);
        slice_at += bytes(in);
      }
      const bool in_concat = n.op_name == "concatenate" && n.first_entry == b && at_slice &&
                             std::count(n.inputs.begin(), n.inputs.end(), a) == 1;
      INFO("entries " << a << " and " << b);
      CHECK((takeover || in_concat));
    }
  }
}

}  // namespace

TEST_CASE("the memory plan never lets two live entries share bytes", "[graph]") {
  for (const char* name : {"dense_bias", "elementwise", "broadcast", "reduce", "nn", "transform",
                           "detection", "argmax", "mlp", "chain"}) {
    INFO(name);
    const auto model = t::load_case(name).load();
    check_plan(*model);
    CHECK(model->planned_bytes() == model->params_bytes() + model->activation_bytes());
    CHECK(model->planned_bytes() <= model->unplanned_bytes() + 64 * model->impl().plan.num_blocks);
    std::cout << "[graph] planner " << name << ": unplanned " << model->unplanned_bytes()
              << " B, planned " << model->planned_bytes() << " B (params " << model->params_bytes()
              << " + arena " << model->activation_bytes() << " in " << model->impl().plan.num_blocks
              << " blocks, " << model->impl().plan.num_inplace << " in place)\n";
  }
}

TEST_CASE("the in-place chain reuses memory", "[graph]") {
  const auto model = t::load_case("chain").load();
  const auto& plan = model->impl().plan;
  // data + 9 ops of 1 KiB each: data keeps its block; relu_0 needs a block (data is never
  // overwritten), and every other op follows it there: the in-place ops, and negative, which is
  // not on the spec's storage-sharing list but is elementwise (OpDef::reuses_input0).
  CHECK(model->unplanned_bytes() == 10 * 1024);
  CHECK(plan.num_inplace == 8);
  CHECK(plan.num_blocks == 2);
  CHECK(model->activation_bytes() == 2 * 1024);
}

TEST_CASE("concatenate inputs are computed in place, with the same bits", "[graph]") {
  using cvm::DataType;
  using cvm::ModelBuilder;
  using Entry = ModelBuilder::Entry;
  // x -> conv a (4 channels) -> relu; x -> conv b (5 channels); concat(relu a, conv b, a
  // constant) along channels -> relu; and conv b read again after the concatenate. 8 x 8
  // planes: 256 bytes a channel, so every part starts at a 64-byte boundary.
  ModelBuilder b;
  const Entry x = b.input({1, 3, 8, 8}, DataType::Int(32), 8);
  const cvm::NDArray wa = t::random_in({4, 3, 3, 3}, -127, 127, 1);
  const cvm::NDArray wb = t::random_in({5, 3, 1, 1}, -127, 127, 2);
  const cvm::NDArray k = t::random_in({1, 2, 8, 8}, -127, 127, 3);
  const cvm::AttrMap conv3 = {{"channels", "4"}, {"kernel_size", "(3, 3)"},
                              {"padding", "(1, 1)"}, {"use_bias", "False"}};
  const cvm::AttrMap conv1 = {{"channels", "5"}, {"kernel_size", "(1, 1)"},
                              {"use_bias", "False"}};
  const Entry a =
      b.add1("relu", "relu_a", {b.add1("conv2d", "conv_a", {x, b.constant("wa", wa, 8)}, conv3)});
  const Entry c = b.add1("conv2d", "conv_b", {x, b.constant("wb", wb, 8)}, conv1);
  const Entry cat = b.add1("concatenate", "cat", {a, c, b.constant("k", k, 8)}, {{"axis", "1"}});
  const Entry out = b.add1("relu", "out", {cat});
  b.set_outputs({out, b.add1("negative", "again", {c})});
  const auto model = b.build();
  check_plan(*model);
  CHECK(model->impl().plan.num_in_concat == 2);  // relu a and conv b; the constant is copied

  const cvm::NDArray in = t::random_in({1, 3, 8, 8}, -127, 127, 4);
  const cvm::NDArray ra = cvm::run_op("relu", {cvm::run_op("conv2d", {in, wa}, conv3)[0]})[0];
  const cvm::NDArray rb = cvm::run_op("conv2d", {in, wb}, conv1)[0];
  const cvm::NDArray want =
      cvm::run_op("relu", {cvm::run_op("concatenate", {ra, rb, k}, {{"axis", "1"}})[0]})[0];
  const cvm::NDArray want_again = cvm::run_op("negative", {rb})[0];
  for (const std::string& backend : t::runnable_backends()) {
    INFO("backend " << backend);
    cvm::Session s(model, cvm::SessionOptions{backend});
    for (int run = 0; run < 2; ++run) {
      s.set_input("data", in);
      s.run();
      CHECK(t::bit_equal(s.output(0), want));
      CHECK(t::bit_equal(s.output(1), want_again));
    }
  }
}
