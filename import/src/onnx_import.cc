// ONNX import entry points and the converter's graph walk: parse, check, define the input and
// initializers, convert each node through its handler, set the outputs and build the Model.
#include <onnx/checker.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>
#include <set>
#include <sstream>

#include "onnx_converter.h"

namespace cvm {
namespace onnx {
namespace detail {

namespace {

bool starts_with(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// Runs `fn`, turning a LogicError without the "onnx: " prefix into one with `prefix`.
template <typename Fn>
auto with_prefix(const std::string& prefix, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const LogicError& e) {
    if (starts_with(e.what(), "onnx: ")) throw;
    throw LogicError(prefix + e.what());
  }
}

// Protobuf never rejects data files by itself: a tensor that keeps its data outside the model
// would otherwise reach the checker, whose message talks about missing files.
void reject_external_data(const ::onnx::GraphProto& graph) {
  for (const ::onnx::TensorProto& t : graph.initializer()) {
    if (has_external_data(t)) {
      fail("onnx: initializer \"" + t.name() +
           "\": external data is not supported (save the model with its tensors inside)");
    }
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    for (const ::onnx::AttributeProto& a : node.attribute()) {
      bool external = a.has_t() && has_external_data(a.t());
      for (const ::onnx::TensorProto& t : a.tensors()) external = external || has_external_data(t);
      if (external) {
        fail("onnx: node " + std::to_string(i) + " \"" + node.name() + "\" (" + node.op_type() +
             "): attribute \"" + a.name() +
             "\": external data is not supported (save the model with its tensors inside)");
      }
    }
  }
}

// ONNX 1.12's checker insists on a shape in every tensor type, while the format (and later
// checkers) allow it to be left out: an output or intermediate without one gets an empty
// (unknown) shape. A graph input without one is refused here, with a clearer message.
void complete_shapes(::onnx::GraphProto* graph) {
  std::set<std::string> initializers;
  for (const ::onnx::TensorProto& t : graph->initializer()) initializers.insert(t.name());
  for (const ::onnx::ValueInfoProto& in : graph->input()) {
    if (in.type().has_tensor_type() && !in.type().tensor_type().has_shape() &&
        !initializers.count(in.name())) {
      fail("onnx: input \"" + in.name() + "\" has no shape; a fixed shape is required");
    }
  }
  for (auto* infos : {graph->mutable_output(), graph->mutable_value_info()}) {
    for (::onnx::ValueInfoProto& v : *infos) {
      if (v.type().has_tensor_type() && !v.type().tensor_type().has_shape()) {
        v.mutable_type()->mutable_tensor_type()->mutable_shape();
      }
    }
  }
}

void run_checker(const ::onnx::ModelProto& model) {
  try {
    ::onnx::checker::check_model(model);
  } catch (const ::onnx::checker::ValidationError& e) {
    throw LogicError(std::string("onnx: the ONNX checker rejected the model: ") + e.what());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // Anything else the checker throws is still about the model's contents.
    throw LogicError(std::string("onnx: the ONNX checker failed on the model: ") + e.what());
  }
}

std::string producer_of(const ::onnx::ModelProto& model) {
  std::string p = model.producer_name();
  if (!model.producer_version().empty()) p += (p.empty() ? "" : " ") + model.producer_version();
  return p.empty() ? "unknown" : p;
}

}  // namespace

Converter::Converter(const ::onnx::ModelProto& model, const ImportOptions& options)
    : model_(model), graph_(model.graph()), options_(options) {}

std::shared_ptr<const Model> Converter::run() {
  return with_prefix("onnx: ", [&] {
    for (const ::onnx::OperatorSetIdProto& o : model_.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") {
        if (o.version() < 1 || o.version() > INT_MAX) {
          fail("the default opset version " + std::to_string(o.version()) + " is invalid");
        }
        opset_ = static_cast<int>(o.version());
      }
    }
    if (opset_ == 0) fail("the model imports no version of the default (ai.onnx) opset");
    if (options_.batch < 1) {
      fail("the batch size must be at least 1, found " + std::to_string(options_.batch));
    }
    if (graph_.sparse_initializer_size() > 0) fail("sparse initializers are not supported");

    const int n = graph_.node_size();
    for (int i = 0; i < n; ++i) {
      for (const std::string& name : graph_.node(i).input()) {
        if (!name.empty()) consumers_[name].push_back(i);
      }
    }
    for (const ::onnx::ValueInfoProto& out : graph_.output()) graph_outputs_.insert(out.name());
    // Node names first, so constants (named when they enter the graph) never take one.
    used_names_.insert("data");
    node_names_.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const ::onnx::NodeProto& node = graph_.node(i);
      node_names_.push_back(unique_name(
          node.name().empty() ? node.op_type() + "_" + std::to_string(i) : node.name()));
    }
    folded_into_.assign(static_cast<size_t>(n), -1);

    define_initializers();
    define_graph_input();
    for (int i = 0; i < n; ++i) convert_node(i);
    node_ = nullptr;
    node_index_ = -1;
    node_name_.clear();

    if (graph_.output_size() == 0) fail("the graph has no outputs");
    std::vector<ModelBuilder::Entry> outputs;
    for (const ::onnx::ValueInfoProto& out : graph_.output()) {
      const Value* v = find_value(out.name());
      if (v == nullptr) fail("graph output \"" + out.name() + "\" is not produced by any node");
      if (v->is_constant()) {
        fail("graph output \"" + out.name() +
             "\" is a constant (it depends on no input); constant outputs are not supported");
      }
      outputs.push_back(v->entry);
    }
    builder_.set_outputs(outputs);

    ModelOptions mo;
    mo.limits = options_.limits;
    mo.metadata.name = graph_.name();
    mo.metadata.description = "imported from ONNX (producer " + producer_of(model_) + ", opset " +
                              std::to_string(opset_) + ")";
    return builder_.build(mo);
  });
}

void Converter::define_initializers() {
  for (const ::onnx::TensorProto& t : graph_.initializer()) {
    const std::string what = "initializer \"" + t.name() + "\"";
    if (t.name().empty()) fail("an initializer has no name");
    if (values_.count(t.name())) fail(what + " is defined twice");
    Value v;
    v.constant = tensor_to_array(t, what, options_.limits.max_elements);
    v.name = t.name();
    values_.emplace(t.name(), std::move(v));
  }
}

void Converter::define_graph_input() {
  std::vector<const ::onnx::ValueInfoProto*> inputs;
  for (const ::onnx::ValueInfoProto& in : graph_.input()) {
    if (!values_.count(in.name())) inputs.push_back(&in);
  }
  if (inputs.size() != 1) {
    std::string names;
    for (const auto* in : inputs) names += (names.empty() ? "\"" : ", \"") + in->name() + "\"";
    fail("the graph has " + std::to_string(inputs.size()) + " inputs besides its initializers" +
         (names.empty() ? "" : " (" + names + ")") + "; exactly one (float32) input is supported");
  }
  const ::onnx::ValueInfoProto& in = *inputs[0];
  const std::string what = "input \"" + in.name() + "\"";
  if (in.name().empty()) fail("the graph input has no name");
  if (!in.type().has_tensor_type()) fail(what + " is not a tensor");
  const ::onnx::TypeProto::Tensor& tt = in.type().tensor_type();
  if (tt.elem_type() != ::onnx::TensorProto::FLOAT) {
    fail(what + " is " + onnx_dtype_name(tt.elem_type()) + "; only float32 inputs are supported");
  }
  if (!tt.has_shape()) fail(what + " has no shape; a fixed shape is required");
  std::vector<int64_t> dims;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const ::onnx::TensorShapeProto::Dimension& d = tt.shape().dim(i);
    if (d.has_dim_value()) {
      if (d.dim_value() < 1) {
        fail(what + ": dimension " + std::to_string(i) + " is " + std::to_string(d.dim_value()) +
             " (extents must be at least 1)");
      }
      dims.push_back(d.dim_value());
    } else if (i == 0) {
      dims.push_back(options_.batch);  // symbolic or unknown batch
    } else {
      fail(what + " has a dynamic dimension " + std::to_string(i) +
           (d.has_dim_param() ? " (\"" + d.dim_param() + "\")" : std::string(" (unknown)")) +
           "; only the first (batch) dimension may be symbolic");
    }
    if (dims.size() > 64) fail(what + " has too many dimensions");
  }
  Value v;
  v.entry =
      with_prefix(what + ": ", [&] { return builder_.input(Shape(dims), DataType::Float(32)); });
  v.name = in.name();
  values_.emplace(in.name(), std::move(v));
}

void Converter::convert_node(int index) {
  node_ = &graph_.node(index);
  node_index_ = index;
  node_name_ = node_names_[static_cast<size_t>(index)];
  const std::string prefix = "onnx: node " + std::to_string(index) + " \"" + node_name_ + "\" (" +
                             node_->op_type() + "): ";
  with_prefix(prefix, [&] {
    if (folded_into_[static_cast<size_t>(index)] >= 0) {
      set_output(0, input(0));  // the earlier node already applied this one
      return;
    }
    if (!node_->domain().empty() && node_->domain() != "ai.onnx") {
      fail("operators of domain \"" + node_->domain() + "\" are not supported");
    }
    const OpHandler handler = find_handler(node_->op_type());
    if (handler == nullptr) fail("operator " + node_->op_type() + " is not supported");
    handler(*this);
    for (int k = 0; k < node_->output_size(); ++k) {
      const std::string& name = node_->output(k);
      if (!name.empty() && !values_.count(name)) {
        require_unused_output(k, "this output");
      }
    }
  });
}

std::string Converter::unique_name(const std::string& base) {
  std::string name = base.empty() ? "node" : base;
  if (used_names_.insert(name).second) return name;
  for (int k = 1;; ++k) {
    std::string candidate = name + "_" + std::to_string(k);
    if (used_names_.insert(candidate).second) return candidate;
  }
}

// ---- node context ----

bool Converter::has_input(int k) const {
  return k >= 0 && k < node_->input_size() && !node_->input(k).empty();
}

const Value& Converter::input(int k) const {
  if (k < 0 || k >= node_->input_size() || node_->input(k).empty()) {
    fail("input " + std::to_string(k) + " is missing");
  }
  const std::string& name = node_->input(k);
  const Value* v = find_value(name);
  if (v == nullptr) {
    fail("input " + std::to_string(k) + " \"" + name +
         "\" is not defined by an earlier node, an initializer or the graph input");
  }
  return *v;
}

Shape Converter::shape_of(const Value& v) const {
  return v.is_constant() ? v.constant.shape() : builder_.shape(v.entry);
}

void Converter::set_output(int k, const Value& v) {
  if (k < 0 || k >= node_->output_size() || node_->output(k).empty()) return;
  Value out = v;
  if (out.is_constant()) {
    check_elements(out.constant.shape(), options_.limits.max_elements, "a folded constant");
    out.name = node_->output(k);
  }
  values_[node_->output(k)] = std::move(out);
}

void Converter::require_unused_output(int k, const char* what) const {
  if (k >= node_->output_size() || node_->output(k).empty()) return;
  const std::string& name = node_->output(k);
  if (consumers_.count(name) || graph_outputs_.count(name)) {
    fail("output " + std::to_string(k) + " \"" + name + "\" (" + what +
         ") is used, which is not supported");
  }
}

const ::onnx::AttributeProto* Converter::attr(const std::string& name) const {
  for (const ::onnx::AttributeProto& a : node_->attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

namespace {
[[noreturn]] void wrong_type(const ::onnx::AttributeProto& a, const char* expected) {
  fail("attribute \"" + a.name() + "\": expected " + expected + ", found type " +
       ::onnx::AttributeProto_AttributeType_Name(a.type()));
}
}  // namespace

int64_t Converter::attr_int(const std::string& name, int64_t fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::INT) wrong_type(*a, "an int");
  return a->i();
}

std::optional<std::vector<int64_t>> Converter::attr_ints(const std::string& name) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return std::nullopt;
  if (a->type() != ::onnx::AttributeProto::INTS) wrong_type(*a, "a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

float Converter::attr_float(const std::string& name, float fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::FLOAT) wrong_type(*a, "a float");
  return a->f();
}

std::string Converter::attr_string(const std::string& name, const std::string& fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::STRING) wrong_type(*a, "a string");
  return a->s();
}

// ---- building ----

Value Converter::emit(const std::string& op, const std::vector<Value>& inputs, const AttrMap& attrs,
                      const std::string& suffix) {
  bool all_constant = true;
  for (const Value& v : inputs) all_constant = all_constant && v.is_constant();
  Value out;
  if (all_constant) {
    std::vector<NDArray> arrays;
    for (const Value& v : inputs) arrays.push_back(v.constant);
    std::vector<NDArray> results = run_op(op, arrays, attrs);
    if (results.empty()) fail("operator " + op + " gave no result");
    out.constant = std::move(results[0]);
    out.name = node_name_ + suffix;
    return out;
  }
  std::vector<ModelBuilder::Entry> entries;
  for (const Value& v : inputs) entries.push_back(entry_of(v));
  const std::string name = suffix.empty() ? node_name_ : unique_name(node_name_ + suffix);
  out.entry = builder_.add1(op, name, entries, attrs);
  return out;
}

Value Converter::constant(const NDArray& array, const std::string& suffix) const {
  Value v;
  v.constant = array;
  v.name = node_name_ + suffix;
  return v;
}

ModelBuilder::Entry Converter::entry_of(const Value& v) {
  if (!v.is_constant()) return v.entry;
  const void* key = v.constant.container();
  auto it = constant_entries_.find(key);
  if (it != constant_entries_.end()) return it->second.second;
  if (v.constant.dtype() != DataType::Float(32)) {
    fail("constant \"" + v.name + "\" is " + v.constant.dtype().name() +
         "; only float32 tensors can be used by the graph's operators");
  }
  NDArray array = v.constant.ndim() == 0 ? v.constant.reshape(Shape{1}) : v.constant;
  const ModelBuilder::Entry e =
      builder_.constant(unique_name(v.name.empty() ? node_name_ + "_const" : v.name), array);
  constant_entries_.emplace(key, std::make_pair(v.constant, e));
  return e;
}

// ---- look-ahead ----

int Converter::sole_consumer(const std::string& tensor) const {
  if (tensor.empty() || graph_outputs_.count(tensor)) return -1;
  auto it = consumers_.find(tensor);
  if (it == consumers_.end() || it->second.size() != 1) return -1;
  return it->second[0] > node_index_ ? it->second[0] : -1;
}

const ::onnx::NodeProto& Converter::graph_node(int index) const { return graph_.node(index); }

const Value* Converter::find_value(const std::string& tensor) const {
  auto it = values_.find(tensor);
  return it == values_.end() ? nullptr : &it->second;
}

void Converter::fold_into_current(int index) {
  folded_into_.at(static_cast<size_t>(index)) = node_index_;
}

// ---- handlers ----

OpHandler find_handler(const std::string& op_type) {
  static const std::vector<HandlerEntry> table = [] {
    std::vector<HandlerEntry> t;
    add_nn_handlers(t);
    add_basic_handlers(t);
    add_shape_handlers(t);
    return t;
  }();
  for (const HandlerEntry& e : table) {
    if (op_type == e.op_type) return e.handler;
  }
  return nullptr;
}

}  // namespace detail

std::shared_ptr<const Model> import_onnx_bytes(const void* data, size_t size,
                                               const ImportOptions& options) {
  if (size > static_cast<size_t>(INT_MAX)) {
    throw LogicError("onnx: the model is " + std::to_string(size) +
                     " bytes; protobuf reads at most 2 GiB (use a smaller model)");
  }
  if (data == nullptr && size > 0) throw LogicError("onnx: model bytes are null");
  ::onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) {
    throw LogicError("onnx: cannot parse the " + std::to_string(size) +
                     " bytes as an ONNX model (ModelProto)");
  }
  detail::reject_external_data(model.graph());
  detail::complete_shapes(model.mutable_graph());
  detail::run_checker(model);
  return detail::Converter(model, options).run();
}

std::shared_ptr<const Model> import_onnx_file(const std::string& path,
                                              const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw LogicError("onnx: cannot open '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw LogicError("onnx: cannot read '" + path + "'");
  const std::string bytes = buffer.str();
  try {
    return import_onnx_bytes(bytes.data(), bytes.size(), options);
  } catch (const LogicError& e) {
    const std::string msg = e.what();
    if (detail::starts_with(msg, "onnx: cannot parse")) {
      throw LogicError("onnx: cannot parse '" + path + "' as an ONNX model (ModelProto)");
    }
    throw;
  }
}

}  // namespace onnx
}  // namespace cvm
