// ThreadChoice: the measuring runs' bookkeeping and the choice.
#include "thread_choice.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace cvm {
namespace graph {

namespace {
constexpr double kNone = std::numeric_limits<double>::infinity();
}  // namespace

void ThreadChoice::reset(size_t steps, int threads, bool measure) {
  threads_ = threads;
  measure_ = threads >= 2 && measure;
  watch_runs_ = kWatchRuns;
  remeasures_ = 0;
  restart(steps);
  if (!measure_) phase_ = Phase::kDecided;
}

void ThreadChoice::restart(size_t steps) {
  phase_ = Phase::kWarmUp;
  steady_ = 0;
  watched_.clear();
  watched_micros_ = 0;
  run_ = 0;
  trials_ = 0;
  solo_ = false;
  best_serial_.assign(steps, kNone);
  best_split_.assign(steps, kNone);
  for (std::vector<double>& r : runs_) r.clear();
  mixed_.assign(steps, false);
  always_split_.assign(steps, false);
  chosen_ = kSplit;
}

ThreadChoice::Way ThreadChoice::way() const {
  switch (phase_) {
    case Phase::kWarmUp:
      return kSplit;  // as without a choice
    case Phase::kPairs:
      return run_ % 2 == 1 ? kSerial : kSplit;
    case Phase::kMixed:  // from run 1 + 2 trials_ on: mixed first
      return solo_ && run_ % 2 == 0 ? kSolo : kMixed;
    case Phase::kDecided:
      break;
  }
  return chosen_;
}

bool ThreadChoice::serial(size_t step) const {
  switch (way()) {
    case kSerial:
      return !(step < always_split_.size() && always_split_[step]);
    case kSplit:
      return false;
    case kSolo:
      return true;
    case kMixed:
      break;
  }
  return step < mixed_.size() && mixed_[step];
}

void ThreadChoice::record(size_t step, double micros) {
  if (phase_ != Phase::kPairs || step >= best_serial_.size()) return;
  double& best = serial(step) ? best_serial_[step] : best_split_[step];
  if (micros < best) best = micros;
}

void ThreadChoice::end_run(double micros) {
  if (decided()) {
    if (measure_ && micros >= 0) watch(micros);
    return;
  }
  if (measuring()) runs_[way()].push_back(micros);
  ++run_;
  switch (phase_) {
    case Phase::kWarmUp:
      phase_ = Phase::kPairs;
      return;
    case Phase::kPairs:
      end_pair_run();
      return;
    case Phase::kMixed:
      if (run_ == 1 + (solo_ ? 4 : 3) * trials_) decide();
      return;
    case Phase::kDecided:
      return;
  }
}

void ThreadChoice::end_pair_run() {
  if (run_ == 3) {  // after the first serial and split runs
    for (size_t i = 0; i < always_split_.size(); ++i) {
      always_split_[i] = best_split_[i] < kClearly * best_serial_[i];
      solo_ = solo_ || always_split_[i];
    }
  }
  if (run_ % 2 == 0) return;  // a serial run waits for its split one
  const int pairs = (run_ - 1) / 2;
  const double paired = std::accumulate(runs_[kSerial].begin(), runs_[kSerial].end(), 0.0) +
                        std::accumulate(runs_[kSplit].begin(), runs_[kSplit].end(), 0.0);
  const bool enough = paired >= kPairedMicros || pairs >= kMaxTrials;
  if (pairs < kMinTrials || !enough) return;
  trials_ = pairs;
  for (size_t i = 0; i < mixed_.size(); ++i) {
    mixed_[i] = !(best_split_[i] < kMargin * best_serial_[i]);
  }
  phase_ = Phase::kMixed;
}

void ThreadChoice::decide() {
  phase_ = Phase::kDecided;
  double median[4];
  for (Way w : {kSerial, kSplit, kMixed, kSolo}) {
    std::vector<double>& r = runs_[w];
    std::nth_element(r.begin(), r.begin() + r.size() / 2, r.end());
    median[w] = r.empty() ? kNone : r[r.size() / 2];
  }
  const Way none_split = solo_ ? kSolo : kSerial;
  chosen_ = none_split;
  for (Way w : {kSerial, kSplit, kMixed}) {
    if (median[w] < kMargin * median[none_split] && median[w] < median[chosen_]) chosen_ = w;
  }
  if (remeasures_ > 0) {
    watch_runs_ = chosen_ == previous_ ? std::min(2 * watch_runs_, kMaxWatchRuns) : kWatchRuns;
  }
}

void ThreadChoice::watch(double micros) {
  watched_.push_back(micros);
  watched_micros_ += micros;
  if (static_cast<int>(watched_.size()) < watch_runs_ || watched_micros_ < kPairedMicros) return;
  std::nth_element(watched_.begin(), watched_.begin() + watched_.size() / 2, watched_.end());
  const double median = watched_[watched_.size() / 2];
  watched_.clear();
  watched_micros_ = 0;
  if (steady_ == 0) {  // the first window after a decision
    steady_ = median;
    return;
  }
  if (median <= kDrift * steady_ && median * kDrift >= steady_) return;
  ++remeasures_;
  previous_ = chosen_;
  restart(mixed_.size());
}

}  // namespace graph
}  // namespace cvm
