// Load-time verification of a graph (spec sections 3 and 4): structure, attributes, shapes,
// precisions, cost and limits, shared by the CVM JSON importer and the model file reader.
#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_set>

#include "cvm/check.h"
#include "graph.h"

namespace cvm {
namespace graph {

std::string node_ref(const Graph& g, uint32_t nid) {
  detail::MessageStream os;
  const Node& n = g.nodes[nid];
  os << "node " << nid << " \"" << n.name << "\" ("
     << (n.is_variable() ? std::string("variable") : n.op_name) << "): ";
  return os.str();
}

uint32_t node_of_entry(const Graph& g, uint32_t eid) {
  // Nodes are in entry order: binary search on first_entry.
  auto it = std::upper_bound(g.nodes.begin(), g.nodes.end(), eid,
                             [](uint32_t e, const Node& n) { return e < n.first_entry; });
  CHECK(it != g.nodes.begin()) << "graph: entry " << eid << " has no node";
  return static_cast<uint32_t>(it - g.nodes.begin() - 1);
}

std::vector<uint32_t> execution_order(const Graph& g) {
  std::vector<uint32_t> order;
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (!g.nodes[nid].is_variable()) order.push_back(nid);
  }
  return order;
}

std::vector<uint32_t> reader_counts(const Graph& g) {
  std::vector<uint32_t> readers(g.entries.size(), 0);
  for (const Node& n : g.nodes) {
    for (uint32_t eid : n.inputs) ++readers[eid];
  }
  for (uint32_t eid : g.heads) ++readers[eid];
  return readers;
}

std::string op_name_from_func_name(const std::string& func_name) {
  size_t us = func_name.rfind('_');
  if (us == std::string::npos || us + 1 == func_name.size()) return func_name;
  for (size_t i = us + 1; i < func_name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(func_name[i]))) return func_name;
  }
  return func_name.substr(0, us);
}

std::string entry_name(const Graph& g, uint32_t eid) {
  uint32_t nid = node_of_entry(g, eid);
  const Node& n = g.nodes[nid];
  uint32_t k = eid - n.first_entry;
  return k == 0 ? n.name : n.name + ":" + std::to_string(k);
}

const ops::OpDef* lookup_op(const Graph& g, uint32_t nid, const std::string& op_name) {
  const ops::OpDef* op = ops::find_op(op_name);
  VERIFY(op != nullptr) << node_ref(g, nid) << "unknown operator \"" << op_name << "\"";
  return op;
}

namespace {

// Runs an op-layer call, prefixing its LogicError with the node.
template <typename F>
auto with_node(const Graph& g, uint32_t nid, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const LogicError& e) {
    throw LogicError(node_ref(g, nid) + e.what());
  }
}

void verify_entry_shape(const Graph& g, uint32_t eid, const ModelLimits& limits) {
  const Shape& s = g.entries[eid].shape;
  uint32_t nid = node_of_entry(g, eid);
  const std::string where = node_ref(g, nid) + "output " +
                            std::to_string(eid - g.nodes[nid].first_entry) + " (entry " +
                            std::to_string(eid) + ") shape " + s.str() + ": ";
  VERIFY(s.ndim() >= 1 && s.ndim() <= limits.max_ndim)
      << where << "expected 1 to " << limits.max_ndim << " dimensions, found " << s.ndim();
  int64_t count = 1;
  for (int i = 0; i < s.ndim(); ++i) {
    VERIFY(s[i] >= 1 && s[i] <= limits.max_dim) << where << "dimension " << i << " must be in [1, "
                                                << limits.max_dim << "], found " << s[i];
    VERIFY(!__builtin_mul_overflow(count, s[i], &count) && count <= limits.max_elements)
        << where << "element count exceeds the limit " << limits.max_elements;
  }
}

// Structure: entries, variables, names, the data input, topological order, arity, heads.
void verify_structure(Graph& g) {
  VERIFY(!g.nodes.empty()) << "graph: no nodes";
  uint32_t next = 0;
  for (const Node& n : g.nodes) {
    CHECK(n.first_entry == next) << "graph: entries out of order";
    next += n.num_outputs;
  }
  CHECK(next == g.entries.size()) << "graph: entry count mismatch";
  VERIFY(!g.heads.empty()) << "graph: no outputs (heads is empty)";
  for (uint32_t h : g.heads) {
    VERIFY(h < g.entries.size()) << "graph: head entry " << h << " does not exist ("
                                 << g.entries.size() << " entries)";
  }
  std::unordered_set<std::string> variable_names;
  bool have_data = false;
  // The input first: whether this is a CVM graph decides which operators it may use.
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (g.nodes[nid].is_variable() && g.nodes[nid].name == "data") {
      g.data_node = nid;
      have_data = true;
      break;
    }
  }
  VERIFY(have_data) << "graph: no variable named \"data\" (the model's single input)";
  const bool cvm_graph = !g.is_float();
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    Node& n = g.nodes[nid];
    if (n.is_variable()) {
      VERIFY(n.inputs.empty()) << node_ref(g, nid) << "a variable has no inputs, found "
                               << n.inputs.size();
      VERIFY(n.num_outputs == 1) << node_ref(g, nid) << "a variable has exactly one output";
      VERIFY(variable_names.insert(n.name).second)
          << node_ref(g, nid) << "duplicate variable name \"" << n.name << "\"";
      continue;
    }
    CHECK(n.op != nullptr) << node_ref(g, nid) << "operator not resolved";
    VERIFY(!cvm_graph || n.op->is_cvm())
        << node_ref(g, nid) << "operator \"" << n.op_name << "\" is not a CVM model operator";
    VERIFY(n.num_outputs == static_cast<uint32_t>(n.op->num_outputs()))
        << node_ref(g, nid) << "expected " << n.op->num_outputs() << " output(s), found "
        << n.num_outputs;
    if (n.op->num_inputs() < 0) {
      VERIFY(!n.inputs.empty()) << node_ref(g, nid) << "expected at least 1 input, found 0";
    } else {
      VERIFY(n.inputs.size() == static_cast<size_t>(n.op->num_inputs()))
          << node_ref(g, nid) << "expected " << n.op->num_inputs() << " input(s), found "
          << n.inputs.size();
    }
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      VERIFY(n.inputs[i] < n.first_entry)
          << node_ref(g, nid) << "input " << i << " is entry " << n.inputs[i]
          << ", which is not below the node's own first entry " << n.first_entry
          << " (the graph must be in topological order)";
    }
  }
}

}  // namespace

// An operator outside the in-place list may not share a storage id between an output and
// any of its inputs (spec section 3; negative is not in the list).
void verify_storage_sharing(const Graph& g) {
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    const Node& n = g.nodes[nid];
    if (n.is_variable() || n.op->inplace()) continue;
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      int64_t sid = g.entries[n.first_entry + k].storage_id;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        VERIFY(g.entries[n.inputs[i]].storage_id != sid)
            << node_ref(g, nid) << "output " << k << " shares storage_id " << sid << " with input "
            << i << " (entry " << n.inputs[i] << "), but operator \"" << n.op_name
            << "\" is not in-place";
      }
    }
  }
}

// CVM's storage size: per storage id the largest entry (int32), rounded up to 4 bytes.
uint64_t storage_pool_bytes(const Graph& g, const ModelLimits& limits) {
  if (!g.has_storage_ids) return 0;
  std::map<int64_t, uint64_t> pool;
  for (const Entry& e : g.entries) {
    uint64_t bytes = static_cast<uint64_t>(e.shape.numel()) * 4;
    uint64_t& slot = pool[e.storage_id];
    slot = std::max(slot, bytes);
  }
  uint64_t total = 0;
  for (const auto& [sid, bytes] : pool) {
    total += (bytes + 3) / 4 * 4;
    VERIFY(total <= limits.max_storage_bytes)
        << "graph: the storage described by attrs.storage_id exceeds the limit "
        << limits.max_storage_bytes << " bytes";
  }
  return total;
}

void verify_variable(const Graph& g, uint32_t nid) {
  const Entry& e = g.entries[g.nodes[nid].first_entry];
  if (!g.is_float()) {
    VERIFY(e.dtype == DataType::Int(32))
        << node_ref(g, nid) << "a CVM model's variables are int32, found " << e.dtype;
    VERIFY(e.precision >= 1 && e.precision <= 32)
        << node_ref(g, nid) << "a variable's precision must be in [1, 32], found " << e.precision;
    return;
  }
  VERIFY(e.dtype == DataType::Float(32) || e.dtype == DataType::Int(32))
      << node_ref(g, nid) << "a float model's variables are float32 or int32, found " << e.dtype;
  VERIFY(e.precision == 0) << node_ref(g, nid)
                           << "a float model's variables have no precision (0), found "
                           << e.precision;
}

void infer_node(Graph& g, uint32_t nid, bool stored, PrecisionSource source,
                const ModelLimits& limits) {
  Node& n = g.nodes[nid];
  const bool cvm_graph = !g.is_float();
  VERIFY(!cvm_graph || n.op->is_cvm())
      << node_ref(g, nid) << "operator \"" << n.op_name << "\" is not a CVM model operator";
  std::vector<Shape> in_shapes;
  std::vector<DataType> in_dtypes;
  std::vector<int> in_precisions;
  for (uint32_t eid : n.inputs) {
    in_shapes.push_back(g.entries[eid].shape);
    in_dtypes.push_back(g.entries[eid].dtype);
    in_precisions.push_back(g.entries[eid].precision);
  }
  const ops::OpDef& op = *n.op;
  std::shared_ptr<const ops::OpAttrs> attrs =
      with_node(g, nid, [&] { return std::shared_ptr<const ops::OpAttrs>(op.parse(n.attrs)); });
  std::vector<DataType> out_dtypes =
      with_node(g, nid, [&] { return op.infer_dtypes(*attrs, in_dtypes); });
  std::vector<Shape> out_shapes =
      with_node(g, nid, [&] { return op.infer_shapes(*attrs, in_shapes); });
  CHECK(out_shapes.size() == n.num_outputs && out_dtypes.size() == n.num_outputs)
      << node_ref(g, nid) << "inference returned " << out_shapes.size() << " shapes and "
      << out_dtypes.size() << " dtypes";
  for (uint32_t k = 0; k < n.num_outputs; ++k) {
    VERIFY(out_dtypes[k] == DataType::Int(32) || (!cvm_graph && out_dtypes[k] == DataType::Float(32)))
        << node_ref(g, nid) << "output " << k << ": dtype " << out_dtypes[k]
        << " is not allowed in a " << (cvm_graph ? "CVM" : "float") << " model";
    Entry& e = g.entries[n.first_entry + k];
    if (stored) {
      VERIFY(out_shapes[k] == e.shape)
          << node_ref(g, nid) << "output " << k << ": inferred shape " << out_shapes[k]
          << " does not match the stored shape " << e.shape;
      VERIFY(out_dtypes[k] == e.dtype)
          << node_ref(g, nid) << "output " << k << ": inferred dtype " << out_dtypes[k]
          << " does not match the stored dtype " << e.dtype;
    }
    e.shape = out_shapes[k];
    e.dtype = out_dtypes[k];
  }
  if (cvm_graph) {
    for (size_t i = 0; i < in_precisions.size(); ++i) {
      CHECK(in_precisions[i] >= 1 && in_precisions[i] <= 32)
          << node_ref(g, nid) << "input " << i << " precision unknown";
    }
    std::vector<int> out_prec =
        with_node(g, nid, [&] { return op.infer_precisions(*attrs, in_shapes, in_precisions); });
    CHECK(out_prec.size() == n.num_outputs)
        << node_ref(g, nid) << "precision inference returned " << out_prec.size() << " values";
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      VERIFY(out_prec[k] >= 1 && out_prec[k] <= 32)
          << node_ref(g, nid) << "output " << k << ": inferred precision " << out_prec[k]
          << " is outside [1, 32]";
      Entry& e = g.entries[n.first_entry + k];
      if (stored && source == PrecisionSource::kMustMatch) {
        VERIFY(e.precision == out_prec[k])
            << node_ref(g, nid) << "output " << k << ": stored precision " << e.precision
            << " does not match the inferred precision " << out_prec[k];
      }
      e.precision = out_prec[k];
    }
  } else {
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      Entry& e = g.entries[n.first_entry + k];
      VERIFY(!stored || e.precision == 0)
          << node_ref(g, nid) << "output " << k
          << ": a float model's entries have no precision (0), found " << e.precision;
      e.precision = 0;
    }
  }
  int64_t base = with_node(g, nid, [&] { return op.cost_base(*attrs, in_shapes); });
  VERIFY(base >= 0 && base <= limits.max_cost_base)
      << node_ref(g, nid) << "cost base " << base << " exceeds the limit " << limits.max_cost_base;
  n.cost_base = base;
  n.parsed = std::move(attrs);
}

ModelCost verify_graph(Graph& g, const ModelLimits& limits, PrecisionSource source) {
  verify_structure(g);
  VERIFY(!g.is_float() || g.postprocess.empty())
      << "graph: postprocess \"" << g.postprocess
      << "\" applies to CVM models only (this is a float model)";
  if (g.has_storage_ids) verify_storage_sharing(g);
  for (uint32_t eid = 0; eid < g.entries.size(); ++eid) verify_entry_shape(g, eid, limits);

  ModelCost cost;
  auto add_checked = [](uint64_t& sum, uint64_t add, uint64_t limit, const std::string& where,
                        const char* what) {
    VERIFY(add <= limit && sum <= limit - add)
        << where << "running " << what << " exceeds the limit " << limit;
    sum += add;
  };
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    Node& n = g.nodes[nid];
    if (n.is_variable()) {
      verify_variable(g, nid);
      const Entry& e = g.entries[n.first_entry];
      add_checked(cost.mem, static_cast<uint64_t>(e.shape.numel()) * 5, limits.max_mem,
                  node_ref(g, nid), "mem");
      n.cost_base = 0;
      continue;
    }
    infer_node(g, nid, /*stored=*/true, source, limits);
    const uint64_t base = static_cast<uint64_t>(n.cost_base);
    // base <= 2^30-ish and numel <= 2^30-ish: the product fits in 64 bits for sane limits;
    // guard anyway.
    const uint64_t first = static_cast<uint64_t>(g.entries[n.first_entry].shape.numel());
    VERIFY(base == 0 || first <= UINT64_MAX / base)
        << node_ref(g, nid) << "running ops exceeds the limit " << limits.max_ops;
    add_checked(cost.ops, base * first, limits.max_ops, node_ref(g, nid), "ops");
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      add_checked(cost.mem, static_cast<uint64_t>(g.entries[n.first_entry + k].shape.numel()) * 5,
                  limits.max_mem, node_ref(g, nid), "mem");
    }
  }
  VERIFY(cost.ops <= UINT64_MAX - cost.mem) << "graph: total cost overflows";
  cost.total = cost.ops + cost.mem;
  return cost;
}

}  // namespace graph
}  // namespace cvm
