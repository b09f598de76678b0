// The measured thread choice (graph/thread_choice.h): its decisions from given times, the
// SerialScope it runs nodes under, and sessions that measure it: the same bits in every run,
// NodeKernelPlan::threads, measured again when the thread count changes. No std::thread of its
// own: it runs in the wasm builds too (whose pool runs every region on the caller).
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "cvm/model_builder.h"
#include "cvm/threads.h"
#include "graph/thread_choice.h"
#include "test_util.h"
#include "thread_pool.h"

using cvm::DataType;
using cvm::Model;
using cvm::ModelBuilder;
using cvm::NDArray;
using cvm::Session;
using cvm::SessionOptions;
using cvm::graph::ThreadChoice;
namespace threads = cvm::threads;

namespace {

// Node 0 split 4 vs serial 10: clearly split (run split in the later serial runs too); node 1
// 6 vs 5: serial; node 2 8 vs 10: split in the mixed way (by the margin) but serial in the
// serial way; node 3 9.5 vs 10: within the margin, serial. Microseconds, times a scale; each
// trial's node times a little worse than the first, so that only the best counts. kNoneClear:
// the same with node 0 at 6 vs 10, split in the mixed way only.
struct NodeTimes {
  double serial, split;
};
using Nodes = NodeTimes[4];
const Nodes kNodes = {{10, 4}, {5, 6}, {10, 8}, {10, 9.5}};
const Nodes kNoneClear = {{10, 6}, {5, 6}, {10, 8}, {10, 9.5}};
constexpr size_t kSteps = 4;

std::vector<bool> serial_nodes(const ThreadChoice& c) {
  std::vector<bool> s;
  for (size_t i = 0; i < kSteps; ++i) s.push_back(c.serial(i));
  return s;
}

// The whole runs of each way, microseconds times a scale: the serial runs take `serial` each;
// the first split and the first mixed run are lucky ones at half their way's typical time (the
// second core free for once), which a best-of comparison would take for the way's speed. The
// solo runs (every node serial, measured where a node is clearly split) take `solo`.
struct RunTimes {
  double serial, split, mixed, solo = 100;
};
double run_time(double typical, int trial, bool splits) {
  return splits && trial == 0 ? typical / 2 : typical;
}

// The pairs of serial and split runs the choice should take at `scale`: at least kMinTrials,
// then until they took kPairedMicros, at most kMaxTrials.
int pairs_expected(const RunTimes& runs, double scale) {
  double took = 0;
  for (int pair = 1;; ++pair) {
    took += (runs.serial + run_time(runs.split, pair - 1, true)) * scale;
    if (pair >= ThreadChoice::kMaxTrials) return pair;
    if (pair >= ThreadChoice::kMinTrials && took >= ThreadChoice::kPairedMicros) return pair;
  }
}

// Runs the measuring runs of `c`, from its warm-up run on, with these node and run times
// (times `scale`). Returns the trials each way had.
int measure_from_warm_up(ThreadChoice* c, const RunTimes& runs, double scale = 1,
                         const Nodes& nodes = kNodes) {
  REQUIRE_FALSE(c->decided());
  REQUIRE_FALSE(c->measuring());  // run 0 warms up, split as without a choice
  REQUIRE(serial_nodes(*c) == std::vector<bool>(kSteps, false));
  c->end_run(1000);
  const bool clear = nodes[0].split < ThreadChoice::kClearly * nodes[0].serial;
  int run = 1;
  for (; c->trials() == 0; ++run) {
    INFO("run " << run);
    REQUIRE(run <= 2 * ThreadChoice::kMaxTrials);
    REQUIRE(c->measuring());
    const bool serial = run % 2 == 1;
    const int trial = (run - 1) / 2;
    for (size_t i = 0; i < kSteps; ++i) {
      REQUIRE(c->serial(i) == (serial && !(clear && i == 0 && run > 2)));
      const double t = c->serial(i) ? nodes[i].serial : nodes[i].split;
      c->record(i, t * (1 + 0.1 * trial) * scale);
    }
    c->end_run(run_time(serial ? runs.serial : runs.split, trial, !serial) * scale);
  }
  const int trials = c->trials();
  REQUIRE(run - 1 == 2 * trials);
  REQUIRE(trials == pairs_expected(runs, scale));
  // The mixed runs (nodes 0 and 2 split), each followed by a solo run where node 0 was clearly
  // split; their node times change nothing.
  for (int mixed = 0; mixed < trials; ++mixed) {
    for (bool solo : {false, true}) {
      if (solo && !clear) continue;
      INFO("mixed run " << mixed << (solo ? ", solo" : ""));
      REQUIRE(c->measuring());
      REQUIRE_FALSE(c->decided());
      REQUIRE(serial_nodes(*c) ==
              (solo ? std::vector<bool>(kSteps, true) : std::vector<bool>{false, true, false, true}));
      for (size_t i = 0; i < kSteps; ++i) c->record(i, 0.001);
      c->end_run((solo ? runs.solo : run_time(runs.mixed, mixed, true)) * scale);
    }
  }
  REQUIRE(c->decided());
  REQUIRE_FALSE(c->measuring());
  REQUIRE(c->trials() == trials);
  return trials;
}

// measure_from_warm_up for `c` reset for `nodes`.
int measure(ThreadChoice* c, const RunTimes& runs, double scale = 1,
            const Nodes& nodes = kNodes) {
  c->reset(kSteps, 2, true);
  return measure_from_warm_up(c, runs, scale, nodes);
}

// `count` watched runs of `micros` each; whether the last of them started measuring again.
bool watch_runs(ThreadChoice* c, int count, double micros) {
  const int before = c->remeasures();
  for (int i = 0; i < count; ++i) {
    REQUIRE(c->decided());
    REQUIRE(c->wants_time(false));
    REQUIRE_FALSE(c->wants_time(true));  // a profiled run is not watched
    c->end_run(micros);
  }
  return c->remeasures() > before;
}

const std::vector<bool> kMixedWay{false, true, false, true};
const std::vector<bool> kSplitWay(kSteps, false);
const std::vector<bool> kSerialWay{false, true, true, true};  // node 0 clearly split
const std::vector<bool> kSoloWay(kSteps, true);

// Restores the default thread count and task size when a test ends.
struct Restore {
  int64_t min_work = threads::min_task_work();
  ~Restore() {
    cvm::set_num_threads(0);
    threads::set_min_task_work(min_work);
  }
};

// x (1 x 8 x 20 x 20, precision 8) -> conv2d 3x3 (16 channels) -> cvm_right_shift -> relu ->
// max_pool2d: kernels of several families, each of which splits its work when allowed.
std::shared_ptr<const Model> small_cnn() {
  ModelBuilder b;
  const auto x = b.input({1, 8, 20, 20}, DataType::Int(32), 8);
  const auto w =
      b.constant("w", cvm::test::random_in({16, 8, 3, 3}, -127, 127, 7), 8);
  auto y = b.add1("conv2d", "conv", {x, w},
                  {{"channels", "16"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"},
                   {"use_bias", "false"}});
  y = b.add1("cvm_right_shift", "shift", {y}, {{"shift_bit", "6"}, {"precision", "8"}});
  y = b.add1("relu", "relu", {y}, {});
  y = b.add1("max_pool2d", "pool", {y}, {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}});
  b.set_outputs({y});
  return b.build();
}

bool same_bits(const NDArray& a, const NDArray& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

std::vector<int> plan_threads(const Session& s) {
  std::vector<int> t;
  for (const cvm::NodeKernelPlan& n : s.kernel_plan()) t.push_back(n.threads);
  return t;
}

}  // namespace

TEST_CASE("thread choice: per-node times pick the mixed way, whole runs pick the way",
          "[graph]") {
  ThreadChoice c;
  REQUIRE(c.threads() == 0);
  SECTION("the mixed runs are fastest: nodes split where split beat serial by the margin") {
    measure(&c, {35, 30, 20});
    REQUIRE(serial_nodes(c) == kMixedWay);
  }
  SECTION("all split was fastest") {
    measure(&c, {35, 25, 28});
    REQUIRE(serial_nodes(c) == kSplitWay);
  }
  SECTION("the serial way was fastest: serial but for the node that was clearly split") {
    measure(&c, {35, 40, 38});
    REQUIRE(serial_nodes(c) == kSerialWay);
  }
  SECTION("a way that splits must beat the serial way's median by the margin") {
    measure(&c, {35, 33, 32}, 1, kNoneClear);  // 32 > 0.9 * 35
    REQUIRE(serial_nodes(c) == kSoloWay);
    measure(&c, {35, 33, 31}, 1, kNoneClear);
    REQUIRE(serial_nodes(c) == kMixedWay);
  }
  SECTION("medians decide, not the luckiest run") {
    // Split's and mixed's lucky runs (18, 19) are far below serial's 35; their medians (36,
    // 38) are not: serial.
    measure(&c, {35, 36, 38});
    REQUIRE(serial_nodes(c) == kSerialWay);
  }
  SECTION("short runs get more trials, up to kMaxTrials; long ones kMinTrials") {
    // Pairs of 65 us (the first 50): 25 take 1.6 ms. Of 65 ms: the third ends the pairs. Of
    // 2.6 ms (the first 2): 20 ms after 8.
    REQUIRE(measure(&c, {35, 30, 20}) == ThreadChoice::kMaxTrials);
    REQUIRE(measure(&c, {35, 30, 20}, 1000) == ThreadChoice::kMinTrials);
    REQUIRE(measure(&c, {35, 30, 20}, 40) == 8);
    REQUIRE(serial_nodes(c) == kMixedWay);
  }
  SECTION("solo runs where a node is clearly split: kept unless a way that splits beat them") {
    measure(&c, {35, 40, 38, 34});  // serial's 35 is within the margin of solo's 34
    REQUIRE(serial_nodes(c) == kSoloWay);
    measure(&c, {30, 40, 38, 34});  // 30 < 0.9 * 34: serial, node 0 split
    REQUIRE(serial_nodes(c) == kSerialWay);
    measure(&c, {35, 40, 30, 34});  // mixed by the margin
    REQUIRE(serial_nodes(c) == kMixedWay);
  }
  SECTION("no node clearly split: no solo runs, the serial way splits nothing") {
    measure(&c, {35, 40, 38}, 1, kNoneClear);
    REQUIRE(serial_nodes(c) == kSoloWay);
  }
  SECTION("one thread, or measuring off: decided at once, every node takes the pool") {
    for (bool measure_on : {true, false}) {
      c.reset(kSteps, measure_on ? 1 : 4, measure_on);
      REQUIRE(c.threads() == (measure_on ? 1 : 4));
      REQUIRE(c.decided());
      REQUIRE_FALSE(c.measuring());
      c.record(0, 1);
      c.end_run(1);
      REQUIRE(serial_nodes(c) == std::vector<bool>(kSteps, false));
    }
  }
  SECTION("a reset forgets the last choice") {
    measure(&c, {35, 30, 20});
    c.reset(kSteps, 3, true);
    REQUIRE(c.threads() == 3);
    REQUIRE_FALSE(c.decided());
    REQUIRE(serial_nodes(c) == std::vector<bool>(kSteps, false));
  }
}

TEST_CASE("thread choice: the decided way is watched, and measured again when it drifts",
          "[graph]") {
  constexpr int kW = ThreadChoice::kWatchRuns;
  ThreadChoice c;
  measure(&c, {35, 30, 20});
  REQUIRE(serial_nodes(c) == kMixedWay);
  SECTION("the first window gives the steady median; within kDrift of it nothing happens") {
    REQUIRE_FALSE(watch_runs(&c, kW, 1000));
    REQUIRE_FALSE(watch_runs(&c, kW, 1240));
    REQUIRE_FALSE(watch_runs(&c, kW, 810));
    for (int i = 0; i < 3 * kW; ++i) c.end_run(-1);  // untimed runs count for nothing
    REQUIRE_FALSE(watch_runs(&c, kW - 1, 5000));
    REQUIRE(watch_runs(&c, 1, 5000));  // the window's median: 1.25x slower and more
    REQUIRE(c.remeasures() == 1);
    REQUIRE_FALSE(c.decided());
    REQUIRE_FALSE(c.wants_time(false));  // the warm-up run
    REQUIRE(serial_nodes(c) == kSplitWay);
  }
  SECTION("faster by kDrift measures again too, and a window takes kPairedMicros") {
    REQUIRE_FALSE(watch_runs(&c, kW, 1000));
    REQUIRE(watch_runs(&c, kW, 790));
    measure_from_warm_up(&c, {35, 30, 20});
    // 100 us runs: a window is 200 runs (20 ms); 50 us runs: 400.
    REQUIRE_FALSE(watch_runs(&c, 400, 100));
    REQUIRE_FALSE(watch_runs(&c, 399, 50));
    REQUIRE(watch_runs(&c, 1, 50));
  }
  SECTION("a measurement that keeps the way doubles the window; a new way starts it over") {
    REQUIRE_FALSE(watch_runs(&c, kW, 1000));
    REQUIRE(watch_runs(&c, kW, 2000));
    measure_from_warm_up(&c, {35, 30, 20});  // mixed again: windows of 2 kW
    REQUIRE(c.remeasures() == 1);
    REQUIRE_FALSE(watch_runs(&c, 2 * kW, 2000));
    REQUIRE_FALSE(watch_runs(&c, 2 * kW - 1, 1000));
    REQUIRE(watch_runs(&c, 1, 1000));
    measure_from_warm_up(&c, {35, 25, 28});  // split now: windows of kW again
    REQUIRE(serial_nodes(c) == kSplitWay);
    REQUIRE_FALSE(watch_runs(&c, kW, 1000));
    REQUIRE(watch_runs(&c, kW, 2000));
    REQUIRE(c.remeasures() == 3);
  }
  SECTION("not measuring, nothing is watched; a reset forgets the measurements again") {
    c.reset(kSteps, 2, false);
    REQUIRE(c.decided());
    REQUIRE_FALSE(c.wants_time(false));
    for (int i = 0; i < 4 * kW; ++i) c.end_run(i % 2 ? 1000 : 5000);
    REQUIRE(c.remeasures() == 0);
    measure(&c, {35, 30, 20});
    REQUIRE(c.remeasures() == 0);
  }
}

TEST_CASE("SerialScope: kernels on its thread get no ParallelFor, nested, then the pool's again",
          "[graph]") {
  Restore restore;
  cvm::set_num_threads(3);
  REQUIRE(threads::kernel_parallel_for().num_threads == 3);
  {
    threads::SerialScope outer;
    REQUIRE(threads::kernel_parallel_for().num_threads == 1);
    {
      threads::SerialScope inner;
      REQUIRE(threads::kernel_parallel_for().num_threads == 1);
    }
    REQUIRE(threads::kernel_parallel_for().num_threads == 1);
  }
  REQUIRE(threads::kernel_parallel_for().num_threads == 3);
}

TEST_CASE("sessions measuring their thread choice: the same bits in every run, the plan's "
          "threads, measured again for a new count",
          "[graph]") {
  Restore restore;
  threads::set_min_task_work(1);  // every kernel call that may split does
  const std::shared_ptr<const Model> model = small_cnn();
  const NDArray x = cvm::test::random_in({1, 8, 20, 20}, -127, 127, 5);
  cvm::set_num_threads(1);
  Session one(model);
  one.set_input("data", x);
  one.run();
  const NDArray want = one.output(0);
  REQUIRE(plan_threads(one) == std::vector<int>(4, 1));

  for (bool measure_on : {true, false}) {
    INFO("measure_threads " << measure_on);
    cvm::set_num_threads(2);
    SessionOptions options;
    options.measure_threads = measure_on;
    Session s(model, options);
    s.set_input("data", x);
    REQUIRE(plan_threads(s) == std::vector<int>(4, 0));  // not run yet
    // Measuring: a warm-up run, 3 to 25 pairs of runs and as many mixed ones (as many as
    // take 20 ms: a sanitizer's or a loaded machine's runs are slower), maybe as many solo.
    int decided_at = measure_on ? -1 : 0;
    for (int run = 0; run <= decided_at + 2 || decided_at < 0; ++run) {
      REQUIRE(run <= 1 + 4 * ThreadChoice::kMaxTrials + 2);
      if (run == 1) cvm::set_num_threads(3);  // a new count: measured from here again
      s.run();
      INFO("run " << run);
      REQUIRE(same_bits(s.output(0), want));
      const bool decided = plan_threads(s).front() != 0;
      if (decided && decided_at < 0) {
        decided_at = run;
        // Run 1 warmed up for 3 threads, runs 2 .. decided_at measured: pairs and mixed runs,
        // and as many solo runs where a node was clearly split.
        const int measured = decided_at - 1;
        REQUIRE(((measured % 3 == 0 && measured / 3 >= ThreadChoice::kMinTrials) ||
                 (measured % 4 == 0 && measured / 4 >= ThreadChoice::kMinTrials)));
      }
      REQUIRE(decided == (decided_at >= 0 && run >= decided_at));
      for (int t : plan_threads(s)) {
        if (decided) {
          REQUIRE((t == 1 || t == 3 || (run == 0 && t == 2)));
          if (!measure_on) REQUIRE(t == (run == 0 ? 2 : 3));
        } else {
          REQUIRE(t == 0);
        }
      }
    }
  }
}
