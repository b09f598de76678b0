// Finds the runs of int32 clamps after a node that a session computes in one pass.
#include "output_stage.h"

#include <algorithm>
#include <limits>

#include "op_def.h"

namespace cvm {
namespace graph {
namespace {

// Whether entries a and b occupy the same arena block, or none of each other's bytes.
bool same_or_apart(const Graph& g, const MemoryPlan& plan, uint32_t a, uint32_t b) {
  return plan.offset[a] == plan.offset[b] || apart_in_plan(g, plan, a, b);
}

// A run of int32 clamps from entry `from` at order[k] on (output_stage.h's rules): its nodes,
// the combined clamp and its last output; k is left at the first node after it.
struct Run {
  std::vector<uint32_t> nodes;
  kernel::CvmClampParams clamp{0, std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max()};
  uint32_t out = 0;
};

Run clamp_run(const Graph& g, const std::vector<uint32_t>& order,
              const std::vector<uint32_t>& readers, uint32_t from, size_t& k) {
  Run r;
  r.out = from;
  for (; k < order.size(); ++k) {
    const Node& n = g.nodes[order[k]];
    kernel::CvmClampParams c{};
    if (readers[r.out] != 1 || n.inputs.size() != 1 || n.inputs[0] != r.out ||
        n.num_outputs != 1 || !n.op->as_clamp(*n.parsed, &c) || (c.shift > 0 && !r.nodes.empty())) {
      break;
    }
    const int32_t lo = std::max(r.clamp.lo, c.lo), hi = std::min(r.clamp.hi, c.hi);
    if (lo > hi) break;
    r.clamp = {c.shift > 0 ? c.shift : r.clamp.shift, lo, hi};
    r.nodes.push_back(order[k]);
    r.out = n.first_entry;
  }
  return r;
}

// Whether node n is a broadcast_mul of `act` (an NCHW activation, read only there) by a
// constant with one value per channel, shaped (C, 1, 1) or (1, C, 1, 1); its index in n.inputs.
int channel_multiply(const Graph& g, const MemoryPlan& plan, const std::vector<uint32_t>& readers,
                     const Node& n, uint32_t act) {
  if (n.op_name != "broadcast_mul" || n.inputs.size() != 2 || readers[act] != 1) return -1;
  const int at = n.inputs[0] == act ? 0 : n.inputs[1] == act ? 1 : -1;
  if (at < 0 || n.inputs[0] == n.inputs[1]) return -1;
  const uint32_t k = n.inputs[1 - at];
  const Shape& a = g.entries[act].shape;
  const Shape& m = g.entries[k].shape;
  if (plan.offset[k] >= 0 || a.ndim() != 4 || g.entries[n.first_entry].shape != a ||
      (m.ndim() != 3 && m.ndim() != 4) || m[m.ndim() - 3] != a[1] || m[m.ndim() - 2] != 1 ||
      m[m.ndim() - 1] != 1 || (m.ndim() == 4 && m[0] != 1)) {
    return -1;
  }
  return at;
}

}  // namespace

std::vector<ClampFusion> find_clamp_fusions(const Graph& g, const MemoryPlan& plan) {
  std::vector<ClampFusion> fusions;
  if (g.is_float()) return fusions;
  const std::vector<uint32_t> order = execution_order(g);
  const std::vector<uint32_t> readers = reader_counts(g);
  // Whether `out` may be written by the head while it reads its inputs: apart from each; for an
  // elementwise head also the very block of one (each element is read before it is written).
  auto writable_by = [&](const Node& head, uint32_t out, bool elementwise) {
    for (uint32_t eid : head.inputs) {  // activations it reads while it writes; params aside
      if (plan.offset[eid] < 0) continue;
      const bool same = plan.offset[eid] == plan.offset[out];
      if ((same && !elementwise) || !same_or_apart(g, plan, eid, out)) return false;
    }
    return true;
  };
  for (size_t i = 0; i < order.size(); ++i) {
    const Node& head = g.nodes[order[i]];
    const bool add = head.op_name == "elemwise_add" || head.op_name == "elemwise_sub";
    // Heads whose kernels may apply the run as they store.
    const bool applies = head.op_name == "conv2d" || head.op_name == "dense" || add;
    if (head.num_outputs != 1) continue;
    size_t k = i + 1;
    const Run run = clamp_run(g, order, readers, head.first_entry, k);
    // After another op, a run of two or more clamps is still one pass instead of several.
    if (run.nodes.size() < (applies ? 1u : 2u)) continue;
    ClampFusion f;
    f.in = head.first_entry;
    f.out = run.out;
    f.clamp = run.clamp;
    // After a conv2d: a per-channel multiply and a second run, all computed in f.out's place.
    if (head.op_name == "conv2d" && k < order.size()) {
      const Node& mul = g.nodes[order[k]];
      const int at = channel_multiply(g, plan, readers, mul, run.out);
      size_t k2 = k + 1;
      const Run then = at < 0 ? Run{} : clamp_run(g, order, readers, mul.first_entry, k2);
      if (!then.nodes.empty() && plan.offset[then.out] >= 0 &&
          same_or_apart(g, plan, f.in, then.out) && writable_by(head, then.out, false)) {
        f.has_scale = true;
        f.scale.node = order[k];
        f.scale.multiplier = mul.inputs[1 - at];
        f.scale.first = then.nodes.front();
        f.scale.rest.assign(then.nodes.begin() + 1, then.nodes.end());
        f.scale.clamp = then.clamp;
        f.out = then.out;
        f.head_writes_out = true;
        k = k2;
      }
    }
    if (plan.offset[f.in] < 0 || plan.offset[f.out] < 0 || !same_or_apart(g, plan, f.in, f.out)) {
      continue;
    }
    if (!f.has_scale) f.head_writes_out = applies && writable_by(head, f.out, add);
    f.head = order[i];
    f.first = run.nodes.front();
    f.rest.assign(run.nodes.begin() + 1, run.nodes.end());
    fusions.push_back(f);
    i = k - 1;
  }
  return fusions;
}

}  // namespace graph
}  // namespace cvm
