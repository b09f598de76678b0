// The cvmrt model file: header, flatbuffers table of contents (schemas/model.fbs), inline
// params; written deterministically, read back through every structural check again.
#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <set>

#include "cvm/check.h"
#include "cvm/schema/model_generated.h"
#include "cvm/version.h"
#include "model_impl.h"
#include "params_format.h"

namespace cvm {
namespace graph {
namespace {

namespace fb = flatbuffers;
using params_detail::align_up;
using params_detail::load_le32;
using params_detail::load_le64;
using params_detail::store_le32;
using params_detail::store_le64;

constexpr char kMagic[8] = {'C', 'V', 'M', 'R', 'T', 'M', 'D', 'L'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 24;  // magic, u32 version, u32 reserved, u64 toc_size
constexpr uint64_t kParamsAlignment = 64;
constexpr uint32_t kMaxDims = 64;  // sanity bound before the graph limits apply

const char kPrefix[] = "model file: ";
const char kProducer[] = "cvmrt " CVMRT_VERSION_STRING;

// ---- writer ----

fb::Offset<fb::Vector<const schema::GraphEntryRef*>> write_refs(
    fb::FlatBufferBuilder& b, const Graph& g, const std::vector<uint32_t>& entries) {
  std::vector<schema::GraphEntryRef> refs;
  for (uint32_t eid : entries) {
    uint32_t nid = node_of_entry(g, eid);
    refs.emplace_back(nid, eid - g.nodes[nid].first_entry);
  }
  return b.CreateVectorOfStructs(refs);
}

// The table of contents; `params` is the inline params section (or null).
void build_toc(fb::FlatBufferBuilder& b, const Model& model, const SaveOptions& options,
               const schema::ModelPayload* params) {
  const Graph& g = model.impl().graph;
  std::vector<fb::Offset<schema::GraphNode>> nodes;
  for (const Node& n : g.nodes) {
    std::vector<fb::Offset<schema::ModelAttr>> attrs;
    for (const auto& [key, value] : n.attrs) {  // std::map: byte-wise key order
      attrs.push_back(
          schema::CreateModelAttr(b, b.CreateString(key), b.CreateString(value.text())));
    }
    std::vector<fb::Offset<schema::GraphEntry>> outputs;
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      const Entry& e = g.entries[n.first_entry + k];
      // The dtype is written only where it is not int32 (CVM graphs' files stay as they were).
      fb::Offset<fb::String> dtype;
      if (e.dtype != DataType::Int(32) || g.is_float()) dtype = b.CreateString(e.dtype.name());
      outputs.push_back(schema::CreateGraphEntry(b, b.CreateVector(e.shape.to_vector()),
                                                 e.precision, e.storage_id, dtype));
    }
    auto op = b.CreateString(n.op_name);
    auto name = b.CreateString(n.name);
    auto inputs = write_refs(b, g, n.inputs);
    auto attr_vec = b.CreateVector(attrs);
    auto out_vec = b.CreateVector(outputs);
    nodes.push_back(schema::CreateGraphNode(b, op, name, inputs, attr_vec, out_vec));
  }
  const ModelMetadata& md = model.metadata();
  auto cvm_version = b.CreateString(g.version);
  auto postprocess = b.CreateString(g.postprocess);
  auto node_vec = b.CreateVector(nodes);
  auto heads = write_refs(b, g, g.heads);
  fb::Offset<fb::String> params_file;
  if (!options.params_file.empty()) params_file = b.CreateString(options.params_file);
  auto name = b.CreateString(md.name);
  auto description = b.CreateString(md.description);
  auto labels = b.CreateVectorOfStrings(md.labels);
  fb::Offset<schema::ModelQuant> quant;
  if (!md.quantization.empty()) {
    auto tensors = [&b](const std::vector<QuantizedTensor>& ts) {
      std::vector<fb::Offset<schema::QuantTensor>> out;
      for (const QuantizedTensor& t : ts) {
        out.push_back(schema::CreateQuantTensor(b, b.CreateString(t.name), t.scale, t.precision,
                                                b.CreateString(t.tail), t.tail_axis));
      }
      return b.CreateVector(out);
    };
    auto qin = tensors(md.quantization.inputs);
    auto qout = tensors(md.quantization.outputs);
    quant = schema::CreateModelQuant(b, qin, qout);
  }
  // This library, whatever wrote the model before (a loaded file's producer is not copied).
  auto producer = b.CreateString(kProducer);
  schema::ModelTocBuilder toc(b);
  toc.add_format_version(kVersion);
  toc.add_cvm_version(cvm_version);
  toc.add_postprocess(postprocess);
  toc.add_nodes(node_vec);
  toc.add_heads(heads);
  if (params != nullptr) toc.add_params(params);
  if (!params_file.IsNull()) toc.add_params_file(params_file);
  toc.add_name(name);
  toc.add_description(description);
  toc.add_labels(labels);
  if (!quant.IsNull()) toc.add_quant(quant);
  toc.add_producer(producer);
  schema::FinishModelTocBuffer(b, toc.Finish());
}

// ---- reader ----

std::string read_string(const fb::String* s) { return s == nullptr ? std::string() : s->str(); }

// Entry refs -> entry ids (nodes and their output counts already known).
std::vector<uint32_t> read_refs(const fb::Vector<const schema::GraphEntryRef*>* refs,
                                const Graph& g, const std::string& what) {
  std::vector<uint32_t> out;
  if (refs == nullptr) return out;
  for (fb::uoffset_t i = 0; i < refs->size(); ++i) {
    const schema::GraphEntryRef* r = refs->Get(i);
    VERIFY(r->node() < g.nodes.size()) << kPrefix << what << " " << i << ": node " << r->node()
                                       << " does not exist (" << g.nodes.size() << " nodes)";
    const Node& n = g.nodes[r->node()];
    VERIFY(r->index() < n.num_outputs)
        << kPrefix << what << " " << i << ": node " << r->node() << " \"" << n.name << "\" has "
        << n.num_outputs << " output(s), index " << r->index() << " does not exist";
    out.push_back(n.first_entry + r->index());
  }
  return out;
}

Graph read_graph(const schema::ModelToc* toc) {
  Graph g;
  g.version = toc->cvm_version()->str();
  VERIFY(g.version == "cvm_1.0.0" || g.version == "cvm_1.1.0")
      << kPrefix << "cvm_version: expected \"cvm_1.0.0\" or \"cvm_1.1.0\", found \"" << g.version
      << "\"";
  g.postprocess = read_string(toc->postprocess());
  const auto* nodes = toc->nodes();
  VERIFY(nodes->size() > 0) << kPrefix << "the graph has no nodes";
  uint64_t entries = 0;
  size_t with_sid = 0;
  for (fb::uoffset_t nid = 0; nid < nodes->size(); ++nid) {
    const schema::GraphNode* fn = nodes->Get(nid);
    g.nodes.emplace_back();
    Node& n = g.nodes.back();
    n.name = fn->name()->str();
    n.op_name = fn->op()->str();
    if (!n.is_variable()) {
      n.op = lookup_op(g, nid, n.op_name);
      n.num_outputs = static_cast<uint32_t>(n.op->num_outputs());
    }
    const auto* outs = fn->outputs();
    VERIFY(outs->size() == n.num_outputs)
        << node_ref(g, nid) << "expected " << n.num_outputs << " output(s), found " << outs->size();
    n.first_entry = static_cast<uint32_t>(entries);
    entries += n.num_outputs;
    VERIFY(entries < (uint64_t{1} << 31)) << kPrefix << "too many entries";
    for (fb::uoffset_t k = 0; k < outs->size(); ++k) {
      const schema::GraphEntry* fe = outs->Get(k);
      Entry e;
      const auto* shape = fe->shape();
      VERIFY(shape->size() <= kMaxDims)
          << node_ref(g, nid) << "output " << k << " has " << shape->size() << " dimensions";
      // Read the extents bytewise: the Verifier does not check 8-byte element alignment.
      for (fb::uoffset_t d = 0; d < shape->size(); ++d) {
        e.shape.push_back(static_cast<int64_t>(load_le64(shape->Data() + 8 * size_t{d})));
      }
      e.precision = fe->precision();
      e.storage_id = fe->storage_id();
      if (fe->dtype() != nullptr) {
        const std::string name = fe->dtype()->str();
        VERIFY(name == "int32" || name == "float32")
            << node_ref(g, nid) << "output " << k << ": dtype \"" << name
            << "\" is not supported (int32 or float32)";
        e.dtype = DataType::parse(name);
      }
      VERIFY(e.storage_id >= -1) << node_ref(g, nid) << "output " << k << ": storage_id "
                                 << e.storage_id << " must be -1 (none) or >= 0";
      if (e.storage_id >= 0) ++with_sid;
      g.entries.push_back(std::move(e));
    }
    if (fn->attrs() != nullptr) {
      VERIFY(!n.is_variable() || fn->attrs()->size() == 0)
          << node_ref(g, nid) << "a variable has no attributes";
      for (fb::uoffset_t a = 0; a < fn->attrs()->size(); ++a) {
        const schema::ModelAttr* attr = fn->attrs()->Get(a);
        VERIFY(n.attrs.emplace(attr->key()->str(), attr->value()->str()).second)
            << node_ref(g, nid) << "duplicate attribute \"" << attr->key()->str() << "\"";
      }
    }
  }
  VERIFY(with_sid == 0 || with_sid == g.entries.size())
      << kPrefix << "storage ids are given for " << with_sid << " of " << g.entries.size()
      << " entries (all or none)";
  g.has_storage_ids = with_sid > 0;
  for (fb::uoffset_t nid = 0; nid < nodes->size(); ++nid) {
    g.nodes[nid].inputs = read_refs(nodes->Get(nid)->inputs(), g, node_ref(g, nid) + "input");
  }
  g.heads = read_refs(toc->heads(), g, "head");
  return g;
}

// A by-reference params file: a relative path that stays inside the model's folder.
std::string params_path(const std::string& name, const std::string& base_dir) {
  VERIFY(!name.empty() && name[0] != '/')
      << kPrefix << "params_file \"" << name << "\" must be a relative path";
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    std::string part =
        name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    VERIFY(part != "..") << kPrefix << "params_file \"" << name
                         << "\" must not leave the model's folder";
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (base_dir.empty()) return name;
  return base_dir.back() == '/' ? base_dir + name : base_dir + "/" + name;
}

}  // namespace

std::vector<uint8_t> write_model_file(const Model& model, const SaveOptions& options) {
  std::vector<uint8_t> params;
  if (options.params_file.empty())
    params = model_params(model.impl(), /*share=*/true).save(ParamFormat::kCvmrt);

  // The table's size does not depend on the payload struct's values: size it first.
  fb::FlatBufferBuilder sizing;
  sizing.ForceDefaults(true);
  schema::ModelPayload placeholder(0, 0);
  build_toc(sizing, model, options, options.params_file.empty() ? &placeholder : nullptr);
  const uint64_t toc_size = sizing.GetSize();
  const uint64_t params_offset = align_up(kHeaderSize + toc_size, kParamsAlignment);

  fb::FlatBufferBuilder b;
  b.ForceDefaults(true);
  schema::ModelPayload payload(params_offset, params.size());
  build_toc(b, model, options, options.params_file.empty() ? &payload : nullptr);
  CHECK(b.GetSize() == toc_size) << "model file writer: table of contents changed size";

  std::vector<uint8_t> out(kHeaderSize + toc_size, 0);
  std::memcpy(out.data(), kMagic, 8);
  store_le32(out.data() + 8, kVersion);
  store_le32(out.data() + 12, 0);
  store_le64(out.data() + 16, toc_size);
  std::memcpy(out.data() + kHeaderSize, b.GetBufferPointer(), toc_size);
  if (options.params_file.empty()) {
    out.resize(params_offset, 0);
    out.insert(out.end(), params.begin(), params.end());
  }
  return out;
}

std::shared_ptr<const Model> read_model_file(const uint8_t* data, size_t size,
                                             const ModelOptions& options) {
  VERIFY(size >= kHeaderSize) << kPrefix << "truncated header: " << size
                              << " bytes, expected at least " << kHeaderSize;
  VERIFY(std::memcmp(data, kMagic, 8) == 0) << kPrefix << "bad magic, expected \"CVMRTMDL\"";
  const uint32_t version = load_le32(data + 8);
  VERIFY(version == kVersion) << kPrefix << "format version " << version << ", expected "
                              << kVersion;
  VERIFY(load_le32(data + 12) == 0) << kPrefix << "reserved header field is not 0";
  const uint64_t toc_size = load_le64(data + 16);
  VERIFY(toc_size >= 8 && toc_size <= size - kHeaderSize && toc_size < FLATBUFFERS_MAX_BUFFER_SIZE)
      << kPrefix << "table of contents size " << toc_size << " does not fit the "
      << size - kHeaderSize << " bytes after the header";
  // A copy at an aligned address for the Verifier and the accessors.
  const std::vector<uint8_t> toc_bytes(data + kHeaderSize, data + kHeaderSize + toc_size);
  VERIFY(schema::ModelTocBufferHasIdentifier(toc_bytes.data()))
      << kPrefix << "table of contents identifier is not \"" << schema::ModelTocIdentifier()
      << "\"";
  fb::Verifier::Options vopts;
  vopts.max_depth = 16;
  vopts.max_tables = static_cast<fb::uoffset_t>(toc_size / 4 + 16);
  fb::Verifier verifier(toc_bytes.data(), toc_bytes.size(), vopts);
  VERIFY(schema::VerifyModelTocBuffer(verifier))
      << kPrefix << "the table of contents (" << toc_size
      << " bytes) fails flatbuffers verification (corrupt, truncated or missing a required "
         "field)";
  const schema::ModelToc* toc = schema::GetModelToc(toc_bytes.data());
  VERIFY(toc->format_version() == kVersion)
      << kPrefix << "table of contents format version " << toc->format_version()
      << " does not match the header's " << kVersion;

  Graph g = read_graph(toc);
  const ModelCost cost = verify_graph(g, options.limits, PrecisionSource::kMustMatch);
  const uint64_t sid_bytes = storage_pool_bytes(g, options.limits);

  const uint64_t toc_end = kHeaderSize + toc_size;
  ParamDict params;
  const schema::ModelPayload* inline_params = toc->params();
  VERIFY(inline_params == nullptr || toc->params_file() == nullptr)
      << kPrefix << "both inline params and a params_file are given";
  if (inline_params != nullptr) {
    const uint64_t off = inline_params->offset(), n = inline_params->nbytes();
    VERIFY(off % kParamsAlignment == 0 && off >= toc_end && off <= size && n == size - off)
        << kPrefix << "inline params [" << off << ", +" << n << ") must start at a multiple of "
        << kParamsAlignment << " after the table of contents (" << toc_end << ") and end the "
        << size << "-byte file";
    for (uint64_t i = toc_end; i < off; ++i) {
      VERIFY(data[i] == 0) << kPrefix << "non-zero padding at byte " << i;
    }
    if (n > 0) params = ParamDict::load(data + off, static_cast<size_t>(n), options.params);
  } else {
    VERIFY(size == toc_end) << kPrefix << size - toc_end
                            << " unexpected bytes after the table of contents";
    if (toc->params_file() != nullptr) {
      params = ParamDict::load_file(params_path(toc->params_file()->str(), options.base_dir),
                                    options.params);
    }
  }
  ModelMetadata md;
  md.name = read_string(toc->name());
  md.description = read_string(toc->description());
  if (toc->labels() != nullptr) {
    for (fb::uoffset_t i = 0; i < toc->labels()->size(); ++i) {
      md.labels.push_back(toc->labels()->Get(i)->str());
    }
  }
  if (toc->quant() != nullptr) {
    auto tensors = [](const fb::Vector<fb::Offset<schema::QuantTensor>>* ts,
                      std::vector<QuantizedTensor>& out) {
      if (ts == nullptr) return;
      for (fb::uoffset_t i = 0; i < ts->size(); ++i) {
        const schema::QuantTensor* t = ts->Get(i);
        out.push_back({t->name()->str(), t->scale(), t->precision(), read_string(t->tail()),
                       t->tail_axis()});
      }
    };
    tensors(toc->quant()->inputs(), md.quantization.inputs);
    tensors(toc->quant()->outputs(), md.quantization.outputs);
  }
  return make_model(std::move(g), cost, sid_bytes, params, md, options.limits,
                    read_string(toc->producer()));
}

}  // namespace graph
}  // namespace cvm
