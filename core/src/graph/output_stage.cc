// Finds the runs of int32 clamps after conv2d / dense nodes that a session computes in one pass.
#include "output_stage.h"

#include <algorithm>
#include <limits>

#include "op_def.h"

namespace cvm {
namespace graph {
namespace {

// Whether entries a and b occupy the same arena block, or none of each other's bytes.
bool same_or_apart(const Graph& g, const MemoryPlan& plan, uint32_t a, uint32_t b) {
  const int64_t a_at = plan.offset[a], b_at = plan.offset[b];
  const int64_t a_end = a_at + g.entries[a].shape.numel() * 4;
  const int64_t b_end = b_at + g.entries[b].shape.numel() * 4;
  return a_at == b_at || a_end <= b_at || b_end <= a_at;
}

}  // namespace

std::vector<ClampFusion> find_clamp_fusions(const Graph& g, const MemoryPlan& plan) {
  std::vector<ClampFusion> fusions;
  if (g.is_float()) return fusions;
  std::vector<uint32_t> order;  // execution order: every operator node
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (!g.nodes[nid].is_variable()) order.push_back(nid);
  }
  std::vector<uint32_t> readers(g.entries.size(), 0);
  for (const Node& n : g.nodes) {
    for (uint32_t eid : n.inputs) ++readers[eid];
  }
  for (uint32_t eid : g.heads) ++readers[eid];  // an output is read after the run
  for (size_t i = 0; i < order.size(); ++i) {
    const Node& head = g.nodes[order[i]];
    if (head.op_name != "conv2d" && head.op_name != "dense") continue;
    ClampFusion f;
    f.in = f.out = head.first_entry;
    f.clamp = {0, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    std::vector<uint32_t> run;
    size_t k = i + 1;
    for (; k < order.size(); ++k) {
      const Node& n = g.nodes[order[k]];
      kernel::CvmClampParams c{};
      if (readers[f.out] != 1 || n.inputs.size() != 1 || n.inputs[0] != f.out ||
          n.num_outputs != 1 || !n.op->as_clamp(*n.parsed, &c) || (c.shift > 0 && !run.empty())) {
        break;
      }
      const int32_t lo = std::max(f.clamp.lo, c.lo), hi = std::min(f.clamp.hi, c.hi);
      if (lo > hi) break;
      f.clamp = {c.shift > 0 ? c.shift : f.clamp.shift, lo, hi};
      run.push_back(order[k]);
      f.out = n.first_entry;
    }
    if (run.empty()) continue;
    if (plan.offset[f.in] < 0 || plan.offset[f.out] < 0 || !same_or_apart(g, plan, f.in, f.out)) {
      continue;
    }
    f.head_writes_out = true;
    for (uint32_t eid : head.inputs) {  // activations it reads while it writes; params aside
      if (plan.offset[eid] < 0) continue;
      f.head_writes_out = f.head_writes_out && plan.offset[eid] != plan.offset[f.out] &&
                          same_or_apart(g, plan, eid, f.out);
    }
    f.head = order[i];
    f.first = run.front();
    f.rest.assign(run.begin() + 1, run.end());
    fusions.push_back(f);
    i = k - 1;
  }
  return fusions;
}

}  // namespace graph
}  // namespace cvm
