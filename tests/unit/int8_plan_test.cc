// The int8 activation plan (graph/int8_activations.h) on a hand-made graph and hand-made step
// uses: which entries may be int8 (steps that take theirs together, conv2d / dense data either
// way, heads and wide params never), and where a concatenate's in-place inputs lie in its int8
// output.
// The graph internals first: they bring the library's CHECK, which Catch redefines.
#include "graph/int8_activations.h"
#include "graph/model_impl.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>

#include "cvm/model_builder.h"
#include "test_util.h"

namespace t = cvm::test;
namespace g = cvm::graph;
using cvm::DataType;
using cvm::ModelBuilder;
using Kind = g::ActivationUse::Kind;

namespace {

// data (1, 4, 8, 8) -> relu r -> max_pool2d p0 (2x2 s2) -> relu p -> concatenate cat (a
// constant zero block first, then p) -> relu c, the output (given a conv2d's use below).
// Planes of 4 x 4: p lies 4 * 16 int32 into cat's block (planner.h).
struct Net {
  std::shared_ptr<const cvm::Model> model;
  uint32_t data, r, p0, p, zeros, cat, c;
};

// The node's output entry.
uint32_t entry_of(const g::Graph& gr, const char* name) {
  for (const g::Node& node : gr.nodes) {
    if (node.name == name) return node.first_entry;
  }
  FAIL("no node " << name);
  return 0;
}

Net build() {
  ModelBuilder b;
  const auto x = b.input({1, 4, 8, 8}, DataType::Int(32), 8);
  const auto r = b.add1("relu", "r", {x});
  const auto p0 = b.add1("max_pool2d", "p0", {r}, {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}});
  const auto p = b.add1("relu", "p", {p0});
  const auto zeros = b.constant("zeros", cvm::NDArray::zeros({1, 4, 4, 4}, DataType::Int(32)), 1);
  const auto cat = b.add1("concatenate", "cat", {zeros, p}, {{"axis", "1"}});
  b.set_outputs({b.add1("relu", "c", {cat})});
  Net n;
  n.model = b.build();
  const g::Graph& gr = n.model->impl().graph;
  n = {n.model,           entry_of(gr, "data"),  entry_of(gr, "r"),   entry_of(gr, "p0"),
       entry_of(gr, "p"), entry_of(gr, "zeros"), entry_of(gr, "cat"), entry_of(gr, "c")};
  return n;
}

// The uses a session makes of such steps: elementwise, pool and concatenate together; the last
// as a conv2d's, its data either way and its output int32.
std::vector<g::ActivationUse> uses_of(const Net& n) {
  return {{Kind::kTogether, {n.data}, {n.r}},
          {Kind::kTogether, {n.r}, {n.p0}},
          {Kind::kTogether, {n.p0}, {n.p}},
          {Kind::kTogether, {n.zeros, n.p}, {n.cat}},
          {Kind::kGemm, {n.cat}, {n.c}, false}};
}

std::vector<bool> plan(const std::shared_ptr<const cvm::Model>& model,
                       const std::vector<g::ActivationUse>& uses, uint32_t data) {
  return g::plan_int8_entries(model->impl().graph, model->impl().plan, uses, data);
}
std::vector<bool> plan(const Net& n, const std::vector<g::ActivationUse>& uses) {
  return plan(n.model, uses, n.data);
}

}  // namespace

TEST_CASE("int8 plan: a chain of together steps into a conv2d is int8, its output not",
          "[graph][int8]") {
  const Net n = build();
  const std::vector<bool> int8 = plan(n, uses_of(n));
  for (uint32_t e : {n.data, n.r, n.p0, n.p, n.cat}) CHECK(int8[e]);
  CHECK_FALSE(int8[n.c]);      // a graph output (and written int32)
  CHECK_FALSE(int8[n.zeros]);  // a param: not an arena entry (the session reads a copy)
}

TEST_CASE("int8 plan: one int32 step keeps every entry of the steps it joins int32",
          "[graph][int8]") {
  const Net n = build();
  for (size_t wide = 0; wide < 5; ++wide) {
    INFO("step " << wide << " int32");
    std::vector<g::ActivationUse> uses = uses_of(n);
    uses[wide].kind = Kind::kInt32;
    const std::vector<bool> int8 = plan(n, uses);
    // Together steps pass it on through every entry they share, both ways.
    for (uint32_t e : {n.data, n.r, n.p0, n.p, n.cat}) CHECK_FALSE(int8[e]);
  }
}

TEST_CASE("int8 plan: a param wider than int8 keeps a together step int32", "[graph][int8]") {
  // data -> elemwise_add with a constant of precision 8 or 9 -> cvm_clip to 8 bits (the add's
  // run output, as a session's fused add writes it) -> relu, the output (given a conv2d's use).
  for (int precision : {8, 9}) {
    INFO("constant precision " << precision);
    ModelBuilder b;
    const auto x = b.input({1, 2, 3, 3}, DataType::Int(32), 8);
    const auto k = b.constant("k", t::random_in({1, 2, 3, 3}, -100, 100, 7), precision);
    const auto sum = b.add1("elemwise_add", "sum", {x, k});
    const auto o = b.add1("cvm_clip", "o", {sum}, {{"precision", "8"}});
    b.set_outputs({b.add1("relu", "out", {o})});
    const auto model = b.build();
    const g::Graph& gr = model->impl().graph;
    const uint32_t data = entry_of(gr, "data"), ko = entry_of(gr, "k"), oo = entry_of(gr, "o");
    const std::vector<g::ActivationUse> uses = {
        {Kind::kTogether, {data, ko}, {oo}}, {Kind::kGemm, {oo}, {entry_of(gr, "out")}, false}};
    const std::vector<bool> int8 = plan(model, uses, data);
    CHECK(int8[oo] == (precision == 8));
    CHECK(int8[data] == (precision == 8));
  }
}

TEST_CASE("int8 plan: a concatenate's in-place inputs lie at their slice of its int8 output",
          "[graph][int8]") {
  const Net n = build();
  const g::MemoryPlan& mp = n.model->impl().plan;
  const int64_t lo = mp.offset[n.cat];
  REQUIRE(mp.offset[n.p] == lo + 256);  // after the 4 zero channels: 4 * 16 int32
  const std::vector<bool> int8 = plan(n, uses_of(n));
  const std::vector<int64_t> at = g::int8_offsets(n.model->impl().graph, mp, int8);
  CHECK(at[n.cat] == lo);
  CHECK(at[n.p] == lo + 64);  // 4 channels of 16 int8
  for (uint32_t e : {n.data, n.r, n.p0}) CHECK(at[e] == mp.offset[e]);
  // Held int32, the concatenation keeps every offset.
  std::vector<g::ActivationUse> uses = uses_of(n);
  uses[3].kind = Kind::kInt32;
  CHECK(g::int8_offsets(n.model->impl().graph, mp, plan(n, uses)) == mp.offset);
}
