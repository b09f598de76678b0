// Kernel chains: a session binds every node once (its runs do no registry lookups), chains end
// with the scalar reference, a declining kernel passes the call on, and the session reports per
// node what runs and why the backend's other entries do not (no silent fallback).
// The op-layer headers bring the library's CHECK/VERIFY macros: included first, then dropped
// for Catch2's.
#include "kernel_views.h"
#include "op_def.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cvm/op.h"
#include "cvm/registry.h"
#include "graph_test_util.h"
#include "test_util.h"
#include "registry_internal.h"

using cvm::KernelChain;
using cvm::Model;
using cvm::NDArray;
using cvm::Session;
using cvm::kernel::KernelEntry;
namespace t = cvm::test;

namespace {

int g_declined_calls = 0;
cvm::kernel::KernelStatus always_declines(const cvm::kernel::KernelCall&) {
  ++g_declined_calls;
  return cvm::kernel::KernelStatus::kDeclined;
}

}  // namespace

TEST_CASE("kernel chains: a session's runs do no registry lookups", "[graph][kernels]") {
  const auto model = t::load_lenet();
  const NDArray x = t::lenet_input(*model);
  const uint64_t before_session = cvm::registry_lookups();
  Session s(model);
  const uint64_t bound = cvm::registry_lookups();
  CHECK(bound > before_session);  // the session bound its nodes: the counter counts
  s.set_input("data", x);
  for (int i = 0; i < 3; ++i) s.run();
  std::vector<char> bytes(s.output_length());
  std::vector<char> in(s.input_length());
  s.infer_bytes(in.data(), in.size(), bytes.data(), bytes.size());
  CHECK(cvm::registry_lookups() == bound);
  // An eager operator call binds its kernels on the spot.
  cvm::run_op("relu", {NDArray::zeros({4}, cvm::DataType::Int(32))});
  CHECK(cvm::registry_lookups() > bound);
}

TEST_CASE("kernel chains: no operator looks a kernel up while a session runs", "[graph][kernels]") {
  // Every operator family of the hand-built models (elementwise, broadcast, reduce, transform,
  // nn, vision with detection output, argmax), on every compiled backend.
  for (const char* name : t::kModelCases) {
    const t::ModelCase c = t::load_case(name);
    const auto model = c.load();
    const NDArray x = c.input();
    for (const std::string& backend : cvm::test::runnable_backends()) {
      INFO(name << " on " << backend);
      Session s(model, cvm::SessionOptions{backend});
      const uint64_t bound = cvm::registry_lookups();
      s.set_input("data", x);
      s.run();
      s.run();
      CHECK(cvm::registry_lookups() == bound);
    }
  }
}

TEST_CASE("kernel chains: every chain ends with the scalar reference; nothing skipped silently",
          "[graph][kernels]") {
  const auto model = t::load_lenet();
  for (const std::string& backend : cvm::test::runnable_backends()) {
    INFO("backend " << backend);
    Session s(model, cvm::SessionOptions{backend});
    CHECK(s.backend() == backend);
    const std::vector<cvm::NodeKernelPlan> before = s.kernel_plan();
    REQUIRE_FALSE(before.empty());
    for (const cvm::NodeKernelPlan& node : before) {
      INFO("node " << node.node << " (" << node.op << ")");
      REQUIRE_FALSE(node.chains.empty());
      for (const auto& c : node.chains) {
        REQUIRE_FALSE(c.entries.empty());
        // The reference of the session's device ends it: the scalar table on the CPU; on a
        // GPU the device's general kernel ("__cuda"), as no CPU kernel can take device memory
        // (there only entries moved behind for shapes they do not suit may follow it).
        CHECK(t::ends_with(t::chain_reference(c.entries, c.notes),
                        cvm::test::backend_device(backend).is_cpu() ? "__scalar" : "__" + backend));
        CHECK(c.last_ran.empty());
        if (backend == "scalar") CHECK(c.entries.size() == 1);
        // Every entry of the backend for this key is in the chain or explained in a note.
        for (const cvm::KernelInfo& k : cvm::list_kernels()) {
          if (k.backend != backend || backend == "scalar" || k.op != c.kernel_op ||
              (k.dtype != c.dtype && k.dtype != "any")) {
            continue;
          }
          bool listed = false;
          for (const std::string& e : c.entries) listed = listed || e == k.name;
          for (const std::string& n : c.notes) listed = listed || n.rfind(k.name + ": ", 0) == 0;
          CHECK(listed);
          if (!k.usable) {
            bool why = false;
            for (const std::string& n : c.notes) {
              why = why || n.rfind(k.name + ": CPU lacks ", 0) == 0;
            }
            CHECK(why);
          }
        }
      }
    }
    s.set_input("data", t::lenet_input(*model));
    s.run();
    for (const cvm::NodeKernelPlan& node : s.kernel_plan()) {
      for (const auto& c : node.chains) {
        INFO("node " << node.node << " " << c.kernel_op);
        // The chain's first entry that suits the node ran (lenet's operands are within every
        // kernel's ranges), or nothing did: an in-place node (flatten) whose output already is
        // its input moves nothing.
        if (node.op == "flatten" || !node.fused_into.empty()) {
          CHECK(c.last_ran.empty());  // a clamp fused into an earlier node's pass runs nothing
        } else {
          CHECK(c.last_ran == t::expected_runner(c.entries, c.notes));
        }
      }
    }
  }
  CHECK_THROWS_WITH(Session(model, cvm::SessionOptions{"tpu"}),
                    Catch::Contains("unknown backend \"tpu\""));
}

TEST_CASE("kernel chains: a kernel that declines passes the call to the next entry",
          "[kernels]") {
  const KernelChain add = cvm::resolve_chain(
      cvm::ChainPolicy{static_cast<int>(cvm::backend_tables().size()) - 1, nullptr},
      {"add", cvm::kernel::ElemType::kInt32}, cvm::Device::cpu());
  REQUIRE(add.entries.size() == 1);
  const KernelEntry* scalar_add = add.entries[0];
  CHECK(std::string(scalar_add->name) == "add_i32__scalar");
  const KernelEntry decliner{"add_i32__test_decliner", "add", cvm::kernel::ElemType::kInt32,
                             always_declines, 0};
  KernelChain chain;
  chain.key = add.key;
  chain.entries = {&decliner, scalar_add};
  NDArray a = t::random_in(cvm::Shape{3, 5}, -1000, 1000, 1);
  NDArray b = t::random_in(cvm::Shape{3, 5}, -1000, 1000, 2);
  NDArray y = NDArray::zeros(cvm::Shape{3, 5}, cvm::DataType::Int(32));
  g_declined_calls = 0;
  cvm::ops::run_kernel(chain, cvm::ops::plain_views({y}, {a, b}), 1, nullptr);
  CHECK(g_declined_calls == 1);
  CHECK(chain.last_ran == scalar_add);
  CHECK(t::flat_values(y) == t::flat_values(cvm::run_op("add", {a, b})[0]));
  // A chain whose every entry declines is a broken invariant, never a silent no-op.
  chain.entries = {&decliner};
  CHECK_THROWS_AS(cvm::ops::run_kernel(chain, cvm::ops::plain_views({y}, {a, b}), 1, nullptr),
                  cvm::RuntimeError);
}

TEST_CASE("kernel chains: shape preferences move an entry behind, never out", "[kernels]") {
  // The entries with a shape preference today: AMX dense, which a one-row call does not suit
  // (measured: 0.076 ms against 0.016 ms on the AVX-512 VNNI kernel), AMX conv2d, which a group
  // of under 16 input channels does not suit (4.98 ms against 1.08 ms), the Winograd conv2d
  // entries (x86 AVX2, wasm), which only 3x3 single-group layers suit, and the CUDA dp4a
  // entries, which a conv2d group of 2 channels or a dense of 1 row does not suit.
  int with_suits = 0;
  for (const cvm::kernel::BackendTable* b : cvm::backend_tables()) {
    for (size_t i = 0; i < b->count; ++i) {
      const KernelEntry& e = b->entries[i];
      if (e.suits == nullptr) continue;
      ++with_suits;
      INFO(e.name);
      const bool dense = std::string(e.op) == "dense";
      CHECK((dense || std::string(e.op) == "conv2d"));
      // Inputs it suits and inputs it does not.
      using cvm::Shape;
      const NDArray x_fit = NDArray::zeros(dense ? Shape{8, 64} : Shape{1, 16, 6, 6},
                                           cvm::DataType::Int(32));
      const NDArray x_off = NDArray::zeros(dense ? Shape{1, 64} : Shape{1, 2, 6, 6},
                                           cvm::DataType::Int(32));
      const NDArray w_fit = NDArray::zeros(dense ? Shape{16, 64} : Shape{8, 16, 3, 3},
                                           cvm::DataType::Int(32));
      const NDArray w_off = NDArray::zeros(dense ? Shape{16, 64} : Shape{8, 2, 5, 5},
                                           cvm::DataType::Int(32));
      auto views = [](const NDArray& x, const NDArray& w) {
        return std::vector<cvm::kernel::TensorView>{
            cvm::ops::plain_view(x, const_cast<void*>(x.data())),
            cvm::ops::plain_view(w, const_cast<void*>(w.data()))};
      };
      const std::vector<cvm::kernel::TensorView> off = views(x_off, w_off);
      const std::vector<cvm::kernel::TensorView> fit = views(x_fit, w_fit);
      CHECK_FALSE(e.suits(off.data(), 2));
      CHECK(e.suits(fit.data(), 2));
      if (!cvm::entry_usable(*b, e)) continue;
      // Where it can run, a chain for inputs it does not suit has it after the entries that do.
      int backend = 0;
      for (; cvm::backend_tables()[backend] != b; ++backend) {
      }
      const cvm::KernelKey key{e.op, cvm::kernel::ElemType::kInt32};
      const cvm::Device device{static_cast<DLDeviceType>(b->device_type), 0};
      const KernelChain c = cvm::resolve_chain(cvm::ChainPolicy{backend, nullptr}, key, device,
                                               off.data(), 2);
      REQUIRE(c.entries.size() >= 2);
      CHECK(c.entries.front() != &e);
      bool noted = false;
      for (const std::string& n : c.notes) {
        noted = noted || n.rfind(std::string(e.name) + ": moved", 0) == 0;
      }
      CHECK(noted);
      // For inputs it suits, it keeps its table place among the usable entries of its key.
      const KernelChain fit_chain = cvm::resolve_chain(cvm::ChainPolicy{backend, nullptr}, key,
                                                       device, fit.data(), 2);
      size_t before = 0;
      for (size_t j = 0; j < i; ++j) {
        const KernelEntry& o = b->entries[j];
        if (std::string(o.op) == e.op && o.dtype == e.dtype && cvm::entry_usable(*b, o)) ++before;
      }
      REQUIRE(fit_chain.entries.size() > before);
      CHECK(fit_chain.entries[before] == &e);
    }
  }
  const std::vector<std::string> compiled = cvm::compiled_backends();
  auto has = [&](const char* name) {
    return std::find(compiled.begin(), compiled.end(), name) != compiled.end();
  };
  CHECK(with_suits == (has("simd") ? 3 : 0) + (has("wasm") ? 1 : 0) + (has("cuda") ? 2 : 0) +
                          (has("portable") ? 1 : 0));
}
