// Int8 activation buffers (SessionOptions::int8_activations): which outputs a session holds as
// int8, that its results are the int32 session's bits on every backend, and that a conv2d /
// dense call on int8 activations whose int8 kernels all decline still gives them (op layer).
// The op-layer headers bring the library's CHECK/VERIFY macros: included first, then dropped
// for Catch2's.
#include "kernel_views.h"
#include "op_def.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "cvm/array_ops.h"
#include "cvm/model_builder.h"
#include "fusion_test_util.h"
#include "params/elementwise.h"
#include "registry_internal.h"

using namespace cvm;
namespace t = cvm::test;

namespace {

using Entry = ModelBuilder::Entry;
using Attrs = std::map<std::string, cvm::AttrValue>;

const Attrs kShiftP8 = {{"shift_bit", "9"}, {"precision", "8"}};

// conv2d "name" of x (c input channels a group) to oc channels, k x k, with a bias.
Entry conv(ModelBuilder& b, const std::string& name, Entry x, int64_t c, int64_t oc, int64_t k,
           int64_t stride, int64_t groups, uint64_t seed) {
  const Entry w = b.constant(name + "_w", t::random_in({oc, c / groups, k, k}, -127, 127, seed), 8);
  const Entry bias = b.constant(name + "_b", t::random_in({oc}, -9000, 9000, seed + 1), 15);
  const std::string ks = std::to_string(k), s = std::to_string(stride),
                    pad = std::to_string(k / 2);
  return b.add1("conv2d", name, {x, w, bias},
                {{"channels", std::to_string(oc)},
                 {"kernel_size", "(" + ks + ", " + ks + ")"},
                 {"strides", "(" + s + ", " + s + ")"},
                 {"padding", "(" + pad + ", " + pad + ")"},
                 {"groups", std::to_string(groups)}});
}

// conv2d then its requantization to 8 bits (shift, relu), named name_shift and name_relu.
Entry conv_block(ModelBuilder& b, const std::string& name, Entry x, int64_t c, int64_t oc,
                 int64_t k, int64_t stride, int64_t groups, uint64_t seed) {
  const Entry y = conv(b, name, x, c, oc, k, stride, groups, seed);
  return b.add1("relu", name + "_relu", {b.add1("cvm_right_shift", name + "_shift", {y}, kShiftP8)},
                {});
}

// conv2d requantized with a per-channel scale stage, as a model quantized with per-channel
// weight scales is: shift (name_shift), times a constant per channel (name_mul), shift to 8
// bits (name_scaled).
Entry scaled_conv_block(ModelBuilder& b, const std::string& name, Entry x, int64_t c, int64_t oc,
                        int64_t k, int64_t stride, int64_t groups, uint64_t seed) {
  Entry y = conv(b, name, x, c, oc, k, stride, groups, seed);
  y = b.add1("cvm_right_shift", name + "_shift", {y}, {{"shift_bit", "6"}, {"precision", "12"}});
  const Entry m = b.constant(name + "_m", t::random_in({oc, 1, 1}, 1, 15, seed + 2), 5);
  y = b.add1("broadcast_mul", name + "_mul", {y, m}, {});
  return b.add1("cvm_right_shift", name + "_scaled", {y}, {{"shift_bit", "5"}, {"precision", "8"}});
}

// A small MobileNet-like network with what must stay int32 around what may be int8:
//   stem 3x3 -> dw 3x3 (a scale stage) -> pw 1x1 -> [a: 3x3 s2] + [b: 1x1 s2] -> elemwise_add
//   -> shift -> flatten -> fc1 (dense) -> shift -> fc2 (dense) -> shift (an output, with
//   pw's output)
// stem, dw, fc1 and the input: read only by conv2d / dense as data (int8 where the kernels take
// it); pw: a graph output; a, b: read by the add, whose shifted sum flatten copies into fc1's
// data (int8 together where the add's kernel takes it); fc2: the graph's output.
std::shared_ptr<const Model> network() {
  ModelBuilder b;
  const Entry x = b.input({1, 3, 17, 19}, DataType::Int(32), 8);
  Entry y = conv_block(b, "stem", x, 3, 16, 3, 1, 1, 10);
  y = scaled_conv_block(b, "dw", y, 16, 16, 3, 1, 16, 20);
  const Entry pw = conv_block(b, "pw", y, 16, 24, 1, 1, 1, 30);
  const Entry a = conv_block(b, "a", pw, 24, 24, 3, 2, 1, 40);
  const Entry c = conv_block(b, "b", pw, 24, 24, 1, 2, 1, 50);
  y = b.add1("cvm_right_shift", "sum_shift", {b.add1("elemwise_add", "sum", {a, c}, {})},
             {{"shift_bit", "1"}, {"precision", "8"}});
  y = b.add1("flatten", "flat", {y}, {});
  const int64_t k = 24 * 9 * 10;
  const Entry w1 = b.constant("fc1_w", t::random_in({32, k}, -127, 127, 60), 8);
  y = b.add1("dense", "fc1", {y, w1}, {{"units", "32"}, {"use_bias", "False"}});
  y = b.add1("cvm_right_shift", "fc1_shift", {y}, kShiftP8);
  const Entry w2 = b.constant("fc2_w", t::random_in({10, 32}, -127, 127, 61), 8);
  y = b.add1("dense", "fc2", {y, w2}, {{"units", "10"}, {"use_bias", "False"}});
  y = b.add1("cvm_right_shift", "fc2_shift", {y}, kShiftP8);
  b.set_outputs({y, pw});
  return b.build();
}

std::map<std::string, bool> int8_outputs(const Session& s) {
  std::map<std::string, bool> m;
  for (const cvm::NodeKernelPlan& n : s.kernel_plan()) m[n.node] = n.int8_output;
  return m;
}

// Whether the kernels heading the node's chain in `s` take int8 activations.
bool heads_take_int8(const Session& s, const std::string& node) {
  for (const cvm::NodeKernelPlan& n : s.kernel_plan()) {
    if (n.node != node) continue;
    for (const cvm::kernel::BackendTable* b : cvm::backend_tables()) {
      for (size_t i = 0; i < b->count; ++i) {
        if (n.chains[0].entries[0] == b->entries[i].name) return b->entries[i].takes_int8_activations;
      }
    }
  }
  return false;
}

// A residual stage with what a quantized BlazeFace / ResNet block holds as int8 between its
// convolutions: the input (1, 3, 16, 16) -> stem 3x3 (relu, 8 bits) -> max_pool2d 2x2 s2
// -> concatenated after a constant zero block (the channel padding) and shifted to the add's
// scale (align); stem -> conv c1 3x3 s2 to the same 12 channels; res = clip(c1 + align) ->
// relu -> dw 3x3 depthwise -> shift (the graph's output). The pool's output lies in place in
// the concatenation (planner.h: batch 1, 64-byte parts), at a quarter of its int32 offset
// there when int8 (int8_offsets).
std::shared_ptr<const Model> residual_network() {
  ModelBuilder b;
  const Entry x = b.input({1, 3, 16, 16}, DataType::Int(32), 8);
  const Entry stem = conv_block(b, "stem", x, 3, 8, 3, 1, 1, 70);
  const Entry pool = b.add1("max_pool2d", "pool", {stem},
                            {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}});
  const Entry zeros = b.constant("zeros", NDArray::zeros({1, 4, 8, 8}, DataType::Int(32)), 1);
  const Entry cat = b.add1("concatenate", "cat", {zeros, pool}, {{"axis", "1"}});
  const Entry align =
      b.add1("cvm_right_shift", "align", {cat}, {{"shift_bit", "1"}, {"precision", "8"}});
  const Entry c1 = conv_block(b, "c1", stem, 8, 12, 3, 2, 1, 80);
  Entry y = b.add1("elemwise_add", "res_sum", {c1, align}, {});
  y = b.add1("cvm_clip", "res_clip", {y}, {{"precision", "8"}});
  y = b.add1("relu", "res", {y}, {});
  y = conv(b, "dw", y, 12, 12, 3, 1, 12, 90);
  y = b.add1("cvm_right_shift", "dw_shift", {y}, kShiftP8);
  b.set_outputs({y});
  return b.build();
}

// Runs `model` on seeded inputs in an int8 session of each backend, against the same session
// without int8 activations and the scalar one: every output bit-identical. Calls
// check(session) for each backend's int8 session.
template <class Check>
void check_int8_sessions(const std::shared_ptr<const Model>& model, Check&& check) {
  Session reference(model, SessionOptions{"scalar"});
  for (const std::string& backend : t::runnable_backends()) {
    INFO("backend " << backend);
    Session s(model, SessionOptions{backend});
    SessionOptions off{backend};
    off.int8_activations = false;
    Session wide(model, off);
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      // The input as int32, and (seed 4) as int8 (write_input's two ways into an int8 input).
      NDArray x = t::model_input(*model, seed);
      if (seed == 4) {
        x = cvm::cast(x, DataType::Int(8));
      }
      for (Session* run : {&s, &wide, &reference}) {
        run->set_input("data", x);
        run->run();
      }
      for (size_t i = 0; i < s.num_outputs(); ++i) {
        CHECK(t::bit_equal(s.output(i), wide.output(i)));
        CHECK(t::bit_equal(s.output(i), reference.output(i)));
      }
    }
    for (const auto& [node, int8] : int8_outputs(wide)) CHECK_FALSE(int8);
    check(s);
  }
}

}  // namespace

TEST_CASE("int8 activations: the int32 session's bits on every backend", "[graph][fusion]") {
  const std::shared_ptr<const Model> model = network();
  check_int8_sessions(model, [](const Session& s) {
    const std::map<std::string, bool> int8 = int8_outputs(s);
    // Never: a graph output (pw, fc2), a clamp run fused into its head (sum_shift).
    for (const char* node : {"pw", "fc2", "sum_shift"}) {
      INFO(node);
      CHECK_FALSE(int8.at(node));
    }
    // a, b, their sum and its flattened copy: together, where the kernels of a, b and the add
    // take int8 (flatten's copy takes any element, fc1 reads its data either way).
    const bool residual =
        heads_take_int8(s, "a") && heads_take_int8(s, "b") && heads_take_int8(s, "sum");
    for (const char* node : {"a", "b", "sum", "flat"}) {
      INFO(node);
      CHECK(int8.at(node) == residual);
    }
    // Where the kernels of the producer and of every reader take int8: always.
    const bool dw_reads = heads_take_int8(s, "dw"), pw_reads = heads_take_int8(s, "pw");
    CHECK(int8.at("stem") == (heads_take_int8(s, "stem") && dw_reads));
    CHECK(int8.at("dw") == (dw_reads && pw_reads));
    CHECK(int8.at("fc1") == (heads_take_int8(s, "fc1") && heads_take_int8(s, "fc2")));
    // The clamp run of an int8 output never runs as a pass: the head's kernel applies it.
    const t::FusionPlan into = t::fused_into(s);
    for (const char* node : {"stem", "dw", "fc1"}) {
      INFO(node);
      if (int8.at(node)) CHECK(into.at(std::string(node) + "_shift") == node);
    }
    // Nor the scale stage: the head's kernel applies it too.
    if (int8.at("dw")) {
      CHECK(into.at("dw_mul") == "dw");
      CHECK(into.at("dw_scaled") == "dw");
    }
  });
}

TEST_CASE("int8 activations: through residual adds, pools, concatenates and shifts",
          "[graph][fusion]") {
  check_int8_sessions(residual_network(), [](const Session& s) {
    const std::map<std::string, bool> int8 = int8_outputs(s);
    // Each of these takes its entries all int8 or all int32, so one kernel without int8 views
    // keeps the whole stage int32.
    bool all = true;
    for (const char* node : {"stem", "pool", "align", "c1", "res_sum", "dw"}) {
      all = all && heads_take_int8(s, node);
    }
    for (const char* node : {"stem", "pool", "cat", "align", "c1", "res_sum"}) {
      INFO(node);
      CHECK(int8.at(node) == all);
    }
    CHECK_FALSE(int8.at("dw"));  // writes the graph's output
    // The add's clamp run (res_clip, res) never runs as a pass when it writes int8: its
    // kernel applies it.
    if (all) CHECK(t::fused_into(s).at("res_clip") == "res_sum");
  });
}

TEST_CASE("int8 activations: a conv2d / dense whose int8 kernels decline widens, same bits",
          "[graph][kernels]") {
  using cvm::kernel::KernelCall;
  using cvm::kernel::KernelEntry;
  using cvm::kernel::KernelStatus;
  static int declined = 0;
  auto decline = [](const KernelCall&) {
    ++declined;
    return KernelStatus::kDeclined;
  };
  for (const char* op_name : {"conv2d", "dense"}) {
    INFO(op_name);
    const bool is_conv = std::string(op_name) == "conv2d";
    const cvm::ops::OpDef* op = cvm::ops::find_op(op_name);
    REQUIRE(op != nullptr);
    const cvm::AttrMap attrs =
        is_conv ? cvm::AttrMap{{"channels", "6"}, {"kernel_size", "(3, 3)"},
                               {"padding", "(1, 1)"}}
                : cvm::AttrMap{{"units", "6"}};
    const Shape xs = is_conv ? Shape{1, 4, 5, 7} : Shape{3, 20};
    const Shape ws = is_conv ? Shape{6, 4, 3, 3} : Shape{6, 20};
    const NDArray x = t::random_in(xs, -128, 127, 71);
    const std::vector<NDArray> in = {x, t::random_in(ws, -127, 127, 72),
                                     t::random_in({6}, -5000, 5000, 73)};
    const NDArray plain = cvm::run_op(op_name, in, attrs)[0];
    const cvm::kernel::CvmClampParams clamp{6, -100, 120};
    // The clamped result as int8, and x as int8.
    NDArray want = plain.copy();
    int32_t* clamped = want.mutable_data_as<int32_t>();
    for (int64_t i = 0; i < want.numel(); ++i) {
      clamped[i] = cvm::kernel::apply_clamp_one(clamped[i], clamp);
    }
    const NDArray want8 = cvm::cast(want, DataType::Int(8)), x8 = cvm::cast(x, DataType::Int(8));
    // conv2d with a channel scale after the clamp too: times multiplier[oc], then a second
    // clamp within int8 (the op layer applies both after a reference run).
    const int32_t multipliers[6] = {3, -2, 1, 7, -5, 0};
    const cvm::kernel::ChannelScale scale{multipliers, {2, -128, 127}};
    NDArray scaled = want.copy();
    int32_t* sv = scaled.mutable_data_as<int32_t>();
    for (int64_t i = 0; i < scaled.numel(); ++i) {
      sv[i] = cvm::kernel::apply_clamp_one(sv[i] * multipliers[i / 35 % 6], scale.clamp);
    }
    const NDArray scaled8 = cvm::cast(scaled, DataType::Int(8));
    // A chain whose int8 entry declines, then the scalar reference (which takes no int8 and
    // does not apply the clamp: the op layer does).
    const cvm::KernelChain reference = cvm::resolve_chain(
        cvm::ChainPolicy{}, {op_name, cvm::kernel::ElemType::kInt32}, cvm::Device::cpu());
    REQUIRE(reference.entries.size() == 1);
    REQUIRE_FALSE(reference.entries[0]->applies_clamp);
    KernelEntry decliner{"int8_test_decliner", op_name, cvm::kernel::ElemType::kInt32, decline, 0};
    decliner.applies_clamp = true;
    decliner.takes_int8_activations = true;
    cvm::ops::NodeKernels kernels;
    kernels.chains = {reference};
    kernels.chains[0].entries.insert(kernels.chains[0].entries.begin(), &decliner);
    kernels.clamp = &clamp;
    const std::unique_ptr<cvm::ops::OpAttrs> parsed = op->parse(attrs);
    for (bool with_scale : {false, true}) {
      if (with_scale && !is_conv) continue;
      kernels.scale = with_scale ? &scale : nullptr;
      for (bool narrow_in : {false, true}) {
        for (bool narrow_out : {false, true}) {
          INFO("int8 in " << narrow_in << " int8 out " << narrow_out << " scale " << with_scale);
          std::vector<NDArray> inputs = in;
          if (narrow_in) inputs[0] = x8;
          NDArray y = NDArray::zeros(plain.shape(), DataType::Int(narrow_out ? 8 : 32));
          declined = 0;
          op->compute(*parsed, inputs, {y}, kernels);
          // An int8 call: the int8 entries first, then the whole chain on int32 copies.
          CHECK(declined == (narrow_in || narrow_out ? 2 : 1));
          CHECK(kernels.chains[0].last_ran == reference.entries[0]);
          // An int32 output is the reference's own (its clamp and scale are the session's
          // passes), an int8 one clamped (and scaled) by the op layer.
          CHECK(t::bit_equal(y, narrow_out ? (with_scale ? scaled8 : want8) : plain));
        }
      }
    }
  }
}
