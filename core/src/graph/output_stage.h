// Output-stage fusion: the int32 clamps after a conv2d, dense or add (shift, clip, relu) in a pass.
#pragma once

#include <cstdint>
#include <vector>

#include "graph.h"
#include "params/elementwise.h"
#include "planner.h"

namespace cvm {
namespace graph {

// A quantized model requantizes every conv2d / dense output (and every residual add) with a run
// of elementwise nodes, typically cvm_right_shift, cvm_clip and relu, each a pass over the
// activation. Clamps compose: clamp(clamp(x, a, b), c, d) = clamp(x, max(a, c), min(b, d))
// whenever that interval is not empty, so such a run is one clamp after at most one rounding
// shift, computed by one cvm_right_shift (or clip) kernel call with the same bits as the nodes
// one by one.
struct ClampFusion {
  uint32_t head = 0;           // the node before the run (conv2d, dense, elemwise_add / _sub:
                               // its kernels may apply it)
  uint32_t first = 0;          // the run's first node: it computes the whole run in one pass
  std::vector<uint32_t> rest;  // the run's other nodes, which then compute nothing
  uint32_t in = 0;             // entry the pass reads: the head's output
  uint32_t out = 0;            // entry it writes: the run's last output
  kernel::CvmClampParams clamp{};  // shift 0: no shift (a clip pass)
  // The head may write `out` itself, with the clamp passed to its kernels (Conv2dParams::clamp,
  // DenseParams::clamp, the add / sub kernels' params): `out` lies apart from every input it
  // reads in the memory plan (an add's may also be the very block of an input).
  bool head_writes_out = false;
  // After a conv2d's run, a model quantized with per-channel weight scales multiplies each
  // channel by a constant (broadcast_mul) and requantizes again with a second run of clamps.
  // With has_scale the fusion covers that too: `out` is the second run's last output, the head
  // writes it (head_writes_out), and when its kernel does not apply the whole stage
  // (Conv2dParams::scale) the session computes each part in place there.
  bool has_scale = false;
  struct Scale {
    uint32_t node = 0;        // the broadcast_mul
    uint32_t multiplier = 0;  // its constant input: (C, 1, 1) or (1, C, 1, 1)
    uint32_t first = 0;       // the second run's first node: it computes the run in one pass
    std::vector<uint32_t> rest;
    kernel::CvmClampParams clamp{};
  } scale;
};

// The fusable runs of a CVM graph: after a node (the head), the nodes that execute next (node
// order, variables aside), each an int32 clamp (OpDef::as_clamp) of the previous one's output
// that nothing else reads and that is not a graph output; a shift only first; the combined
// interval never empty; and the last output either in the head output's own block or apart
// from it in the plan (never partly overlapping). At least two nodes, or after a conv2d, dense,
// elemwise_add or elemwise_sub a single one too: the head's kernel may apply it as it stores
// (else the pass is the node itself); only those heads write the run's output themselves.
// After a conv2d, also a per-channel broadcast_mul by a constant and the clamp run after it
// (ClampFusion::has_scale), when the head may write that run's last output. None in float
// graphs.
std::vector<ClampFusion> find_clamp_fusions(const Graph& g, const MemoryPlan& plan);

}  // namespace graph
}  // namespace cvm
