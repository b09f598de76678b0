// Helpers for the session fusion tests (clamp and pad fusion): which node's pass computes each
// node, and fused against unfused sessions bit for bit on every backend.
#pragma once

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>

#include "cvm/model.h"
#include "test_util.h"

namespace cvm {
namespace test {

using FusionPlan = std::map<std::string, std::string>;

// node name -> the node whose pass computes it ("" for every node that runs itself).
inline FusionPlan fused_into(const Session& s) {
  FusionPlan m;
  for (const NodeKernelPlan& n : s.kernel_plan()) m[n.node] = n.fused_into;
  return m;
}

// Seeded input of `model` over its whole precision.
inline NDArray model_input(const Model& model, uint64_t seed) {
  const int64_t max = (int64_t{1} << (model.inputs()[0].precision - 1)) - 1;
  return random_in(model.inputs()[0].shape, -max, max, seed);
}

// Runs `model` with the fusion `fusion` (SessionOptions::fuse_clamps or fuse_pads) on and off
// on every runnable backend over a few seeded inputs and checks the bits agree; returns the
// fused plan of the last backend (the scalar reference), and each backend's in `by_backend`
// when given.
inline FusionPlan check_fused_equals_unfused(const std::shared_ptr<const Model>& model,
                                             bool SessionOptions::*fusion,
                                             std::map<std::string, FusionPlan>* by_backend =
                                                 nullptr) {
  FusionPlan plan;
  for (const std::string& backend : runnable_backends()) {
    INFO("backend " << backend);
    SessionOptions fused{backend}, plain{backend};
    plain.*fusion = false;
    Session a(model, fused), b(model, plain);
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const NDArray x = model_input(*model, seed);
      for (Session* s : {&a, &b}) {
        s->set_input("data", x);
        s->run();
      }
      REQUIRE(a.num_outputs() == b.num_outputs());
      for (size_t i = 0; i < a.num_outputs(); ++i) CHECK(bit_equal(a.output(i), b.output(i)));
    }
    for (const auto& [node, into] : fused_into(b)) CHECK(into.empty());  // unfused: none
    plan = fused_into(a);
    if (by_backend != nullptr) (*by_backend)[backend] = plan;
  }
  return plan;
}

}  // namespace test
}  // namespace cvm
