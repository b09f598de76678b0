// Table-driven kernel parity: every entry of every compiled backend table computes the generated
// operator calls (kernel_cases.h) bit for bit like the scalar reference.
//
// Each entry e is pinned at the head of the chains of its key (ChainPolicy{-1, &e}: the chain
// is [e, scalar reference]) and runs every case of every operator that dispatches e.op, for
// every dtype e serves, at 1 and 3 threads (tasks of one element: every kernel splits), through
// the operator's own compute() exactly as run_op would call it; in-place operators also run
// with the output in input 0's memory. The scalar policy gives the reference. An entry may
// decline a call (the scalar reference then takes it, same bits); it must take at least one,
// so the generators reach every entry. Entries the CPU cannot run are skipped with a warning.
//
// The op-layer headers bring the library's CHECK/VERIFY macros: included first, then dropped
// for Catch2's.
#include "kernel_views.h"
#include "op_def.h"
#undef CHECK
#undef VERIFY

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cvm/array_ops.h"
#include "cvm/threads.h"
#include "kernel_abi.h"
#include "kernel_cases.h"
#include "registry_internal.h"
#include "test_util.h"
#include "thread_pool.h"

using cvm::ChainPolicy;
using cvm::DataType;
using cvm::KernelChain;
using cvm::NDArray;
using cvm::Shape;
using cvm::kernel::BackendTable;
using cvm::kernel::ElemType;
using cvm::kernel::KernelEntry;
using cvm::test::OpCase;

namespace {

const int kThreadCounts[] = {1, 3};

// Kernel ops that no operator dispatches, with what does: their entries get direct cases here.
// "fill": cvm::fill (array_ops.h), and NDArray::zeros through it.
const char* const kNonOperatorKernelOps[] = {"fill"};

bool non_operator_op(const char* op) {
  for (const char* k : kNonOperatorKernelOps) {
    if (std::strcmp(k, op) == 0) return true;
  }
  return false;
}

// Restores the default thread count and task size when a test ends.
struct RestoreThreads {
  int64_t min_work = cvm::threads::min_task_work();
  ~RestoreThreads() {
    cvm::set_num_threads(0);
    cvm::threads::set_min_task_work(min_work);
  }
};

// `n` threads; with more than one, tasks as small as one element so that every kernel splits.
void use_threads(int n, int64_t default_min_work) {
  cvm::set_num_threads(n);
  cvm::threads::set_min_task_work(n > 1 ? 1 : default_min_work);
}

int scalar_index() { return static_cast<int>(cvm::backend_tables().size()) - 1; }
ChainPolicy scalar_policy() { return ChainPolicy{scalar_index(), nullptr}; }

DataType dtype_of(ElemType t) { return cvm::kAllDataTypes[static_cast<int>(t)]; }

// The dtypes an entry serves: its own, or every one for a kAny entry.
std::vector<DataType> served_dtypes(const KernelEntry& e) {
  if (e.dtype != ElemType::kAny) return {dtype_of(e.dtype)};
  return std::vector<DataType>(std::begin(cvm::kAllDataTypes), std::end(cvm::kAllDataTypes));
}

bool dispatches(const cvm::ops::OpDef& op, const char* kernel_op) {
  for (const char* k : op.kernel_ops()) {
    if (std::strcmp(k, kernel_op) == 0) return true;
  }
  return false;
}

// ---- one operator call under a chain policy (cvm::run_op with the policy given) ----

struct Run {
  std::vector<NDArray> outputs;
  std::vector<KernelChain> chains;  // with last_ran: the entry that took each chain's last call
};

// Whether `c` can also run in place: an in-place operator whose output 0 has input 0's shape
// and dtype.
bool in_place_eligible(const OpCase& c) {
  const cvm::ops::OpDef* op = cvm::ops::find_op(c.op);
  if (op == nullptr || !op->inplace() || op->num_outputs() != 1 || c.inputs.empty()) return false;
  std::vector<Shape> shapes;
  std::vector<DataType> dtypes;
  for (const NDArray& in : c.inputs) {
    shapes.push_back(in.shape());
    dtypes.push_back(in.dtype());
  }
  const std::unique_ptr<cvm::ops::OpAttrs> attrs = op->parse(c.attrs);
  return op->infer_shapes(*attrs, shapes)[0] == shapes[0] &&
         op->infer_dtypes(*attrs, dtypes)[0] == dtypes[0];
}

// run_op of the case with its kernels bound under `policy`, or, `in_place`, with output 0 a
// private copy of input 0 that is also input 0 (in-place operators: the kernel reads and writes
// one buffer). On a device (a device table's entries), the inputs are copied there first (as
// compact arrays) and the outputs brought back.
Run run_case(const OpCase& c, const ChainPolicy& policy, bool in_place = false,
             cvm::Device device = cvm::Device::cpu()) {
  const cvm::ops::OpDef* op = cvm::ops::find_op(c.op);
  if (op == nullptr) throw std::runtime_error("unknown operator \"" + c.op + "\"");
  std::vector<NDArray> inputs = c.inputs;
  for (NDArray& in : inputs) in = in.to(device);
  auto to_host = [](std::vector<NDArray> arrays) {
    for (NDArray& a : arrays) a = a.to(cvm::Device::cpu());
    return arrays;
  };
  cvm::ops::NodeKernels kernels;
  if (!in_place) {
    std::vector<NDArray> outputs = cvm::ops::run_bound(*op, inputs, c.attrs, policy, &kernels);
    return {to_host(outputs), kernels.chains};
  }
  NDArray buf = NDArray::empty(inputs[0].shape(), inputs[0].dtype(), device);
  cvm::copy_into(buf, inputs[0]);
  inputs[0] = buf;
  const std::unique_ptr<cvm::ops::OpAttrs> attrs = op->parse(c.attrs);
  kernels = cvm::ops::bind_kernels(*op, *attrs, inputs, {buf.dtype()}, policy);
  op->compute(*attrs, inputs, {buf}, kernels);
  return {to_host({buf}), kernels.chains};
}

// "" when the arrays agree in dtype, shape and bytes; else where they first differ.
std::string difference(const std::vector<NDArray>& want, const std::vector<NDArray>& got) {
  std::ostringstream s;
  if (want.size() != got.size()) {
    s << want.size() << " outputs expected, got " << got.size();
    return s.str();
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const NDArray& w = want[i];
    const NDArray& g = got[i];
    if (w.dtype() != g.dtype() || w.shape() != g.shape()) {
      s << "output " << i << ": expected " << w.dtype() << " " << w.shape() << ", got "
        << g.dtype() << " " << g.shape();
      return s.str();
    }
    const NDArray wc = w.contiguous(), gc = g.contiguous();
    if (w.nbytes() == 0 || std::memcmp(wc.data(), gc.data(), w.nbytes()) == 0) continue;
    const size_t es = w.dtype().bytes();
    const auto* wp = static_cast<const uint8_t*>(wc.data());
    const auto* gp = static_cast<const uint8_t*>(gc.data());
    int64_t first = 0, count = 0;
    for (int64_t k = w.numel() - 1; k >= 0; --k) {
      if (std::memcmp(wp + k * es, gp + k * es, es) != 0) {
        first = k;
        ++count;
      }
    }
    auto hex = [&](const uint8_t* p) {  // the element's bytes, most significant first
      std::ostringstream h;
      for (size_t b = es; b-- > 0;) h << std::hex << std::setw(2) << std::setfill('0') << +p[b];
      return h.str();
    };
    s << "output " << i << " " << w.shape() << ": " << count << " element(s) differ, first #"
      << first << ": expected 0x" << hex(wp + first * es) << ", got 0x" << hex(gp + first * es);
    return s.str();
  }
  return "";
}

// ---- the cases of one (operator, dtype) and their scalar reference, made once ----

struct CaseSet {
  std::vector<OpCase> cases;
  std::vector<std::vector<NDArray>> want;           // the scalar reference at 1 thread
  std::vector<std::vector<KernelChain>> ref_chains;  // which scalar entries took each call
  std::vector<std::string> error;                   // the reference failed (a bad case)
  std::vector<std::string> thread_difference;       // the reference at 3 threads vs 1
};

const CaseSet& cases_for(const std::string& op, DataType t, int64_t default_min_work) {
  static std::map<std::string, std::unique_ptr<CaseSet>> cache;
  std::unique_ptr<CaseSet>& slot = cache[op + "/" + t.name()];
  if (slot) return *slot;
  slot = std::make_unique<CaseSet>();
  CaseSet& cs = *slot;
  cs.cases = cvm::test::op_cases(op, t);
  for (const OpCase& c : cs.cases) {
    std::string error, threads;
    Run ref;
    try {
      use_threads(1, default_min_work);
      ref = run_case(c, scalar_policy());
      use_threads(3, default_min_work);
      threads = difference(ref.outputs, run_case(c, scalar_policy()).outputs);
    } catch (const std::exception& e) {
      error = e.what();
    }
    cs.want.push_back(ref.outputs);
    cs.ref_chains.push_back(ref.chains);
    cs.error.push_back(error);
    cs.thread_difference.push_back(threads);
  }
  return cs;
}

// ---- direct cases of the kernel ops no operator dispatches ----

constexpr int kFillVariants = 5;

// fill (as cvm::fill calls it): a destination of dtype `t` (variant: contiguous, empty, 0-d,
// every other element of a bigger array, transposed) set to an element value of random bits
// (NaN payloads included), under `policy`. Returns the whole destination buffer, gaps included.
Run run_fill(DataType t, int variant, const ChainPolicy& policy,
             cvm::Device device = cvm::Device::cpu()) {
  static const Shape kBase[kFillVariants] = {{17}, {0}, {}, {2000}, {7, 5}};
  NDArray base = NDArray::zeros(kBase[variant], t, device);
  NDArray dst = variant == 3 ? base.slice(0, 0, 2000, 2) : variant == 4 ? base.transpose() : base;
  cvm::kernel::FillParams params{};
  std::mt19937_64 rng(static_cast<uint64_t>(variant) * 131 + static_cast<uint64_t>(t.bytes()) * 7 +
                      (t.is_float() ? 1 : 0) + (t.is_uint() ? 2 : 0));
  for (uint8_t& b : params.value) b = static_cast<uint8_t>(rng());
  if (t.is_bool()) {
    std::memset(params.value, 0, sizeof params.value);
    params.value[0] = 1;
  }
  const KernelChain chain = cvm::resolve_chain(policy, {"fill", cvm::elem_type_of(t)}, device);
  const std::vector<cvm::kernel::TensorView> views =
      cvm::ops::elementwise_views({{&dst, dst.mutable_data()}});
  cvm::ops::run_kernel(chain, views, 1, &params);
  return {{base.to(cvm::Device::cpu())}, {chain}};
}

// ---- one entry against the reference ----

struct EntryStats {
  int64_t runs = 0;      // calls whose chain the entry headed
  int64_t took = 0;      // of which the entry computed
  int64_t declined = 0;  // of which it passed on to the scalar reference
  int64_t failures = 0;
};

// Counts the chains of `r` that `e` headed: taken or declined.
void count(const KernelEntry& e, const Run& r, EntryStats& s) {
  for (const KernelChain& c : r.chains) {
    if (c.entries.empty() || c.entries.front() != &e || c.last_ran == nullptr) continue;
    ++s.runs;
    (c.last_ran == &e ? s.took : s.declined)++;
  }
}

bool ran(const KernelEntry& e, const std::vector<KernelChain>& chains) {
  for (const KernelChain& c : chains) {
    if (c.last_ran == &e) return true;
  }
  return false;
}

// Reports a mismatch (the first few of an entry in full; all are counted).
void report(EntryStats& s, const std::string& what, const std::string& diff) {
  if (++s.failures <= 5) FAIL_CHECK(what << ": " << diff);
}

// Runs `c` with `e` pinned (and in place where the operator allows it) at every thread count and
// compares with the reference `want`.
void check_case(const KernelEntry& e, const OpCase& c, const std::vector<NDArray>& want,
                int64_t default_min_work, cvm::Device device, EntryStats& s) {
  const ChainPolicy pinned{-1, &e};
  const bool in_place = in_place_eligible(c);
  for (int threads : kThreadCounts) {
    use_threads(threads, default_min_work);
    for (bool alias : {false, true}) {
      if (alias && !in_place) continue;
      std::ostringstream what;
      what << c.what << " at " << threads << " thread(s)" << (alias ? ", in place" : "");
      try {
        const Run r = run_case(c, pinned, alias, device);
        count(e, r, s);
        const std::string diff = difference(want, r.outputs);
        if (!diff.empty()) report(s, what.str(), diff);
      } catch (const std::exception& ex) {
        report(s, what.str(), std::string("threw: ") + ex.what());
      }
    }
  }
}

// Every case of every operator dispatching e.op, for every dtype e serves.
EntryStats check_entry(const KernelEntry& e, bool scalar_table, int64_t default_min_work,
                       cvm::Device device) {
  EntryStats s;
  if (non_operator_op(e.op)) {
    for (DataType t : served_dtypes(e)) {
      for (int v = 0; v < kFillVariants; ++v) {
        std::ostringstream what;
        what << e.op << " " << t << " variant " << v;
        use_threads(1, default_min_work);
        const Run want = run_fill(t, v, scalar_policy());
        for (int threads : kThreadCounts) {
          use_threads(threads, default_min_work);
          const Run got = run_fill(t, v, ChainPolicy{-1, &e}, device);
          count(e, got, s);
          const std::string diff = difference(want.outputs, got.outputs);
          if (!diff.empty()) {
            report(s, what.str() + " at " + std::to_string(threads) + " threads", diff);
          }
        }
      }
    }
    return s;
  }
  for (const cvm::ops::OpDef* op : cvm::ops::all_ops()) {
    if (!dispatches(*op, e.op)) continue;
    for (DataType t : served_dtypes(e)) {
      const CaseSet& cs = cases_for(op->name(), t, default_min_work);
      for (size_t i = 0; i < cs.cases.size(); ++i) {
        const OpCase& c = cs.cases[i];
        if (!cs.error[i].empty()) {
          report(s, c.what, "the scalar reference threw: " + cs.error[i]);
          continue;
        }
        if (!scalar_table) {
          check_case(e, c, cs.want[i], default_min_work, device, s);
          continue;
        }
        // The scalar reference's own entries: pinned is the reference, so they need only have
        // run; their results must not depend on the thread count, nor on aliasing.
        if (!ran(e, cs.ref_chains[i])) continue;
        ++s.runs;
        ++s.took;
        if (!cs.thread_difference[i].empty()) {
          report(s, c.what + " at 3 threads", cs.thread_difference[i]);
        }
        if (in_place_eligible(c)) {
          use_threads(1, default_min_work);
          try {
            const std::string diff =
                difference(cs.want[i], run_case(c, scalar_policy(), true).outputs);
            if (!diff.empty()) report(s, c.what + ", in place", diff);
          } catch (const std::exception& ex) {
            report(s, c.what + ", in place", std::string("threw: ") + ex.what());
          }
        }
      }
    }
  }
  return s;
}

// The CPU features that the entries of table `b` may use here: for the SIMD table whatever the
// CPU has (CVMRT_ISA only caps dispatch), else the table's own answer.
uint32_t testable_features(const BackendTable& b) {
  if (std::strcmp(b.name, "simd") == 0) return cvm::test::simd_testable_features();
  return b.cpu_features != nullptr ? b.cpu_features() : 0;
}

std::string missing_features(uint32_t missing) {
  std::string s;
  for (int i = 0; i < cvm::kernel::kNumCpuFeatures; ++i) {
    if (missing & (1u << i)) {
      s += (s.empty() ? "" : " ") + std::string(cvm::kernel::kCpuFeatureNames[i]);
    }
  }
  return s;
}

struct TableStats {
  size_t visited = 0, tested = 0, skipped = 0;
  int64_t runs = 0, took = 0, declined = 0;
  std::map<std::string, std::vector<std::string>> skipped_by_features;  // missing -> entries
  bool reported = false;
};

}  // namespace

TEST_CASE("kernel tables: every entry equals the scalar reference on generated operator calls",
          "[kernels]") {
  RestoreThreads restore;
  static std::map<std::string, TableStats> stats;
  const int scalar = scalar_index();
  const auto& tables = cvm::backend_tables();
  for (size_t bi = 0; bi < tables.size(); ++bi) {
    const BackendTable& b = *tables[bi];
    // A device table's entries run on device memory (the device's first GPU); without one the
    // table is skipped, with one line saying why.
    const cvm::Device device{static_cast<DLDeviceType>(b.device_type), 0};
    std::string why;
    if (!device.is_cpu() && cvm::device_count(device.type, &why) == 0) {
      static std::set<std::string> said;  // the sections re-enter this loop: say it once
      if (said.insert(b.name).second) {
        WARN("kernel table \"" << b.name << "\": skipped, no " << b.name << " device: " << why);
      }
      continue;
    }
    DYNAMIC_SECTION(b.name) {
      TableStats& ts = stats[b.name];
      for (size_t k = 0; k < b.count; ++k) {
        const KernelEntry& e = b.entries[k];
        DYNAMIC_SECTION(e.name) {
          ++ts.visited;
          const uint32_t missing = e.required_features & ~testable_features(b);
          if (missing != 0) {
            ++ts.skipped;
            ts.skipped_by_features[missing_features(missing)].push_back(e.name);
          } else {
            ++ts.tested;
            const EntryStats s =
                check_entry(e, static_cast<int>(bi) == scalar, restore.min_work, device);
            ts.runs += s.runs;
            ts.took += s.took;
            ts.declined += s.declined;
            INFO(e.name << ": " << s.runs << " calls headed, " << s.took << " taken, "
                        << s.declined << " declined");
            CHECK(s.failures == 0);
            CHECK(s.took > 0);  // the generators must reach every entry
          }
        }
      }
      if (ts.visited == b.count && !ts.reported) {
        ts.reported = true;
        // One line per table, and one per set of missing features, not one per skipped entry.
        std::ostringstream skipped;
        for (const auto& [features, names] : ts.skipped_by_features) {
          skipped << "\n  skipped, the CPU lacks " << features << ": " << names.size()
                  << " entries (" << names.front() << (names.size() > 1 ? ", ..." : "") << ")";
        }
        WARN("kernel table \"" << b.name << "\": " << ts.tested << " of " << b.count
                               << " entries tested, " << ts.skipped
                               << " skipped for CPU features; " << ts.runs << " calls headed, "
                               << ts.took << " taken, " << ts.declined << " declined"
                               << skipped.str());
      }
    }
  }
}

TEST_CASE("kernel tables: every table entry's op is dispatched by some operator", "[kernels]") {
  std::set<std::string> dispatched;
  for (const cvm::ops::OpDef* op : cvm::ops::all_ops()) {
    for (const char* k : op->kernel_ops()) dispatched.insert(k);
  }
  std::set<std::string> table_ops;
  for (const BackendTable* b : cvm::backend_tables()) {
    for (size_t k = 0; k < b->count; ++k) {
      const KernelEntry& e = b->entries[k];
      table_ops.insert(e.op);
      INFO(b->name << " entry " << e.name << " (op \"" << e.op << "\")");
      CHECK((dispatched.count(e.op) == 1 || non_operator_op(e.op)));
    }
  }
  // The exceptions are real table ops, not dispatched by an operator after all.
  for (const char* k : kNonOperatorKernelOps) {
    INFO("kernel op " << k);
    CHECK(table_ops.count(k) == 1);
    CHECK(dispatched.count(k) == 0);
  }
  // And every kernel op an operator dispatches has an entry somewhere.
  for (const std::string& k : dispatched) {
    INFO("kernel op " << k);
    CHECK(table_ops.count(k) == 1);
  }
}

TEST_CASE("kernel tables: every operator with a kernel has parity cases", "[kernels]") {
  int with_cases = 0;
  for (const cvm::ops::OpDef* op : cvm::ops::all_ops()) {
    if (op->kernel_ops().empty()) continue;
    std::vector<std::string> dtypes;
    for (DataType t : cvm::kAllDataTypes) {
      if (!cvm::test::op_cases(op->name(), t).empty()) dtypes.push_back(t.name());
    }
    INFO("operator " << op->name());
    CHECK_FALSE(dtypes.empty());
    with_cases += dtypes.empty() ? 0 : 1;
  }
  CHECK(with_cases > 0);
}

// Breadth beyond the curated cases: the int32 GEMM entries (conv2d and dense) pinned on random
// shapes, groups, strides, dilations, paddings and value ranges, against the reference. [large]:
// native runs only (not under node).
TEST_CASE("kernel tables: conv2d and dense entries on random shapes", "[kernels][large]") {
  std::mt19937_64 rng(20261127);
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  // int8 and int16 operands (the narrow paths), and wider ones (int32 lanes, declines).
  const int64_t ranges[][2] = {
      {-128, 127}, {-32768, 32767}, {-(int64_t{1} << 24), int64_t{1} << 24}};
  std::vector<OpCase> cases;
  for (int i = 0; i < 300; ++i) {
    const int64_t* r = ranges[pick(0, 2)];
    const int64_t groups = pick(1, 3) == 1 ? pick(1, 4) : 1;
    const int64_t cin = groups * pick(1, 9), cout = groups * pick(1, 12);
    const int64_t kh = pick(1, 5), kw = pick(1, 5), sh = pick(1, 3), sw = pick(1, 3);
    const int64_t dh = pick(1, 2), dw = pick(1, 2), ph = pick(0, 2), pw = pick(0, 2);
    const int64_t h = std::max<int64_t>(dh * (kh - 1) + 1 - 2 * ph, 1) + pick(0, 12);
    const int64_t w = std::max<int64_t>(dw * (kw - 1) + 1 - 2 * pw, 1) + pick(0, 12);
    const bool bias = pick(0, 1) == 1;
    OpCase c;
    c.op = "conv2d";
    c.attrs = {{"channels", std::to_string(cout)},
               {"kernel_size", "(" + std::to_string(kh) + ", " + std::to_string(kw) + ")"},
               {"strides", "(" + std::to_string(sh) + ", " + std::to_string(sw) + ")"},
               {"dilation", "(" + std::to_string(dh) + ", " + std::to_string(dw) + ")"},
               {"padding", "(" + std::to_string(ph) + ", " + std::to_string(pw) + ")"},
               {"groups", std::to_string(groups)},
               {"use_bias", bias ? "True" : "False"}};
    c.inputs = {cvm::test::random_in(Shape{pick(1, 2), cin, h, w}, r[0], r[1], rng()),
                cvm::test::random_in(Shape{cout, cin / groups, kh, kw}, r[0], r[1], rng())};
    if (bias) c.inputs.push_back(cvm::test::random_in(Shape{cout}, -100000, 100000, rng()));
    c.what = "random conv2d #" + std::to_string(i);
    cases.push_back(std::move(c));
  }
  for (int i = 0; i < 300; ++i) {
    const int64_t* r = ranges[pick(0, 2)];
    const int64_t rows = pick(1, 3) == 1 ? 1 : pick(1, 40), k = pick(1, 300), units = pick(1, 70);
    const bool bias = pick(0, 1) == 1;
    OpCase c;
    c.op = "dense";
    c.attrs = {{"units", std::to_string(units)}, {"use_bias", bias ? "True" : "False"}};
    c.inputs = {cvm::test::random_in(Shape{rows, k}, r[0], r[1], rng()),
                cvm::test::random_in(Shape{units, k}, r[0], r[1], rng())};
    if (bias) c.inputs.push_back(cvm::test::random_in(Shape{units}, -100000, 100000, rng()));
    c.what = "random dense #" + std::to_string(i);
    cases.push_back(std::move(c));
  }
  RestoreThreads restore;
  int64_t compared = 0;
  for (const BackendTable* b : cvm::backend_tables()) {
    if (std::strcmp(b->name, "scalar") == 0) continue;
    const cvm::Device device{static_cast<DLDeviceType>(b->device_type), 0};
    if (!device.is_cpu() && cvm::device_count(device.type) == 0) continue;  // said above
    for (size_t k = 0; k < b->count; ++k) {
      const KernelEntry& e = b->entries[k];
      const bool gemm = std::strcmp(e.op, "conv2d") == 0 || std::strcmp(e.op, "dense") == 0;
      if (!gemm || e.dtype != ElemType::kInt32) continue;
      if ((e.required_features & ~testable_features(*b)) != 0) continue;
      DYNAMIC_SECTION(e.name) {
        for (const OpCase& c : cases) {
          if (c.op != e.op) continue;
          INFO(e.name << ": " << c.what);
          for (int threads : kThreadCounts) {
            use_threads(threads, restore.min_work);
            const Run want = run_case(c, scalar_policy());
            const Run got = run_case(c, ChainPolicy{-1, &e}, false, device);
            CHECK(difference(want.outputs, got.outputs).empty());
            ++compared;
          }
        }
      }
    }
  }
  INFO(compared << " pinned runs compared");
  CHECK((compared > 0 || cvm::backend_tables().size() == 1));
}
