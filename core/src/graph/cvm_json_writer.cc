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
// Keys keep the order they are added in, so the text reads like the spec's example.
using json = nlohmann::ordered_json;

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

// One element of "nodes". Operator attributes do not go here: the node's own attrs hold only
// what the graph runtime reads (func_name and the counts; flatten_data, which the original
// required), the operator's go to attrs.op_attrs.
json node_json(const Graph& g, const Node& n) {
  json j;
  j["op"] = n.is_variable() ? "null" : "cvm_op";
  j["name"] = n.name;
  j["inputs"] = json::array();
  for (uint32_t eid : n.inputs) j["inputs"].push_back(entry_ref(g, eid));
  if (!n.is_variable()) {
    j["attrs"] = {{"func_name", n.op_name},
                  {"num_inputs", std::to_string(n.inputs.size())},
                  {"num_outputs", std::to_string(n.num_outputs)},
                  {"flatten_data", "0"}};
  }
  return j;
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

  // One node per line, one graph attribute per line; every piece is dumped by the JSON library.
  std::string out = "{\"nodes\":[";
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    out += nid == 0 ? "\n  " : ",\n  ";
    out += dump(node_json(g, g.nodes[nid]), graph::node_ref(g, nid));
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
