#!/usr/bin/python3
# Prints the whole-model table of bench/run_model_bench.sh: cvmrt vs ONNX Runtime, native and wasm.
"""Prints the whole-model table of bench/run_model_bench.sh from its JSON lines.

    model_report.py WORK_DIR

Reads WORK_DIR/cvmrt_models.jsonl (which models; "ort" names the ORT peer where it differs),
native.jsonl (`cvmrt bench --format json` + name/label), hashes.jsonl (sha256 of the outputs of
`cvmrt run` per backend and thread count), wasm.jsonl and ort.jsonl (bench/ort/model_bench.mjs, or ort_bench.py models where node is
missing: its "ort-python" rows stand for the native ORT columns).
Two tables: medians, then the best (min) run of each, in ms. Ratios are ORT time / cvmrt time: > 1 means cvmrt is faster
(targets: >= 2 natively at 1 and 2 threads, >= 1.5 for wasm SIMD vs onnxruntime-web).
"bits": yes when cvmrt's scalar backend (1 thread), its best backend (1 and 2 threads) and both
wasm builds give the same output bytes.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from markdown_table import print_table  # noqa: E402


def lines(path):
    if not os.path.exists(path):
        return []
    return [json.loads(x) for x in open(path) if x.strip().startswith("{")]


def main():
    work = sys.argv[1]
    report(work, "p50", "ms", "median")
    print()
    report(work, "min", "min", "min (best run: less sensitive to other load on a shared machine)")


def report(work, nkey, okey, title):
    models = lines(os.path.join(work, "cvmrt_models.jsonl"))
    native = {(r["name"], r["label"], r["threads"]): r["latency_ms"][nkey]
              for r in lines(os.path.join(work, "native.jsonl"))}
    kernels = {r["name"]: r.get("conv2d_kernel", "-")
               for r in lines(os.path.join(work, "native.jsonl")) if r["label"] == "auto"}
    wasm = {(r["name"], r["variant"]): r for r in lines(os.path.join(work, "wasm.jsonl"))}
    ort = {(r["name"], r["runtime"], r["threads"]): r[okey]
           for r in lines(os.path.join(work, "ort.jsonl"))}
    fused = {r["name"]: r["fused"] for r in lines(os.path.join(work, "ort.jsonl")) if "fused" in r}
    hashes = {}
    for r in lines(os.path.join(work, "hashes.jsonl")):
        hashes.setdefault(r["name"], {})[r["label"]] = r["sha256"]
    for (name, variant), r in wasm.items():
        hashes.setdefault(name, {})["wasm-" + variant] = r["sha256"]

    def ms(v):
        return "-" if v is None else ("%.3f" % v if v < 1 else "%.2f" % v if v < 100 else "%.0f" % v)

    def ratio(a, b):
        return "-" if a is None or b is None else "%.2fx" % (a / b)

    head = ["model", "cvmrt 1T", "cvmrt 2T", "ORT 1T", "ORT 2T", "ORT/cvmrt 1T", "ORT/cvmrt 2T",
            "cvmrt scalar", "wasm simd", "wasm plain", "ORT-web", "ORT-web/simd", "bits"]
    rows, short = [], []
    for m in models:
        name, peer = m["name"], m.get("ort", m["name"])
        c1, c2 = native.get((name, "auto", 1)), native.get((name, "auto", 2))
        # ORT's native CPU EP: onnxruntime-node, else the Python package (ort_bench.py models).
        o1 = ort.get((peer, "ort-node", 1), ort.get((peer, "ort-python", 1)))
        o2 = ort.get((peer, "ort-node", 2), ort.get((peer, "ort-python", 2)))
        ws, wp = wasm.get((name, "simd"), {}).get(okey), wasm.get((name, "plain"), {}).get(okey)
        ow = ort.get((peer, "ort-web", 1))
        h = hashes.get(name, {})
        bits = ("yes" if len(set(h.values())) == 1 else "NO") + " (%d)" % len(h) if h else "-"
        rows.append([name, ms(c1), ms(c2), ms(o1), ms(o2), ratio(o1, c1), ratio(o2, c2),
                     ms(native.get((name, "scalar", 1))), ms(ws), ms(wp), ms(ow), ratio(ow, ws),
                     bits])
        for what, a, b, target in (("native 1T", o1, c1, 2.0), ("native 2T", o2, c2, 2.0),
                                   ("wasm", ow, ws, 1.5)):
            if a is not None and b is not None and a / b < target:
                short.append("%s %s: %.2fx < %.1fx" % (name, what, a / b, target))
    print("whole models, " + title + " ms; ratios = ORT / cvmrt (> 1: cvmrt faster); "
          "bits = identical outputs over (n) cvmrt backends/builds")
    print_table(head, rows)
    print()
    if nkey == "p50":
        print("cvmrt conv2d kernel (auto): " +
              ", ".join("%s %s" % kv for kv in kernels.items()))
        for name, f in fused.items():
            print("ORT optimized %s: %s" % (name,
                                            ", ".join("%s %d" % kv for kv in sorted(f.items()))))
    if short:
        print("short of target: " + "; ".join(short))
    else:
        print("every measured ratio meets its target")


if __name__ == "__main__":
    main()
