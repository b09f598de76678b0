// The operator registry and the generic entry points run_op, list_ops and infer_op.
#include <unordered_map>

#include "op_def.h"

namespace cvm {
namespace ops {
namespace {

struct OpRegistry {
  OpList list;
  std::unordered_map<std::string, const OpDef*> by_name;

  OpRegistry() {
    add_cvm_elementwise_ops(list);
    add_cvm_broadcast_ops(list);
    add_cvm_reduce_ops(list);
    add_cvm_nn_ops(list);
    add_cvm_vision_ops(list);
    add_cvm_transform_ops(list);
    add_array_elementwise_ops(list);
    add_array_reduce_ops(list);
    add_array_linalg_ops(list);
    add_float_nn_ops(list);
    for (const OpDef* op : list) {
      bool fresh = by_name.emplace(op->name(), op).second;
      CHECK(fresh) << "operator \"" << op->name() << "\" registered twice";
    }
  }

  static const OpRegistry& get() {
    static const OpRegistry* r = new OpRegistry();
    return *r;
  }
};

const OpDef& require_op(const std::string& name) {
  const OpDef* op = find_op(name);
  VERIFY(op != nullptr) << "unknown operator \"" << name << "\"";
  return *op;
}

void verify_arity(const OpDef& op, size_t given) {
  if (op.num_inputs() < 0) {
    VERIFY(given >= 1) << op_prefix(op) << "expected at least 1 input, got " << given;
  } else {
    VERIFY(given == static_cast<size_t>(op.num_inputs()))
        << op_prefix(op) << "expected " << op.num_inputs() << " input(s), got " << given;
  }
}

}  // namespace

const OpDef* find_op(const std::string& name) {
  const auto& r = OpRegistry::get();
  auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : it->second;
}

const std::vector<const OpDef*>& all_ops() { return OpRegistry::get().list; }

std::string op_prefix(const OpDef& op) { return std::string("op \"") + op.name() + "\": "; }

void verify_int32_inputs(const OpDef& op, const std::vector<DataType>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    VERIFY(inputs[i] == DataType::Int(32))
        << op_prefix(op) << "input " << i << " must be int32, found " << inputs[i];
  }
}

DataType verify_same_dtype(const OpDef& op, const std::vector<DataType>& inputs,
                           const std::vector<const char*>& names) {
  CHECK(!inputs.empty()) << op_prefix(op) << "no inputs";
  auto name = [&](size_t i) {
    return i < names.size() ? std::string(names[i]) : "input " + std::to_string(i);
  };
  const DataType t = inputs[0];
  for (size_t i = 1; i < inputs.size(); ++i) {
    VERIFY(inputs[i] == t) << op_prefix(op) << "expected every input " << t << " like " << name(0)
                           << ", found " << name(i) << " " << inputs[i];
  }
  return t;
}

std::vector<DataType> OpDef::infer_dtypes(const OpAttrs&, const std::vector<DataType>& inputs) const {
  verify_int32_inputs(*this, inputs);
  return std::vector<DataType>(num_outputs(), DataType::Int(32));
}

std::vector<int> OpDef::infer_precisions(const OpAttrs&, const std::vector<Shape>&,
                                         const std::vector<int>&) const {
  CVM_LOGIC_ERROR() << op_prefix(*this) << "has no precision rule (not a CVM operator)";
}

}  // namespace ops

std::vector<NDArray> run_op(const std::string& name, const std::vector<NDArray>& inputs,
                            const AttrMap& attr_map) {
  const ops::OpDef& op = ops::require_op(name);
  ops::verify_arity(op, inputs.size());
  std::vector<Shape> shapes;
  std::vector<DataType> dtypes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    VERIFY(inputs[i].defined()) << ops::op_prefix(op) << "input " << i << " is undefined";
    VERIFY(inputs[i].device().is_cpu())
        << ops::op_prefix(op) << "input " << i << " is on " << inputs[i].device().name()
        << "; only CPU arrays are supported here";
    shapes.push_back(inputs[i].shape());
    dtypes.push_back(inputs[i].dtype());
  }
  std::unique_ptr<ops::OpAttrs> attrs = op.parse(attr_map);
  std::vector<DataType> out_dtypes = op.infer_dtypes(*attrs, dtypes);
  std::vector<Shape> out_shapes = op.infer_shapes(*attrs, shapes);
  CHECK(out_dtypes.size() == out_shapes.size() &&
        out_shapes.size() == static_cast<size_t>(op.num_outputs()))
      << ops::op_prefix(op) << "inference returned inconsistent output counts";
  for (size_t i = 0; i < out_shapes.size(); ++i) {
    VERIFY(out_shapes[i].numel() <= kMaxOpOutputElements)
        << ops::op_prefix(op) << "output " << i << " of shape " << out_shapes[i]
        << " would have more than " << kMaxOpOutputElements << " elements (the per-output limit)";
  }
  std::vector<NDArray> outputs;
  for (size_t i = 0; i < out_shapes.size(); ++i) {
    outputs.push_back(NDArray::empty(out_shapes[i], out_dtypes[i]));
  }
  op.compute(*attrs, inputs, outputs);
  return outputs;
}

std::vector<OpInfo> list_ops() {
  std::vector<OpInfo> out;
  for (const ops::OpDef* op : ops::all_ops()) {
    out.push_back({op->name(), op->num_inputs(), op->num_outputs(), op->is_cvm(), op->inplace()});
  }
  return out;
}

OpInference infer_op(const std::string& name, const std::vector<std::vector<int64_t>>& input_shapes,
                     const std::vector<int>& input_precisions, const AttrMap& attr_map) {
  const ops::OpDef& op = ops::require_op(name);
  ops::verify_arity(op, input_shapes.size());
  std::vector<Shape> shapes;
  for (const auto& s : input_shapes) shapes.emplace_back(s);
  std::unique_ptr<ops::OpAttrs> attrs = op.parse(attr_map);
  OpInference result;
  for (const Shape& s : op.infer_shapes(*attrs, shapes)) result.output_shapes.push_back(s.to_vector());
  if (op.is_cvm()) {
    VERIFY(input_precisions.size() == shapes.size())
        << ops::op_prefix(op) << "expected " << shapes.size() << " input precision(s), got "
        << input_precisions.size();
    result.output_precisions = op.infer_precisions(*attrs, shapes, input_precisions);
    result.cost_base = op.cost_base(*attrs, shapes);
  }
  return result;
}

}  // namespace cvm
