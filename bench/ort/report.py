#!/usr/bin/python3
"""Merges conv_bench --json and ort_bench.mjs output into one table (bench/run_benchmarks.sh).

    report.py CVM.jsonl [ORT.jsonl]

Times are medians in milliseconds. "best" is the fastest x86 kernel of cvmrt (each ISA level
of this CPU is in its own column); GOPS counts 2 operations per multiply-add; "% peak" is
against the int8 VNNI rate (vpdpbusd zmm) conv_bench measured in the same run, on as many
threads as the column; on a CPU with AMX, "amx %tile" is the AMX kernel against the tdpbssd tile
rate measured the same way. Columns ending "+i8" time the entry on int8 x and y with the
requantizing clamp applied as it stores (what a session's int8 activation buffers run between
layers, and what QLinearConv does); "best" takes them too. cvmrt/ORT is a time ratio: below 1,
cvmrt is faster. ORT is
QLinearConv (uint8 x int8 -> uint8, its fastest int8 convolution) for conv2d and
MatMulInteger (uint8 x int8 -> int32) for dense; ConvInteger (int8 x int8 -> int32, cvmrt's
exact semantics) is shown as well.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from markdown_table import print_table  # noqa: E402


def load(path):
    return [json.loads(line) for line in open(path) if line.strip().startswith("{")]


def fmt(v, spec="%.3f"):
    return spec % v if v is not None else "-"


def main():
    cvm = load(sys.argv[1])
    ort = load(sys.argv[2]) if len(sys.argv) > 2 else []
    peak = next((r for r in cvm if r["kind"] == "peak"),
                {"instruction": "none", "gops_1t": 0, "gops_2t": 0})
    rows = [r for r in cvm if r["kind"] in ("conv2d", "dense")]
    isas = []
    for r in rows:
        for key in r:
            if key.endswith("_1t_ms") and key[:-6] not in isas:
                isas.append(key[:-6])
    ort_ms = {(o["name"], o["op"], o["threads"]): o["ms"] for o in ort}

    def ort_of(r, threads):
        op = "MatMulInteger" if r["kind"] == "dense" else "QLinearConv"
        return ort_ms.get((r["name"], op, threads))

    head = ["layer", "MOP", "scalar"] + ["%s 1T" % i for i in isas] + [
        "GOPS 1T", "%peak", "x scalar", "best 2T", "GOPS 2T", "%peak",
        "ORT 1T", "ORT 2T", "ConvInt 1T", "cvm/ORT 1T", "cvm/ORT 2T"]
    # The AMX entry's column: "amx", or "amx+pp" with prepacked weights. Its depthwise layers
    # run the VNNI path, so they get no tile share.
    amx_peak = peak.get("amx_gops_1t")
    amx_key = next((i for i in isas if i.split("+")[0] == "amx"), None) if amx_peak else None
    if amx_key:
        head.insert(head.index("GOPS 1T"), "amx %tile")
    table = []
    for r in rows:
        t1 = {i: r.get(i + "_1t_ms") for i in isas}
        t2 = [r.get(i + "_2t_ms") for i in isas if r.get(i + "_2t_ms")]
        best1 = min(v for v in t1.values() if v) if any(t1.values()) else None
        best2 = min(t2) if t2 else None
        gop = r["gop"]
        g1 = gop / best1 * 1e3 if best1 else None
        g2 = gop / best2 * 1e3 if best2 else None
        o1, o2 = ort_of(r, 1), ort_of(r, 2)
        ci = ort_ms.get((r["name"], "ConvInteger", 1))
        tile = []
        if amx_key:
            amx_ms = None if " dw " in r["name"] else r.get(amx_key + "_1t_ms")
            tile = [fmt(100 * gop * 1e3 / amx_ms / amx_peak if amx_ms else None, "%.0f%%")]
        table.append([
            "%s %s" % (r["family"], r["name"]), "%.1f" % (gop * 1e3), fmt(r["scalar_ms"])]
            + [fmt(t1[i]) for i in isas] + tile + [
            fmt(g1, "%.0f"), fmt(100 * g1 / peak["gops_1t"] if g1 and peak["gops_1t"]
                                 else None, "%.0f%%"),
            fmt(r["scalar_ms"] / best1 if best1 else None, "%.0fx"), fmt(best2), fmt(g2, "%.0f"),
            fmt(100 * g2 / peak["gops_2t"] if g2 and peak["gops_2t"] else None, "%.0f%%"),
            fmt(o1), fmt(o2), fmt(ci),
            fmt(best1 / o1 if best1 and o1 else None, "%.2f"),
            fmt(best2 / o2 if best2 and o2 else None, "%.2f")])
    print("int8 MAC peak in this run (%s): %.0f GOPS (1 thread), %.0f GOPS (2 threads)"
          % (peak["instruction"], peak["gops_1t"], peak["gops_2t"]))
    if amx_peak:
        print("AMX tile peak in this run (tdpbssd): %.0f GOPS (1 thread), %.0f GOPS (2 threads)"
              % (amx_peak, peak["amx_gops_2t"]))
    print("times in ms (median); cvm/ORT < 1: cvmrt faster\n")
    print_table(head, table)


if __name__ == "__main__":
    main()
