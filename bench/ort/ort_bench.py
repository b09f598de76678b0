#!/usr/bin/python3
# ONNX Runtime's native CPU EP through its Python package, for hosts without node: JSON lines as the .mjs benches write.
"""Times ONNX Runtime (the `onnxruntime` Python package, CPU execution provider) where node and
onnxruntime-node are missing but Python's onnxruntime is installed: a GPU host, a server image.
It prints the JSON lines of the node benches, so the same reports read them:

    ort_bench.py layers MODEL_DIR [--quick]
        the models of make_models.py (MODEL_DIR/index.jsonl), as ort_bench.mjs: one line per
        model and thread count (1, 2): {name, op, threads, ms}, ms the median; for report.py.
    ort_bench.py models INDEX.jsonl [--quick] [--check DIR]
        make_qdq_models.py's whole models, as model_bench.mjs's ONNX Runtime native rows:
        {side: "ort", runtime: "ort-python", name, threads, ms, min, runs[, fused]}; for
        model_report.py, which takes them where no onnxruntime-node row exists. --check DIR
        writes ORT's optimized model to DIR/NAME.ort-opt.onnx and counts its operators.

Sessions as the node benches make them: intra-op threads 1 and 2, inter-op 1, sequential
execution, every graph optimization. Inputs: deterministic int8/uint8 patterns (layers, as
ort_bench.mjs) or the model's .npy (models). Medians of wall-clock times after warm-up runs.
"""
import collections
import json
import os
import sys
import time

import numpy as np
import onnxruntime as ort


def session(path, threads, optimized=None):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if optimized:
        opts.optimized_model_filepath = optimized
    return ort.InferenceSession(path, sess_options=opts, providers=["CPUExecutionProvider"])


def timed(run, budget_s, min_runs, max_runs):
    """Median, min and count of run()'s wall times after warm-up (one when a run is slow)."""
    t0 = time.perf_counter()
    run()
    if time.perf_counter() - t0 <= 0.5:
        run()
    times = []
    start = time.perf_counter()
    while len(times) < min_runs or (time.perf_counter() - start < budget_s and
                                     len(times) < max_runs):
        t = time.perf_counter()
        run()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return {"ms": times[len(times) // 2], "min": times[0], "runs": len(times)}


def pattern(shape, dtype):
    """ort_bench.mjs's input: int8 (i * 37 % 255) - 127, uint8 (i * 37) % 256."""
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    v = (i * 37 % 255) - 127 if dtype == "int8" else (i * 37) % 256
    return v.astype(np.int8 if dtype == "int8" else np.uint8).reshape(shape)


def layers(model_dir, quick):
    for line in open(os.path.join(model_dir, "index.jsonl")):
        if not line.strip():
            continue
        m = json.loads(line)
        x = pattern(m["input"], m["dtype"])
        for threads in (1, 2):
            s = session(m["model"], threads)
            t = timed(lambda: s.run(None, {"x": x}), 0.05 if quick else 0.3, 3, 500)
            print(json.dumps({"name": m["name"], "op": m["op"], "threads": threads,
                              "ms": t["ms"]}), flush=True)


def op_counts(path):
    import onnx  # only for --check
    return dict(collections.Counter(n.op_type for n in onnx.load(path).graph.node))


def models(index, quick, check_dir):
    if check_dir:
        os.makedirs(check_dir, exist_ok=True)
    for line in open(index):
        if not line.strip():
            continue
        m = json.loads(line)
        x = np.load(m["npy"]).astype(np.float32).reshape(m["shape"])
        for threads in (1, 2):
            optimized = None
            if check_dir and threads == 1:
                optimized = os.path.join(check_dir, m["name"] + ".ort-opt.onnx")
            s = session(m["model"], threads, optimized)
            t = timed(lambda: s.run(None, {m["input"]: x}), 0.3 if quick else 1.5,
                      3 if quick else 5, 2000)
            row = {"side": "ort", "runtime": "ort-python", "name": m["name"], "threads": threads,
                   **t, "version": ort.__version__}
            if optimized:
                row["fused"] = op_counts(optimized)
            print(json.dumps(row), flush=True)


def main(argv):
    usage = ("usage: ort_bench.py layers MODEL_DIR [--quick]\n"
             "       ort_bench.py models INDEX.jsonl [--quick] [--check DIR]")
    if len(argv) < 3 or argv[1] not in ("layers", "models"):
        print(usage, file=sys.stderr)
        return 2
    quick = "--quick" in argv
    if argv[1] == "layers":
        layers(argv[2], quick)
    else:
        check = argv[argv.index("--check") + 1] if "--check" in argv else None
        models(argv[2], quick, check)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
