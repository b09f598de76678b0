// Clamp fusion (graph/output_stage.h): which runs after a conv2d / dense / add become one pass, and
// that a fused session gives the unfused session's bits on every backend.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "cvm/model_builder.h"
#include "fusion_test_util.h"
#include "graph_test_util.h"
#include "registry_internal.h"
#include "test_util.h"

using cvm::DataType;
using cvm::Model;
using cvm::ModelBuilder;
using cvm::NDArray;
using cvm::Session;
using cvm::SessionOptions;
using cvm::Shape;
namespace t = cvm::test;

namespace {

using Entry = ModelBuilder::Entry;
using Attrs = cvm::AttrMap;

struct Step {
  const char* op;
  const char* name;
  Attrs attrs;
};

struct Dense {
  int64_t rows, k, units;
};

// x (rows x k) -> dense (bias) -> `steps` in a line; the outputs are the last step's, plus the
// steps named in `also_output`. Default: 2 x 24 -> 16 units. x has precision 8.
std::shared_ptr<const Model> dense_then(const std::vector<Step>& steps,
                                        const std::vector<std::string>& also_output = {},
                                        const Dense& d = {2, 24, 16}) {
  ModelBuilder b;
  const Entry x = b.input({d.rows, d.k}, DataType::Int(32), 8);
  const Entry w = b.constant("w", t::random_in({d.units, d.k}, -127, 127, 11), 8);
  const Entry bias = b.constant("b", t::random_in({d.units}, -3000, 3000, 12), 13);
  Entry y = b.add1("dense", "fc", {x, w, bias},
                   {{"units", std::to_string(d.units)}, {"use_bias", "True"}});
  std::vector<Entry> outputs;
  for (const Step& s : steps) {
    y = b.add1(s.op, s.name, {y}, s.attrs);
    for (const std::string& o : also_output) {
      if (o == s.name) outputs.push_back(y);
    }
  }
  outputs.push_back(y);
  b.set_outputs(outputs);
  return b.build();
}

struct Conv {
  int64_t c, h, w, oc, k, stride, pad, groups;
};

// Input x (2 x c x h x w) and a conv2d "conv" of it with a bias, in b.
Entry add_conv(ModelBuilder& b, const Conv& v) {
  const Entry x = b.input({2, v.c, v.h, v.w}, DataType::Int(32), 8);
  const Entry w =
      b.constant("w", t::random_in({v.oc, v.c / v.groups, v.k, v.k}, -127, 127, 21), 8);
  const Entry bias = b.constant("b", t::random_in({v.oc}, -9000, 9000, 22), 15);
  const std::string k = std::to_string(v.k), s = std::to_string(v.stride),
                    pad = std::to_string(v.pad);
  return b.add1("conv2d", "conv", {x, w, bias},
                {{"channels", std::to_string(v.oc)},
                 {"kernel_size", "(" + k + ", " + k + ")"},
                 {"strides", "(" + s + ", " + s + ")"},
                 {"padding", "(" + pad + ", " + pad + ")"},
                 {"groups", std::to_string(v.groups)},
                 {"use_bias", "True"}});
}

// x (2 x c x h x w) -> conv2d (bias) -> `steps`; default: 3x3, 8 channels, padding 1.
std::shared_ptr<const Model> conv_then(const std::vector<Step>& steps,
                                       const Conv& v = {3, 9, 9, 8, 3, 1, 1, 1}) {
  ModelBuilder b;
  Entry y = add_conv(b, v);
  for (const Step& st : steps) y = b.add1(st.op, st.name, {y}, st.attrs);
  b.set_outputs({y});
  return b.build();
}

// x -> conv2d (bias) -> shift -> broadcast_mul by a constant of one value per channel, shaped
// `scale_shape` (its first operand when scale_first) -> `then`: the requantization of a model
// quantized with per-channel weight scales.
std::shared_ptr<const Model> conv_scale_then(const Conv& v, const Shape& scale_shape,
                                             const std::vector<Step>& then,
                                             bool scale_first = false) {
  ModelBuilder b;
  Entry y = b.add1("cvm_right_shift", "shift", {add_conv(b, v)},
                   {{"shift_bit", "9"}, {"precision", "12"}});
  const Entry m = b.constant("align", t::random_in(scale_shape, -15, 15, 33), 5);
  y = b.add1("broadcast_mul", "align_mul",
             scale_first ? std::vector<Entry>{m, y} : std::vector<Entry>{y, m}, {});
  for (const Step& st : then) y = b.add1(st.op, st.name, {y}, st.attrs);
  b.set_outputs({y});
  return b.build();
}

using Plan = t::FusionPlan;
using t::fused_into;
using t::model_input;

// Clamp fusion on and off (fusion_test_util.h).
Plan check_fused_equals_unfused(const std::shared_ptr<const Model>& model,
                                std::map<std::string, Plan>* by_backend = nullptr) {
  return t::check_fused_equals_unfused(model, &SessionOptions::fuse_clamps, by_backend);
}

// The entry that ran `node`'s first chain in `s`'s last run.
std::string ran(const Session& s, const std::string& node) {
  for (const cvm::NodeKernelPlan& n : s.kernel_plan()) {
    if (n.node == node) return n.chains.at(0).last_ran;
  }
  return "";
}

using Flag = bool cvm::kernel::KernelEntry::*;

// Whether the table entry named `entry` has `flag` (KernelEntry::applies_clamp, or
// applies_channel_scale).
bool entry_has(const std::string& entry, Flag flag) {
  for (const cvm::kernel::BackendTable* b : cvm::backend_tables()) {
    for (size_t i = 0; i < b->count; ++i) {
      if (entry == b->entries[i].name) return b->entries[i].*flag;
    }
  }
  return false;
}

bool applies_clamp(const std::string& entry) {
  return entry_has(entry, &cvm::kernel::KernelEntry::applies_clamp);
}

// Whether some entry with `flag` (of kernel op `op` when given) can run here (its backend
// usable, not capped by CVMRT_ISA).
bool usable_entry_has(Flag flag, const char* op = nullptr) {
  for (const cvm::kernel::BackendTable* b : cvm::backend_tables()) {
    for (size_t i = 0; i < b->count; ++i) {
      const cvm::kernel::KernelEntry& e = b->entries[i];
      if (e.*flag && (op == nullptr || std::string(op) == e.op) && cvm::entry_usable(*b, e)) {
        return true;
      }
    }
  }
  return false;
}

const Attrs kShift3P8 = {{"shift_bit", "3"}, {"precision", "8"}};
const Attrs kShift4P8 = {{"shift_bit", "4"}, {"precision", "8"}};

}  // namespace

TEST_CASE("clamp fusion: shift, cvm_clip and relu after a dense are one pass with the same bits",
          "[graph][fusion]") {
  const auto plan = check_fused_equals_unfused(dense_then(
      {{"cvm_right_shift", "shift", kShift3P8}, {"cvm_clip", "clip", {{"precision", "6"}}},
       {"relu", "relu", {}}}));
  CHECK(plan.at("fc").empty());
  CHECK(plan.at("shift").empty());  // it runs the pass
  CHECK(plan.at("clip") == "shift");
  CHECK(plan.at("relu") == "shift");
  // The pass is the cvm_right_shift kernel with the combined bounds, and it ran after the
  // reference dense (which does not apply it).
  Session s(dense_then({{"cvm_right_shift", "shift", kShift3P8}, {"relu", "relu", {}}}),
            SessionOptions{"scalar"});
  s.set_input("data", t::random_in({2, 24}, -127, 127, 5));
  s.run();
  for (const cvm::NodeKernelPlan& n : s.kernel_plan()) {
    if (n.node != "shift") continue;
    REQUIRE(n.chains.size() == 1);
    CHECK(n.chains[0].kernel_op == "cvm_right_shift");
    CHECK_FALSE(n.chains[0].last_ran.empty());
    CHECK(std::find(n.chains[0].notes.begin(), n.chains[0].notes.end(),
                    "one cvm_right_shift pass for shift, relu (or fc's kernel as it stores)") !=
          n.chains[0].notes.end());
  }
  // Every node still has a profile row; the fused ones take (next to) no time.
  s.enable_profiling(true);
  s.run();
  CHECK(s.profile().size() == 3);
}

TEST_CASE("clamp fusion: clamps without a shift after a conv2d become one clip pass",
          "[graph][fusion]") {
  const auto plan = check_fused_equals_unfused(conv_then(
      {{"relu", "relu", {}}, {"cvm_clip", "clip", {{"precision", "5"}}},
       {"clip", "clip2", {{"a_min", "-3"}, {"a_max", "11"}}}}));
  CHECK(plan.at("relu").empty());
  CHECK(plan.at("clip") == "relu");
  CHECK(plan.at("clip2") == "relu");
}

TEST_CASE("clamp fusion: a conv2d or dense kernel applies the clamp as it stores, on every path",
          "[graph][fusion]") {
  const std::vector<Step> run = {{"cvm_right_shift", "shift", kShift3P8},
                                 {"cvm_clip", "clip", {{"precision", "6"}}}, {"relu", "relu", {}}};
  struct Head {
    const char* what;
    std::shared_ptr<const Model> model;
    const char* node;
  };
  const std::vector<Head> heads = {
      {"3x3 padded", conv_then(run, {3, 9, 9, 8, 3, 1, 1, 1}), "conv"},
      {"3x3 stride 1, 16 channels (Winograd where it runs)",
       conv_then(run, {16, 10, 14, 16, 3, 1, 1, 1}), "conv"},
      {"1x1 stride 2, odd sizes", conv_then(run, {5, 11, 13, 6, 1, 2, 0, 1}), "conv"},
      {"5x5, rows across vectors", conv_then(run, {4, 10, 21, 12, 5, 1, 2, 1}), "conv"},
      {"depthwise 3x3 (its own layouts)", conv_then(run, {16, 12, 30, 16, 3, 1, 1, 16}), "conv"},
      {"depthwise 3x3 stride 2", conv_then(run, {8, 9, 9, 8, 3, 2, 1, 8}), "conv"},
      {"grouped", conv_then(run, {8, 7, 7, 8, 3, 1, 1, 2}), "conv"},
      {"dense, one row", dense_then(run, {}, {1, 24, 16}), "fc"},
      {"dense, 3 rows, odd K and units", dense_then(run, {}, {3, 67, 13}), "fc"},
      {"dense, 9 rows (tiles), 37 units", dense_then(run, {}, {9, 40, 37}), "fc"},
      {"dense, 40 rows x 70 units", dense_then(run, {}, {40, 64, 70}), "fc"},
  };
  int applied = 0;
  for (const Head& h : heads) {
    INFO(h.what);
    std::map<std::string, Plan> plans;
    check_fused_equals_unfused(h.model, &plans);
    for (const auto& [backend, plan] : plans) {
      INFO("backend " << backend);
      CHECK(plan.at("clip") == "shift");
      CHECK(plan.at("relu") == "shift");
      // The pass node reads fused into the head exactly when the head's kernel applied it
      // (KernelEntry::applies_clamp): the session skipped its own pass.
      Session s(h.model, SessionOptions{backend});
      s.set_input("data", model_input(*h.model, 9));
      s.run();
      const bool applies = applies_clamp(ran(s, h.node));
      CHECK(fused_into(s).at("shift") == (applies ? h.node : ""));
      applied += applies ? 1 : 0;
    }
  }
  // Where an entry that applies the clamp can run, it takes most of these heads.
  if (usable_entry_has(&cvm::kernel::KernelEntry::applies_clamp)) CHECK(applied >= 8);
}

TEST_CASE("clamp fusion: a single clamp after a dense is applied by the dense's kernel",
          "[graph][fusion]") {
  std::map<std::string, Plan> plans;
  const auto model = dense_then({{"cvm_right_shift", "shift", kShift3P8}});
  check_fused_equals_unfused(model, &plans);
  for (const auto& [backend, plan] : plans) {
    INFO("backend " << backend);
    Session s(model, SessionOptions{backend});
    s.set_input("data", model_input(*model, 4));
    s.run();
    CHECK(fused_into(s).at("shift") == (applies_clamp(ran(s, "fc")) ? "fc" : ""));
  }
}

// A residual block's tail: y = conv(x) -> shift; y2 = the same conv's output -> shift by one
// more; then `op` (elemwise_add or elemwise_sub) of the two, and `then` after it. The add's
// inputs each die at the add, so its output may take over either one's block.
std::shared_ptr<const Model> residual_then(const char* op, const std::vector<Step>& then) {
  ModelBuilder b;
  const Entry conv = add_conv(b, {6, 9, 11, 6, 3, 1, 1, 1});
  const Entry y = b.add1("cvm_right_shift", "shift_a", {conv}, kShift3P8);
  const Entry y2 = b.add1("cvm_right_shift", "shift_b", {conv}, kShift4P8);
  Entry z = b.add1(op, "add", {y, y2}, {});
  for (const Step& st : then) z = b.add1(st.op, st.name, {z}, st.attrs);
  b.set_outputs({z});
  return b.build();
}

TEST_CASE("clamp fusion: the clamps after a residual add are applied by the add's kernel",
          "[graph][fusion]") {
  struct Case {
    const char* what;
    const char* op;
    std::vector<Step> then;
    const char* first;  // the run's first node
  };
  const std::vector<Case> cases = {
      {"add, cvm_clip, relu", "elemwise_add",
       {{"cvm_clip", "clip", {{"precision", "8"}}}, {"relu", "relu", {}}}, "clip"},
      {"add, one cvm_clip", "elemwise_add", {{"cvm_clip", "clip", {{"precision", "8"}}}}, "clip"},
      {"sub, shift, relu", "elemwise_sub",
       {{"cvm_right_shift", "clip", {{"shift_bit", "1"}, {"precision", "8"}}},
        {"relu", "relu", {}}},
       "clip"},
  };
  int applied = 0;
  for (const Case& c : cases) {
    INFO(c.what);
    const auto model = residual_then(c.op, c.then);
    std::map<std::string, Plan> plans;
    check_fused_equals_unfused(model, &plans);
    for (const auto& [backend, plan] : plans) {
      INFO("backend " << backend);
      Session s(model, SessionOptions{backend});
      s.set_input("data", model_input(*model, 9));
      s.run();
      const bool applies = applies_clamp(ran(s, "add"));
      const auto into = fused_into(s);
      CHECK(into.at(c.first) == (applies ? "add" : ""));
      if (c.then.size() > 1) CHECK(into.at("relu") == c.first);
      applied += applies ? 1 : 0;
    }
  }
  // The x86 and wasm add / sub entries apply it.
  if (usable_entry_has(&cvm::kernel::KernelEntry::applies_clamp, "add")) CHECK(applied >= 3);
}

TEST_CASE("clamp fusion: a per-channel multiply and the clamps after it join a conv2d's run",
          "[graph][fusion]") {
  const std::vector<Step> then = {{"cvm_right_shift", "shift2", kShift4P8}, {"relu", "relu", {}}};
  struct Case {
    const char* what;
    Conv conv;
    Shape scale;
    bool scale_first;
  };
  const std::vector<Case> cases = {
      {"3x3, (C, 1, 1)", {3, 9, 9, 8, 3, 1, 1, 1}, {8, 1, 1}, false},
      {"3x3 stride 1, 16 channels (Winograd where it runs)", {16, 10, 14, 16, 3, 1, 1, 1},
       {1, 16, 1, 1}, false},
      {"1x1 stride 2, constant first", {5, 11, 13, 6, 1, 2, 0, 1}, {6, 1, 1}, true},
      {"depthwise", {16, 12, 30, 16, 3, 1, 1, 16}, {16, 1, 1}, false},
      {"grouped", {8, 7, 7, 8, 3, 1, 1, 2}, {8, 1, 1}, false},
  };
  int applied = 0;
  for (const Case& c : cases) {
    INFO(c.what);
    const auto model = conv_scale_then(c.conv, c.scale, then, c.scale_first);
    std::map<std::string, Plan> plans;
    check_fused_equals_unfused(model, &plans);
    for (const auto& [backend, plan] : plans) {
      INFO("backend " << backend);
      CHECK(plan.at("relu") == "shift2");  // the second run is one pass
      Session s(model, SessionOptions{backend});
      s.set_input("data", model_input(*model, 9));
      s.run();
      const std::string entry = ran(s, "conv");
      const bool scales = entry_has(entry, &cvm::kernel::KernelEntry::applies_channel_scale);
      const auto into = fused_into(s);
      CHECK(into.at("shift") == (applies_clamp(entry) ? "conv" : ""));
      CHECK(into.at("align_mul") == (scales ? "conv" : ""));
      CHECK(into.at("shift2") == (scales ? "conv" : ""));
      applied += scales ? 1 : 0;
    }
  }
  if (usable_entry_has(&cvm::kernel::KernelEntry::applies_channel_scale)) CHECK(applied >= 4);
}

TEST_CASE("clamp fusion: multiplies that do not join the run", "[graph][fusion]") {
  const std::vector<Step> then = {{"cvm_right_shift", "shift2", kShift4P8}};
  const Conv conv = {3, 9, 9, 8, 3, 1, 1, 1};
  SECTION("a multiplier with one value per column, not per channel") {
    const auto plan = check_fused_equals_unfused(conv_scale_then(conv, {1, 9}, then));
    CHECK(plan.at("align_mul").empty());
    CHECK(plan.at("shift2").empty());
  }
  SECTION("no clamp after the multiply") {
    const auto plan = check_fused_equals_unfused(conv_scale_then(conv, {8, 1, 1}, {}));
    CHECK(plan.at("align_mul").empty());
  }
}

TEST_CASE("clamp fusion: two or more clamps after another op are one pass", "[graph][fusion]") {
  // x -> shift (of x, as a residual branch aligns) -> elemwise_add with x -> cvm_clip -> relu.
  ModelBuilder b;
  const Entry x = b.input({2, 8, 5, 7}, DataType::Int(32), 8);
  const Entry aligned = b.add1("cvm_right_shift", "align", {x}, kShift3P8);
  const Entry sum = b.add1("elemwise_add", "sum", {aligned, x}, {});
  const Entry clip = b.add1("cvm_clip", "clip", {sum}, {{"precision", "8"}});
  b.set_outputs({b.add1("relu", "relu", {clip})});
  const auto plan = check_fused_equals_unfused(b.build());
  CHECK(plan.at("sum").empty());
  CHECK(plan.at("clip").empty());  // it runs the pass
  CHECK(plan.at("relu") == "clip");
  CHECK(plan.at("align").empty());  // x has another reader: no run from the input
}

TEST_CASE("clamp fusion: runs it must not fuse", "[graph][fusion]") {
  SECTION("an intermediate that is also a graph output") {
    const auto plan = check_fused_equals_unfused(
        dense_then({{"cvm_right_shift", "shift", kShift3P8}, {"relu", "relu", {}}}, {"shift"}));
    CHECK(plan.at("relu").empty());
  }
  SECTION("clamps whose intervals do not meet: clamp(clamp(x, -7, 7), 100, 200) is 100") {
    const auto plan = check_fused_equals_unfused(
        dense_then({{"cvm_right_shift", "shift", {{"shift_bit", "3"}, {"precision", "4"}}},
                    {"clip", "far", {{"a_min", "100"}, {"a_max", "200"}}}}));
    CHECK(plan.at("far").empty());
  }
  SECTION("a shift after a clamp starts no run of its own; the first run stops before it") {
    const auto plan = check_fused_equals_unfused(
        dense_then({{"cvm_right_shift", "shift", kShift3P8}, {"relu", "relu", {}},
                    {"cvm_right_shift", "shift2", {{"shift_bit", "1"}, {"precision", "8"}}},
                    {"relu", "relu2", {}}}));
    CHECK(plan.at("relu") == "shift");
    CHECK(plan.at("shift2").empty());
    CHECK(plan.at("relu2").empty());  // not right after a conv2d / dense
  }
  SECTION("relu before the shift: the shift's rounding is not a clamp to move") {
    const auto plan = check_fused_equals_unfused(
        dense_then({{"relu", "relu", {}}, {"cvm_right_shift", "shift", kShift3P8}}));
    CHECK(plan.at("shift").empty());
  }
}

TEST_CASE("clamp fusion: every example model gives the unfused bits", "[graph][fusion]") {
  for (const char* name : t::kModelCases) {
    INFO(name);
    check_fused_equals_unfused(t::load_case(name).load());
  }
  const auto lenet = t::load_lenet();
  const auto plan = check_fused_equals_unfused(lenet);
  int fused = 0;
  for (const auto& [node, into] : plan) fused += into.empty() ? 0 : 1;
  CHECK(fused >= 4);  // LeNet requantizes each conv2d and dense with shift, clip, relu
}
