# Builds tests/models/bad/*.json (one rule each) and the index README.md.
import sys, os, json, copy, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cvm_graph import G, dumps, t

M = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
B = M + "/bad"
TMP = tempfile.mkdtemp()
os.makedirs(B, exist_ok=True)
for f in os.listdir(B):
    os.remove(os.path.join(B, f))

def base(name):
    return json.load(open(f"{M}/{name}.json"))

rows = []
def bad(fname, obj, expect, rule, params=None, raw=None):
    path = f"{B}/{fname}.json"
    if raw is not None:
        open(path, "w").write(raw)
    else:
        open(path, "w").write(dumps(obj) + "\n")
    if params is not None:
        open(f"{B}/{fname}.params.json", "w").write(json.dumps(params, indent=1) + "\n")
    assert "|" not in expect
    rows.append((fname + ".json", expect, rule))

DB = base("dense_bias")     # data(0) w(1) b(2) dense(3)
DBP = json.load(open(f"{M}/dense_bias.case.json"))["params"]
EW = base("elementwise")

def mod(b, f):
    o = copy.deepcopy(b); f(o); return o

# ---- top level (spec 3)
bad("unknown_top_key", mod(DB, lambda o: o.update(foo=1)), 'unknown top-level key "foo"', "3: unknown top-level key")
bad("missing_nodes", mod(DB, lambda o: o.pop("nodes")), 'missing top-level key "nodes"', "3: nodes, heads, attrs are required")
bad("missing_attrs", mod(DB, lambda o: o.pop("attrs")), 'missing top-level key "attrs"', "3: nodes, heads, attrs are required")
bad("bad_version", mod(DB, lambda o: o.update(version="cvm_2.0.0")), 'version: expected "cvm_1.0.0" or "cvm_1.1.0", found "cvm_2.0.0"', "3: version")
bad("version_not_string", mod(DB, lambda o: o.update(version=100)), "version: expected a string, found number", "3: version is a string")
bad("postprocess_not_string", mod(DB, lambda o: o.update(postprocess=["argmax"])), "postprocess: expected a string", "3: postprocess is a string")
bad("top_level_array", None, "the top level: expected an object, found array", "3: the graph is a JSON object", raw="[1, 2]\n")
bad("not_json", None, "not valid JSON", "JSON syntax", raw='{"nodes": [\n')
bad("deep_nesting", None, "nesting deeper than 64 levels", "JSON nesting bound", raw='{"heads": ' + "[" * 100 + "]" * 100 + "}\n")
bad("empty_nodes", mod(DB, lambda o: o.update(nodes=[])), "the graph has no nodes", "3: at least one node")
# ---- nodes
bad("unknown_node_key", mod(DB, lambda o: o["nodes"][3].update(control_deps=[])), 'unknown node key "control_deps"', "3: node keys")
bad("bad_op_kind", mod(DB, lambda o: o["nodes"][3].update(op="tvm_op")), 'expected "null" or "cvm_op", found "tvm_op"', '3: op is "null" or "cvm_op"')
bad("node_missing_name", mod(DB, lambda o: o["nodes"][1].pop("name")), 'missing key "name"', "3: node name required")
bad("node_name_not_string", mod(DB, lambda o: o["nodes"][1].update(name=7)), "nodes[1].name: expected a string, found number", "3: node name is a string")
bad("missing_func_name", mod(DB, lambda o: o["nodes"][3]["attrs"].pop("func_name")), "missing attrs.func_name", "3: func_name required")
bad("node_attr_not_string", mod(DB, lambda o: o["nodes"][3]["attrs"].update(num_inputs=3)), "nodes[3].attrs.num_inputs: expected a string", "3: node attrs are strings")
bad("unknown_node_attr", mod(DB, lambda o: o["nodes"][3]["attrs"].update(units="3")), 'unknown node attribute "units"', "3: node attrs keys (op attributes belong in op_attrs)")
bad("num_inputs_mismatch", mod(DB, lambda o: o["nodes"][3]["attrs"].update(num_inputs="2")), 'attrs.num_inputs is "2", but the node has 3', "3: num_inputs matches the inputs")
bad("unknown_op", mod(DB, lambda o: o["nodes"][3]["attrs"].update(func_name="conv3d")), 'unknown operator "conv3d"', "4.2: unknown operator")
bad("non_cvm_op", mod(DB, lambda o: o["nodes"][3]["attrs"].update(func_name="matmul")), 'operator "matmul" is not a CVM model operator', "4.2: only CVM operators")
bad("variable_with_inputs", mod(DB, lambda o: o["nodes"][1].update(inputs=[[0, 0, 0]])), "a variable has no inputs", "3: variables have no inputs")
bad("duplicate_variable", mod(DB, lambda o: o["nodes"][2].update(name="w")), 'duplicate variable name "w"', "3: unique variable names")
bad("no_data", mod(DB, lambda o: o["nodes"][0].update(name="input")), 'no variable named "data"', '3: the single external input is "data"')
# ---- entries / inputs
def later(o):
    # relu_0 (node 1) reads add_0's output (node 4): not topological
    o["nodes"][1]["inputs"] = [[4, 0, 0]]
bad("input_from_later_node", mod(EW, later), "topological order", "3: input entry ids below the consumer's")
bad("input_self", mod(DB, lambda o: o["nodes"][3]["inputs"].__setitem__(0, [3, 0, 0])), "topological order", "3: no self input")
bad("input_node_out_of_range", mod(DB, lambda o: o["nodes"][3]["inputs"].__setitem__(0, [9, 0, 0])), "node 9 does not exist", "3: input node exists")
bad("input_index_out_of_range", mod(DB, lambda o: o["nodes"][3]["inputs"].__setitem__(0, [0, 1, 0])), "index 1 does not exist", "3: input output-index exists")
bad("input_short", mod(DB, lambda o: o["nodes"][3]["inputs"].__setitem__(0, [0])), "expected [node, index] or [node, index, version]", "3: input form")
bad("input_negative", mod(DB, lambda o: o["nodes"][3]["inputs"].__setitem__(0, [-1, 0, 0])), "(node): expected an integer in [0, 4294967295], found -1", "3: input node id is an index")
bad("input_float", mod(DB, lambda o: o["nodes"][3]["inputs"].__setitem__(0, [0.5, 0, 0])), "expected an integer, found number 0.5", "3: input ids are integers")
bad("heads_empty", mod(DB, lambda o: o.update(heads=[])), "no outputs (heads is empty)", "3: at least one head")
bad("heads_out_of_range", mod(DB, lambda o: o.update(heads=[[7, 0, 0]])), "heads[0]: node 7 does not exist", "3: heads exist")
# ---- node_row_ptr / arg_nodes (cvm_1.0.0)
bad("node_row_ptr_wrong", mod(DB, lambda o: o.update(node_row_ptr=[0, 1, 2, 4, 5])), "node_row_ptr[3]: expected 3 (prefix sums of the nodes' output counts), found 4", "3: 1.0.0 node_row_ptr = prefix sums")
bad("node_row_ptr_missing", mod(DB, lambda o: o.pop("node_row_ptr")), 'missing "node_row_ptr" (required by cvm_1.0.0)', "3: 1.0.0 node_row_ptr required")
bad("node_row_ptr_short", mod(DB, lambda o: o.update(node_row_ptr=[0, 1, 2, 3])), "node_row_ptr: expected 5 values, found 4", "3: 1.0.0 node_row_ptr length")
bad("arg_nodes_wrong", mod(DB, lambda o: o.update(arg_nodes=[0, 2, 1])), "arg_nodes[1]: expected node 1, found 2", "3: 1.0.0 arg_nodes lists null nodes in order")
bad("arg_nodes_missing", mod(DB, lambda o: o.pop("arg_nodes")), 'missing "arg_nodes" (required by cvm_1.0.0)', "3: 1.0.0 arg_nodes required")
bad("node_row_ptr_not_array_v110", mod(DB, lambda o: o.update(version="cvm_1.1.0", node_row_ptr=5)), "node_row_ptr: expected an array", "3: 1.1.0 node_row_ptr, when given, is an array")
# ---- graph attributes
A = lambda o: o["attrs"]
bad("unknown_graph_attr", mod(DB, lambda o: A(o).update(foo=["list_int", [1]])), 'unknown graph attribute "attrs.foo"', "3: graph attribute keys")
bad("missing_precision_attr", mod(DB, lambda o: A(o).pop("precision")), 'missing graph attribute "attrs.precision"', "3: precision required")
bad("missing_storage_id", mod(DB, lambda o: A(o).pop("storage_id")), 'missing graph attribute "attrs.storage_id"', "3: storage_id required")
bad("missing_op_attrs", mod(DB, lambda o: A(o).pop("op_attrs")), 'missing graph attribute "attrs.op_attrs"', "3: op_attrs required")
bad("shape_wrong_type_tag", mod(DB, lambda o: A(o)["shape"].__setitem__(0, "list_int")), 'attrs.shape: expected type "list_shape", found "list_int"', "3: attribute type tags")
bad("shape_count_mismatch", mod(DB, lambda o: A(o)["shape"][1].pop()), "attrs.shape: expected one value per entry (4), found 3", "3: one shape per entry")
bad("ndim7", mod(DB, lambda o: A(o)["shape"][1].__setitem__(0, [1, 1, 1, 1, 1, 1, 4])), "expected 1 to 6 dimensions, found 7", "3: ndim in 1..6")
bad("ndim0", mod(DB, lambda o: A(o)["shape"][1].__setitem__(0, [])), "expected 1 to 6 dimensions, found 0", "3: ndim in 1..6")
bad("dim_too_large", mod(DB, lambda o: A(o)["shape"][1].__setitem__(0, [1, 16777217])), "dimension 1 must be in [1, 16777216], found 16777217", "3: dims in 1..2^24")
bad("dim_zero", mod(DB, lambda o: A(o)["shape"][1].__setitem__(2, [0])), "dimension 0 must be in [1, 16777216], found 0", "3: dims in 1..2^24")
bad("too_many_elements", mod(DB, lambda o: A(o)["shape"][1].__setitem__(0, [1024, 1024, 1025])), "element count exceeds the limit 1073741824", "3: element count <= 2^30")
bad("precision_33", mod(DB, lambda o: A(o)["precision"][1].__setitem__(1, 33)), "attrs.precision[1]: expected an integer in [-1, 32], found 33", "3: precision -1 or 1..32")
bad("precision_0", mod(DB, lambda o: A(o)["precision"][1].__setitem__(1, 0)), "attrs.precision[1]: expected -1 or a precision in [1, 32], found 0", "3: precision -1 or 1..32")
bad("variable_precision_minus1", mod(DB, lambda o: A(o)["precision"][1].__setitem__(1, -1)), "a variable's precision must be in [1, 32], found -1", "3: variables must not be -1")
bad("storage_id_negative", mod(DB, lambda o: A(o)["storage_id"][1].__setitem__(2, -1)), "attrs.storage_id[2]: expected an integer in [0,", "3: storage_id >= 0")
bad("storage_id_count", mod(DB, lambda o: A(o)["storage_id"][1].pop()), "attrs.storage_id: expected one value per entry (4), found 3", "3: one storage_id per entry")
bad("storage_shared_illegally", mod(DB, lambda o: A(o)["storage_id"][1].__setitem__(3, 1)), 'output 0 shares storage_id 1 with input 1 (entry 1), but operator "dense" is not in-place', "3: storage sharing only for in-place ops")
def neg_share(o):
    # negative_0 (node 2, entry 2) shares data's storage id: negative is not in-place (quirk)
    A(o)["storage_id"][1][2] = 0
bad("storage_shared_negative", mod(EW, neg_share), 'operator "negative" is not in-place', "3: quirk: negative is not in the in-place list")
bad("dltype_not_int32", mod(DB, lambda o: A(o)["dltype"][1].__setitem__(1, "float32")), 'attrs.dltype[1]: expected "int32", found "float32"', "3: dltype all int32")
bad("dltype_count", mod(DB, lambda o: A(o)["dltype"][1].pop()), "attrs.dltype: expected one value per entry (4), found 3", "3: one dltype per entry")
bad("device_index_nonempty", mod(DB, lambda o: A(o).update(device_index=["list_int", [1, 1, 1, 1]])), "attrs.device_index: must be absent or empty", "3: device_index absent or empty")
bad("op_attrs_not_object", mod(DB, lambda o: A(o)["op_attrs"][1].__setitem__(3, "[1, 2]")), "expected a JSON object in the string, found array", "3: op_attrs are JSON objects in strings")
bad("op_attrs_not_json", mod(DB, lambda o: A(o)["op_attrs"][1].__setitem__(3, '{"units": ')), "attrs.op_attrs[3]: not valid JSON", "3: op_attrs parse")
bad("op_attrs_value_not_string", mod(DB, lambda o: A(o)["op_attrs"][1].__setitem__(3, '{"units": 3}')), "attrs.op_attrs[3].units: expected a string, found number", "3: op attribute values are strings")
bad("op_attrs_count", mod(DB, lambda o: A(o)["op_attrs"][1].pop()), "attrs.op_attrs: expected one value per node (4), found 3", "3: one op_attrs per node")
# ---- operators (spec 4.2 - 4.4)
OA = lambda o, i, d: A(o)["op_attrs"][1].__setitem__(i, json.dumps(d))
bad("unknown_attribute", mod(DB, lambda o: OA(o, 3, {"units": "3", "use_bias": "True", "foo": "1"})), 'unknown attribute "foo"', "4.2: unknown attribute")
bad("missing_attribute", mod(DB, lambda o: OA(o, 3, {"use_bias": "True"})), 'attribute "units": expected an integer in [1, 2147483647], found nothing (it is required)', "4.2: missing required attribute")
bad("attribute_out_of_range", mod(DB, lambda o: OA(o, 3, {"units": "0", "use_bias": "True"})), 'attribute "units": expected an integer in [1, 2147483647], found 0', "4.2: attribute range")
bad("attribute_malformed", mod(DB, lambda o: OA(o, 3, {"units": "three"})), 'attribute "units"', "4.2: attribute parses")
def relu2(o):
    o["nodes"][1]["inputs"].append([0, 0, 0]); o["nodes"][1]["attrs"]["num_inputs"] = "2"
bad("arity_mismatch", mod(EW, relu2), "expected 1 input(s), found 2", "4.2: arity")
bad("dense_missing_bias_input", mod(DB, lambda o: (o["nodes"][3]["inputs"].pop(), o["nodes"][3]["attrs"].update(num_inputs="2"))), "expected 3 inputs (data, weight, bias) with use_bias=true, got 2", "4.2: arity with use_bias")
bad("shape_mismatch", mod(DB, lambda o: A(o)["shape"][1].__setitem__(3, [1, 4])), "output 0: inferred shape (1, 3) does not match the stored shape (1, 4)", "4.3: inferred shapes equal stored")
bad("weight_shape_mismatch", mod(DB, lambda o: A(o)["shape"][1].__setitem__(1, [3, 5])), "weight shape (3, 5) does not match", "4.3: operator shape rules")
bad("dense_input_precision_9", mod(DB, lambda o: A(o)["precision"][1].__setitem__(0, 9)), "data precision must be in [1, 8], found 9", "4.4: dense input precision <= 8")
bad("dense_weight_precision_9", mod(DB, lambda o: A(o)["precision"][1].__setitem__(1, 9)), "weight precision must be in [1, 8], found 9", "4.4: dense weight precision <= 8")
g = G()
d = g.var("data", (1, 1, 4, 4), 9); w = g.var("w", (1, 1, 2, 2), 8)
c = g.op("conv2d", "conv_0", [d, w], (1, 1, 3, 3), {"channels": 1, "kernel_size": "(2, 2)", "use_bias": "False"})
g.dump([c], TMP + "/conv9.json")
bad("conv_input_precision_9", json.load(open(TMP + "/conv9.json")), "data precision must be in [1, 8], found 9", "4.4: conv2d input precision <= 8")
g = G()
d = g.var("data", (2, 3), 20); w = g.var("w", (2, 3), 20)
m = g.op("broadcast_mul", "mul_0", [d, w], (2, 3))
g.dump([m], TMP + "/mul40.json")
bad("precision_over_32", json.load(open(TMP + "/mul40.json")), "output 0: inferred precision 40 is outside [1, 32]", "4.4: inferred precisions in 1..32")
g = G()
d = g.var("data", (2, 3), 30)
m = g.op("cvm_left_shift", "lshift_0", [d], (2, 3), {"precision": 8, "shift_bit": 4})
g.dump([m], TMP + "/lshift.json")
bad("left_shift_precision", json.load(open(TMP + "/lshift.json")), "input precision 30 + shift_bit 4 must be at most 32", "5: cvm_left_shift p0 + s <= 32")
# ---- limits (spec 4.5)
g = G()
d = g.var("data", (1, 8192, 256, 256), 1); w = g.var("w", (1, 8192, 256, 256), 1)
c = g.op("conv2d", "conv_0", [d, w], (1, 1, 1, 1), {"channels": 1, "kernel_size": "(256, 256)", "use_bias": "False"})
g.dump([c], TMP + "/base.json")
bad("cost_base_limit", json.load(open(TMP + "/base.json")), "cost base 1610612736 exceeds the limit 1073741824", "4.5: per-op cost base <= 2^30")
g = G()
d = g.var("data", (16384, 16384), 8); w = g.var("w", (16384, 16384), 8)
y = g.op("dense", "dense_0", [d, w], (16384, 16384), {"units": 16384, "use_bias": "False"})
g.dump([y], TMP + "/ops.json")
bad("ops_limit", json.load(open(TMP + "/ops.json")), "running ops exceeds the limit 1099511627776", "4.5: running ops <= 2^40")
g = G()
x = g.var("data", (1024, 1024, 1024), 8)
for i in range(210):
    x = g.op("relu", f"relu_{i}", [x], (1024, 1024, 1024))
g.dump([x], TMP + "/mem.json")
bad("mem_limit", json.load(open(TMP + "/mem.json")), "running mem exceeds the limit 1099511627776", "4.5: running mem <= 2^40")
g = G()
x = g.var("data", (1024, 1024, 1024), 8)
x = g.op("relu", "relu_0", [x], (1024, 1024, 1024))
g.dump([x], TMP + "/storage.json")
bad("storage_limit", json.load(open(TMP + "/storage.json")), "exceeds the limit 4294967296", "4.5: planned storage <= 2^32 bytes")
# ---- params (spec 2, 4.6)
P = lambda **kw: {"params": {**DBP, **kw}}
bad("missing_param", DB, 'param "b": missing from the params', "2: every variable except data present",
    params={"params": {"w": DBP["w"]}})
bad("param_out_of_range", DB, 'param "w": value 200 at flat index 0 is outside [-127, 127] (precision 8)', "1: param values within +-alpha(p)",
    params=P(w=t("int32", (3, 4), [200] + [0] * 11)))
bad("param_wrong_shape", DB, 'param "w": shape (4, 3) does not match the graph\'s shape (3, 4)', "2: param shape equals the graph's",
    params=P(w=t("int8", (4, 3), [0] * 12)))
bad("param_wrong_dtype", DB, 'param "b": expected dtype int8 or int32, found int16', "2: params are int8 or int32",
    params={"params": {**DBP, "b": {"dtype": "int16", "shape": [3], "data": [1, 2, 3]}}})
bad("param_extra", DB, 'params: param "zzz" is not a variable of the graph', "2: no param that is not a variable (rejected, as the original did)",
    params=P(zzz=t("int8", (1,), [0])))
bad("params_truncated", DB, "truncated", "2: truncated params",
    params={"params": DBP, "truncate": 5})
bad("params_garbage", DB, "params: unrecognised format", "2: params magic",
    params={"params": {}, "raw_hex": "00112233445566778899"})

with open(f"{B}/README.md", "w") as f:
    f.write("# Malformed CVM models\n\n")
    f.write("Each file breaks exactly one rule of spec/cvm-ops.md sections 1-4 (section numbers in the\n"
            "last column); `tests/unit/graph_bad_test.cc` loads every file listed here and asserts a\n"
            "`cvm::LogicError` whose message contains the expected text. A file `<name>.params.json`\n"
            "gives the params (`{\"params\": {name: {dtype, shape, data}}}`, optional `\"truncate\": n`\n"
            "bytes cut from the legacy encoding, or `\"raw_hex\"` bytes); without one the params are empty.\n"
            "The files and this index are generated by `tests/models/gen/gen_bad.py`; edit that and\n"
            "re-run it rather than the files.\n\n")
    f.write("| file | expected message (substring) | rule |\n|---|---|---|\n")
    for fn, e, r in rows:
        f.write(f"| {fn} | {e} | {r} |\n")
print(len(rows), "bad models")
