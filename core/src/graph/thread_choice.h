// Measured thread choice: which of a session's nodes run faster on the pool's threads, and
// which on the calling thread alone, from the session's own first runs.
#pragma once

#include <cstddef>
#include <vector>

namespace cvm {
namespace graph {

// Splitting a kernel call over threads pays for itself only when the call is large enough:
// each part costs a hand-over to a worker, and the next node reads data that now lies in the
// caches of two cores. What that costs is a property of the machine, not of the model: on a
// virtual machine whose two vCPUs sit far apart, the small convolutions of BlazeFace ran
// 1.3-3x slower split over 2 threads, while ResNet-18's large ones ran 1.5x faster. A session
// therefore measures. After one warm-up run, its runs alternate between every node on the
// calling thread ("serial") and every node split over the pool ("split"), timing each node and
// each run, for at least kMinTrials pairs and until the pairs took kPairedMicros together (or
// kMaxTrials pairs): a short model's best run of three is at the mercy of one busy moment of
// the machine, so it gets more trials, each as cheap as a run. A node is "mixed"-split if its
// best split time beat its best serial time by kMargin. As many runs of that mixed choice
// follow. Then whole runs decide (a node's time in the mixed runs is not the time it had among
// neighbours that all ran one way), by each way's median run: a split run waits for a second
// core, which a shared machine takes away now and then (BlazeFace's 0.41 ms runs at 2 threads
// on a 2-vCPU VM took 0.45-0.82 ms in some minutes with a handful of nodes split), so a way's
// luckiest run says little. The serial way is kept unless a way that splits beat its median by
// kMargin too; of those, the faster. A node that ran split in under kClearly of its serial time
// in the first pair runs split in the later "serial" runs too (and in the serial way): with
// many cores, a large model's serial runs would otherwise cost many times its split ones.
// Where such a node exists, the mixed runs alternate with as many "solo" runs, every node on
// the calling thread and no worker woken: then the way that splits nothing is solo, and the
// serial way counts as one that splits (on a 2-vCPU VM one noisy first pair marked a few of
// BlazeFace's nodes, and their splits cost its 2-thread runs 15 % over its 1-thread ones).
// Results are the same bits every way (kernels never split inside a reduction).
//
// A shared machine changes under a long-lived session: the minute it measured in may have had
// the second core busy, or free. So the decided way's runs are watched: the first kWatchRuns
// (and at least kPairedMicros) after the choice give its steady median, each later window of as
// many is compared with it, and a median kDrift times slower or faster measures again from the
// warm-up on. A measurement that keeps the way doubles the window (to kMaxWatchRuns), so a
// machine that keeps changing costs a measurement per ever longer stretch of runs.
class ThreadChoice {
 public:
  static constexpr int kMinTrials = 3;
  static constexpr int kMaxTrials = 25;
  static constexpr double kPairedMicros = 20000;
  static constexpr double kMargin = 0.9;
  static constexpr double kClearly = 0.5;
  static constexpr int kWatchRuns = 32;
  static constexpr int kMaxWatchRuns = 2048;
  static constexpr double kDrift = 1.25;

  // Starts over for `steps` nodes run with `threads` threads (the pool's count): measuring when
  // threads >= 2 and `measure`, else every node takes the pool as it is (split).
  void reset(size_t steps, int threads, bool measure);

  // The thread count the choice was made for (0 before the first reset).
  int threads() const { return threads_; }
  // Whether this run times its nodes and itself for the choice.
  bool measuring() const { return phase_ == Phase::kPairs || phase_ == Phase::kMixed; }
  // Whether the choice is made (measuring done, or nothing to measure).
  bool decided() const { return phase_ == Phase::kDecided; }
  // Whether end_run wants this run's time: a measuring run, or a run of the measured choice
  // watched for drift (not a profiled one: its per-node clocks slow it).
  bool wants_time(bool profiling) const {
    return measuring() || (measure_ && decided() && !profiling);
  }
  // How often the choice was measured again since the reset (drift).
  int remeasures() const { return remeasures_; }
  // The runs each way had (kMinTrials .. kMaxTrials), once the serial and split runs ended.
  int trials() const { return trials_; }
  // Whether node `step` runs on the calling thread alone in this run.
  bool serial(size_t step) const;
  // Node `step` took `micros` in this run (kept in the serial and split runs).
  void record(size_t step, double micros);
  // A run that took `micros` ended (negative: not timed, wants_time was false): the next one
  // measures another way, or the choice is made, or the watch may start measuring again.
  void end_run(double micros);

 private:
  enum Way { kSerial, kSplit, kMixed, kSolo };
  enum class Phase { kWarmUp, kPairs, kMixed, kDecided };
  // How this run runs its nodes.
  Way way() const;
  // end_run for a serial or split run: the mixed choice once the pairs are enough.
  void end_pair_run();
  // Keeps the way that splits nothing (solo where measured, else serial), or the way that
  // splits with the fastest median run if that beat the other's by kMargin.
  void decide();
  // Back to the warm-up run with nothing measured or watched (the window's length and the
  // count of measurements stay).
  void restart(size_t steps);
  // end_run for a watched run of the decided way.
  void watch(double micros);

  int threads_ = 0;
  Phase phase_ = Phase::kWarmUp;  // before the first reset: neither measuring nor decided
  int run_ = 0;  // runs since the reset: 0 warms up, then 2 * trials_ pairs, trials_ mixed
                 // (alternating with trials_ solo ones where solo_)
  int trials_ = 0;     // pairs run (and mixed runs to run), once the pairs ended
  bool solo_ = false;  // whether solo runs are measured: some node is always split
  std::vector<double> best_serial_, best_split_;  // per node
  std::vector<double> runs_[4];                   // per Way: the measured runs' times
  std::vector<bool> mixed_;                       // the mixed choice: serial, per node
  std::vector<bool> always_split_;                // split in serial runs from run 3 on
  Way chosen_ = kSplit;
  // The watch: whether the choice is measured at all, the runs per window, the steady median
  // (0 until the first window after a decision), the window's run times and their sum, the
  // way the last measurement chose (for the doubling) and the measurements again.
  bool measure_ = false;
  int watch_runs_ = kWatchRuns;
  double steady_ = 0;
  std::vector<double> watched_;
  double watched_micros_ = 0;
  Way previous_ = kSplit;
  int remeasures_ = 0;
};

}  // namespace graph
}  // namespace cvm
