// Finds the chains of concatenations with constant blocks that a session computes as one pad.
#include "pad_fusion.h"

#include <optional>

namespace cvm {
namespace graph {
namespace {

// One concatenate of a chain: its activation input, the padding it adds before that input on
// each axis, and the fill value.
struct Link {
  uint32_t in = 0;
  std::vector<int64_t> begin;
  int32_t value = 0;
};

// The one value a param's `count` int32 elements all hold, if they do.
std::optional<int32_t> uniform_value(const void* data, int64_t count) {
  if (data == nullptr || count <= 0) return std::nullopt;
  const auto* v = static_cast<const int32_t*>(data);
  for (int64_t i = 1; i < count; ++i) {
    if (v[i] != v[0]) return std::nullopt;
  }
  return v[0];
}

// Node n as a link: a concatenate of exactly one activation (an entry that is not a param)
// and, around it, params of one value whose shapes equal the output's but along the one axis
// where the output is longer than the activation.
std::optional<Link> as_link(const Graph& g, const std::vector<const void*>& param_data,
                            const Node& n) {
  if (n.op_name != "concatenate" || n.num_outputs != 1 || n.inputs.size() < 2) {
    return std::nullopt;
  }
  const Shape& y = g.entries[n.first_entry].shape;
  std::optional<size_t> at;  // the activation's place among the inputs
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (param_data[n.inputs[i]] != nullptr) continue;
    if (at) return std::nullopt;
    at = i;
  }
  if (!at) return std::nullopt;
  const Shape& x = g.entries[n.inputs[*at]].shape;
  if (x.ndim() != y.ndim()) return std::nullopt;
  std::optional<int> axis;
  for (int d = 0; d < y.ndim(); ++d) {
    if (x[d] == y[d]) continue;
    if (axis) return std::nullopt;
    axis = d;
  }
  if (!axis) return std::nullopt;
  Link link{n.inputs[*at], std::vector<int64_t>(static_cast<size_t>(y.ndim()), 0), 0};
  std::optional<int32_t> value;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (i == *at) continue;
    const uint32_t eid = n.inputs[i];
    const Shape& s = g.entries[eid].shape;
    for (int d = 0; d < y.ndim(); ++d) {
      if (d != *axis && s[d] != y[d]) return std::nullopt;
    }
    const std::optional<int32_t> v = uniform_value(param_data[eid], s.numel());
    if (!v || (value && *v != *value)) return std::nullopt;
    value = v;
    if (i < *at) link.begin[*axis] += s[*axis];
  }
  link.value = *value;
  return link;
}

// The conv2d after chain f that can take its padding (PadFusion::conv), or kNoConv. `from`: the
// place in `order` after the chain's last node.
uint32_t padding_conv(const Graph& g, const std::vector<uint32_t>& order,
                      const std::vector<uint32_t>& readers, size_t from, const PadFusion& f) {
  const Shape &x = g.entries[f.in].shape, &y = g.entries[f.out].shape;
  if (f.value != 0 || readers[f.out] != 1 || x.ndim() != 4 || f.begin[0] != 0 ||
      f.begin[1] != 0 || x[0] != y[0] || x[1] != y[1]) {
    return PadFusion::kNoConv;
  }
  for (int d = 2; d < 4; ++d) {
    if (y[d] - x[d] - f.begin[d] < f.begin[d]) return PadFusion::kNoConv;  // less after
  }
  for (size_t k = from; k < order.size(); ++k) {
    const Node& n = g.nodes[order[k]];
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] != f.out) continue;
      return n.op_name == "conv2d" && i == 0 ? order[k] : PadFusion::kNoConv;
    }
  }
  return PadFusion::kNoConv;  // a graph output
}

}  // namespace

std::vector<PadFusion> find_pad_fusions(const Graph& g,
                                        const std::vector<const void*>& param_data) {
  std::vector<PadFusion> fusions;
  if (g.is_float()) return fusions;
  const std::vector<uint32_t> order = execution_order(g);
  const std::vector<uint32_t> readers = reader_counts(g);
  for (size_t i = 0; i < order.size(); ++i) {
    const std::optional<Link> head = as_link(g, param_data, g.nodes[order[i]]);
    if (!head) continue;
    PadFusion f;
    f.first = order[i];
    f.in = head->in;
    f.out = g.nodes[order[i]].first_entry;
    f.begin = head->begin;
    f.value = head->value;
    size_t k = i + 1;
    for (; k < order.size(); ++k) {
      const Node& n = g.nodes[order[k]];
      const std::optional<Link> link = as_link(g, param_data, n);
      if (!link || link->in != f.out || readers[f.out] != 1 || link->value != f.value) break;
      for (size_t d = 0; d < f.begin.size(); ++d) f.begin[d] += link->begin[d];
      f.rest.push_back(order[k]);
      f.out = n.first_entry;
    }
    if (f.rest.empty()) continue;
    f.conv = padding_conv(g, order, readers, k, f);
    fusions.push_back(f);
    i = k - 1;
  }
  return fusions;
}

}  // namespace graph
}  // namespace cvm
