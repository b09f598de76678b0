# Rewrites BlazeFace's Concat(x, zeros) channel padding as equivalent ONNX Pad nodes.
"""concat_to_pad.py IN.onnx OUT.onnx

The Barracuda BlazeFace model pads channels (TensorFlow's Pad in the residual shortcuts) as a
Concat of the tensor with a ConstantOfShape block of zeros along axis 1. `cvmrt import` takes that
as it is, but `cvmrt quantize` refuses a concatenation with a constant ("concatenating a constant
is not supported"). This script replaces each such Concat with a Pad (mode constant, value 0) that
appends the same number of zero channels, which gives bit-identical float results, and removes the
ConstantOfShape nodes that nothing uses any more. Every other node is left as it is. The result
passes onnx.checker; the script prints how many nodes it rewrote.
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def zero_block_shape(node, inits):
    """The shape of a ConstantOfShape node that makes zeros, else None."""
    if node.op_type != "ConstantOfShape" or node.input[0] not in inits:
        return None
    for a in node.attribute:
        if a.name == "value" and np.any(numpy_helper.to_array(a.t) != 0):
            return None
    return [int(v) for v in numpy_helper.to_array(inits[node.input[0]]).reshape(-1)]


def rewrite(model):
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    new_nodes, new_inits, count = [], [], 0
    for idx, n in enumerate(g.node):
        axis = next((a.i for a in n.attribute if a.name == "axis"), None)
        if n.op_type == "Concat" and len(n.input) == 2 and n.input[0] in producer \
                and n.input[1] in producer:
            shape = zero_block_shape(producer[n.input[1]], inits)
            if shape is not None and axis is not None:
                rank = len(shape)
                ax = axis % rank
                pads = [0] * (2 * rank)
                pads[rank + ax] = shape[ax]
                pads_name = "concat_to_pad_%d_pads" % idx
                new_inits.append(numpy_helper.from_array(np.array(pads, dtype=np.int64), pads_name))
                new_nodes.append(helper.make_node(
                    "Pad", [n.input[0], pads_name], list(n.output),
                    name=(n.name or "Concat_%d" % idx) + "_as_pad", mode="constant"))
                count += 1
                continue
        new_nodes.append(n)
    used = {i for n in new_nodes for i in n.input} | {o.name for o in g.output}
    kept = [n for n in new_nodes
            if not (n.op_type == "ConstantOfShape" and not any(o in used for o in n.output))]
    del g.node[:]
    g.node.extend(kept)
    g.initializer.extend(new_inits)
    return count


def main(argv):
    if len(argv) != 2:
        print("usage: concat_to_pad.py IN.onnx OUT.onnx", file=sys.stderr)
        return 2
    model = onnx.load(argv[0])
    count = rewrite(model)
    onnx.checker.check_model(model)
    onnx.save(model, argv[1])
    print("concat_to_pad: %d Concat(x, zeros) nodes -> Pad; wrote %s" % (count, argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
