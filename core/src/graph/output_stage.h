// Output-stage fusion: the int32 clamps after a conv2d or dense (shift, clip, relu) as one pass.
#pragma once

#include <cstdint>
#include <vector>

#include "graph.h"
#include "params/elementwise.h"
#include "planner.h"

namespace cvm {
namespace graph {

// A quantized model requantizes every conv2d / dense output with a run of elementwise nodes,
// typically cvm_right_shift, cvm_clip and relu, each a pass over the activation. Clamps
// compose: clamp(clamp(x, a, b), c, d) = clamp(x, max(a, c), min(b, d)) whenever that interval
// is not empty, so such a run is one clamp after at most one rounding shift, computed by one
// cvm_right_shift (or clip) kernel call with the same bits as the nodes one by one.
struct ClampFusion {
  uint32_t head = 0;           // the conv2d / dense node
  uint32_t first = 0;          // the run's first node: it computes the whole run in one pass
  std::vector<uint32_t> rest;  // the run's other nodes, which then compute nothing
  uint32_t in = 0;             // entry the pass reads: the conv2d / dense output
  uint32_t out = 0;            // entry it writes: the run's last output
  kernel::CvmClampParams clamp{};  // shift 0: no shift (a clip pass)
  // The head may write `out` itself, with the clamp passed to its kernels (Conv2dParams::clamp,
  // DenseParams::clamp): `out` lies apart from every input it reads in the memory plan.
  bool head_writes_out = false;
};

// The fusable runs of a CVM graph: after a conv2d or dense node, the nodes that execute next
// (node order, variables aside), each an int32 clamp (OpDef::as_clamp) of the previous one's
// output that nothing else reads and that is not a graph output; a shift only first; the
// combined interval never empty; and the last output either in the head output's own block or
// apart from it in the plan (never partly overlapping). A single node fuses too: the head's
// kernel may apply it as it stores (else the pass is the node itself). None in float graphs.
std::vector<ClampFusion> find_clamp_fusions(const Graph& g, const MemoryPlan& plan);

}  // namespace graph
}  // namespace cvm
