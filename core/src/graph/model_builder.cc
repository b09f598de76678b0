// ModelBuilder: a graph built node by node, each node inferred as it is added, verified and
// planned like a loaded model by build().
#include "cvm/model_builder.h"

#include <algorithm>
#include <unordered_set>

#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "graph.h"
#include "model_impl.h"
#include "precision.h"

namespace cvm {

using graph::Graph;
using graph::Node;

struct ModelBuilder::Impl {
  Graph g;
  bool have_input = false;
  bool built = false;
  ParamDict constants;
  std::vector<NDArray> values;  // per entry: the constant, or undefined
  std::unordered_set<std::string> variable_names;

  void require_input(const char* what) const {
    VERIFY(!built) << "ModelBuilder: " << what << " after build()";
    VERIFY(have_input) << "ModelBuilder: " << what << " before input()";
  }
  void check_entry(ModelBuilder::Entry e, const std::string& where) const {
    VERIFY(e < g.entries.size()) << where << "entry " << e << " does not exist ("
                                 << g.entries.size() << " entries)";
  }
  ModelBuilder::Entry add_variable(const std::string& name, const Shape& shape, DataType dtype, int precision) {
    Node n;
    n.name = name;
    n.op_name = "null";
    n.first_entry = static_cast<uint32_t>(g.entries.size());
    g.nodes.push_back(std::move(n));
    graph::Entry e;
    e.shape = shape;
    e.dtype = dtype;
    e.precision = precision;
    g.entries.push_back(std::move(e));
    values.emplace_back();
    variable_names.insert(name);
    return static_cast<ModelBuilder::Entry>(g.entries.size() - 1);
  }
  // Drops the last node and its entries (a node whose inference failed).
  void pop_node() {
    const Node& n = g.nodes.back();
    g.entries.resize(n.first_entry);
    values.resize(n.first_entry);
    g.nodes.pop_back();
  }
};

ModelBuilder::ModelBuilder() : impl_(std::make_unique<Impl>()) {}
ModelBuilder::~ModelBuilder() = default;

ModelBuilder::Entry ModelBuilder::input(const Shape& shape, DataType dtype, int precision) {
  Impl& b = *impl_;
  VERIFY(!b.built) << "ModelBuilder: input() after build()";
  VERIFY(!b.have_input) << "ModelBuilder: input() called twice (a model has one input)";
  VERIFY(dtype == DataType::Int(32) || dtype == DataType::Float(32))
      << "ModelBuilder: the input dtype must be int32 (a CVM model) or float32 (a float model), "
         "found "
      << dtype;
  shape.numel();  // LogicError on negative extents
  if (dtype == DataType::Int(32)) {
    VERIFY(precision >= 1 && precision <= 32)
        << "ModelBuilder: an int32 input needs a precision in [1, 32], found " << precision;
  } else {
    precision = 0;
  }
  b.have_input = true;
  const Entry e = b.add_variable("data", shape, dtype, precision);
  b.g.data_node = 0;
  return e;
}

ModelBuilder::Entry ModelBuilder::constant(const std::string& name, const NDArray& value,
                                           int precision) {
  Impl& b = *impl_;
  b.require_input("constant()");
  const std::string where = "ModelBuilder: constant \"" + name + "\": ";
  VERIFY(!name.empty() && name != "data") << where << "a constant needs a name other than data";
  VERIFY(!b.variable_names.count(name)) << where << "the name is already used";
  VERIFY(value.defined()) << where << "undefined array";
  VERIFY(value.device().is_cpu()) << where << "must be on the CPU, found "
                                  << value.device().name();
  NDArray stored;
  DataType dtype;
  if (b.g.is_float()) {
    VERIFY(value.dtype() == DataType::Float(32) || value.dtype() == DataType::Int(32))
        << where << "a float model's constants are float32 or int32, found " << value.dtype();
    dtype = value.dtype();
    stored = NDArray::empty(value.shape(), dtype);
    stored.copy_from(value);
    precision = 0;
  } else {
    VERIFY(value.dtype() == DataType::Int(8) || value.dtype() == DataType::Int(32))
        << where << "a CVM model's constants are int8 or int32, found " << value.dtype();
    dtype = DataType::Int(32);
    stored = cast(value, dtype).contiguous();  // int8 widens exactly
    const int32_t* v = stored.data_as<int32_t>();
    uint64_t largest = 0;
    const int64_t n = stored.numel();
    for (int64_t i = 0; i < n; ++i) {
      VERIFY(v[i] != INT32_MIN) << where << "value " << v[i] << " at flat index " << i
                                << " has no symmetric precision (it must be above -2^31)";
      largest = std::max<uint64_t>(largest, static_cast<uint64_t>(v[i] < 0 ? -int64_t{v[i]} : v[i]));
    }
    const int needed = ops::bit_length(largest) + 1;
    if (precision == 0) {
      precision = needed;
    } else {
      VERIFY(precision >= 1 && precision <= 32)
          << where << "precision must be in [1, 32], found " << precision;
      VERIFY(needed <= precision) << where << "a value of magnitude " << largest
                                  << " does not fit precision " << precision << " (bound "
                                  << graph::precision_bound(precision) << ")";
    }
  }
  const Entry e = b.add_variable(name, value.shape(), dtype, precision);
  b.values[e] = stored;
  b.constants.set(name, stored);
  return e;
}

std::vector<ModelBuilder::Entry> ModelBuilder::add(const std::string& op, const std::string& name,
                                                   const std::vector<Entry>& inputs,
                                                   const AttrMap& attrs) {
  Impl& b = *impl_;
  b.require_input("add()");
  Graph& g = b.g;
  const uint32_t nid = static_cast<uint32_t>(g.nodes.size());
  Node n;
  n.name = name;
  n.op_name = op;
  n.attrs = attrs;
  n.inputs = inputs;
  n.first_entry = static_cast<uint32_t>(g.entries.size());
  g.nodes.push_back(std::move(n));  // node_ref() names it in messages from here on
  try {
    Node& node = g.nodes.back();
    node.op = graph::lookup_op(g, nid, op);
    node.num_outputs = static_cast<uint32_t>(node.op->num_outputs());
    for (size_t i = 0; i < inputs.size(); ++i) {
      b.check_entry(inputs[i], graph::node_ref(g, nid) + "input " + std::to_string(i) + ": ");
    }
    const int arity = node.op->num_inputs();
    VERIFY(arity < 0 ? !inputs.empty() : inputs.size() == static_cast<size_t>(arity))
        << graph::node_ref(g, nid) << "expected "
        << (arity < 0 ? std::string("at least 1") : std::to_string(arity)) << " input(s), found "
        << inputs.size();
    g.entries.resize(node.first_entry + node.num_outputs);
    b.values.resize(g.entries.size());
    graph::infer_node(g, nid, /*stored=*/false, graph::PrecisionSource::kRecompute,
                      ModelLimits{});
  } catch (...) {
    b.pop_node();
    throw;
  }
  const Node& node = g.nodes.back();
  std::vector<Entry> out;
  for (uint32_t k = 0; k < node.num_outputs; ++k) out.push_back(node.first_entry + k);
  return out;
}

ModelBuilder::Entry ModelBuilder::add1(const std::string& op, const std::string& name,
                                       const std::vector<Entry>& inputs, const AttrMap& attrs) {
  std::vector<Entry> out = add(op, name, inputs, attrs);
  VERIFY(out.size() == 1) << "ModelBuilder: node \"" << name << "\" (" << op << ") has "
                          << out.size() << " outputs; use add()";
  return out[0];
}

const Shape& ModelBuilder::shape(Entry e) const {
  impl_->check_entry(e, "ModelBuilder: ");
  return impl_->g.entries[e].shape;
}
DataType ModelBuilder::dtype(Entry e) const {
  impl_->check_entry(e, "ModelBuilder: ");
  return impl_->g.entries[e].dtype;
}
int ModelBuilder::precision(Entry e) const {
  impl_->check_entry(e, "ModelBuilder: ");
  return impl_->g.entries[e].precision;
}
NDArray ModelBuilder::constant_value(Entry e) const {
  impl_->check_entry(e, "ModelBuilder: ");
  return impl_->values[e];
}
size_t ModelBuilder::num_entries() const { return impl_->g.entries.size(); }

void ModelBuilder::set_outputs(const std::vector<Entry>& outputs) {
  Impl& b = *impl_;
  b.require_input("set_outputs()");
  VERIFY(!outputs.empty()) << "ModelBuilder: a model needs at least one output";
  for (Entry e : outputs) b.check_entry(e, "ModelBuilder: output: ");
  b.g.heads = outputs;
}

void ModelBuilder::set_postprocess(const std::string& postprocess) {
  impl_->require_input("set_postprocess()");
  impl_->g.postprocess = postprocess;
}

std::shared_ptr<const Model> ModelBuilder::build(const ModelOptions& options) {
  Impl& b = *impl_;
  b.require_input("build()");
  VERIFY(!b.g.heads.empty()) << "ModelBuilder: build() before set_outputs()";
  // Drop constants no node reads (e.g. folded away by an importer), renumbering the entries.
  Graph& in = b.g;
  std::vector<bool> used(in.entries.size(), false);
  for (const Node& n : in.nodes) {
    for (uint32_t e : n.inputs) used[e] = true;
  }
  for (uint32_t e : in.heads) used[e] = true;
  Graph g;
  g.version = in.version;
  g.postprocess = in.postprocess;
  std::vector<uint32_t> new_id(in.entries.size(), UINT32_MAX);
  ParamDict params;
  for (uint32_t nid = 0; nid < in.nodes.size(); ++nid) {
    Node n = in.nodes[nid];
    if (n.is_variable() && nid != in.data_node && !used[n.first_entry]) continue;
    const uint32_t first = static_cast<uint32_t>(g.entries.size());
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      new_id[n.first_entry + k] = first + k;
      g.entries.push_back(in.entries[n.first_entry + k]);
    }
    for (uint32_t& e : n.inputs) e = new_id[e];
    n.first_entry = first;
    n.parsed.reset();
    if (n.is_variable() && nid != in.data_node) params.set(n.name, b.constants.at(n.name));
    g.nodes.push_back(std::move(n));
  }
  for (uint32_t e : in.heads) g.heads.push_back(new_id[e]);
  b.built = true;
  const ModelCost cost = graph::verify_graph(g, options.limits, graph::PrecisionSource::kMustMatch);
  return graph::make_model(std::move(g), cost, 0, params, options.metadata, options.limits);
}

}  // namespace cvm
