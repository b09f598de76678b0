// CVM graph JSON importer: every structural rule of spec section 3, then verify_graph.
#include "cvm_json.h"

#include <map>
#include <set>
#include <sstream>

#include "attrs.h"
#include "cvm/check.h"
#include "json_text.h"

namespace cvm {
namespace graph {
namespace {

using json::Value;

const char kPrefix[] = "graph JSON: ";

Value parse_json(const std::string& text, const std::string& what) {
  try {
    return json::parse(text, kMaxJsonDepth);
  } catch (const json::ParseError& e) {
    CVM_LOGIC_ERROR() << what << "not valid JSON (" << e.what() << ")";
  }
}

std::string type_name(const Value& j) { return j.type_name(); }

int64_t get_int(const Value& j, const std::string& what, int64_t lo, int64_t hi) {
  int64_t v = 0;
  VERIFY(j.integer(&v)) << kPrefix << what << ": expected an integer, found " << type_name(j)
                        << (j.is_number() ? " " + j.brief_text() : std::string());
  VERIFY(v >= lo && v <= hi) << kPrefix << what << ": expected an integer in [" << lo << ", " << hi
                             << "], found " << v;
  return v;
}

const std::string& get_string(const Value& j, const std::string& what) {
  VERIFY(j.is_string()) << kPrefix << what << ": expected a string, found " << type_name(j);
  return j.string();
}

const Value& get_array(const Value& j, const std::string& what) {
  VERIFY(j.is_array()) << kPrefix << what << ": expected an array, found " << type_name(j);
  return j;
}

const Value& get_object(const Value& j, const std::string& what) {
  VERIFY(j.is_object()) << kPrefix << what << ": expected an object, found " << type_name(j);
  return j;
}

bool is_ignored_key(const std::string& key) {
  return key.size() >= 4 && key.compare(0, 2, "__") == 0 &&
         key.compare(key.size() - 2, 2, "__") == 0;
}

// An input or head: [node, index] or [node, index, version] -> entry id.
uint32_t parse_entry_ref(const Value& j, const std::string& what, const Graph& g) {
  get_array(j, what);
  VERIFY(j.size() == 2 || j.size() == 3)
      << kPrefix << what << ": expected [node, index] or [node, index, version], found " << j.size()
      << " items";
  int64_t nid = get_int(j[0], what + "[0] (node)", 0, UINT32_MAX);
  VERIFY(static_cast<size_t>(nid) < g.nodes.size())
      << kPrefix << what << ": node " << nid << " does not exist (" << g.nodes.size() << " nodes)";
  const Node& n = g.nodes[static_cast<size_t>(nid)];
  int64_t index = get_int(j[1], what + "[1] (output index)", 0, UINT32_MAX);
  VERIFY(index < n.num_outputs) << kPrefix << what << ": node " << nid << " \"" << n.name
                                << "\" has " << n.num_outputs << " output(s), index " << index
                                << " does not exist";
  if (j.size() == 3) get_int(j[2], what + "[2] (version)", 0, INT64_MAX);
  return n.first_entry + static_cast<uint32_t>(index);
}

struct RawNode {
  bool variable = false;
  std::string func_name;
  const Value* inputs = nullptr;
  std::map<std::string, std::string> node_attrs;
};

RawNode parse_node_keys(const Value& jn, const std::string& what, Node* node) {
  get_object(jn, what);
  RawNode raw;
  bool have_op = false, have_name = false;
  for (size_t k = 0; k < jn.size(); ++k) {
    const std::string& key = jn.keys()[k];
    const Value& v = jn[k];
    if (key == "op") {
      const std::string& op = get_string(v, what + ".op");
      VERIFY(op == "null" || op == "cvm_op")
          << kPrefix << what << ".op: expected \"null\" or \"cvm_op\", found \"" << op << "\"";
      raw.variable = op == "null";
      have_op = true;
    } else if (key == "name") {
      node->name = get_string(v, what + ".name");
      have_name = true;
    } else if (key == "inputs") {
      raw.inputs = &get_array(v, what + ".inputs");
    } else if (key == "attrs") {
      get_object(v, what + ".attrs");
      for (size_t a = 0; a < v.size(); ++a) {
        const std::string& name = v.keys()[a];
        raw.node_attrs[name] = get_string(v[a], what + ".attrs." + name);
      }
    } else if (key == "precision") {
      // Ignored (spec section 3): the graph attribute is authoritative.
    } else {
      CVM_LOGIC_ERROR() << kPrefix << what << ": unknown node key \"" << key << "\"";
    }
  }
  VERIFY(have_op) << kPrefix << what << ": missing key \"op\"";
  VERIFY(have_name) << kPrefix << what << ": missing key \"name\"";
  VERIFY(raw.inputs != nullptr) << kPrefix << what << ": missing key \"inputs\"";
  if (!raw.variable) {
    auto it = raw.node_attrs.find("func_name");
    VERIFY(it != raw.node_attrs.end())
        << kPrefix << what << " \"" << node->name << "\": missing attrs.func_name";
    raw.func_name = it->second;
    for (const auto& [key, value] : raw.node_attrs) {
      VERIFY(key == "func_name" || key == "num_inputs" || key == "num_outputs" ||
             key == "flatten_data" || is_ignored_key(key))
          << kPrefix << what << " \"" << node->name << "\": unknown node attribute \"" << key
          << "\"";
    }
  }
  return raw;
}

// A node attribute num_inputs / num_outputs, when present, must match the graph.
void verify_count_attr(const Graph& g, uint32_t nid, const RawNode& raw, const char* key,
                       size_t actual) {
  auto it = raw.node_attrs.find(key);
  if (it == raw.node_attrs.end()) return;
  int64_t v = -1;
  try {
    v = ops::parse_int_text(it->second);
  } catch (const LogicError&) {
  }
  VERIFY(v >= 0 && static_cast<size_t>(v) == actual)
      << node_ref(g, nid) << "attrs." << key << " is \"" << it->second << "\", but the node has "
      << actual;
}

// attrs.<key>: ["<type>", [...]] -> the list.
const Value& typed_list(const Value& v, const std::string& key, const char* type) {
  const std::string what = "attrs." + key;
  get_array(v, what);
  VERIFY(v.size() == 2) << kPrefix << what << ": expected [\"" << type << "\", [...]], found "
                        << v.size() << " items";
  const std::string& t = get_string(v[0], what + "[0]");
  VERIFY(t == type) << kPrefix << what << ": expected type \"" << type << "\", found \"" << t
                    << "\"";
  return get_array(v[1], what + "[1]");
}

void verify_count(const Value& list, size_t expected, const std::string& key, const char* per) {
  VERIFY(list.size() == expected) << kPrefix << "attrs." << key << ": expected one value per "
                                  << per << " (" << expected << "), found " << list.size();
}

AttrMap parse_op_attrs(const std::string& text, const std::string& what) {
  const Value j = parse_json(text, std::string(kPrefix) + what + ": ");
  VERIFY(j.is_object()) << kPrefix << what << ": expected a JSON object in the string, found "
                        << type_name(j);
  AttrMap out;
  for (size_t k = 0; k < j.size(); ++k) {
    const std::string& key = j.keys()[k];
    if (is_ignored_key(key)) continue;
    out[key] = get_string(j[k], what + "." + key);
  }
  return out;
}

void parse_graph_attrs(const Value& jattrs, Graph& g) {
  get_object(jattrs, "attrs");
  const size_t num_entries = g.entries.size();
  std::set<std::string> seen;
  for (size_t k = 0; k < jattrs.size(); ++k) {
    const std::string& key = jattrs.keys()[k];
    const Value& v = jattrs[k];
    seen.insert(key);
    if (key == "shape") {
      const Value& list = typed_list(v, key, "list_shape");
      verify_count(list, num_entries, key, "entry");
      for (size_t e = 0; e < num_entries; ++e) {
        const std::string what = "attrs.shape[" + std::to_string(e) + "]";
        const Value& dims = get_array(list[e], what);
        VERIFY(dims.size() <= 64) << kPrefix << what << ": " << dims.size() << " dimensions";
        Shape s;
        for (size_t d = 0; d < dims.size(); ++d) {
          s.push_back(get_int(dims[d], what + "[" + std::to_string(d) + "]", INT64_MIN, INT64_MAX));
        }
        g.entries[e].shape = s;
      }
    } else if (key == "precision") {
      const Value& list = typed_list(v, key, "list_int");
      verify_count(list, num_entries, key, "entry");
      for (size_t e = 0; e < num_entries; ++e) {
        const std::string what = "attrs.precision[" + std::to_string(e) + "]";
        int64_t p = get_int(list[e], what, -1, 32);
        VERIFY(p != 0) << kPrefix << what << ": expected -1 or a precision in [1, 32], found 0";
        g.entries[e].precision = static_cast<int>(p);
      }
    } else if (key == "storage_id") {
      const Value& list = typed_list(v, key, "list_int");
      verify_count(list, num_entries, key, "entry");
      for (size_t e = 0; e < num_entries; ++e) {
        g.entries[e].storage_id =
            get_int(list[e], "attrs.storage_id[" + std::to_string(e) + "]", 0, INT64_MAX);
      }
      g.has_storage_ids = true;
    } else if (key == "dltype") {
      const Value& list = typed_list(v, key, "list_str");
      verify_count(list, num_entries, key, "entry");
      for (size_t e = 0; e < num_entries; ++e) {
        const std::string what = "attrs.dltype[" + std::to_string(e) + "]";
        const std::string& t = get_string(list[e], what);
        VERIFY(t == "int32") << kPrefix << what << ": expected \"int32\", found \"" << t << "\"";
      }
    } else if (key == "op_attrs") {
      const Value& list = typed_list(v, key, "list_str");
      verify_count(list, g.nodes.size(), key, "node");
      for (size_t nid = 0; nid < g.nodes.size(); ++nid) {
        const std::string what = "attrs.op_attrs[" + std::to_string(nid) + "]";
        AttrMap attrs = parse_op_attrs(get_string(list[nid], what), what);
        // A variable has no operator: whatever it carries is not used.
        if (!g.nodes[nid].is_variable()) g.nodes[nid].attrs = std::move(attrs);
      }
    } else if (key == "device_index") {
      const Value& list = typed_list(v, key, "list_int");
      VERIFY(list.empty()) << kPrefix << "attrs.device_index: must be absent or empty, found "
                           << list.size() << " values";
    } else {
      CVM_LOGIC_ERROR() << kPrefix << "unknown graph attribute \"attrs." << key << "\"";
    }
  }
  for (const char* required : {"shape", "precision", "storage_id", "op_attrs"}) {
    VERIFY(seen.count(required)) << kPrefix << "missing graph attribute \"attrs." << required
                                 << "\"";
  }
}

// node_row_ptr and arg_nodes under cvm_1.0.0: required and equal to what the nodes imply.
void verify_legacy_index(const Value& root, const Graph& g) {
  const Value* rp = root.find("node_row_ptr");
  VERIFY(rp != nullptr) << kPrefix << "missing \"node_row_ptr\" (required by cvm_1.0.0)";
  get_array(*rp, "node_row_ptr");
  VERIFY(rp->size() == g.nodes.size() + 1) << kPrefix << "node_row_ptr: expected "
                                           << g.nodes.size() + 1 << " values, found " << rp->size();
  for (size_t i = 0; i <= g.nodes.size(); ++i) {
    uint32_t expected =
        i < g.nodes.size() ? g.nodes[i].first_entry : static_cast<uint32_t>(g.entries.size());
    int64_t found =
        get_int((*rp)[i], "node_row_ptr[" + std::to_string(i) + "]", INT64_MIN, INT64_MAX);
    VERIFY(found == expected) << kPrefix << "node_row_ptr[" << i << "]: expected " << expected
                              << " (prefix sums of the nodes' output counts), found " << found;
  }
  const Value* an = root.find("arg_nodes");
  VERIFY(an != nullptr) << kPrefix << "missing \"arg_nodes\" (required by cvm_1.0.0)";
  get_array(*an, "arg_nodes");
  std::vector<uint32_t> variables;
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (g.nodes[nid].is_variable()) variables.push_back(nid);
  }
  VERIFY(an->size() == variables.size())
      << kPrefix << "arg_nodes: expected the " << variables.size()
      << " variable (\"null\") nodes in order, found " << an->size() << " values";
  for (size_t i = 0; i < variables.size(); ++i) {
    int64_t found = get_int((*an)[i], "arg_nodes[" + std::to_string(i) + "]", INT64_MIN, INT64_MAX);
    VERIFY(found == variables[i]) << kPrefix << "arg_nodes[" << i << "]: expected node "
                                  << variables[i] << ", found " << found;
  }
}

CvmJsonImport import_root(const Value& root, const ModelLimits& limits) {
  get_object(root, "the top level");
  for (const std::string& key : root.keys()) {
    static const std::set<std::string> kKeys = {
        "nodes", "heads", "attrs", "arg_nodes", "version", "postprocess", "node_row_ptr"};
    VERIFY(kKeys.count(key)) << kPrefix << "unknown top-level key \"" << key << "\"";
  }
  for (const char* required : {"nodes", "heads", "attrs"}) {
    VERIFY(root.find(required)) << kPrefix << "missing top-level key \"" << required << "\"";
  }
  CvmJsonImport out;
  Graph& g = out.graph;
  if (const Value* v = root.find("version")) g.version = get_string(*v, "version");
  VERIFY(g.version == "cvm_1.0.0" || g.version == "cvm_1.1.0")
      << kPrefix << "version: expected \"cvm_1.0.0\" or \"cvm_1.1.0\", found \"" << g.version
      << "\"";
  if (const Value* v = root.find("postprocess")) g.postprocess = get_string(*v, "postprocess");

  const Value& jnodes = get_array(*root.find("nodes"), "nodes");
  VERIFY(!jnodes.empty()) << kPrefix << "nodes: the graph has no nodes";
  VERIFY(jnodes.size() < (size_t{1} << 31)) << kPrefix << "nodes: too many nodes";
  std::vector<RawNode> raws;
  uint64_t entries = 0;
  for (size_t i = 0; i < jnodes.size(); ++i) {
    const std::string what = "nodes[" + std::to_string(i) + "]";
    Node node;
    RawNode raw = parse_node_keys(jnodes[i], what, &node);
    g.nodes.push_back(std::move(node));
    const uint32_t nid = static_cast<uint32_t>(i);
    Node& n = g.nodes.back();
    if (raw.variable) {
      n.op_name = "null";
      VERIFY(raw.inputs->empty()) << node_ref(g, nid) << "a variable has no inputs, found "
                                  << raw.inputs->size();
    } else {
      n.op_name = op_name_from_func_name(raw.func_name);
      VERIFY(n.op_name != "null") << node_ref(g, nid) << "unknown operator \"null\"";
      n.op = lookup_op(g, nid, n.op_name);
      n.num_outputs = static_cast<uint32_t>(n.op->num_outputs());
    }
    n.first_entry = static_cast<uint32_t>(entries);
    entries += n.num_outputs;
    VERIFY(entries < (uint64_t{1} << 31)) << kPrefix << "too many entries";
    raws.push_back(std::move(raw));
  }
  g.entries.resize(static_cast<size_t>(entries));
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    const Value& jin = *raws[nid].inputs;
    for (size_t i = 0; i < jin.size(); ++i) {
      const std::string what =
          "nodes[" + std::to_string(nid) + "].inputs[" + std::to_string(i) + "]";
      g.nodes[nid].inputs.push_back(parse_entry_ref(jin[i], what, g));
    }
    if (!g.nodes[nid].is_variable()) {
      verify_count_attr(g, nid, raws[nid], "num_inputs", g.nodes[nid].inputs.size());
      verify_count_attr(g, nid, raws[nid], "num_outputs", g.nodes[nid].num_outputs);
    }
  }
  const Value& jheads = get_array(*root.find("heads"), "heads");
  for (size_t i = 0; i < jheads.size(); ++i) {
    g.heads.push_back(parse_entry_ref(jheads[i], "heads[" + std::to_string(i) + "]", g));
  }
  if (g.version == "cvm_1.0.0") {
    verify_legacy_index(root, g);
  } else {
    // cvm_1.1.0 recomputes both (a missing node_row_ptr crashed the original: fixed).
    if (const Value* v = root.find("node_row_ptr")) get_array(*v, "node_row_ptr");
    if (const Value* v = root.find("arg_nodes")) get_array(*v, "arg_nodes");
  }
  parse_graph_attrs(*root.find("attrs"), g);
  out.cost = verify_graph(g, limits, PrecisionSource::kRecompute);
  out.storage_id_bytes = storage_pool_bytes(g, limits);
  return out;
}

}  // namespace

CvmJsonImport import_cvm_json(const std::string& text, const ModelLimits& limits) {
  // Callers that count a C string's NUL (strlen + 1) are accepted: trailing NULs end the text.
  size_t len = text.size();
  while (len > 0 && text[len - 1] == '\0') --len;
  return import_root(parse_json(text.substr(0, len), kPrefix), limits);
}

}  // namespace graph
}  // namespace cvm
