// Which activations a CPU session holds as int8 (SessionOptions::int8_activations), and where.
#pragma once

#include <cstdint>
#include <vector>

#include "graph.h"
#include "planner.h"

namespace cvm {
namespace graph {

// How one step of a session meets the entries it reads and writes (entry ids; a pass's reads
// are the entry it reads, not its node's inputs).
struct ActivationUse {
  enum class Kind {
    kNone,      // computes nothing (fused into another step)
    kInt32,     // reads and writes int32 only
    kTogether,  // its kernels take int8 views when every view is int8: all int8, or all int32
    kGemm,      // conv2d / dense whose kernels take int8 activations: reads[0] (the data) either
                // way, its other reads (weights, bias) int32; writes[0] int8 only with int8_write
  };
  Kind kind = Kind::kNone;
  std::vector<uint32_t> reads, writes;
  bool int8_write = false;  // kGemm: it writes its clamp run's output, whose last clamp fits int8
};

// Per entry, whether the session holds it as int8: an arena entry of precision <= 8, not a
// graph output, written by a step that may write it as int8 (kTogether, or kGemm with
// int8_write) or the input `data_entry` (narrowed as it is written), and read only by steps
// that may read it so; every entry of a kTogether step int8 or none (a param among its reads
// may be, with a precision <= 8: the session reads an int8 copy).
std::vector<bool> plan_int8_entries(const Graph& g, const MemoryPlan& plan,
                                    const std::vector<ActivationUse>& uses, uint32_t data_entry);

// The arena byte offset of each int8 entry's view: its block's own, except for the inputs a
// concatenate held as int8 has in place (planner.h): those lie at their slice of the int8
// concatenation, at their offset / 4 within its block.
std::vector<int64_t> int8_offsets(const Graph& g, const MemoryPlan& plan,
                                  const std::vector<bool>& int8);

}  // namespace graph
}  // namespace cvm
