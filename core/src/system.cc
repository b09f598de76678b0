// The system report: CPU features from the backends' tables, the ISA cap, threads, and the
// kernel the registry picks for every (op, dtype) pair.
#include "cvm/system.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "cvm/dtype.h"
#include "cvm/error.h"
#include "cvm/registry.h"
#include "cvm/threads.h"
#include "registry_internal.h"

namespace cvm {
namespace {

std::vector<std::string> feature_names(uint32_t bits) {
  std::vector<std::string> names;
  for (int i = 0; i < kernel::kNumCpuFeatures; ++i) {
    if (bits & (1u << i)) names.push_back(kernel::kCpuFeatureNames[i]);
  }
  return names;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : " ") + i;
  return s.empty() ? "(none)" : s;
}

}  // namespace

SystemInfo system_info() {
  SystemInfo info;
  uint32_t detected = 0, usable = 0;
  for (const kernel::BackendTable* b : backend_tables()) {
    if (b->cpu_features == nullptr) continue;
    usable |= b->cpu_features();
    detected |= b->detected_cpu_features ? b->detected_cpu_features() : b->cpu_features();
    if (b->isa_cap != nullptr && info.isa_cap.empty()) info.isa_cap = b->isa_cap();
  }
  info.cpu_features = feature_names(detected);
  info.usable_features = feature_names(usable);
  info.isa_env = env("CVMRT_ISA");
  info.hardware_threads = std::max(1u, std::thread::hardware_concurrency());
  info.threads_env = env("CVMRT_THREADS");
  try {
    info.num_threads = num_threads();
  } catch (const LogicError& e) {
    info.num_threads = 0;
    info.threads_error = e.what();
  }
  info.compiled_backends = compiled_backends();
  info.backend = current_backend();
  std::set<std::pair<std::string, std::string>> pairs;
  for (const KernelInfo& k : list_kernels()) pairs.insert({k.op, k.dtype});
  for (const auto& [op, dtype] : pairs) {
    // An "any" kernel serves every dtype: ask for one it must serve.
    const DataType t = dtype == "any" ? DataType::Int(32) : DataType::parse(dtype);
    const std::string chosen = resolve_kernel(op, t);
    const size_t slash = chosen.find('/');
    info.kernels.push_back({op, dtype, chosen.substr(0, slash), chosen.substr(slash + 1)});
  }
  return info;
}

std::string format_system_info(const SystemInfo& info) {
  std::ostringstream os;
  os << "cpu features: " << join(info.cpu_features) << "\n";
  os << "usable features: " << join(info.usable_features);
  if (!info.isa_env.empty()) {
    os << " (CVMRT_ISA=" << info.isa_env << ": "
       << (info.isa_cap.empty() ? "not a level, ignored" : "capped to " + info.isa_cap) << ")";
  }
  os << "\n";
  os << "threads: ";
  if (info.num_threads > 0) {
    os << info.num_threads;
  } else {
    os << "error: " << info.threads_error;
  }
  os << " (hardware " << info.hardware_threads;
  if (!info.threads_env.empty()) os << ", CVMRT_THREADS=" << info.threads_env;
  os << ")\n";
  os << "backends: " << join(info.compiled_backends) << " (preferred: " << info.backend << ")\n";
  os << "kernels:\n";
  for (const KernelChoice& k : info.kernels) {
    os << "  " << k.op << " " << k.dtype << " -> " << k.backend << "/" << k.variant << "\n";
  }
  return os.str();
}

}  // namespace cvm
