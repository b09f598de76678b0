// cvmrt bench: latency percentiles of a model and its per-operator time profile.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "cvm/model.h"
#include "cvm/registry.h"
#include "cvm/system.h"
#include "cvm/threads.h"

namespace cvm {
namespace cli {
namespace {

using Clock = std::chrono::steady_clock;

// Benchmarks longer than this show a progress line on stderr.
constexpr double kProgressAfterSeconds = 2.0;

// Seeded values in the input's precision range, or in [-1, 1] for a float model's float32 input
// (a fixed LCG: the same input on every machine).
NDArray synthetic_input(const TensorInfo& in) {
  const bool float_input = in.dtype == DataType::Float(32);
  NDArray a = NDArray::empty(in.shape, float_input ? in.dtype : DataType::Int(32));
  const int64_t bound = float_input ? 1000 : (int64_t{1} << (in.precision - 1)) - 1;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int64_t i = 0; i < a.numel(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t v = static_cast<int64_t>((state >> 33) % (2 * bound + 1)) - bound;
    if (float_input) {
      a.mutable_data_as<float>()[i] = static_cast<float>(v) / 1000.0f;
    } else {
      a.mutable_data_as<int32_t>()[i] = static_cast<int32_t>(v);
    }
  }
  return a;
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size()));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

class Progress {
 public:
  explicit Progress(size_t total) : total_(total), start_(Clock::now()), last_(start_) {}
  void tick(size_t done, const char* phase) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (elapsed < kProgressAfterSeconds || (shown_ && since < (tty_ ? 0.25 : 2.0))) return;
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "%sbench: %s %zu/%zu, %.1f s%s", tty_ ? "\r" : "", phase, done, total_,
                 elapsed, tty_ ? "   " : "\n");
    std::fflush(stderr);
  }
  ~Progress() {
    if (shown_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  size_t total_;
  Clock::time_point start_, last_;
  bool shown_ = false;
  bool tty_ = isatty(2) != 0;
};

// Per-node and per-op times (microseconds, mean over the profiled runs).
struct Profile {
  size_t runs = 0;
  std::vector<OpProfile> nodes;
  std::vector<double> node_us;
  std::vector<std::pair<std::string, std::pair<double, int>>> ops;  // op -> (us, nodes), slowest
  double total_us = 0;
};

void finish_profile(Profile* p) {
  for (double& v : p->node_us) v /= static_cast<double>(p->runs);
  std::map<std::string, std::pair<double, int>> by_op;
  for (size_t k = 0; k < p->nodes.size(); ++k) {
    by_op[p->nodes[k].op].first += p->node_us[k];
    by_op[p->nodes[k].op].second += 1;
    p->total_us += p->node_us[k];
  }
  p->ops.assign(by_op.begin(), by_op.end());
  std::stable_sort(p->ops.begin(), p->ops.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
}

// The kernel entry that heads the chain of the session's first `op` node (the one that took
// its last call, once it ran); "none" when the model has no such node.
// The kernels that ran `op`'s nodes (before a run: that would run), most nodes first: "name"
// when one kernel ran them all, else "name x19, other x1".
std::string kernel_of(const Session& session, const std::string& op) {
  std::vector<std::pair<std::string, int>> counts;
  for (const NodeKernelPlan& node : session.kernel_plan()) {
    if (node.op != op || node.chains.empty() || node.chains[0].entries.empty()) continue;
    const NodeKernelPlan::Chain& c = node.chains[0];
    const std::string& name = c.last_ran.empty() ? c.entries[0] : c.last_ran;
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& k) { return k.first == name; });
    if (it == counts.end()) {
      counts.emplace_back(name, 1);
    } else {
      ++it->second;
    }
  }
  if (counts.empty()) return "none";
  if (counts.size() == 1) return counts[0].first;
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [name, n] : counts) {
    text += (text.empty() ? "" : ", ") + name + " x" + std::to_string(n);
  }
  return text;
}

// Whether the session has made its per-node thread choice (NodeKernelPlan::threads).
bool thread_choice_made(const Session& session) {
  const std::vector<NodeKernelPlan> plan = session.kernel_plan();
  return plan.empty() || plan.front().threads != 0;
}

// Each node's threads (NodeKernelPlan::threads).
std::vector<int> node_threads(const Session& session) {
  std::vector<int> t;
  for (const NodeKernelPlan& node : session.kernel_plan()) t.push_back(node.threads);
  return t;
}

// Nodes of the session that split their kernels over more than one thread.
size_t split_nodes(const Session& session) {
  size_t n = 0;
  for (const NodeKernelPlan& node : session.kernel_plan()) n += node.threads > 1 ? 1 : 0;
  return n;
}

double share(double us, double total) { return total > 0 ? 100.0 * us / total : 0.0; }

void print_profile_text(const Profile& p, int64_t top) {
  std::vector<size_t> order(p.nodes.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p.node_us[a] > p.node_us[b]; });
  std::printf("\nper-node profile (mean of %zu runs, slowest first):\n", p.runs);
  std::printf("  %-28s %-20s %12s %7s %14s\n", "node", "op", "us", "%", "output bytes");
  for (size_t i = 0; i < order.size() && (top == 0 || i < static_cast<size_t>(top)); ++i) {
    const size_t k = order[i];
    std::printf("  %-28s %-20s %12.2f %6.1f%% %14s\n", p.nodes[k].name.c_str(),
                p.nodes[k].op.c_str(), p.node_us[k], share(p.node_us[k], p.total_us),
                with_commas(p.nodes[k].output_bytes).c_str());
  }
  if (top != 0 && order.size() > static_cast<size_t>(top)) {
    std::printf("  ... %zu more (--top 0 shows all)\n", order.size() - static_cast<size_t>(top));
  }
  std::printf("\nper-op totals:\n  %-20s %5s %12s %7s\n", "op", "nodes", "us", "%");
  for (const auto& [op, v] : p.ops) {
    std::printf("  %-20s %5d %12.2f %6.1f%%\n", op.c_str(), v.second, v.first,
                share(v.first, p.total_us));
  }
}

int run_bench(const std::vector<std::string>& words) {
  Args args("bench", words,
            {{"params"},
             {"input", true, false, 'i'},
             {"warmup"},
             {"runs", true, false, 'n'},
             {"backend"},
             {"device"},
             {"top"},
             {"profile"},
             {"format", true, false, 'f'}},
            1, 1);
  const int64_t warmup = args.get_int("warmup", 3, 0, 1000000);
  const int64_t runs = args.get_int("runs", 20, 1, 1000000);
  const int64_t top = args.get_int("top", 20, 0, 1000000);
  const int64_t profile_runs = args.get_int("profile", std::min<int64_t>(runs, 20), 0, 1000000);
  const std::string format = args.get("format", "text");
  if (format != "text" && format != "json") {
    throw UsageError("--format must be text or json, found \"" + format + "\"");
  }
  select_backend(args.get("backend"));
  const SessionOptions options = session_options(args.get("device"), args.get("backend"));
  const std::string path = args.positional()[0];
  std::shared_ptr<const Model> model = load_model(path, args.get("params"));
  const TensorInfo& in = model->inputs().at(0);
  const NDArray input =
      args.has("input") ? read_model_input(*model, args.get("input")) : synthetic_input(in);

  Session session(model, options);
  // A float32 array for a quantized model is quantized by the session, as in cvmrt run.
  if (is_quantized(*model) && input.dtype() == DataType::Float(32)) {
    session.set_input_float(in.name, input);
  } else {
    session.set_input(in.name, input);
  }
  Progress progress(static_cast<size_t>(warmup + runs + profile_runs));
  size_t done = 0;
  for (int64_t i = 0; i < warmup; ++i) {
    session.run();
    progress.tick(++done, "warmup");
  }
  // With threads, the session's first runs measure which nodes to split over them
  // (SessionOptions::measure_threads; up to 100 runs, fewer for slower models): untimed as well.
  int64_t measuring = 0;
  while (!thread_choice_made(session) && measuring < 1000) {
    session.run();
    ++measuring;
  }
  const std::vector<int> chosen = node_threads(session);
  std::vector<double> ms;
  for (int64_t i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    session.run();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    progress.tick(++done, "run");
  }
  // The session watches its choice and measures it again when the runs' speed drifts (a
  // shared machine's load changed): such timed runs include measuring ones.
  const bool choice_changed = node_threads(session) != chosen;
  // The profile comes from separate runs: per-node timing is not free.
  Profile prof;
  prof.runs = static_cast<size_t>(profile_runs);
  session.enable_profiling(true);
  for (int64_t i = 0; i < profile_runs; ++i) {
    session.run();
    const std::vector<OpProfile>& p = session.profile();
    if (prof.nodes.empty()) {
      prof.nodes = p;
      prof.node_us.assign(p.size(), 0.0);
    }
    for (size_t k = 0; k < p.size() && k < prof.node_us.size(); ++k) {
      prof.node_us[k] += p[k].microseconds;
    }
    progress.tick(++done, "profile");
  }
  if (profile_runs > 0) finish_profile(&prof);

  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double v : ms) sum += v;
  const double mean = sum / static_cast<double>(ms.size());
  const ModelCost cost = model->cost();
  const std::string input_desc =
      args.has("input") ? args.get("input")
      : in.dtype == DataType::Float(32) ? "synthetic (seeded, float32 in [-1, 1])"
                                        : "synthetic (seeded, within the precision)";
  if (format == "json") {
    nlohmann::json doc;
    doc["model"] = path;
    doc["nodes"] = model->nodes().size();
    doc["backend"] = session.backend();
    doc["device"] = session.device().name();
    doc["threads"] = num_threads();
    doc["conv2d_kernel"] = kernel_of(session, "conv2d");
    doc["input"] = input_desc;
    doc["warmup"] = warmup;
    doc["measuring_runs"] = measuring;
    doc["split_nodes"] = split_nodes(session);
    doc["thread_choice_changed"] = choice_changed;
    doc["runs"] = runs;
    doc["latency_ms"] = {{"p50", percentile(sorted, 50)},
                         {"p90", percentile(sorted, 90)},
                         {"p99", percentile(sorted, 99)},
                         {"min", sorted.front()},
                         {"mean", mean},
                         {"max", sorted.back()}};
    doc["cost"] = {{"ops", cost.ops}, {"mem", cost.mem}, {"total", cost.total}};
    doc["profile_runs"] = profile_runs;
    doc["op_us"] = nlohmann::json::object();
    for (const auto& [op, v] : prof.ops) doc["op_us"][op] = {{"us", v.first}, {"nodes", v.second}};
    std::printf("%s\n", doc.dump().c_str());
    return 0;
  }
  std::printf("model:   %s (%zu nodes), backend %s on %s (conv2d: %s), %d threads\n",
              path.c_str(), model->nodes().size(), session.backend().c_str(),
              session.device().name().c_str(), kernel_of(session, "conv2d").c_str(),
              num_threads());
  std::printf("input:   %s\n", input_desc.c_str());
  std::printf("runs:    %lld (after %lld warmup, %lld measuring the thread choice)\n",
              static_cast<long long>(runs), static_cast<long long>(warmup),
              static_cast<long long>(measuring));
  if (num_threads() > 1 && session.device().is_cpu()) {
    std::printf("threads: %zu of %zu nodes split over %d threads, the rest measured faster on "
                "one\n",
                split_nodes(session), session.kernel_plan().size(), num_threads());
    if (choice_changed) {
      std::printf("         (measured again during the timed runs, whose speed had drifted: "
                  "they include measuring runs)\n");
    }
  }
  std::printf("latency: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms (min %.3f, mean %.3f, max %.3f)\n",
              percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99),
              sorted.front(), mean, sorted.back());
  std::printf("cost:    %s\n", cost_str(cost).c_str());
  if (profile_runs > 0) print_profile_text(prof, top);
  return 0;
}

}  // namespace

const Command kBenchCommand = {
    "bench", "latency percentiles and a per-operator profile of a model",
    "usage: cvmrt bench MODEL [--params P] [--input data=FILE] [--warmup N] [--runs N]\n"
    "                   [--backend B | --device D] [--top N] [--profile N]\n"
    "                   [--format text|json]\n"
    "\n"
    "Runs MODEL --warmup times (default 3), then --runs times (default 20) and prints the\n"
    "latency percentiles p50/p90/p99 (nearest rank) with min/mean/max, then runs it --profile\n"
    "more times with per-node timing and prints the nodes sorted by time and the totals per\n"
    "operator. A progress line goes to stderr once the benchmark has taken more than 2 s.\n"
    "Threads: CVMRT_THREADS (default: the hardware concurrency); with more than one, the\n"
    "session's first runs measure which nodes to split over them, before the timed runs\n"
    "(and again when their speed drifts; the output says when that changed the choice).\n"
    "\n"
    "  --params P       the params of a CVM graph JSON\n"
    "  -i, --input data=FILE   as for cvmrt run, a float32 .npy quantized for a quantized model\n"
    "                   (default: seeded values within the input's precision; float models:\n"
    "                   seeded float32 in [-1, 1])\n"
    "  --warmup N       untimed runs first (default 3)\n"
    "  -n, --runs N     timed runs (default 20, at least 1)\n"
    "  --backend B      kernels to use: auto, scalar, simd, ... (see cvmrt info)\n"
    "  --device D       cpu (default), cuda or cuda:N: run on that GPU with the CUDA kernels\n"
    "  --top N          nodes shown in the profile (default 20, 0 = all)\n"
    "  --profile N      profiled runs (default: --runs, at most 20; 0 = no profile)\n"
    "  -f, --format F   text (default) or json: one line with the latencies (ms), the cost,\n"
    "                   the backend, the thread count and the per-op totals (us)\n",
    run_bench};

}  // namespace cli
}  // namespace cvm
