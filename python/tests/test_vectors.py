# Every operator from Python: the conformance vectors (tests/vectors) through cvmrt.op, outputs
# compared byte for byte, and error cases checked for their kind and message.
import json
from pathlib import Path

import numpy as np
import pytest

import cvmrt

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"


def load_cases():
    cases = []
    for path in sorted(VECTORS.glob("**/*.json")):
        for case in json.loads(path.read_text()):
            # Errors only inference can see (precision rules) have no place in running an op.
            if "error" in case and case["error"].get("in") == "infer":
                continue
            cases.append(pytest.param(case, id=f"{path.stem}:{case['op']}:{case['name']}"))
    return cases


def tensor(spec):
    dtype = spec["dtype"]
    storage = "uint16" if dtype == "bfloat16" else dtype
    if "data_hex" in spec:
        values = np.frombuffer(bytes.fromhex(spec["data_hex"]), dtype=storage)
    else:
        values = np.array(spec["data"], dtype=storage)
    return cvmrt.asarray(values.reshape(spec["shape"]).copy(), dtype=dtype)


def expected_bytes(spec):
    return tensor(spec).tobytes()


CASES = load_cases()


def test_every_registered_operator_has_vectors():
    ops = {c.values[0]["op"] for c in CASES}
    assert {o.name for o in cvmrt.ops() if o.cvm} <= ops
    assert len(CASES) > 1000


@pytest.mark.parametrize("case", CASES)
def test_vector(case):
    inputs = [tensor(t) for t in case["inputs"]]
    attrs = case.get("attrs", {})
    if "error" in case:
        kind = cvmrt.LogicError if case["error"]["kind"] == "logic" else cvmrt.RuntimeError
        with pytest.raises(kind) as raised:
            cvmrt.op(case["op"], inputs, **attrs)
        contains = case["error"]["contains"]
        for text in [contains] if isinstance(contains, str) else contains:
            assert text in str(raised.value)
        return
    outs = cvmrt.op(case["op"], inputs, **attrs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    want = case["expected"]["outputs"]
    assert len(outs) == len(want)
    for got, spec in zip(outs, want):
        assert got.dtype == spec["dtype"] and list(got.shape) == spec["shape"]
        assert got.tobytes() == expected_bytes(spec)
