# Helper of gen_models.py / gen_bad.py: writes CVM graph JSON models and their .case.json sidecars.
import json

class G:
    def __init__(s, version="cvm_1.0.0", postprocess=""):
        s.nodes, s.shapes, s.precs, s.opattrs, s.nout = [], [], [], [], []
        s.version, s.postprocess = version, postprocess
        s.eids = []  # node -> first entry
    def _entry(s, nid, k=0):
        return s.eids[nid] + k
    def var(s, name, shape, prec):
        nid = len(s.nodes)
        s.eids.append(len(s.shapes))
        s.nodes.append({"op": "null", "name": name, "inputs": []})
        s.shapes.append(list(shape)); s.precs.append(prec); s.opattrs.append("{}"); s.nout.append(1)
        return (nid, 0)
    def op(s, func, name, inputs, shapes, attrs=None, nout=1):
        nid = len(s.nodes)
        s.eids.append(len(s.shapes))
        s.nodes.append({"op": "cvm_op", "name": name,
                        "attrs": {"func_name": func, "num_inputs": str(len(inputs)),
                                  "num_outputs": str(nout), "flatten_data": "0"},
                        "inputs": [[n, k, 0] for (n, k) in inputs]})
        if nout == 1: shapes = [shapes]
        for sh in shapes:
            s.shapes.append(list(sh)); s.precs.append(-1)
        s.opattrs.append(json.dumps({k: str(v) for k, v in (attrs or {}).items()}))
        s.nout.append(nout)
        return [(nid, k) for k in range(nout)] if nout > 1 else (nid, 0)
    def dump(s, heads, path):
        rp = [0]
        for n in s.nout: rp.append(rp[-1] + n)
        g = {"nodes": s.nodes,
             "arg_nodes": [i for i, n in enumerate(s.nodes) if n["op"] == "null"],
             "node_row_ptr": rp,
             "heads": [[n, k, 0] for (n, k) in heads],
             "attrs": {"shape": ["list_shape", s.shapes],
                       "precision": ["list_int", s.precs],
                       "storage_id": ["list_int", list(range(len(s.shapes)))],
                       "dltype": ["list_str", ["int32"] * len(s.shapes)],
                       "op_attrs": ["list_str", s.opattrs]},
             "version": s.version}
        if s.postprocess: g["postprocess"] = s.postprocess
        with open(path, "w") as f:
            f.write(dumps(g) + "\n")

def dumps(obj):
    # Compact, but one node per line for readability.
    if isinstance(obj, dict) and "nodes" in obj:
        parts = []
        for k, v in obj.items():
            if k == "nodes":
                parts.append('"nodes": [\n  ' + ",\n  ".join(json.dumps(n) for n in v) + "\n ]")
            elif k == "attrs":
                parts.append('"attrs": {\n  ' + ",\n  ".join(json.dumps(a) + ": " + json.dumps(b) for a, b in v.items()) + "\n }")
            else:
                parts.append(json.dumps(k) + ": " + json.dumps(v))
        return "{" + ",\n ".join(parts) + "}"
    return json.dumps(obj)

def case(path, **kw):
    with open(path, "w") as f:
        f.write(json.dumps(kw, indent=1) + "\n")

def t(dtype, shape, data):
    return {"dtype": dtype, "shape": list(shape), "data": list(data)}
