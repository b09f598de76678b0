// Kernel chains for the op layer, built from the backends' tables: resolved once per node when a
// session is made (or per call of run_op), then run without any lookup.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvm/device.h"
#include "cvm/dtype.h"
#include "kernel_abi.h"

namespace cvm {

// The kernel element type of a supported DataType.
kernel::ElemType elem_type_of(DataType t);
// "int32", "float32", ..., "any".
const char* elem_type_name(kernel::ElemType t);

// One kernel an operator calls: the kernel op ("add", "reduce_sum", "conv2d") and the element
// type it is asked for.
struct KernelKey {
  const char* op;
  kernel::ElemType dtype;
};

// The table entries that may run one kernel call of a node, best first: the chosen backend's
// usable entries for the key in table order (those whose shape preference the node does not
// suit moved behind the rest), then the scalar reference's entry, which takes every call. A
// kernel that declines a call passes it to the next entry.
struct KernelChain {
  KernelKey key{nullptr, kernel::ElemType::kAny};
  std::vector<const kernel::KernelEntry*> entries;
  // Why entries of the key are not in the chain, or not where the table put them: e.g.
  // "conv2d_i8i32__amx: CPU lacks amx-tile amx-int8",
  // "dense_i8i32__amx: moved last, does not suit these shapes".
  std::vector<std::string> notes;
  // The entry that took the chain's last call (null before one): provenance for Session and
  // tests. Written by the op layer on the calling thread; a chain belongs to one session.
  mutable const kernel::KernelEntry* last_ran = nullptr;
};

// How chains are built: which compiled backend heads them, optionally pinned to one entry (the
// generated parity tests: that entry, then the scalar reference).
struct ChainPolicy {
  int backend = -1;                          // index into backend_tables(); -1: scalar only
  const kernel::KernelEntry* pin = nullptr;  // non-null: this entry alone heads every chain of
                                             // its key; other keys get the scalar reference
};

// The policy of the backend named `name` ("auto" or "": the one preferred now on this thread:
// ScopedThreadBackend, else set_backend / CVMRT_BACKEND). LogicError for an unknown name.
ChainPolicy chain_policy(const std::string& name = "auto");

// The chain for `key` on `device` under `policy`; `inputs` (may be null) are the call's input
// views, for the entries' shape preferences. LogicError when no compiled backend has the key.
// Counts one registry lookup (registry_lookups()).
KernelChain resolve_chain(const ChainPolicy& policy, KernelKey key, Device device,
                          const kernel::TensorView* inputs = nullptr, int32_t num_inputs = 0);

// Chains resolved so far in this process: a session's runs must not add to it (tested).
uint64_t registry_lookups();

// The compiled backends' tables, best first (scalar last).
const std::vector<const kernel::BackendTable*>& backend_tables();

// Whether entry `e` of table `b` can run on this machine (its CPU features, after CVMRT_ISA).
bool entry_usable(const kernel::BackendTable& b, const kernel::KernelEntry& e);

// The compiled table that holds entry `e`, or null (an entry of no table, e.g. a test's).
const kernel::BackendTable* table_of(const kernel::KernelEntry& e);
// How entry `e` computes: the part of its name after "__" ("avx512vnni" of
// "conv2d_i8i32__avx512vnni"; "" for a name without one).
std::string how_of(const kernel::KernelEntry& e);
// Whether `backend` ("" or "auto": any compiled backend) has an entry for kernel op `op` that
// serves element type `t` and can run on this machine. False for a backend not compiled in.
bool has_usable_kernel(const char* op, kernel::ElemType t, const std::string& backend);

}  // namespace cvm
