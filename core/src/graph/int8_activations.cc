// The int8 activation plan of a CPU session: which entries are int8, and their views' offsets.
#include "int8_activations.h"

namespace cvm {
namespace graph {

namespace {

using Kind = ActivationUse::Kind;

bool within_int8(const Entry& e) { return e.precision >= 1 && e.precision <= 8; }

}  // namespace

std::vector<bool> plan_int8_entries(const Graph& g, const MemoryPlan& plan,
                                    const std::vector<ActivationUse>& uses, uint32_t data_entry) {
  const size_t count = g.entries.size();
  std::vector<bool> written(count, false);  // by a step that may write it as int8
  written[data_entry] = true;
  for (const ActivationUse& u : uses) {
    if (u.kind == Kind::kTogether || (u.kind == Kind::kGemm && u.int8_write)) {
      for (uint32_t e : u.writes) written[e] = true;
    }
  }
  std::vector<bool> int8(count, false);
  for (size_t e = 0; e < count; ++e) {
    int8[e] = written[e] && plan.offset[e] >= 0 && within_int8(g.entries[e]);
  }
  for (uint32_t e : g.heads) int8[e] = false;
  auto wide = [&](const std::vector<uint32_t>& entries, size_t from) {
    for (size_t i = from; i < entries.size(); ++i) int8[entries[i]] = false;
  };
  for (const ActivationUse& u : uses) {
    if (u.kind == Kind::kInt32) {
      wide(u.reads, 0);
      wide(u.writes, 0);
    } else if (u.kind == Kind::kGemm) {
      wide(u.reads, 1);
      if (!u.int8_write) wide(u.writes, 0);
    }
  }
  // Steps that take their entries together, until none changes: int8 only if every one can be.
  auto can = [&](uint32_t e) {
    return plan.offset[e] < 0 ? within_int8(g.entries[e]) : static_cast<bool>(int8[e]);
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const ActivationUse& u : uses) {
      if (u.kind != Kind::kTogether) continue;
      bool all = true;
      for (uint32_t e : u.reads) all = all && can(e);
      for (uint32_t e : u.writes) all = all && can(e);
      if (all) continue;
      for (const std::vector<uint32_t>* list : {&u.reads, &u.writes}) {
        for (uint32_t e : *list) {
          changed = changed || int8[e];
          int8[e] = false;
        }
      }
    }
  }
  return int8;
}

std::vector<int64_t> int8_offsets(const Graph& g, const MemoryPlan& plan,
                                  const std::vector<bool>& int8) {
  std::vector<int64_t> at = plan.offset;
  for (const Node& n : g.nodes) {
    if (n.op_name != "concatenate" || !int8[n.first_entry]) continue;
    const int64_t lo = plan.offset[n.first_entry];
    const int64_t hi = lo + 4 * g.entries[n.first_entry].shape.numel();
    for (uint32_t in : n.inputs) {
      // Inside the output's block: in place (an input apart from it is copied). Nothing else
      // shares such a slice (planner.h: no in-place takeover of a concatenate's input).
      if (!int8[in] || plan.offset[in] < lo || plan.offset[in] >= hi) continue;
      at[in] = lo + (plan.offset[in] - lo) / 4;
    }
  }
  return at;
}

}  // namespace graph
}  // namespace cvm
