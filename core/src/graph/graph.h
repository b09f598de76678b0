// Graph IR shared by the CVM JSON importer, the model file reader and writer, the verifier, the
// memory planner and Session: nodes in execution order and their output entries.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cvm/model.h"
#include "cvm/op.h"
#include "cvm/shape.h"
#include "op_def.h"

namespace cvm {
namespace graph {

// One node output. Entry ids number node outputs in node order (CVM's node_row_ptr).
struct Entry {
  Shape shape;
  int precision = -1;       // 1..32 once verified (CVM graphs); 0 in float graphs
  int64_t storage_id = -1;  // from the CVM JSON (validated, kept for CVM's storage size), or -1
  DataType dtype = DataType::Int(32);  // int32 in CVM graphs; float32 (or int32) in float graphs
};

struct Node {
  std::string name;
  std::string op_name;             // "null" for a variable
  const ops::OpDef* op = nullptr;  // null for a variable (set by the importers: lookup_op)
  AttrMap attrs;                   // operator attributes (CVM string form)
  std::shared_ptr<const ops::OpAttrs> parsed;  // set by verify_graph
  std::vector<uint32_t> inputs;                // entry ids
  uint32_t first_entry = 0;
  uint32_t num_outputs = 1;
  int64_t cost_base = 0;  // set by verify_graph

  bool is_variable() const { return op_name == "null"; }
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<Entry> entries;
  std::vector<uint32_t> heads;  // entry ids
  std::string version = "cvm_1.0.0";
  std::string postprocess;
  uint32_t data_node = 0;  // set by verify_graph
  bool has_storage_ids = false;

  // A float graph (an imported float model): its input "data" is float32. Otherwise a CVM graph:
  // every entry int32, every operator a CVM operator, precisions and the CVM rules apply. Valid
  // once data_node is set (verify_graph, or a builder that sets it).
  bool is_float() const { return entries[nodes[data_node].first_entry].dtype.is_float(); }
};

// Where stored op-output precisions come from: the CVM JSON's are recomputed (only their range
// is checked), a model file's must equal the inferred ones.
enum class PrecisionSource { kRecompute, kMustMatch };

// Checks every structural, attribute, shape, precision, cost and limit rule of spec sections
// 3 and 4 (storage sharing when the graph has storage ids; not the params, not the planned-
// memory limit) and fills in the parsed attributes,
// op-output precisions and cost bases. Nodes must already have op, inputs, first_entry and
// num_outputs filled and entries sized. LogicError naming the node and the rule.
ModelCost verify_graph(Graph& g, const ModelLimits& limits, PrecisionSource source);

// The operator `op_name` of node `nid`: LogicError when it is unknown. (verify_graph rejects
// operators that are not CVM model operators, such as matmul, in CVM graphs.)
const ops::OpDef* lookup_op(const Graph& g, uint32_t nid, const std::string& op_name);

// Infers node `nid`'s output dtypes, shapes and (CVM graphs) precisions from its inputs' entries,
// parses its attributes and computes its cost base; stores all of it in the node and its output
// entries. With `stored` (a loaded graph) the inferred shapes, dtypes and precisions must equal
// the ones the entries hold (precisions per `source`). LogicError naming the node and the rule.
void infer_node(Graph& g, uint32_t nid, bool stored, PrecisionSource source,
                const ModelLimits& limits);
// The rules of one variable's entry: CVM graphs: int32 with a precision in 1..32; float graphs:
// float32 or int32 with precision 0.
void verify_variable(const Graph& g, uint32_t nid);

// Spec section 3 storage rule (graphs with storage ids): an operator outside the in-place
// list may not share a storage id between an output and any of its inputs.
void verify_storage_sharing(const Graph& g);
// CVM's storage size from the storage ids (per id the largest entry, int32, rounded up to 4
// bytes); 0 without storage ids. LogicError beyond limits.max_storage_bytes.
uint64_t storage_pool_bytes(const Graph& g, const ModelLimits& limits);

// "node 3 \"dense_0\" (dense): " — the prefix of every message about a node.
std::string node_ref(const Graph& g, uint32_t nid);

// The node whose outputs include entry `eid` (entries must be consistent with the nodes).
uint32_t node_of_entry(const Graph& g, uint32_t eid);

// The operator nodes in execution order: node order, variables aside.
std::vector<uint32_t> execution_order(const Graph& g);

// Per entry, how many reads it has: one per node input, and one more when it is a graph output
// (read after the run).
std::vector<uint32_t> reader_counts(const Graph& g);

// Strips a trailing _<digits> from a CVM func_name ("relu_3" -> "relu").
std::string op_name_from_func_name(const std::string& func_name);

// Output name of entry `eid`: the node name, with ":k" appended for output k > 0.
std::string entry_name(const Graph& g, uint32_t eid);

// alpha(p) = 2^(p-1) - 1, the symmetric bound of precision p in 1..32.
inline int32_t precision_bound(int p) { return static_cast<int32_t>((int64_t{1} << (p - 1)) - 1); }

}  // namespace graph
}  // namespace cvm
