// Native per-operator latency for bench/workloads/ops.json (the wasm bench runs the same file).
//
//   op_latency_bench WORKLOADS.json [--quick] [--filter SUBSTRING]
//
// Each workload runs through the public operator API (cvm::run_op) on backend "scalar" and on
// the best compiled backend, with one thread. One JSON line per (workload, backend):
//   {"name", "op", "backend", "kernel", "ms_median", "cpu_ms_median", "iters", "checksum"}
// where "kernel" names the table entries that took the calls (what__how, from the tables).
// with the median wall and thread CPU time of one call (CPU time is the steadier figure on a
// loaded machine, where a long call loses time slices to other processes), and checksum the
// FNV-1a 64 of the output bytes in hex. bench/wasm_bench.mjs prints the same checksum and
// bench/run_wasm_bench.sh fails when any two differ. Exit status 1 when the native backends
// disagree.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "attrs_json.h"
#include "op_def.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/registry.h"
#include "cvm/threads.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The generator of ops.json "_generator": an LCG step per element, then lo + (s mod span).
cvm::NDArray make_input(const json& spec) {
  std::vector<int64_t> dims = spec.at("shape").get<std::vector<int64_t>>();
  int64_t lo = spec.at("range").at(0).get<int64_t>();
  int64_t hi = spec.at("range").at(1).get<int64_t>();
  uint32_t s = spec.at("seed").get<uint32_t>();
  uint64_t span = static_cast<uint64_t>(hi - lo + 1);
  cvm::NDArray a = cvm::NDArray::empty(cvm::Shape(dims), cvm::DataType::Int(32));
  int32_t* p = a.mutable_data_as<int32_t>();
  const int64_t n = a.numel();
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<int32_t>(lo + static_cast<int64_t>(s % span));
  }
  return a;
}

// FNV-1a 64 over the bytes of every output, in order, as 16 hex digits.
std::string checksum(const std::vector<cvm::NDArray>& outs) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const cvm::NDArray& o : outs) {
    cvm::NDArray c = o.contiguous();
    const auto* b = static_cast<const unsigned char*>(c.data());
    for (size_t i = 0; i < c.nbytes(); ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(h));
  return text;
}

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// The median, rounded to nanoseconds for the JSON text.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return std::round(v[v.size() / 2] * 1e6) / 1e6;
}

struct Timing {
  double ms_median;
  double cpu_ms_median;
  int iters;
};

// Median wall and thread CPU time of one run_op call (one thread: the kernels run on this
// one): warm-up of at least 2 runs and min_ms / 4, then at least 5 runs and at least min_ms of
// them (at most 1000).
Timing time_op(const std::string& op, const std::vector<cvm::NDArray>& in,
               const cvm::AttrMap& attrs, double min_ms) {
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const Clock::time_point warm = Clock::now();
  for (int i = 0; i < 2 || ms_since(warm) < min_ms / 4; ++i) cvm::run_op(op, in, attrs);
  std::vector<double> wall;
  std::vector<double> cpu;
  const Clock::time_point start = Clock::now();
  while (wall.size() < 5 || (ms_since(start) < min_ms && wall.size() < 1000)) {
    const double c0 = thread_cpu_ms();
    Clock::time_point t0 = Clock::now();
    cvm::run_op(op, in, attrs);
    wall.push_back(ms_since(t0));
    cpu.push_back(thread_cpu_ms() - c0);
  }
  return {median(wall), median(cpu), static_cast<int>(wall.size())};
}

// The table entries that took the workload's kernel calls on `backend` ("conv2d_i16i32__avx2",
// or "copy_any__scalar+cast_any__scalar" for an operator calling two), found by binding its
// kernels the way a session does and running it once.
std::string kernels_ran(const std::string& op_name, const std::vector<cvm::NDArray>& in,
                        const cvm::AttrMap& attrs, const std::string& backend) {
  const cvm::ops::OpDef* op = cvm::ops::find_op(op_name);
  if (op == nullptr) return "";
  cvm::ops::NodeKernels kernels;
  cvm::ops::run_bound(*op, in, attrs, cvm::chain_policy(backend), &kernels);
  std::string names;
  for (const cvm::KernelChain& c : kernels.chains) {
    if (c.last_ran != nullptr) names += (names.empty() ? "" : "+") + std::string(c.last_ran->name);
  }
  return names;
}

int usage() {
  std::cerr << "usage: op_latency_bench WORKLOADS.json [--quick] [--filter SUBSTRING]\n";
  return 2;
}

// Runs the workloads of `path` whose name contains `filter`; 1 when the backends disagree.
int run(const std::string& path, const std::string& filter, bool quick) {
  std::ifstream file(path);
  if (!file) {
    std::cerr << "op_latency_bench: cannot open " << path << "\n";
    return 2;
  }
  json doc = json::parse(file);
  cvm::set_num_threads(1);
  const std::string best = cvm::compiled_backends().front();
  std::vector<std::string> backends = {"scalar"};
  if (best != "scalar") backends.push_back(best);
  const double min_ms = quick ? 150 : 1000;

  bool agree = true;
  for (const json& w : doc.at("workloads")) {
    const std::string name = w.at("name").get<std::string>();
    if (name.find(filter) == std::string::npos) continue;
    const std::string op = w.at("op").get<std::string>();
    std::vector<cvm::NDArray> in;
    for (const json& spec : w.at("inputs")) in.push_back(make_input(spec));
    const cvm::AttrMap attrs =
        cvm::capi::attrs_from_json(w.value("attrs", json::object()).dump().c_str(), name.c_str());
    std::string first_sum;
    for (const std::string& backend : backends) {
      cvm::ScopedThreadBackend scope(backend);
      std::string sum = checksum(cvm::run_op(op, in, attrs));
      Timing t = time_op(op, in, attrs, min_ms);
      json line = {{"name", name},
                   {"op", op},
                   {"backend", backend},
                   {"kernel", kernels_ran(op, in, attrs, backend)},
                   {"ms_median", t.ms_median},
                   {"cpu_ms_median", t.cpu_ms_median},
                   {"iters", t.iters},
                   {"checksum", sum}};
      std::cout << line.dump() << std::endl;
      if (first_sum.empty()) first_sum = sum;
      if (sum != first_sum) {
        std::cerr << "op_latency_bench: " << name << ": backend " << backend << " checksum " << sum
                  << " != scalar " << first_sum << "\n";
        agree = false;
      }
    }
  }
  return agree ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  std::string filter;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else if (!a.empty() && a[0] != '-' && path.empty()) {
      path = a;
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();
  try {
    return run(path, filter, quick);
  } catch (const std::exception& e) {
    std::cerr << "op_latency_bench: " << e.what() << "\n";
    return 2;
  }
}
