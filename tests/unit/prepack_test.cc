// Weight prepacking in the graph runtime: models give the same outputs whether their conv2d and
// dense weights run prepacked (simd backend) or not (scalar), whatever the backend of other
// sessions, thread counts and concurrent sessions; packs are made once per chain entry and
// kept; the op layer gives a pack to the entry that made it and to no other. The portable
// backend's packers (int8 weights) too, in sessions that name it and wherever it heads "auto"
// (the plain wasm module).
// The op-layer headers bring the library's CHECK/VERIFY macros: included first, then dropped
// for Catch2's.
#include "op_def.h"
#include "prepack.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cvm/op.h"
#include "registry_internal.h"
#include "cvm/registry.h"
#include "cvm/threads.h"
#include "graph_test_util.h"

using cvm::Model;
using cvm::NDArray;
using cvm::Session;
namespace t = cvm::test;

namespace {

struct Loaded {
  std::string name;
  std::shared_ptr<const Model> model;
  NDArray input;
  bool packs;  // has a conv2d/dense node the x86 kernels prepack (nn: < 4 channels per conv)
  // has a conv2d/dense node the portable kernels prepack (an int8 weight, no depthwise conv)
  bool packs_portable;
};

// The hand-built models with conv2d or dense, and the example LeNet.
std::vector<Loaded> models() {
  std::vector<Loaded> out;
  for (const std::string name :
       {"dense_nobias", "dense_bias", "dense_v110", "nn", "mlp", "chain"}) {
    const t::ModelCase c = t::load_case(name);
    out.push_back({name, c.load(), c.input(), name != "nn" && name != "chain", name != "chain"});
  }
  const auto lenet = t::load_lenet();
  const NDArray x = t::lenet_input(*lenet);
  out.push_back({"lenet", lenet, x, true, true});
  return out;
}

std::vector<std::vector<int64_t>> run_in(Session& s, const NDArray& input) {
  s.set_input("data", input);
  s.run();
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i < s.num_outputs(); ++i) out.push_back(t::flat_values(s.output(i)));
  return out;
}

// Whether the kernels that run dense and conv2d now (under CVMRT_ISA too) are GEMM ones that
// prepack: the x86 ones, the wasm SIMD128 ones and the portable ones.
bool gemm_kernels_run() {
  const cvm::DataType i32 = cvm::DataType::Int(32);
  const auto prepacks = [&](const char* op) {
    const std::string k = cvm::resolve_kernel(op, i32);
    return k.rfind("simd/", 0) == 0 || k.rfind("wasm/", 0) == 0 || k.rfind("portable/", 0) == 0;
  };
  return prepacks("dense") && prepacks("conv2d");
}

// Whether the portable kernels run dense now (the plain wasm module's "auto").
bool portable_runs() {
  return cvm::resolve_kernel("dense", cvm::DataType::Int(32)).rfind("portable/", 0) == 0;
}

// Whether model l has weights the kernels that run now pack.
bool expect_packs(const Loaded& l) { return portable_runs() ? l.packs_portable : l.packs; }

struct RestoreBackend {
  std::string before = cvm::current_backend();
  ~RestoreBackend() {
    cvm::set_backend(before);
    cvm::set_num_threads(0);
  }
};

}  // namespace

// The op layer hands a pack to exactly the kernel it was made for: a pack of another weight w2
// given with w1 makes that kernel compute with w2 (so the pack is what it used), and a pack
// tagged for another kernel is not given at all.
TEST_CASE("prepacked weights reach only the kernel they were made for", "[graph][prepack]") {
  struct Case {
    const char* op;
    cvm::AttrMap attrs;
    cvm::Shape x, w;
  };
  const std::vector<Case> cases = {
      {"conv2d", {{"channels", "8"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"},
                  {"use_bias", "false"}}, cvm::Shape{1, 8, 24, 23}, cvm::Shape{8, 8, 3, 3}},
      {"dense", {{"units", "24"}, {"use_bias", "false"}}, cvm::Shape{3, 40}, cvm::Shape{24, 40}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.op) {
      const cvm::ops::OpDef* op = cvm::ops::find_op(c.op);
      REQUIRE(op != nullptr);
      CHECK(op->takes_prepacked_weight());
      // int8 values: every kernel packs them.
      const NDArray x = t::random_in(c.x, -128, 127, 1), w1 = t::random_in(c.w, -128, 127, 2),
                    w2 = t::random_in(c.w, -128, 127, 3);
      const auto with_w1 = t::flat_values(cvm::run_op(c.op, {x, w1}, c.attrs)[0]);
      const auto with_w2 = t::flat_values(cvm::run_op(c.op, {x, w2}, c.attrs)[0]);
      REQUIRE(with_w1 != with_w2);
      const auto attrs = op->parse(c.attrs);
      const std::vector<NDArray> inputs = {x, w1};
      const cvm::ops::NodeKernels bound = cvm::ops::bind_kernels(
          *op, *attrs, inputs, {cvm::DataType::Int(32)}, cvm::chain_policy());
      const cvm::kernel::KernelEntry* head = bound[0].entries.front();
      const cvm::ops::PrepackedWeight pack = cvm::ops::prepack_weight(*op, *attrs, {x, w2}, *head);
      CHECK(pack.entry == head);
      auto run = [&](const cvm::kernel::KernelEntry* packed_for) {
        NDArray y = NDArray::zeros(cvm::Shape(cvm::run_op(c.op, {x, w1}, c.attrs)[0].shape()),
                                   cvm::DataType::Int(32));
        cvm::ops::NodeKernels k = bound;
        k.packed_for = packed_for;
        k.packed = pack.data.get();
        op->compute(*attrs, inputs, {y}, k);
        CHECK(k[0].last_ran == head);
        return t::flat_values(y);
      };
      // Tagged for an entry that does not run: ignored.
      CHECK(run(&cvm::kernel::kScalarBackend.entries[0]) == with_w1);
      if (pack.data != nullptr) {  // an entry that packs (the x86 and wasm GEMM ones)
        CHECK(gemm_kernels_run());
        CHECK(pack.bytes > 0);
        CHECK(run(head) == with_w2);
      } else {
        CHECK_FALSE(gemm_kernels_run());
        CHECK(run(head) == with_w1);
      }
    }
  }
}

TEST_CASE("prepacked weights: same outputs as the scalar reference, sessions bound once",
          "[graph][prepack]") {
  RestoreBackend restore;
  const char* env = std::getenv("CVMRT_PREPACK");
  for (const Loaded& l : models()) {
    INFO("model " << l.name);
    const auto cost = l.model->cost();
    Session ref(l.model, cvm::SessionOptions{"scalar"});
    CHECK(ref.backend() == "scalar");
    const auto want = run_in(ref, l.input);
    CHECK(l.model->prepacked_bytes() == 0);  // the scalar reference takes no packs
    cvm::set_backend("auto");
    const bool on = gemm_kernels_run() && (env == nullptr || std::string(env) != "0");
    Session s(l.model);
    for (int threads : {1, 3}) {
      cvm::set_num_threads(threads);
      CHECK(run_in(s, l.input) == want);
    }
    const uint64_t packed = l.model->prepacked_bytes();
    CHECK((packed > 0) == (on && expect_packs(l)));
    // A later switch binds later sessions only: `s` keeps its kernels and its packs.
    const std::vector<cvm::NodeKernelPlan> plan = s.kernel_plan();
    cvm::set_backend("scalar");
    CHECK(run_in(s, l.input) == want);
    Session now_scalar(l.model);
    CHECK(now_scalar.backend() == "scalar");
    CHECK(run_in(now_scalar, l.input) == want);
    for (const cvm::NodeKernelPlan& node : now_scalar.kernel_plan()) {
      for (const auto& chain : node.chains) CHECK(chain.entries.size() == 1);
    }
    CHECK(s.kernel_plan().size() == plan.size());
    for (size_t i = 0; i < plan.size(); ++i) {
      CHECK(s.kernel_plan()[i].chains[0].entries == plan[i].chains[0].entries);
    }
    cvm::set_backend("auto");
    Session other(l.model);
    CHECK(run_in(other, l.input) == want);
    CHECK(l.model->prepacked_bytes() == packed);  // reused, not remade
    {
      cvm::ScopedThreadBackend scoped("scalar");
      CHECK(run_in(s, l.input) == want);
    }
    const auto after = l.model->cost();
    CHECK(after.ops == cost.ops);
    CHECK(after.total == cost.total);
  }
}

TEST_CASE("prepacked weights: packed when a session is made, before the first run",
          "[graph][prepack]") {
  RestoreBackend restore;
  cvm::set_backend("auto");
  const char* env = std::getenv("CVMRT_PREPACK");
  const bool on = gemm_kernels_run() && (env == nullptr || std::string(env) != "0");
  for (const Loaded& l : models()) {
    INFO("model " << l.name);
    CHECK(l.model->prepacked_bytes() == 0);
    Session s(l.model);
    const uint64_t packed = l.model->prepacked_bytes();
    CHECK((packed > 0) == (on && expect_packs(l)));
    run_in(s, l.input);
    CHECK(l.model->prepacked_bytes() == packed);  // the run packed nothing more
  }
}

TEST_CASE("prepacked weights: concurrent first runs of one model pack once",
          "[graph][prepack][threads]") {
  RestoreBackend restore;
  for (const Loaded& l : models()) {
    INFO("model " << l.name);
    Session ref(l.model, cvm::SessionOptions{"scalar"});
    const auto want = run_in(ref, l.input);
    cvm::set_backend("auto");
    std::vector<std::vector<std::vector<int64_t>>> got(4);
    std::vector<std::thread> workers;
    for (size_t i = 0; i < got.size(); ++i) {
      workers.emplace_back([&, i] {
        Session s(l.model);
        got[i] = run_in(s, l.input);
      });
    }
    for (std::thread& w : workers) w.join();
    for (const auto& g : got) CHECK(g == want);
    // One more session adds nothing: every pack was made once, by one of the threads.
    const uint64_t packed = l.model->prepacked_bytes();
    Session again(l.model);
    CHECK(run_in(again, l.input) == want);
    CHECK(l.model->prepacked_bytes() == packed);
  }
}

#ifdef CVMRT_HAVE_BACKEND_PORTABLE
// Sessions on the portable backend pack their int8 conv2d/dense weights for its entries when
// made (natively it sits behind simd, so these sessions name it), give the reference's outputs
// at any thread count, and share the packs with later portable sessions of the model.
TEST_CASE("prepacked weights: portable sessions pack int8 weights, same outputs as the reference",
          "[graph][prepack][backend][portable]") {
  RestoreBackend restore;
  const char* env = std::getenv("CVMRT_PREPACK");
  const bool on = env == nullptr || std::string(env) != "0";
  for (const Loaded& l : models()) {
    INFO("model " << l.name);
    Session ref(l.model, cvm::SessionOptions{"scalar"});
    const auto want = run_in(ref, l.input);
    CHECK(l.model->prepacked_bytes() == 0);
    Session s(l.model, cvm::SessionOptions{"portable"});
    CHECK(s.backend() == "portable");
    const uint64_t packed = l.model->prepacked_bytes();
    CHECK((packed > 0) == (on && l.packs_portable));
    bool any_packed = false;
    for (const cvm::NodeKernelPlan& node : s.kernel_plan()) {
      for (const auto& chain : node.chains) {
        if (chain.packed_for.empty()) continue;
        any_packed = true;
        CHECK(chain.packed_for == chain.entries.front());
        CHECK(chain.packed_for.find("__portable") != std::string::npos);
      }
    }
    CHECK(any_packed == (packed > 0));
    for (int threads : {1, 3}) {
      cvm::set_num_threads(threads);
      CHECK(run_in(s, l.input) == want);
    }
    for (const cvm::NodeKernelPlan& node : s.kernel_plan()) {
      for (const auto& chain : node.chains) {
        if (!chain.packed_for.empty()) CHECK(chain.last_ran == chain.packed_for);
      }
    }
    Session again(l.model, cvm::SessionOptions{"portable"});
    CHECK(run_in(again, l.input) == want);
    CHECK(l.model->prepacked_bytes() == packed);  // reused, not remade
  }
}
#endif  // CVMRT_HAVE_BACKEND_PORTABLE
