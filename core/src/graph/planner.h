// Liveness-based memory planner: places the input and every operator output in one arena,
// reusing the blocks of entries after their last use.
#pragma once

#include <cstdint>
#include <vector>

#include "graph.h"

namespace cvm {
namespace graph {

struct MemoryPlan {
  static constexpr uint64_t kAlignment = 64;  // every block starts at a multiple of this
  // Per entry: byte offset in the arena, or -1 for entries outside it (the params).
  std::vector<int64_t> offset;
  uint64_t arena_bytes = 0;
  size_t num_blocks = 0;
  size_t num_inplace = 0;  // outputs placed in their input's block (OpDef::reuses_input0)
  size_t num_in_concat = 0;  // outputs placed inside a concatenate's output (no copy)
};

// Plans a verified graph (int32 entries):
// - the input "data" gets its own block first and keeps it: it is written before the run, so
//   no earlier operator may use its memory, and it survives the run (run() may be called again
//   without set_input);
// - an operator's outputs are placed before its inputs are released (they are read while the
//   outputs are written), except that output 0 of an in-place operator (OpDef::inplace) takes
//   over input 0's block when input 0 is an activation used for the last time there, not a
//   head and of the same size, and so does that of an elementwise one (OpDef::reuses_input0)
//   of input 0's shape;
// - other outputs take the smallest free block that fits, else the largest free block grown to
//   fit, else a new block; a block is free again after the last use of every entry in it;
// - heads are never released, so every output survives the run;
// - a concatenate whose inputs lie one after another in its output (every axis before the
//   concatenation axis has extent 1) gets its block when the first of its inputs is computed,
//   and each input at a 64-byte boundary of the output, computed by an operator other than a
//   concatenate, not the input "data", not a head and not in another concatenate already, is
//   placed at its slice of that block (before any in-place takeover): its producer writes the
//   concatenation directly and the concatenate copies only the other inputs (it skips a part
//   in place). The block is free again after the last use of the output and of every such
//   input (other nodes may read an input after the concatenate).
// - an entry of keep_live stays live until node until_node has run, as if that node read it
//   (a fused pass reads it there: pad_fusion.h).
struct KeepLive {
  uint32_t entry = 0;
  uint32_t until_node = 0;
};
MemoryPlan plan_memory(const Graph& g, const std::vector<KeepLive>& keep_live = {});

// Whether the arena entries a and b share no byte in `plan` (int32 elements).
bool apart_in_plan(const Graph& g, const MemoryPlan& plan, uint32_t a, uint32_t b);

}  // namespace graph
}  // namespace cvm
