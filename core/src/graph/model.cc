// Model: CVM import, params binding, memory planning, descriptions and the section 7 sizes.
#include <cstdio>
#include <map>

#include "cvm/check.h"
#include "cvm_json.h"
#include "file_mapping.h"
#include "model_impl.h"

namespace cvm {

using graph::Graph;
using graph::node_ref;

namespace graph {
namespace {

const DataType kInt8 = DataType::Int(8);
const DataType kInt32 = DataType::Int(32);

// The param of variable node `nid` as a contiguous array of the entry's dtype, checked against
// the graph: CVM graphs int8 or int32 within the precision's bound (widened to int32); float
// graphs the entry's dtype exactly.
NDArray bind_param(const Graph& g, uint32_t nid, const ParamDict& params) {
  const Node& n = g.nodes[nid];
  const Entry& e = g.entries[n.first_entry];
  const std::string where = node_ref(g, nid) + "param \"" + n.name + "\": ";
  VERIFY(params.contains(n.name)) << where << "missing from the params";
  const NDArray& a = params.at(n.name);
  VERIFY(a.shape() == e.shape) << where << "shape " << a.shape()
                               << " does not match the graph's shape " << e.shape;
  VERIFY(a.device().is_cpu()) << where << "must be on the CPU, found " << a.device().name();
  if (g.is_float()) {
    VERIFY(a.dtype() == e.dtype) << where << "expected dtype " << e.dtype << ", found "
                                 << a.dtype();
    return a.contiguous();
  }
  VERIFY(a.dtype() == kInt8 || a.dtype() == kInt32)
      << where << "expected dtype int8 or int32, found " << a.dtype();
  const NDArray src = a.contiguous();
  const int32_t bound = precision_bound(e.precision);
  const int64_t count = src.numel();
  NDArray out = src.dtype() == kInt32 ? src : NDArray::empty(e.shape, kInt32);
  auto check = [&](int64_t i, int32_t v) {
    VERIFY(v >= -bound && v <= bound)
        << where << "value " << v << " at flat index " << i << " is outside [-" << bound << ", "
        << bound << "] (precision " << e.precision << ")";
  };
  if (src.dtype() == kInt8) {
    int32_t* dst = out.mutable_data_as<int32_t>();
    const int8_t* s = src.data_as<int8_t>();
    for (int64_t i = 0; i < count; ++i) {
      check(i, s[i]);
      dst[i] = s[i];
    }
  } else {
    const int32_t* s = src.data_as<int32_t>();
    for (int64_t i = 0; i < count; ++i) check(i, s[i]);
  }
  return out;
}

// The section 7 byte layout of one tensor alone: int8 when p <= 8 (CVM graphs); float graphs
// use the entry's dtype.
DataType io_dtype(const Entry& e) {
  if (e.dtype != kInt32 || e.precision == 0) return e.dtype;
  return e.precision <= 8 ? kInt8 : kInt32;
}

void describe(Model::Impl& m) {
  const Graph& g = m.graph;
  const Node& data = g.nodes[g.data_node];
  const Entry& din = g.entries[data.first_entry];
  m.inputs = {TensorInfo{data.name, din.shape, din.precision, din.dtype, io_dtype(din)}};
  int max_head_precision = 0;
  for (uint32_t h : g.heads) {
    const Entry& e = g.entries[h];
    m.outputs.push_back(TensorInfo{entry_name(g, h), e.shape, e.precision, e.dtype, io_dtype(e)});
    max_head_precision = std::max(max_head_precision, e.precision);
  }
  for (const Node& n : g.nodes) {
    NodeInfo info;
    info.name = n.name;
    info.op = n.op_name;
    info.attrs = n.attrs;
    info.input_entries = n.inputs;
    info.first_entry = n.first_entry;
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      info.output_shapes.push_back(g.entries[n.first_entry + k].shape);
      info.output_precisions.push_back(g.entries[n.first_entry + k].precision);
    }
    info.cost_base = n.cost_base;
    m.nodes.push_back(std::move(info));
  }
  // Spec section 7.
  const bool argmax = g.postprocess == "argmax";
  const bool forced_int32 = argmax || g.postprocess == "detection";
  // Float graphs: float32 in and out (4 bytes each, little-endian), heads concatenated.
  m.input_type_size = g.is_float() || din.precision > 8 ? 4 : 1;
  m.output_type_size = g.is_float() || forced_int32 || max_head_precision > 8 ? 4 : 1;
  m.input_length = static_cast<size_t>(din.shape.numel()) * m.input_type_size;
  uint64_t out_values = 0;
  for (uint32_t h : g.heads) {
    const Shape& s = g.entries[h].shape;
    // argmax: one value per row of the last dimension.
    out_values += static_cast<uint64_t>(argmax ? s.numel() / s[s.ndim() - 1] : s.numel());
  }
  m.output_length = static_cast<size_t>(out_values) * m.output_type_size;
}

// The quantization metadata must describe this model: its input with the input's precision,
// existing outputs, positive finite scales and known tails (CVM models only).
void verify_quantization(const Model::Impl& m) {
  const Quantization& q = m.metadata.quantization;
  if (q.empty()) return;
  const char* where = "model quantization: ";
  VERIFY(!m.graph.is_float()) << where << "a float model is not quantized";
  VERIFY(q.inputs.size() == 1 && q.inputs[0].name == m.inputs[0].name)
      << where << "expected one input named \"" << m.inputs[0].name << "\"";
  VERIFY(q.inputs[0].precision == m.inputs[0].precision)
      << where << "input precision " << q.inputs[0].precision << " differs from the model's "
      << m.inputs[0].precision;
  VERIFY(q.outputs.size() == m.outputs.size())
      << where << "expected " << m.outputs.size() << " outputs, found " << q.outputs.size();
  auto scale_ok = [](double s) { return s > 0 && s < 1e300; };
  VERIFY(scale_ok(q.inputs[0].scale)) << where << "input scale " << q.inputs[0].scale
                                      << " must be positive and finite";
  for (size_t i = 0; i < q.outputs.size(); ++i) {
    const QuantizedTensor& t = q.outputs[i];
    const TensorInfo& out = m.outputs[i];
    VERIFY(t.name == out.name) << where << "output " << i << " is named \"" << out.name
                               << "\", found \"" << t.name << "\"";
    VERIFY(scale_ok(t.scale)) << where << "output \"" << t.name << "\" scale " << t.scale
                              << " must be positive and finite";
    VERIFY(t.tail.empty() || t.tail == "softmax" || t.tail == "sigmoid")
        << where << "output \"" << t.name << "\" tail \"" << t.tail
        << "\": expected \"\", \"softmax\" or \"sigmoid\"";
    const int nd = out.shape.ndim();
    VERIFY(t.tail_axis >= -nd && t.tail_axis < nd)
        << where << "output \"" << t.name << "\" tail_axis " << t.tail_axis << " is outside ["
        << -nd << ", " << nd - 1 << "]";
  }
}

}  // namespace

std::shared_ptr<const Model> make_model(Graph graph, const ModelCost& cost,
                                        uint64_t storage_id_bytes, const ParamDict& params,
                                        const ModelMetadata& metadata, const ModelLimits& limits,
                                        std::string producer) {
  auto m = std::make_unique<Model::Impl>();
  m->producer = std::move(producer);
  m->graph = std::move(graph);
  m->cost = cost;
  m->storage_id_bytes = storage_id_bytes;
  m->metadata = metadata;
  Graph& g = m->graph;

  std::map<std::string, uint32_t> variables;
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (g.nodes[nid].is_variable()) variables.emplace(g.nodes[nid].name, nid);
  }
  for (const auto& [name, array] : params.entries()) {
    // A param named "data" is ignored: the input is set at inference (the original runtime
    // clipped it into the input and then overwrote it).
    VERIFY(name == "data" || variables.count(name))
        << "params: param \"" << name << "\" is not a variable of the graph";
  }
  m->params.resize(g.entries.size());
  m->param_data.assign(g.entries.size(), nullptr);
  for (const auto& [name, nid] : variables) {
    if (nid == g.data_node) continue;
    const uint32_t eid = g.nodes[nid].first_entry;
    m->params[eid] = bind_param(g, nid, params);
    m->param_data[eid] = m->params[eid].data();
    m->params_bytes += m->params[eid].nbytes();
  }
  for (const Entry& e : g.entries) m->unplanned_bytes += static_cast<uint64_t>(e.shape.numel()) * 4;

  m->pad_chains = find_pad_fusions(g, m->param_data);
  std::vector<KeepLive> keep_live;
  for (const PadFusion& f : m->pad_chains) keep_live.push_back({f.in, f.reads_in_until()});
  m->plan = plan_memory(g, keep_live);
  const uint64_t planned = m->params_bytes + m->plan.arena_bytes;
  VERIFY(planned <= limits.max_storage_bytes)
      << "graph: planned storage of " << planned << " bytes (params " << m->params_bytes
      << ", activations " << m->plan.arena_bytes << ") exceeds the limit "
      << limits.max_storage_bytes;
  describe(*m);
  verify_quantization(*m);
  return std::make_shared<const Model>(std::move(m));
}

ParamDict model_params(const Model::Impl& m, bool share) {
  ParamDict dict;
  const Graph& g = m.graph;
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    const Node& n = g.nodes[nid];
    if (!n.is_variable() || nid == g.data_node) continue;
    // Only the raw pointer is read: the model's own handles are never touched after loading,
    // so concurrent calls share no mutable state.
    const Entry& e = g.entries[n.first_entry];
    const Shape& shape = e.shape;
    const int64_t count = shape.numel();
    if (e.dtype != kInt32 || e.precision == 0 || e.precision > 8) {
      void* s = const_cast<void*>(m.param_data[n.first_entry]);
      const size_t bytes = static_cast<size_t>(count) * e.dtype.bytes();
      dict.set(n.name, share ? NDArray::from_external(s, shape, e.dtype, Device::cpu(), nullptr,
                                                      /*read_only=*/true)
                             : NDArray::from_bytes(s, bytes, shape, e.dtype));
      continue;
    }
    const auto* s = static_cast<const int32_t*>(m.param_data[n.first_entry]);
    NDArray narrow = NDArray::empty(shape, kInt8);
    int8_t* d = narrow.mutable_data_as<int8_t>();
    for (int64_t i = 0; i < count; ++i) d[i] = static_cast<int8_t>(s[i]);
    dict.set(n.name, narrow);
  }
  return dict;
}

}  // namespace graph

// ---- Model ----

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

std::shared_ptr<const Model> Model::from_cvm(const std::string& graph_json, const void* params,
                                             size_t params_size, const ModelOptions& options) {
  graph::CvmJsonImport imp = graph::import_cvm_json(graph_json, options.limits);
  ParamDict dict;
  if (params_size > 0) {
    VERIFY(params != nullptr) << "params: null pointer with " << params_size << " bytes";
    dict = ParamDict::load(params, params_size, options.params);
  }
  return graph::make_model(std::move(imp.graph), imp.cost, imp.storage_id_bytes, dict,
                           options.metadata, options.limits);
}

ModelCost Model::estimate_cost(const std::string& graph_json, const ModelLimits& limits) {
  return graph::import_cvm_json(graph_json, limits).cost;
}

std::shared_ptr<const Model> Model::from_bytes(const void* data, size_t size,
                                               const ModelOptions& options) {
  VERIFY(data != nullptr || size == 0) << "model file: null pointer with " << size << " bytes";
  return graph::read_model_file(static_cast<const uint8_t*>(data), size, options);
}

std::shared_ptr<const Model> Model::load_file(const std::string& path,
                                              const ModelOptions& options) {
  const std::shared_ptr<const FileMapping> map = FileMapping::open(path, "model file");
  ModelOptions opts = options;
  if (opts.base_dir.empty()) {
    size_t slash = path.rfind('/');
    opts.base_dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    if (opts.base_dir.empty()) opts.base_dir = "/";
  }
  try {
    return graph::read_model_file(map->data(), map->size(), opts);
  } catch (const LogicError& e) {
    throw LogicError(path + ": " + e.what());
  }
}

std::vector<uint8_t> Model::save(const SaveOptions& options) const {
  return graph::write_model_file(*this, options);
}

void Model::save_file(const std::string& path, const SaveOptions& options) const {
  const std::vector<uint8_t> bytes = save(options);
  const std::string tmp = temp_path_for(path);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  CHECK(f != nullptr) << "model: cannot create \"" << tmp << "\"";
  const bool written =
      bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    CVM_RUNTIME_ERROR() << "model: cannot write \"" << path << "\"";
  }
}

ParamDict Model::params() const { return graph::model_params(*impl_, /*share=*/false); }

const std::vector<TensorInfo>& Model::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Model::outputs() const { return impl_->outputs; }
const std::vector<NodeInfo>& Model::nodes() const { return impl_->nodes; }
const std::string& Model::version() const { return impl_->graph.version; }
const std::string& Model::postprocess() const { return impl_->graph.postprocess; }
const std::string& Model::producer() const { return impl_->producer; }
const ModelMetadata& Model::metadata() const { return impl_->metadata; }
ModelCost Model::cost() const { return impl_->cost; }
uint64_t Model::planned_bytes() const { return impl_->params_bytes + impl_->plan.arena_bytes; }
uint64_t Model::unplanned_bytes() const { return impl_->unplanned_bytes; }
uint64_t Model::params_bytes() const { return impl_->params_bytes; }
uint64_t Model::prepacked_bytes() const { return impl_->prepacked->bytes(); }
uint64_t Model::activation_bytes() const { return impl_->plan.arena_bytes; }
uint64_t Model::storage_id_bytes() const { return impl_->storage_id_bytes; }
size_t Model::input_type_size() const { return impl_->input_type_size; }
size_t Model::output_type_size() const { return impl_->output_type_size; }
size_t Model::input_length() const { return impl_->input_length; }
size_t Model::output_length() const { return impl_->output_length; }

}  // namespace cvm
