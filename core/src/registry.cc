// The kernel registry: backend tables in preference order, selection by API and CVMRT_BACKEND,
// and the kernel chains the op layer binds once per node.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cvm/check.h"
#include "cvm/device.h"
#include "cvm/registry.h"
#include "registry_internal.h"

namespace cvm {
namespace {

using kernel::BackendTable;
using kernel::ElemType;
using kernel::KernelEntry;

class Registry {
 public:
  static Registry& get() {
    static Registry* r = new Registry();  // never destroyed: kernels may run during exit
    return *r;
  }

  // Best first; scalar is always the last.
  const std::vector<const BackendTable*>& backends() const { return backends_; }

  int index_of(const std::string& name) const {
    for (size_t i = 0; i < backends_.size(); ++i) {
      if (name == backends_[i]->name) return static_cast<int>(i);
    }
    return -1;
  }

  void select(const std::string& name) {
    if (name.empty() || name == "auto") {
      preferred_.store(default_index(), std::memory_order_release);
      return;
    }
    int i = index_of(name);
    VERIFY(i >= 0) << "unknown backend \"" << name << "\" (compiled: " << compiled_list() << ")";
    preferred_.store(i, std::memory_order_release);
  }

  // -1: no per-thread override (ScopedThreadBackend).
  static int& thread_override() {
    static thread_local int index = -1;
    return index;
  }

  int preferred() {
    if (thread_override() >= 0) return thread_override();
    int p = preferred_.load(std::memory_order_acquire);
    if (p >= 0) return p;
    std::call_once(env_once_, [this] {
      const char* env = std::getenv("CVMRT_BACKEND");
      std::string name = env ? env : "";
      int i = (name.empty() || name == "auto") ? default_index() : index_of(name);
      VERIFY(i >= 0) << "CVMRT_BACKEND=" << name << ": unknown backend (compiled: "
                     << compiled_list() << ")";
      int expected = -1;
      preferred_.compare_exchange_strong(expected, i);
    });
    return preferred_.load(std::memory_order_acquire);
  }

  const std::vector<const KernelEntry*>& entries_for(int backend, const char* op) const {
    static const std::vector<const KernelEntry*> kNone;
    auto it = by_op_[backend].find(op);
    return it == by_op_[backend].end() ? kNone : it->second;
  }

  std::string compiled_list() const {
    std::string s;
    for (const BackendTable* b : backends_) s += (s.empty() ? "" : ", ") + std::string(b->name);
    return s;
  }

 private:
  Registry() {
#ifdef CVMRT_HAVE_BACKEND_SIMD
    backends_.push_back(&kernel::kSimdBackend);
#endif
#ifdef CVMRT_HAVE_BACKEND_WASM
    backends_.push_back(&kernel::kWasmBackend);
#endif
#ifdef CVMRT_HAVE_BACKEND_CUDA
    backends_.push_back(&kernel::kCudaBackend);
#endif
#ifdef CVMRT_HAVE_BACKEND_PORTABLE
    backends_.push_back(&kernel::kPortableBackend);
#endif
    backends_.push_back(&kernel::kScalarBackend);
    by_op_.resize(backends_.size());
    for (size_t i = 0; i < backends_.size(); ++i) {
      const BackendTable& b = *backends_[i];
      for (size_t k = 0; k < b.count; ++k) by_op_[i][b.entries[k].op].push_back(&b.entries[k]);
    }
  }

  // The first CPU backend: "auto" never means a device backend (a session asks for one by
  // name), and the scalar reference is always compiled.
  int default_index() const {
    for (size_t i = 0; i < backends_.size(); ++i) {
      if (backends_[i]->device_type == kDLCPU) return static_cast<int>(i);
    }
    return static_cast<int>(backends_.size()) - 1;
  }

 public:
  // The first compiled backend whose kernels run on device type `dev`, or -1.
  int first_for_device(int dev) const {
    for (size_t i = 0; i < backends_.size(); ++i) {
      if (backends_[i]->device_type == dev) return static_cast<int>(i);
    }
    return -1;
  }

 private:

  std::vector<const BackendTable*> backends_;
  std::vector<std::unordered_map<std::string, std::vector<const KernelEntry*>>> by_op_;
  std::atomic<int> preferred_{-1};
  std::once_flag env_once_;
};

}  // namespace

ElemType elem_type_of(DataType t) {
  for (int i = 0; i < kernel::kNumElemTypes; ++i) {
    if (kAllDataTypes[i] == t) return static_cast<ElemType>(i);
  }
  CVM_LOGIC_ERROR() << "unsupported dtype " << t;
}

const char* elem_type_name(ElemType t) {
  static const char* const kNames[] = {"int8",    "int16",   "int32",   "int64", "uint8",
                                       "uint16",  "uint32",  "uint64",  "float16",
                                       "bfloat16", "float32", "float64", "bool",  "any"};
  return kNames[static_cast<int>(t)];
}

bool entry_usable(const BackendTable& b, const KernelEntry& e) {
  // A device backend's entries need a device of its kind (asked once per process).
  if (b.device_type != kDLCPU && device_count(static_cast<DLDeviceType>(b.device_type)) == 0) {
    return false;
  }
  if (e.required_features == 0) return true;
  const uint32_t have = b.cpu_features ? b.cpu_features() : 0;
  return (have & e.required_features) == e.required_features;
}

namespace {

std::atomic<uint64_t> g_lookups{0};

// "amx-tile amx-int8": the features `e` needs that this machine (after CVMRT_ISA) lacks.
std::string missing_features(const BackendTable& b, const KernelEntry& e) {
  const uint32_t have = b.cpu_features ? b.cpu_features() : 0;
  std::string s;
  for (int i = 0; i < kernel::kNumCpuFeatures; ++i) {
    const uint32_t bit = 1u << i;
    if ((e.required_features & bit) != 0 && (have & bit) == 0) {
      s += (s.empty() ? "" : " ") + std::string(kernel::kCpuFeatureNames[i]);
    }
  }
  return s;
}

bool serves(const KernelEntry& e, ElemType t) {
  return e.dtype == t || e.dtype == ElemType::kAny;
}

}  // namespace

ChainPolicy chain_policy(const std::string& name) {
  Registry& r = Registry::get();
  ChainPolicy p;
  if (name.empty() || name == "auto") {
    p.backend = r.preferred();
  } else {
    p.backend = r.index_of(name);
    VERIFY(p.backend >= 0) << "unknown backend \"" << name << "\" (compiled: " << r.compiled_list()
                           << ")";
  }
  return p;
}

KernelChain resolve_chain(const ChainPolicy& policy, KernelKey key, Device device,
                          const kernel::TensorView* inputs, int32_t num_inputs) {
  g_lookups.fetch_add(1, std::memory_order_relaxed);
  Registry& r = Registry::get();
  const int dev = static_cast<int>(device.type);
  const int scalar = static_cast<int>(r.backends().size()) - 1;
  KernelChain chain;
  chain.key = key;
  std::vector<const KernelEntry*> unsuited;
  // The backend whose entries head the chain: the policy's; for a call on another device than
  // the policy's backend runs on (device arrays under a CPU preference, or the reverse), the
  // first backend of the call's device. A pinned entry heads the chains of its key; other keys
  // get the reference of the call's device (the scalar table on the CPU).
  int backend = policy.pin != nullptr ? -1 : policy.backend;
  if (backend >= 0 && r.backends()[backend]->device_type != dev) backend = r.first_for_device(dev);
  if (backend < 0 && r.backends()[scalar]->device_type != dev) backend = r.first_for_device(dev);
  const bool pinned = policy.pin != nullptr && std::strcmp(policy.pin->op, key.op) == 0 &&
                      serves(*policy.pin, key.dtype);
  // The reference that ends the chain: the scalar table's entry on the CPU; on a device its
  // backend's general kernel, the last entry for the key there (the device's fast paths come
  // first), which no other kernel of that device can stand in for.
  const KernelEntry* reference = nullptr;
  const int reference_backend = r.backends()[scalar]->device_type == dev ? scalar : backend;
  if (reference_backend >= 0 &&
      (dev == kDLCPU || device_count(static_cast<DLDeviceType>(dev)) > 0)) {
    for (const KernelEntry* e : r.entries_for(reference_backend, key.op)) {
      if (!serves(*e, key.dtype)) continue;
      reference = e;
      if (reference_backend == scalar) break;
    }
  }
  if (pinned) {
    chain.entries.push_back(policy.pin);
  } else if (backend >= 0 && backend != scalar) {
    const BackendTable& b = *r.backends()[backend];
    for (const KernelEntry* e : r.entries_for(backend, key.op)) {
      if (!serves(*e, key.dtype) || e == reference) continue;
      if (!entry_usable(b, *e)) {
        chain.notes.push_back(std::string(e->name) +
                              (b.device_type != kDLCPU ? ": no " + std::string(b.name) + " device"
                                                       : ": CPU lacks " + missing_features(b, *e)));
      } else if (e->suits != nullptr && inputs != nullptr && !e->suits(inputs, num_inputs)) {
        unsuited.push_back(e);
      } else {
        chain.entries.push_back(e);
      }
    }
  }
  // Entries that do not suit the shapes go behind those that do: on the CPU before the scalar
  // reference, a last resort; on a device after its general kernel, which is a fast path of its
  // own there (such an entry stays listed, and runs only if everything before it declines).
  const bool reference_first = dev != kDLCPU;
  if (reference_first && reference != nullptr && reference != policy.pin) {
    chain.entries.push_back(reference);
  }
  for (const KernelEntry* e : unsuited) {
    chain.notes.push_back(std::string(e->name) + ": moved behind " +
                          (chain.entries.empty() ? std::string("nothing")
                                                 : chain.entries.back()->name) +
                          ", it does not suit these shapes");
    chain.entries.push_back(e);
  }
  if (!reference_first && reference != nullptr && reference != policy.pin) {
    chain.entries.push_back(reference);
  }
  VERIFY(!chain.entries.empty()) << "no kernel for op \"" << key.op << "\" with dtype "
                                 << elem_type_name(key.dtype) << " on " << device.name();
  return chain;
}

uint64_t registry_lookups() { return g_lookups.load(std::memory_order_relaxed); }

const std::vector<const BackendTable*>& backend_tables() { return Registry::get().backends(); }

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names;
  for (const BackendTable* b : Registry::get().backends()) names.push_back(b->name);
  return names;
}

void set_backend(const std::string& name) { Registry::get().select(name); }

std::string current_backend() {
  Registry& r = Registry::get();
  return r.backends()[r.preferred()]->name;
}

ScopedThreadBackend::ScopedThreadBackend(const std::string& name)
    : previous_(Registry::thread_override()) {
  Registry& r = Registry::get();
  int i = r.index_of(name);
  VERIFY(i >= 0) << "unknown backend \"" << name << "\" (compiled: " << r.compiled_list() << ")";
  Registry::thread_override() = i;
}

ScopedThreadBackend::~ScopedThreadBackend() { Registry::thread_override() = previous_; }

const BackendTable* table_of(const KernelEntry& e) {
  for (const BackendTable* b : Registry::get().backends()) {
    if (&e >= b->entries && &e < b->entries + b->count) return b;
  }
  return nullptr;
}

std::string how_of(const KernelEntry& e) {
  const char* sep = std::strstr(e.name, "__");
  return sep == nullptr ? std::string() : std::string(sep + 2);
}

bool has_usable_kernel(const char* op, ElemType t, const std::string& backend) {
  Registry& r = Registry::get();
  const bool any = backend.empty() || backend == "auto";
  for (size_t i = 0; i < r.backends().size(); ++i) {
    const BackendTable& b = *r.backends()[i];
    if (!any && backend != b.name) continue;
    for (const KernelEntry* e : r.entries_for(static_cast<int>(i), op)) {
      if (serves(*e, t) && entry_usable(b, *e)) return true;
    }
  }
  return false;
}

std::vector<KernelInfo> list_kernels() {
  std::vector<KernelInfo> out;
  for (const BackendTable* b : Registry::get().backends()) {
    for (size_t k = 0; k < b->count; ++k) {
      const KernelEntry& e = b->entries[k];
      out.push_back({b->name, e.op, elem_type_name(e.dtype), how_of(e), entry_usable(*b, e),
                     e.name});
    }
  }
  return out;
}

std::string resolve_kernel(const std::string& op, DataType dtype) {
  const KernelChain chain =
      resolve_chain(chain_policy(), {op.c_str(), elem_type_of(dtype)}, Device::cpu());
  const KernelEntry& e = *chain.entries.front();
  return std::string(table_of(e)->name) + "/" + how_of(e);
}

}  // namespace cvm
