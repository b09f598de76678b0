// Pad fusion (graph/pad_fusion.h): which chains of constant-block concatenations become one pad
// pass (or vanish into the conv2d that reads them), and that a fused session gives the unfused
// session's bits on every backend.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "cvm/model_builder.h"
#include "fusion_test_util.h"

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

// One concatenate of a chain: along `axis`, blocks of `before` and `after` elements filled
// with `value` around the previous output (a block of extent 0 is left out).
struct Pad {
  const char* name;
  int axis;
  int64_t before, after;
  int32_t value = 0;
};

NDArray filled(const Shape& shape, int32_t value) {
  NDArray a = NDArray::empty(shape, DataType::Int(32));
  auto* p = static_cast<int32_t*>(a.mutable_data());
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = value;
  return a;
}

// Appends the chain `pads` after `y` (of `*shape`, which becomes the chain's output shape) and
// returns its output; each concatenated node is also appended to `nodes` when given. `odd_block`
// puts one other value into the first block of the node of that name.
Entry pad_chain(ModelBuilder& b, Entry y, Shape* shape, const std::vector<Pad>& pads,
                std::vector<Entry>* nodes = nullptr, const std::string& odd_block = "") {
  for (const Pad& p : pads) {
    std::vector<Entry> parts;
    auto block = [&](int64_t len, const std::string& side) {
      Shape s = *shape;
      s[p.axis] = len;
      NDArray v = filled(s, p.value);
      if (odd_block == p.name && parts.empty()) static_cast<int32_t*>(v.mutable_data())[0] += 1;
      parts.push_back(b.constant(std::string(p.name) + "_" + side, v, 8));
    };
    if (p.before > 0) block(p.before, "before");
    parts.push_back(y);
    if (p.after > 0) block(p.after, "after");
    y = b.add1("concatenate", p.name, parts, {{"axis", std::to_string(p.axis)}});
    (*shape)[p.axis] += p.before + p.after;
    if (nodes != nullptr) nodes->push_back(y);
  }
  return y;
}

// x (1 x 4 x 16 x 16, precision 8) -> relu "act" -> the chain `pads` -> relu "tail". The
// outputs: tail, plus the chain nodes named in `also_output`. `odd_block` puts one other value
// into the first block of the node of that name.
std::shared_ptr<const Model> padded(const std::vector<Pad>& pads,
                                    const std::vector<std::string>& also_output = {},
                                    const std::string& odd_block = "") {
  ModelBuilder b;
  const Entry x = b.input({1, 4, 16, 16}, DataType::Int(32), 8);
  Shape shape{1, 4, 16, 16};
  std::vector<Entry> nodes, outputs;
  const Entry y = pad_chain(b, b.add1("relu", "act", {x}, {}), &shape, pads, &nodes, odd_block);
  for (size_t i = 0; i < pads.size(); ++i) {
    for (const std::string& o : also_output) {
      if (o == pads[i].name) outputs.push_back(nodes[i]);
    }
  }
  outputs.push_back(b.add1("relu", "tail", {y}, {}));
  b.set_outputs(outputs);
  return b.build();
}

// x (1 x 8 x 16 x 16, precision 8) -> relu "act" -> the chain `pads` -> conv2d "conv" (8
// output channels, a k x k kernel, `stride`, its own `padding`, `groups`), the output (no clamp
// after it: clamp fusion stays out); with `also_read`, a relu "other" reads the chain's output
// too (a second output).
std::shared_ptr<const Model> padded_conv(const std::vector<Pad>& pads, int64_t k, int64_t stride,
                                         int64_t padding, int64_t groups,
                                         bool also_read = false) {
  ModelBuilder b;
  const Entry x = b.input({1, 8, 16, 16}, DataType::Int(32), 8);
  Shape shape{1, 8, 16, 16};
  const Entry y = pad_chain(b, b.add1("relu", "act", {x}, {}), &shape, pads);
  const Entry w = b.constant("w", t::random_in({8, shape[1] / groups, k, k}, -127, 127, 9), 8);
  auto pair = [](int64_t v) { return "(" + std::to_string(v) + ", " + std::to_string(v) + ")"; };
  const Entry conv = b.add1("conv2d", "conv", {y, w},
                            {{"channels", "8"}, {"kernel_size", pair(k)}, {"strides", pair(stride)},
                             {"padding", pair(padding)}, {"groups", std::to_string(groups)},
                             {"use_bias", "false"}});
  std::vector<Entry> outputs = {conv};
  if (also_read) outputs.push_back(b.add1("relu", "other", {y}, {}));
  b.set_outputs(outputs);
  return b.build();
}

using t::fused_into;

// Pad fusion on and off (fusion_test_util.h).
t::FusionPlan check_fused_equals_unfused(const std::shared_ptr<const Model>& model) {
  return t::check_fused_equals_unfused(model, &SessionOptions::fuse_pads);
}

// The kernel op and the note of `node`'s first chain in a session of `model`.
std::pair<std::string, std::string> first_chain(const std::shared_ptr<const Model>& model,
                                                const std::string& node) {
  Session s(model);
  for (const cvm::NodeKernelPlan& n : s.kernel_plan()) {
    if (n.node != node) continue;
    const auto& c = n.chains.at(0);
    return {c.kernel_op, c.notes.empty() ? "" : c.notes.back()};
  }
  return {};
}

}  // namespace

TEST_CASE("pad fusion: H then W padding is one pad pass with the same bits", "[graph][fusion]") {
  // As the quantizer writes an ONNX Pad of (0, 1) on H and W before a stride-2 conv.
  const auto model = padded({{"pad_h", 2, 0, 1}, {"pad_w", 3, 0, 1}});
  const auto plan = check_fused_equals_unfused(model);
  CHECK(plan.at("pad_h").empty());  // it runs the pass
  // Fused only because the plan keeps "act" live until pad_w: pad_w's output, larger than it and
  // placed after its last reader (pad_h), would otherwise take its block (grown to fit).
  CHECK(plan.at("pad_w") == "pad_h");
  CHECK(plan.at("act").empty());
  CHECK(plan.at("tail").empty());
  const auto [op, note] = first_chain(model, "pad_h");
  CHECK(op == "pad");
  CHECK(note == "one pad pass for pad_h, pad_w");
}

TEST_CASE("pad fusion: longer chains, both sides, the same axis twice, other values",
          "[graph][fusion]") {
  SECTION("three axes, blocks before and after") {
    const auto plan = check_fused_equals_unfused(
        padded({{"a", 2, 1, 2}, {"b", 3, 2, 1}, {"c", 1, 1, 3}}));
    CHECK(plan.at("a").empty());
    CHECK(plan.at("b") == "a");
    CHECK(plan.at("c") == "a");
  }
  SECTION("one axis twice: the pads add up") {
    const auto plan = check_fused_equals_unfused(padded({{"a", 3, 1, 0}, {"b", 3, 2, 3}}));
    CHECK(plan.at("b") == "a");
  }
  SECTION("a value other than zero") {
    const auto plan =
        check_fused_equals_unfused(padded({{"a", 2, 1, 1, -127}, {"b", 3, 1, 1, -127}}));
    CHECK(plan.at("b") == "a");
  }
}

TEST_CASE("pad fusion: chains that must not fuse keep every node", "[graph][fusion]") {
  SECTION("a single concatenation is no chain") {
    const auto plan = check_fused_equals_unfused(padded({{"a", 2, 1, 1}}));
    CHECK(plan.at("a").empty());
  }
  SECTION("the intermediate is also an output") {
    const auto plan = check_fused_equals_unfused(padded({{"a", 2, 1, 1}, {"b", 3, 1, 1}}, {"a"}));
    CHECK(plan.at("b").empty());
  }
  SECTION("the two nodes pad with different values") {
    const auto plan = check_fused_equals_unfused(padded({{"a", 2, 1, 1}, {"b", 3, 1, 1, 5}}));
    CHECK(plan.at("b").empty());
  }
  SECTION("a block that is not one value") {
    const auto model = padded({{"a", 2, 1, 1}, {"b", 3, 1, 1}}, {}, "b");
    const auto plan = check_fused_equals_unfused(model);
    CHECK(plan.at("b").empty());
  }
  SECTION("CVMRT_FUSE's switch: fuse_pads = false") {
    SessionOptions o;
    o.fuse_pads = false;
    Session s(padded({{"a", 2, 1, 1}, {"b", 3, 1, 1}}), o);
    for (const auto& [node, into] : fused_into(s)) CHECK(into.empty());
  }
}

TEST_CASE("pad fusion: a conv2d reading the chain pads its input itself, with the same bits",
          "[graph][fusion]") {
  // Every node of the chain is then computed by the conv (fused_into), which reads "act".
  auto check_conv_takes_it = [](const std::shared_ptr<const Model>& model) {
    std::map<std::string, t::FusionPlan> by_backend;
    t::check_fused_equals_unfused(model, &SessionOptions::fuse_pads, &by_backend);
    for (const auto& [backend, plan] : by_backend) {
      INFO("backend " << backend);
      const bool cpu = t::backend_device(backend).is_cpu();  // device sessions run the pass
      CHECK(plan.at("a") == (cpu ? "conv" : ""));
      CHECK(plan.at("b") == (cpu ? "conv" : "a"));
      CHECK(plan.at("conv").empty());
    }
  };
  SECTION("TensorFlow's SAME before a stride-2 depthwise 3x3: one row and column after") {
    check_conv_takes_it(padded_conv({{"a", 2, 0, 1}, {"b", 3, 0, 1}}, 3, 2, 0, 8));
  }
  SECTION("SAME before a stride-2 5x5: one before, two after") {
    check_conv_takes_it(padded_conv({{"a", 2, 1, 2}, {"b", 3, 1, 2}}, 5, 2, 0, 1));
  }
  SECTION("on top of the conv's own padding, more after on one axis") {
    check_conv_takes_it(padded_conv({{"a", 3, 0, 2}, {"b", 2, 1, 1}}, 3, 1, 1, 2));
  }
}

TEST_CASE("pad fusion: a conv2d that cannot take the padding leaves it to the pad pass",
          "[graph][fusion]") {
  auto check_pass = [](const std::shared_ptr<const Model>& model) {
    const auto plan = check_fused_equals_unfused(model);
    CHECK(plan.at("a").empty());  // the pass
    CHECK(plan.at("b") == "a");
  };
  SECTION("a value other than zero") {
    check_pass(padded_conv({{"a", 2, 0, 1, -127}, {"b", 3, 0, 1, -127}}, 3, 2, 0, 8));
  }
  SECTION("more before the input than after it") {
    check_pass(padded_conv({{"a", 2, 1, 0}, {"b", 3, 0, 1}}, 3, 2, 0, 8));
  }
  SECTION("channels padded too") {
    check_pass(padded_conv({{"a", 2, 0, 1}, {"b", 1, 0, 8}}, 3, 2, 0, 1));
  }
  SECTION("another node reads the padded activation") {
    check_pass(padded_conv({{"a", 2, 0, 1}, {"b", 3, 0, 1}}, 3, 2, 0, 8, true));
  }
}
