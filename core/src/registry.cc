// The kernel registry: backend tables in preference order, selection by API and CVMRT_BACKEND.
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cvm/check.h"
#include "cvm/registry.h"
#include "registry_internal.h"

namespace cvm {
namespace {

using kernel::BackendTable;
using kernel::ElemType;
using kernel::KernelEntry;

const char* elem_type_name(ElemType t) {
  static const char* const kNames[] = {"int8",    "int16",    "int32",   "int64",  "uint8",
                                       "uint16",  "uint32",   "uint64",  "float16", "bfloat16",
                                       "float32", "float64",  "bool",    "any"};
  return kNames[static_cast<int>(t)];
}

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

  static bool usable(const BackendTable& b, const KernelEntry& e) {
    if (e.required_features == 0) return true;
    uint32_t have = b.cpu_features ? b.cpu_features() : 0;
    return (have & e.required_features) == e.required_features;
  }

  const KernelEntry* find_in(int backend, const std::string& op, ElemType t, int device) const {
    const BackendTable& b = *backends_[backend];
    if (b.device_type != device) return nullptr;
    auto it = by_op_[backend].find(op);
    if (it == by_op_[backend].end()) return nullptr;
    for (const KernelEntry* e : it->second) {
      if ((e->dtype == t || e->dtype == ElemType::kAny) && usable(b, *e)) return e;
    }
    return nullptr;
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
    backends_.push_back(&kernel::kScalarBackend);
    by_op_.resize(backends_.size());
    for (size_t i = 0; i < backends_.size(); ++i) {
      const BackendTable& b = *backends_[i];
      for (size_t k = 0; k < b.count; ++k) by_op_[i][b.entries[k].op].push_back(&b.entries[k]);
    }
  }

  static int default_index() { return 0; }

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

kernel::KernelFn find_kernel(const char* op, ElemType t, Device device) {
  Registry& r = Registry::get();
  int dev = static_cast<int>(device.type);
  int preferred = r.preferred();
  if (const KernelEntry* e = r.find_in(preferred, op, t, dev)) return e->fn;
  int scalar = static_cast<int>(r.backends().size()) - 1;
  if (preferred != scalar) {
    if (const KernelEntry* e = r.find_in(scalar, op, t, dev)) return e->fn;
  }
  CVM_LOGIC_ERROR() << "no kernel for op \"" << op << "\" with dtype " << elem_type_name(t)
                    << " on " << device.name();
}

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

std::vector<KernelInfo> list_kernels() {
  std::vector<KernelInfo> out;
  for (const BackendTable* b : Registry::get().backends()) {
    for (size_t k = 0; k < b->count; ++k) {
      const KernelEntry& e = b->entries[k];
      out.push_back({b->name, e.op, elem_type_name(e.dtype), e.variant, Registry::usable(*b, e)});
    }
  }
  return out;
}

std::string resolve_kernel(const std::string& op, DataType dtype) {
  Registry& r = Registry::get();
  ElemType t = elem_type_of(dtype);
  int preferred = r.preferred();
  int scalar = static_cast<int>(r.backends().size()) - 1;
  for (int b : {preferred, scalar}) {
    if (const KernelEntry* e = r.find_in(b, op, t, kDLCPU)) {
      return std::string(r.backends()[b]->name) + "/" + e->variant;
    }
  }
  CVM_LOGIC_ERROR() << "no kernel for op \"" << op << "\" with dtype " << dtype;
}

}  // namespace cvm
