// The system report: CPU model and features from the backends' tables, the ISA level and its
// cap, AMX permission, threads and where their count comes from, and the kernel the registry
// picks for every (op, dtype) pair.
#include "cvm/system.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "cvm/dtype.h"
#include "cvm/error.h"
#include "cvm/registry.h"
#include "cvm/threads.h"
#include "registry_internal.h"
#include "thread_pool.h"

namespace cvm {
namespace {

// The ops that dominate model time, and the dtype the report resolves each for.
constexpr const char* kMainOps[] = {"conv2d", "dense", "matmul", "add", "max_pool2d", "reduce_sum"};

std::vector<std::string> feature_names(uint32_t bits) {
  std::vector<std::string> names;
  for (int i = 0; i < kernel::kNumCpuFeatures; ++i) {
    if (bits & (1u << i)) names.push_back(kernel::kCpuFeatureNames[i]);
  }
  return names;
}

// The features each CVMRT_ISA level needs, lowest first: scalar, avx2, avx512, amx (the kernels'
// requirements in backends/simd; the backend's isa_level_name names the levels).
constexpr uint32_t kAmxBits = kernel::kCpuAmxTile | kernel::kCpuAmxInt8;
constexpr uint32_t kAvx512Bits = kernel::kCpuAvx512f | kernel::kCpuAvx512bw;
constexpr uint32_t kLevelNeeds[] = {0, kernel::kCpuAvx2, kAvx512Bits, kAvx512Bits | kAmxBits};
constexpr int kAmxLevel = 3;

std::string level_name(const kernel::BackendTable& b, int level) {
  const char* name = b.isa_level_name(level);
  return name ? name : "";
}

// The widest ISA level the features allow.
std::string isa_level_of(const kernel::BackendTable& b, uint32_t f) {
  int level = static_cast<int>(sizeof(kLevelNeeds) / sizeof(kLevelNeeds[0])) - 1;
  while (level > 0 && (f & kLevelNeeds[level]) != kLevelNeeds[level]) --level;
  return level_name(b, level);
}

// "scalar, avx2, avx512, amx".
std::string level_list(const kernel::BackendTable& b) {
  std::string s;
  for (int i = 0; b.isa_level_name(i) != nullptr; ++i) s += (i ? ", " : "") + level_name(b, i);
  return s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The CPU's brand string: CPUID leaves 0x80000002..4 on x86, else /proc/cpuinfo's "model name".
std::string cpu_model() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned int regs[12] = {};
  if (static_cast<unsigned int>(__get_cpuid_max(0x80000000u, nullptr)) >= 0x80000004u) {
    for (unsigned int i = 0; i < 3; ++i) {
      __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2],
                  &regs[4 * i + 3]);
    }
    char brand[sizeof regs + 1] = {};
    std::memcpy(brand, regs, sizeof regs);
    const std::string model = trim(brand);
    if (!model.empty()) return model;
  }
#endif
  // stdio rather than std::ifstream: no iostreams in the library (cvm/message.h).
  std::FILE* in = std::fopen("/proc/cpuinfo", "r");
  if (in == nullptr) return "";
  std::string found;
  std::string line;
  for (int c = 0; c != EOF;) {
    line.clear();
    while ((c = std::fgetc(in)) != EOF && c != '\n') line += static_cast<char>(c);
    if (c == EOF && line.empty()) break;
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      found = trim(line.substr(line.find(':') + 1));
      break;
    }
  }
  std::fclose(in);
  return found;
}

// The backend with ISA levels (the x86 SIMD one), or null.
const kernel::BackendTable* level_backend() {
  for (const kernel::BackendTable* b : backend_tables()) {
    if (b->isa_cap != nullptr && b->isa_level_name != nullptr && b->cpu_features != nullptr) {
      return b;
    }
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& items, const char* none = "(none)") {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : " ") + i;
  return s.empty() ? none : s;
}

KernelChoice choose(const std::string& op, const std::string& dtype) {
  // An "any" kernel serves every dtype: ask for one it must serve.
  const DataType t = dtype == "any" ? DataType::Int(32) : DataType::parse(dtype);
  KernelChoice k{op, dtype, "", "", ""};
  try {
    const KernelChain chain = resolve_chain(chain_policy(), {op.c_str(), elem_type_of(t)},
                                            Device::cpu());
    const kernel::KernelEntry& e = *chain.entries.front();
    k.backend = table_of(e)->name;
    k.name = e.name;
    k.variant = how_of(e);
  } catch (const LogicError&) {
    k.backend = "none";  // no compiled backend has it (or CVMRT_BACKEND is bad)
  }
  return k;
}

// "simd/avx2"; the scalar reference is just "scalar".
std::string kernel_str(const KernelChoice& k) {
  return k.variant.empty() || k.variant == k.backend ? k.backend : k.backend + "/" + k.variant;
}

// "isa level: avx2 (CVMRT_ISA=avx2 caps it; the CPU has avx512)".
std::string isa_line(const SystemInfo& info) {
  if (info.isa_level.empty()) return "isa level: n/a (no x86 SIMD backend in this build)";
  std::vector<std::string> why;
  if (!info.isa_cap.empty()) why.push_back("CVMRT_ISA=" + info.isa_cap + " caps it");
  if (info.isa_level != info.cpu_level) why.push_back("the CPU has " + info.cpu_level);
  if (info.amx == "denied") why.push_back("AMX permission denied");
  if (info.isa_cap.empty() && !info.isa_env.empty()) {
    why.push_back("CVMRT_ISA=\"" + info.isa_env + "\" is not a level: no cap");
  }
  if (why.empty()) {
    why.push_back(info.isa_env.empty() ? "the CPU's widest; CVMRT_ISA not set"
                                       : "the CPU's widest");
  }
  std::string s = "isa level: " + info.isa_level + " (";
  for (size_t i = 0; i < why.size(); ++i) s += (i ? "; " : "") + why[i];
  return s + ")";
}

std::string amx_line(const SystemInfo& info) {
  std::string s = "amx permission: ";
  if (info.amx == "denied") return s + "denied (arch_prctl ARCH_REQ_XCOMP_PERM failed)";
  if (info.amx == "not requested") return s + "not requested (CVMRT_ISA=" + info.isa_cap + ")";
  if (info.amx == "no AMX") return s + "n/a (the CPU has no AMX)";
  return s + info.amx;
}

std::string threads_line(const SystemInfo& info) {
  detail::MessageStream os;
  os << "threads: ";
  if (info.num_threads <= 0) {
    os << "none (a bad CVMRT_THREADS, see the warning; hardware " << info.hardware_threads << ")";
    return os.str();
  }
  os << info.num_threads << " (";
  if (info.threads_source == "default") {
    os << "default: the hardware concurrency";
  } else if (info.threads_source == "CVMRT_THREADS") {
    os << "from CVMRT_THREADS=" << info.threads_env << "; hardware " << info.hardware_threads;
  } else {
    os << "from " << info.threads_source << "; hardware " << info.hardware_threads;
    if (!info.threads_env.empty()) os << "; CVMRT_THREADS=" << info.threads_env << " overridden";
  }
  os << ")";
  return os.str();
}

}  // namespace

std::vector<std::string> environment_warnings() {
  std::vector<std::string> out;
  const std::string isa = env("CVMRT_ISA");
  if (!isa.empty()) {
    const kernel::BackendTable* b = level_backend();
    if (b == nullptr) {
      out.push_back("CVMRT_ISA=\"" + isa + "\" has no effect: no x86 SIMD backend in this build");
    } else if (*b->isa_cap() == '\0') {
      out.push_back("CVMRT_ISA=\"" + isa + "\" is not an ISA level (" + level_list(*b) +
                    "): ignored, the ISA is not capped");
    }
  }
  return out;
}

SystemInfo system_info() {
  SystemInfo info;
  info.cpu_model = cpu_model();
  uint32_t detected = 0, usable = 0;
  for (const kernel::BackendTable* b : backend_tables()) {
    if (b->cpu_features == nullptr) continue;
    usable |= b->cpu_features();
    detected |= b->detected_cpu_features ? b->detected_cpu_features() : b->cpu_features();
  }
  info.cpu_features = feature_names(detected);
  info.usable_features = feature_names(usable);
  info.isa_env = env("CVMRT_ISA");
  info.amx = "no AMX";
  if (const kernel::BackendTable* b = level_backend()) {
    info.isa_cap = b->isa_cap();
    const uint32_t have = b->detected_cpu_features ? b->detected_cpu_features() : b->cpu_features();
    info.cpu_level = isa_level_of(*b, have);
    info.isa_level = isa_level_of(*b, b->cpu_features());
    if ((have & kAmxBits) == kAmxBits) {
      if (!info.isa_cap.empty() && info.isa_cap != level_name(*b, kAmxLevel)) {
        info.amx = "not requested";
      } else {
        info.amx = (b->cpu_features() & kAmxBits) == kAmxBits ? "granted" : "denied";
      }
    }
  }
  info.warnings = environment_warnings();

  info.hardware_threads = std::max(1u, std::thread::hardware_concurrency());
  info.threads_env = env("CVMRT_THREADS");
  try {
    info.num_threads = num_threads();
  } catch (const LogicError& e) {
    info.num_threads = 0;
    info.threads_error = e.what();
    info.warnings.push_back(e.what());
  }
  switch (threads::count_source()) {
    case threads::CountSource::kApi: info.threads_source = "set_num_threads"; break;
    case threads::CountSource::kEnv: info.threads_source = "CVMRT_THREADS"; break;
    case threads::CountSource::kDefault: info.threads_source = "default"; break;
  }

  info.compiled_backends = compiled_backends();
  try {
    info.backend = current_backend();
  } catch (const LogicError& e) {
    info.backend_error = e.what();
    info.warnings.push_back(e.what());
  }
  for (const char* op : kMainOps) info.main_kernels.push_back(choose(op, "int32"));
  // Every (op, dtype) pair once, by op, then dtype in DLPack order (int8 ... uint64, float16 ...).
  std::set<std::tuple<std::string, int, int, std::string>> pairs;
  for (const KernelInfo& k : list_kernels()) {
    const DataType t = k.dtype == "any" ? DataType() : DataType::parse(k.dtype);
    pairs.insert({k.op, k.dtype == "any" ? -1 : t.code(), t.bits(), k.dtype});
  }
  for (const auto& p : pairs) info.kernels.push_back(choose(std::get<0>(p), std::get<3>(p)));
  return info;
}

std::string format_system_info(const SystemInfo& info) {
  detail::MessageStream os;
  for (const std::string& w : info.warnings) os << "warning: " << w << "\n";
  os << "cpu: " << (info.cpu_model.empty() ? "unknown" : info.cpu_model) << "\n";
  os << "cpu features: " << join(info.cpu_features) << "\n";
  os << isa_line(info) << "\n";
  os << "usable features: " << join(info.usable_features) << "\n";
  if (!info.isa_level.empty()) os << amx_line(info) << "\n";
  os << threads_line(info) << "\n";
  os << "backends: " << join(info.compiled_backends) << " (preferred: "
     << (info.backend.empty() ? "none, see the warning" : info.backend) << ")\n";
  os << "\nmain kernels (op dtype -> the kernel that heads its chain):\n";
  size_t width = 0;
  for (const KernelChoice& k : info.main_kernels) width = std::max(width, k.op.size());
  for (const KernelChoice& k : info.main_kernels) {
    os << "  " << k.op << std::string(width - k.op.size(), ' ') << " " << k.dtype << " -> "
       << (k.name.empty() ? k.backend : k.name) << "\n";
  }
  // Every kernel, one line per op and choice: "  add int8 int16 ... -> simd/avx512".
  os << "\nall kernels (op dtypes -> backend/how):\n";
  for (size_t i = 0; i < info.kernels.size();) {
    std::map<std::string, std::string> by_choice;  // choice -> dtypes
    std::vector<std::string> order;
    size_t j = i;
    for (; j < info.kernels.size() && info.kernels[j].op == info.kernels[i].op; ++j) {
      const std::string c = kernel_str(info.kernels[j]);
      if (by_choice.count(c) == 0) order.push_back(c);
      by_choice[c] += " " + info.kernels[j].dtype;
    }
    for (const std::string& c : order) {
      os << "  " << info.kernels[i].op << by_choice[c] << " -> " << c << "\n";
    }
    i = j;
  }
  return os.str();
}

}  // namespace cvm
