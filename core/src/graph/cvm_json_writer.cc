// Model::cvm_json: a CVM model's graph written back as CVM graph JSON (spec section 3, cvm_1.0.0).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cvm/check.h"
#include "model_impl.h"

namespace cvm {
namespace {

using graph::Graph;
using graph::Node;
// Objects with keys in the spec's order (a node's op, name, inputs, attrs) are written as text
// around dumped values, so the one JSON type of the library (std::map objects) serves.
using json = nlohmann::json;

// The exporter's version: the one that lists arg_nodes and node_row_ptr, which every CVM runtime
// reads (cvm_1.1.0 readers recompute them; the original crashed on a missing node_row_ptr).
const char kVersion[] = "cvm_1.0.0";

// JSON text of `j`; LogicError naming `what` when a string in it is not valid UTF-8 (a model file
// or a builder may carry arbitrary bytes in names, JSON text may not).
std::string dump(const json& j, const std::string& what) {
  try {
    return j.dump();
  } catch (const json::exception&) {
    CVM_LOGIC_ERROR() << "cvm_json: " << what
                      << "holds a string that is not valid UTF-8, which JSON cannot carry";
  }
}

// [node, index, version] of entry `eid`.
json entry_ref(const Graph& g, uint32_t eid) {
  const uint32_t nid = graph::node_of_entry(g, eid);
  return json::array({nid, eid - g.nodes[nid].first_entry, 0});
}

// One element of "nodes", keys in the spec's order. Operator attributes do not go here: the
// node's own attrs hold only what the graph runtime reads (func_name and the counts;
// flatten_data, which the original required), the operator's go to attrs.op_attrs.
std::string node_text(const Graph& g, uint32_t nid) {
  const Node& n = g.nodes[nid];
  json inputs = json::array();
  for (uint32_t eid : n.inputs) inputs.push_back(entry_ref(g, eid));
  std::string out = n.is_variable() ? "{\"op\":\"null\"" : "{\"op\":\"cvm_op\"";
  out += ",\"name\":" + dump(json(n.name), graph::node_ref(g, nid));
  out += ",\"inputs\":" + inputs.dump();
  if (!n.is_variable()) {
    out += ",\"attrs\":{\"func_name\":" + dump(json(n.op_name), graph::node_ref(g, nid));
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
  json j = json::object();
  if (!n.is_variable()) {
    for (const auto& [key, value] : n.attrs) j[key] = value.text();
  }
  return dump(j, graph::node_ref(g, nid) + "attributes: ");
}

}  // namespace

std::string Model::cvm_json() const {
  const Graph& g = impl_->graph;
  VERIFY(!g.is_float()) << "cvm_json: a float model (float32 input) has no CVM graph JSON form";

  json shapes = json::array(), precisions = json::array(), storage_ids = json::array(),
       dltypes = json::array(), op_attrs = json::array();
  for (size_t eid = 0; eid < g.entries.size(); ++eid) {
    const graph::Entry& e = g.entries[eid];
    CHECK(e.dtype == DataType::Int(32) && e.precision >= 1 && e.precision <= 32)
        << "cvm_json: entry " << eid << " is " << e.dtype << " with precision " << e.precision;
    shapes.push_back(e.shape.to_vector());
    precisions.push_back(e.precision);
    storage_ids.push_back(eid);  // one storage per entry: no sharing, so always valid
    dltypes.push_back("int32");
  }
  json arg_nodes = json::array(), row_ptr = json::array(), heads = json::array();
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (g.nodes[nid].is_variable()) arg_nodes.push_back(nid);
    row_ptr.push_back(g.nodes[nid].first_entry);
    op_attrs.push_back(op_attrs_text(g, nid));
  }
  row_ptr.push_back(g.entries.size());
  for (uint32_t eid : g.heads) heads.push_back(entry_ref(g, eid));

  // One node per line, one graph attribute per line; every value is dumped by the JSON library.
  std::string out = "{\"nodes\":[";
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    out += nid == 0 ? "\n  " : ",\n  ";
    out += node_text(g, nid);
  }
  out += "],\n \"arg_nodes\":" + arg_nodes.dump();
  out += ",\n \"node_row_ptr\":" + row_ptr.dump();
  out += ",\n \"heads\":" + heads.dump();
  out += ",\n \"attrs\":{\"shape\":" + json::array({"list_shape", shapes}).dump();
  out += ",\n  \"precision\":" + json::array({"list_int", precisions}).dump();
  out += ",\n  \"storage_id\":" + json::array({"list_int", storage_ids}).dump();
  out += ",\n  \"dltype\":" + json::array({"list_str", dltypes}).dump();
  out += ",\n  \"op_attrs\":" + json::array({"list_str", op_attrs}).dump() + "}";
  out += ",\n \"version\":" + json(kVersion).dump();
  out += ",\n \"postprocess\":" + dump(json(g.postprocess), "the postprocess string ") + "}\n";
  return out;
}

}  // namespace cvm
