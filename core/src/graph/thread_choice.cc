// ThreadChoice: the measuring runs' bookkeeping and the choice.
#include "thread_choice.h"

#include <limits>

namespace cvm {
namespace graph {

namespace {
constexpr double kNone = std::numeric_limits<double>::infinity();
}  // namespace

void ThreadChoice::reset(size_t steps, int threads, bool measure) {
  threads_ = threads;
  run_ = threads >= 2 && measure ? 0 : kMeasuringRuns + 1;
  best_serial_.assign(steps, kNone);
  best_split_.assign(steps, kNone);
  for (double& t : best_run_) t = kNone;
  mixed_.assign(steps, false);
  always_split_.assign(steps, false);
  chosen_ = kSplit;
}

ThreadChoice::Way ThreadChoice::way() const {
  if (decided()) return chosen_;
  if (run_ > 2 * kTrials) return kMixed;
  return run_ % 2 == 1 ? kSerial : kSplit;  // run 0, the warm-up, splits as before
}

bool ThreadChoice::serial(size_t step) const {
  switch (way()) {
    case kSerial:
      return !(step < always_split_.size() && always_split_[step]);
    case kSplit:
      return false;
    case kMixed:
      break;
  }
  return step < mixed_.size() && mixed_[step];
}

void ThreadChoice::record(size_t step, double micros) {
  if (!measuring() || run_ > 2 * kTrials || step >= best_serial_.size()) return;
  double& best = serial(step) ? best_serial_[step] : best_split_[step];
  if (micros < best) best = micros;
}

void ThreadChoice::end_run(double micros) {
  if (decided()) return;
  if (measuring() && micros < best_run_[way()]) best_run_[way()] = micros;
  ++run_;
  if (run_ == 3) {  // after the first serial and split runs
    for (size_t i = 0; i < always_split_.size(); ++i) {
      always_split_[i] = best_split_[i] < kClearly * best_serial_[i];
    }
  }
  if (run_ == 2 * kTrials + 1) {
    for (size_t i = 0; i < mixed_.size(); ++i) {
      mixed_[i] = !(best_split_[i] < kMargin * best_serial_[i]);
    }
  }
  if (!decided()) return;
  chosen_ = kSplit;
  for (Way w : {kSerial, kMixed}) {
    if (best_run_[w] < best_run_[chosen_]) chosen_ = w;
  }
}

}  // namespace graph
}  // namespace cvm
