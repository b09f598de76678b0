// Finds the runs of int32 clamps after conv2d / dense nodes that a session computes in one pass.
#include "output_stage.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "op_def.h"

namespace cvm {
namespace graph {

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
    if (run.empty() || (run.size() < 2 && head.op_name != "conv2d")) continue;
    const int64_t in_at = plan.offset[f.in], out_at = plan.offset[f.out];
    const int64_t bytes = g.entries[f.in].shape.numel() * 4;
    const bool apart = out_at + bytes <= in_at || in_at + bytes <= out_at;
    if (in_at < 0 || out_at < 0 || !(in_at == out_at || apart)) continue;
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
