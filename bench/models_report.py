#!/usr/bin/python3
"""Prints the whole-model table of bench/run_benchmarks.sh from `cvmrt bench --format json` lines.

    models_report.py MODELS.jsonl EXPECTED.json

MODELS.jsonl: one `cvmrt bench --format json` object per line, each with a "label" (how the
backend was chosen: "scalar", "simd", "simd avx2" ...) added by the script. EXPECTED.json: what
`examples/gen_models.py --bench` writes (per model: cost and multiply-accumulates). Latency is the
median (p50) in milliseconds; GOPS counts 2 operations per multiply-accumulate of conv2d/dense;
"x scalar" is the scalar backend's median on one thread (it has no threaded kernels) over this
row's.
"""
import json
import os
import sys

from markdown_table import print_table


def model_name(r):
    return os.path.basename(r["model"]).rsplit(".", 1)[0]


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip().startswith("{")]
    expected = json.load(open(sys.argv[2]))
    if not rows:
        print("whole models: no results")
        return
    scalar = {model_name(r): r["latency_ms"]["p50"] for r in rows
              if r["label"] == "scalar" and r["threads"] == 1}
    head = ["model", "GMAC", "cost Gops", "backend", "conv2d kernel", "threads", "runs",
            "p50 ms", "min ms", "GOPS", "x scalar"]
    table = []
    for r in rows:
        m = model_name(r)
        macs = expected.get(m, {}).get("macs")
        p50 = r["latency_ms"]["p50"]
        base = scalar.get(m)
        table.append([
            m, "%.3f" % (macs / 1e9) if macs else "-", "%.2f" % (r["cost"]["ops"] / 1e9),
            r["label"], r.get("conv2d_kernel", "-"), str(r["threads"]), str(r["runs"]),
            "%.2f" % p50, "%.2f" % r["latency_ms"]["min"],
            "%.1f" % (2 * macs / p50 / 1e6) if macs else "-",
            "%.1fx" % (base / p50) if base else "-"])
    print("whole models: int8 (1, 3, 224, 224), random weights; cost Gops = the CVM cost's ops")
    print_table(head, table, left=(0, 3, 4))


if __name__ == "__main__":
    main()
