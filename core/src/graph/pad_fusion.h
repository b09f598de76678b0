// Pad fusion: a chain of concatenations with constant blocks (constant padding, one axis a
// node) computed as one pad pass.
#pragma once

#include <cstdint>
#include <vector>

#include "graph.h"

namespace cvm {
namespace graph {

// CVM has no pad operator, so the quantizer writes an ONNX Pad as one concatenate per padded
// axis, each of the activation between constant blocks of the pad value; padding H and W
// copies the activation twice. Concatenating blocks of one value v around x along an axis is a
// constant pad of x with v on that axis, and a chain of them is one pad with the pads of each
// axis added up: one pad kernel call from the chain's first input gives the same bits.
struct PadFusion {
  uint32_t first = 0;          // the chain's first node: it computes the whole chain
  std::vector<uint32_t> rest;  // the chain's other nodes, which then compute nothing
  uint32_t in = 0;             // entry the pass reads: the activation the first node pads
  uint32_t out = 0;            // entry it writes: the last node's output
  std::vector<int64_t> begin;  // padding before `in` along each axis (in.ndim() values)
  int32_t value = 0;           // the fill value
  // The conv2d that reads the chain's output, when it can take the padding itself (kNoConv
  // otherwise): a session then computes no node of the chain and runs the conv from `in` with
  // `begin`'s rows and columns added to its padding before the input, the output extent giving
  // the padding after it (kernel::Conv2dParams). It can when the value is 0 (conv2d pads with
  // zeros), only H and W (axes 2, 3) are padded, by no less after the input than before it,
  // and the conv reads the output as its data (input 0) and nothing else reads it.
  static constexpr uint32_t kNoConv = UINT32_MAX;
  uint32_t conv = kNoConv;
  // The node until which the memory plan keeps `in` live: the conv, else the chain's last node.
  uint32_t reads_in_until() const { return conv != kNoConv ? conv : rest.back(); }
};

// The fusable chains of a CVM graph: two or more concatenate nodes that execute one after
// another (node order, variables aside), each with one activation input and, on either side of
// it, blocks that are params holding nothing but `value` (the same value along the chain),
// each padding the previous one's output, which nothing else reads and which is not a graph
// output; and for each, the conv2d that can take its padding (PadFusion::conv). `param_data[eid]`
// is a param's int32 elements, null for the other entries. None in float graphs. The pass reads
// `in` while it writes `out`, the conv while it writes its output: the memory planner keeps `in`
// live until reads_in_until() (plan_memory's keep_live), so that they lie apart.
std::vector<PadFusion> find_pad_fusions(const Graph& g,
                                        const std::vector<const void*>& param_data);

}  // namespace graph
}  // namespace cvm
