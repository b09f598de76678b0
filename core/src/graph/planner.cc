// Liveness-based memory planner: in-place reuse, best-fit blocks, concatenate inputs in place.
#include "planner.h"

#include <algorithm>
#include <map>

#include "cvm/check.h"

namespace cvm {
namespace graph {
namespace {

constexpr int64_t kNeverUsed = -1;
constexpr int64_t kForever = INT64_MAX;

uint64_t block_bytes(const Entry& e) {
  const uint64_t bytes = static_cast<uint64_t>(e.shape.numel()) * 4;
  return (bytes + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment;
}

class Planner {
 public:
  explicit Planner(const Graph& g) : g_(g), block_of_(g.entries.size(), -1) {}

  MemoryPlan run(const std::vector<KeepLive>& keep_live) {
    std::vector<int64_t> last_use(g_.entries.size(), kNeverUsed);
    // Per node, the entries it reads, and those kept live until it runs.
    std::vector<std::vector<uint32_t>> reads(g_.nodes.size());
    for (uint32_t nid = 0; nid < g_.nodes.size(); ++nid) reads[nid] = g_.nodes[nid].inputs;
    for (const KeepLive& k : keep_live) reads[k.until_node].push_back(k.entry);
    for (uint32_t nid = 0; nid < g_.nodes.size(); ++nid) {
      for (uint32_t eid : reads[nid]) last_use[eid] = std::max<int64_t>(last_use[eid], nid);
    }
    for (uint32_t h : g_.heads) last_use[h] = kForever;
    find_concat_members();

    MemoryPlan plan;
    // The input is written before the run and must survive it (a session may run again
    // without setting it): its block is never released.
    const uint32_t data = g_.nodes[g_.data_node].first_entry;
    last_use[data] = kForever;
    place(data);

    for (uint32_t nid = 0; nid < g_.nodes.size(); ++nid) {
      const Node& n = g_.nodes[nid];
      if (n.is_variable()) continue;
      for (uint32_t k = 0; k < n.num_outputs; ++k) {
        const uint32_t eid = n.first_entry + k;
        if (in_concat_[eid] >= 0) {  // in its concatenate's block, placed with its first input
          const uint32_t concat_out = concat_of_[eid];
          if (block_of_[concat_out] < 0) place(concat_out);
          block_of_[eid] = block_of_[concat_out];
          ++blocks_[static_cast<size_t>(block_of_[eid])].refs;  // it may outlive the output
          ++plan.num_in_concat;
          continue;
        }
        if (block_of_[eid] >= 0) continue;  // a concatenate's output, placed already
        const bool same_shape =
            !n.inputs.empty() && g_.entries[n.inputs[0]].shape == g_.entries[eid].shape;
        if (k == 0 && (n.op->inplace() || (n.op->reuses_input0() && same_shape)) &&
            can_take_over(n.inputs[0], eid, nid, last_use)) {
          block_of_[eid] = block_of_[n.inputs[0]];
          ++blocks_[static_cast<size_t>(block_of_[eid])].refs;
          ++plan.num_inplace;
          continue;
        }
        place(eid);
      }
      std::vector<uint32_t> inputs = reads[nid];
      std::sort(inputs.begin(), inputs.end());
      inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
      for (uint32_t eid : inputs) {
        if (last_use[eid] == nid && block_of_[eid] >= 0) release(eid);
      }
      for (uint32_t k = 0; k < n.num_outputs; ++k) {
        if (last_use[n.first_entry + k] == kNeverUsed) release(n.first_entry + k);
      }
    }

    std::vector<uint64_t> block_offset(blocks_.size());
    for (size_t b = 0; b < blocks_.size(); ++b) {
      block_offset[b] = plan.arena_bytes;
      plan.arena_bytes += blocks_[b].size;
    }
    plan.offset.assign(g_.entries.size(), -1);
    for (size_t eid = 0; eid < g_.entries.size(); ++eid) {
      if (block_of_[eid] >= 0) {
        plan.offset[eid] = static_cast<int64_t>(block_offset[static_cast<size_t>(block_of_[eid])]) +
                           std::max<int64_t>(0, in_concat_[eid]);
      }
    }
    plan.num_blocks = blocks_.size();
    return plan;
  }

 private:
  struct Block {
    uint64_t size = 0;
    int refs = 0;  // live entries in the block
  };

  // The concatenate inputs placed inside their concatenate's output (plan_memory's rule):
  // in_concat_[eid] their byte offset there, concat_of_[eid] that output; -1 for the others.
  void find_concat_members() {
    in_concat_.assign(g_.entries.size(), -1);
    concat_of_.assign(g_.entries.size(), 0);
    std::vector<bool> head(g_.entries.size(), false);
    for (uint32_t h : g_.heads) head[h] = true;
    const uint32_t data = g_.nodes[g_.data_node].first_entry;
    for (const Node& c : g_.nodes) {
      if (c.op_name != "concatenate" || c.inputs.size() < 2) continue;
      const Shape& out = g_.entries[c.first_entry].shape;
      const Shape& first = g_.entries[c.inputs[0]].shape;
      int axis = 0;  // the first axis where input 0 and the output differ
      while (axis < out.ndim() && first[axis] == out[axis]) ++axis;
      int64_t outer = 1;
      for (int d = 0; d < axis && d < out.ndim(); ++d) outer *= out[d];
      if (axis == out.ndim() || outer != 1) continue;  // inputs not one after another
      int64_t at = 0;
      for (uint32_t eid : c.inputs) {
        const Node& producer = g_.nodes[node_of_entry(g_, eid)];
        const bool aligned = at % static_cast<int64_t>(MemoryPlan::kAlignment) == 0;
        const bool once = std::count(c.inputs.begin(), c.inputs.end(), eid) == 1;
        // Not yet another concatenate's input (an entry may feed several).
        if (once && in_concat_[eid] < 0 && !head[eid] && eid != data && aligned &&
            !producer.is_variable() && producer.op_name != "concatenate") {
          in_concat_[eid] = at;
          concat_of_[eid] = c.first_entry;
        }
        at += g_.entries[eid].shape.numel() * 4;
      }
    }
  }

  // Output `eid` of node `nid` may reuse the block of its input 0 `in`.
  // (Never the input: its last use is "forever"; never an input inside a concatenate's block.)
  bool can_take_over(uint32_t in, uint32_t eid, uint32_t nid,
                     const std::vector<int64_t>& last_use) const {
    return last_use[in] == nid && block_of_[in] >= 0 && in_concat_[in] < 0 &&
           g_.entries[in].shape.numel() == g_.entries[eid].shape.numel() &&
           blocks_[static_cast<size_t>(block_of_[in])].refs == 1;
  }

  void place(uint32_t eid) {
    const uint64_t need = block_bytes(g_.entries[eid]);
    int b;
    auto fit = free_.lower_bound(need);
    if (fit != free_.end()) {
      b = fit->second;
      free_.erase(fit);
    } else if (!free_.empty()) {
      auto largest = std::prev(free_.end());
      b = largest->second;
      free_.erase(largest);
      blocks_[static_cast<size_t>(b)].size = need;
    } else {
      blocks_.push_back(Block{need, 0});
      b = static_cast<int>(blocks_.size() - 1);
    }
    block_of_[eid] = b;
    blocks_[static_cast<size_t>(b)].refs = 1;
  }

  void release(uint32_t eid) {
    const int b = block_of_[eid];
    Block& block = blocks_[static_cast<size_t>(b)];
    CHECK(block.refs > 0) << "memory planner: block " << b << " released twice";
    if (--block.refs == 0) free_.emplace(block.size, b);
  }

  const Graph& g_;
  std::vector<int> block_of_;
  std::vector<int64_t> in_concat_;
  std::vector<uint32_t> concat_of_;
  std::vector<Block> blocks_;
  std::multimap<uint64_t, int> free_;  // size -> block; ties: the earliest freed first
};

}  // namespace

MemoryPlan plan_memory(const Graph& g, const std::vector<KeepLive>& keep_live) {
  return Planner(g).run(keep_live);
}

bool apart_in_plan(const Graph& g, const MemoryPlan& plan, uint32_t a, uint32_t b) {
  const int64_t a_at = plan.offset[a], b_at = plan.offset[b];
  const int64_t a_end = a_at + g.entries[a].shape.numel() * 4;
  const int64_t b_end = b_at + g.entries[b].shape.numel() * 4;
  return a_end <= b_at || b_end <= a_at;
}

}  // namespace graph
}  // namespace cvm
