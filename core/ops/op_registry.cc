// The operator registry and the generic entry points run_op, list_ops and infer_op.
#include <unordered_map>

#include "cvm/registry.h"

#include "kernel_views.h"
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

std::vector<KernelKey> OpDef::kernels(const OpAttrs&, const std::vector<DataType>& inputs,
                                      const std::vector<DataType>&) const {
  CHECK(!inputs.empty()) << op_prefix(*this) << "no inputs";
  const std::vector<const char*> ops = kernel_ops();
  CHECK(ops.size() == 1) << op_prefix(*this) << "calls " << ops.size()
                         << " kernel ops: it must say which in kernels()";
  return {{ops[0], elem_type_of(inputs[0])}};
}

NodeKernels bind_kernels(const OpDef& op, const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                         const std::vector<DataType>& output_dtypes, const ChainPolicy& policy) {
  std::vector<DataType> dtypes;
  std::vector<kernel::TensorView> views;  // for shape preferences; none past kMaxKernelDims
  bool viewable = true;
  for (const NDArray& in : inputs) {
    dtypes.push_back(in.dtype());
    viewable = viewable && in.ndim() <= kernel::kMaxKernelDims;
  }
  for (size_t i = 0; viewable && i < inputs.size(); ++i) {
    views.push_back(plain_view(inputs[i], const_cast<void*>(inputs[i].data())));
  }
  const Device device = inputs.empty() ? Device::cpu() : inputs[0].device();
  NodeKernels bound;
  for (const KernelKey& key : op.kernels(attrs, dtypes, output_dtypes)) {
    bound.chains.push_back(resolve_chain(policy, key, device, viewable ? views.data() : nullptr,
                                         static_cast<int32_t>(views.size())));
  }
  return bound;
}

void compute_now(const OpDef& op, const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                 const std::vector<NDArray>& outputs) {
  std::vector<DataType> out_dtypes;
  for (const NDArray& out : outputs) out_dtypes.push_back(out.dtype());
  op.compute(attrs, inputs, outputs, bind_kernels(op, attrs, inputs, out_dtypes, chain_policy()));
}

std::vector<int> OpDef::infer_precisions(const OpAttrs&, const std::vector<Shape>&,
                                         const std::vector<int>&) const {
  CVM_LOGIC_ERROR() << op_prefix(*this) << "has no precision rule (not a CVM operator)";
}

}  // namespace ops

namespace ops {

std::vector<NDArray> run_bound(const OpDef& op, const std::vector<NDArray>& inputs,
                               const AttrMap& attr_map, const ChainPolicy& policy,
                               NodeKernels* bound) {
  verify_arity(op, inputs.size());
  std::vector<Shape> shapes;
  std::vector<DataType> dtypes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    VERIFY(inputs[i].defined()) << op_prefix(op) << "input " << i << " is undefined";
    VERIFY(inputs[i].device() == inputs[0].device())
        << op_prefix(op) << "input " << i << " is on " << inputs[i].device().name()
        << ", input 0 on " << inputs[0].device().name() << ": every input must be on one device";
    shapes.push_back(inputs[i].shape());
    dtypes.push_back(inputs[i].dtype());
  }
  std::unique_ptr<OpAttrs> attrs = op.parse(attr_map);
  std::vector<DataType> out_dtypes = op.infer_dtypes(*attrs, dtypes);
  std::vector<Shape> out_shapes = op.infer_shapes(*attrs, shapes);
  CHECK(out_dtypes.size() == out_shapes.size() &&
        out_shapes.size() == static_cast<size_t>(op.num_outputs()))
      << op_prefix(op) << "inference returned inconsistent output counts";
  for (size_t i = 0; i < out_shapes.size(); ++i) {
    VERIFY(out_shapes[i].numel() <= kMaxOpOutputElements)
        << op_prefix(op) << "output " << i << " of shape " << out_shapes[i]
        << " would have more than " << kMaxOpOutputElements << " elements (the per-output limit)";
  }
  std::vector<NDArray> outputs;
  for (size_t i = 0; i < out_shapes.size(); ++i) {
    outputs.push_back(NDArray::empty(out_shapes[i], out_dtypes[i],
                                     inputs.empty() ? Device::cpu() : inputs[0].device()));
  }
  NodeKernels kernels = bind_kernels(op, *attrs, inputs, out_dtypes, policy);
  op.compute(*attrs, inputs, outputs, kernels);
  if (bound != nullptr) *bound = std::move(kernels);
  return outputs;
}

}  // namespace ops

std::vector<NDArray> run_op(const std::string& name, const std::vector<NDArray>& inputs,
                            const AttrMap& attr_map) {
  return ops::run_bound(ops::require_op(name), inputs, attr_map, chain_policy());
}

bool operator_has_kernel(const std::string& name, DataType dtype, const std::string& backend) {
  const ops::OpDef& op = ops::require_op(name);
  const kernel::ElemType t = elem_type_of(dtype);
  for (const char* kernel_op : op.kernel_ops()) {
    if (!has_usable_kernel(kernel_op, t, backend)) return false;
  }
  return true;
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
