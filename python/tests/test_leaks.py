# Leak checks: 100,000 create/convert/free cycles of arrays, DLPack capsules and model runs keep
# the process's memory and the NumPy arrays' reference counts flat.
import json
import sys
from pathlib import Path

import numpy as np

import cvmrt

MODELS = Path(__file__).resolve().parents[2] / "tests" / "models"


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_array_cycles_do_not_leak():
    x = np.arange(1024, dtype=np.int32)  # 4 KiB: a leak of one buffer a cycle is 400 MB
    ro = np.arange(1024, dtype=np.float32)
    ro.flags.writeable = False
    refs = (sys.getrefcount(x), sys.getrefcount(ro))

    def cycle():
        a = cvmrt.asarray(x)
        np.asarray(a)
        np.from_dlpack(a)
        cvmrt.from_dlpack(x)
        cvmrt.asarray(ro).copy()
        a.__dlpack__()  # a capsule nobody consumes
        cvmrt.zeros((1024,), "int64")
        a.reshape(32, 32).transpose().contiguous()

    for _ in range(2000):  # warm-up: allocator pools, first-use caches
        cycle()
    before = rss_bytes()
    for _ in range(100_000):
        cycle()
    grown = rss_bytes() - before
    assert grown < 16 << 20, f"memory grew by {grown >> 20} MiB over 100,000 cycles"
    assert (sys.getrefcount(x), sys.getrefcount(ro)) == refs


def test_model_and_params_cycles_do_not_leak():
    spec = json.loads((MODELS / "mlp.case.json").read_text())
    params = {k: np.array(v["data"], dtype=v["dtype"]).reshape(v["shape"])
              for k, v in spec["params"].items()}
    blob = cvmrt.save_params(params)
    model = cvmrt.load_model(MODELS / "mlp.json", params=blob)
    x = np.array(spec["input"]["data"], dtype=np.int32).reshape(spec["input"]["shape"])

    def cycle():
        model.run({"data": x})
        cvmrt.load_params(blob)

    for _ in range(2000):
        cycle()
    before = rss_bytes()
    for _ in range(100_000):
        cycle()
    grown = rss_bytes() - before
    assert grown < 16 << 20, f"memory grew by {grown >> 20} MiB over 100,000 cycles"
    for _ in range(200):  # loading and dropping whole models
        cvmrt.load_model(MODELS / "mlp.json", params=params).run({"data": x})
