// Model::cvm_json: a CVM model's graph written back as CVM graph JSON (spec section 3, cvm_1.0.0).
#include <cstdint>
#include <string>
#include <vector>

#include "cvm/check.h"
#include "json_text.h"
#include "model_impl.h"

namespace cvm {
namespace {

using graph::Graph;
using graph::Node;

// The exporter's version: the one that lists arg_nodes and node_row_ptr, which every CVM runtime
// reads (cvm_1.1.0 readers recompute them; the original crashed on a missing node_row_ptr).
const char kVersion[] = "cvm_1.0.0";

// `s` appended as a JSON string; LogicError naming `what` when it is not valid UTF-8 (a model
// file or a builder may carry arbitrary bytes in names, JSON text may not).
void append_string(std::string& out, const std::string& s, const std::string& what) {
  VERIFY(json::append_quoted(out, s))
      << "cvm_json: " << what << "holds a string that is not valid UTF-8, which JSON cannot carry";
}

// "[" f(items[0]) "," f(items[1]) ... "]".
template <class Items, class Write>
void append_list(std::string& out, const Items& items, Write write) {
  out += '[';
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += ',';
    first = false;
    write(item);
  }
  out += ']';
}

// [node, index, version] of entry `eid`.
void append_entry_ref(std::string& out, const Graph& g, uint32_t eid) {
  const uint32_t nid = graph::node_of_entry(g, eid);
  out += '[' + std::to_string(nid) + ',' + std::to_string(eid - g.nodes[nid].first_entry) + ",0]";
}

// One element of "nodes", keys in the spec's order. Operator attributes do not go here: the
// node's own attrs hold only what the graph runtime reads (func_name and the counts;
// flatten_data, which the original required), the operator's go to attrs.op_attrs.
std::string node_text(const Graph& g, uint32_t nid) {
  const Node& n = g.nodes[nid];
  std::string out = n.is_variable() ? "{\"op\":\"null\"" : "{\"op\":\"cvm_op\"";
  out += ",\"name\":";
  append_string(out, n.name, graph::node_ref(g, nid));
  out += ",\"inputs\":";
  append_list(out, n.inputs, [&](uint32_t eid) { append_entry_ref(out, g, eid); });
  if (!n.is_variable()) {
    out += ",\"attrs\":{\"func_name\":";
    append_string(out, n.op_name, graph::node_ref(g, nid));
    out += ",\"num_inputs\":\"" + std::to_string(n.inputs.size()) + "\"";
    out += ",\"num_outputs\":\"" + std::to_string(n.num_outputs) + "\"";
    out += ",\"flatten_data\":\"0\"}";
  }
  return out + "}";
}

// One attrs.op_attrs string: the operator's attributes as a JSON object of strings (byte-wise
// key order, from the std::map); "{}" for a variable.
std::string op_attrs_text(const Graph& g, uint32_t nid) {
  const Node& n = g.nodes[nid];
  std::string out = "{";
  if (!n.is_variable()) {
    const std::string what = graph::node_ref(g, nid) + "attributes: ";
    for (const auto& [key, value] : n.attrs) {
      if (out.size() > 1) out += ',';
      append_string(out, key, what);
      out += ':';
      append_string(out, value.text(), what);
    }
  }
  return out + "}";
}

}  // namespace

std::string Model::cvm_json() const {
  const Graph& g = impl_->graph;
  VERIFY(!g.is_float()) << "cvm_json: a float model (float32 input) has no CVM graph JSON form";
  for (size_t eid = 0; eid < g.entries.size(); ++eid) {
    const graph::Entry& e = g.entries[eid];
    CHECK(e.dtype == DataType::Int(32) && e.precision >= 1 && e.precision <= 32)
        << "cvm_json: entry " << eid << " is " << e.dtype << " with precision " << e.precision;
  }
  std::vector<uint32_t> arg_nodes, row_ptr;
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (g.nodes[nid].is_variable()) arg_nodes.push_back(nid);
    row_ptr.push_back(g.nodes[nid].first_entry);
  }
  row_ptr.push_back(static_cast<uint32_t>(g.entries.size()));
  auto append_number = [](std::string& out, int64_t v) { out += std::to_string(v); };

  // One node per line, one graph attribute per line.
  std::string out = "{\"nodes\":[";
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    out += nid == 0 ? "\n  " : ",\n  ";
    out += node_text(g, nid);
  }
  out += "],\n \"arg_nodes\":";
  append_list(out, arg_nodes, [&](uint32_t v) { append_number(out, v); });
  out += ",\n \"node_row_ptr\":";
  append_list(out, row_ptr, [&](uint32_t v) { append_number(out, v); });
  out += ",\n \"heads\":";
  append_list(out, g.heads, [&](uint32_t eid) { append_entry_ref(out, g, eid); });
  out += ",\n \"attrs\":{\"shape\":[\"list_shape\",";
  append_list(out, g.entries, [&](const graph::Entry& e) {
    append_list(out, e.shape.to_vector(), [&](int64_t d) { append_number(out, d); });
  });
  out += "],\n  \"precision\":[\"list_int\",";
  append_list(out, g.entries, [&](const graph::Entry& e) { append_number(out, e.precision); });
  // One storage per entry: no sharing, so always valid.
  out += "],\n  \"storage_id\":[\"list_int\",[";
  for (size_t eid = 0; eid < g.entries.size(); ++eid) {
    out += (eid == 0 ? "" : ",") + std::to_string(eid);
  }
  out += "]],\n  \"dltype\":[\"list_str\",";
  append_list(out, g.entries, [&](const graph::Entry&) { out += "\"int32\""; });
  out += "],\n  \"op_attrs\":[\"list_str\",[";
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (nid > 0) out += ',';
    append_string(out, op_attrs_text(g, nid), graph::node_ref(g, nid) + "attributes: ");
  }
  out += "]]}";
  out += ",\n \"version\":\"";
  out += kVersion;
  out += "\",\n \"postprocess\":";
  append_string(out, g.postprocess, "the postprocess string ");
  return out + "}\n";
}

}  // namespace cvm
