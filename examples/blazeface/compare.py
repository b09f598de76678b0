# Compares BlazeFace outputs of cvmrt (float, int8) with onnxruntime-node; checks the targets.
"""compare.py --inputs IN_DIR --work WORK_DIR --onnx MODEL.onnx --float FLOAT.cvmrt
              [--quant NAME=Q.cvmrt ...] [--gate NAME] [--cvmrt PATH] [--json OUT.json]
              [--detail]

For every input listed in IN_DIR/inputs.txt (float32 [1,128,128,3] .npy files from
prepare_inputs.py):

  1. onnxruntime-node runs MODEL.onnx (ort_run.mjs, graph optimisations off): the reference;
  2. `cvmrt run FLOAT.cvmrt` gives the imported float model's raw outputs;
  3. `cvmrt run Q.cvmrt --dequantize` gives each quantized model's outputs as floats;
  4. decode.py turns each set of raw outputs into detections (sigmoid, boxes, score >= 0.75,
     weighted NMS at IoU 0.3).

Raw outputs go to WORK_DIR/raw/<input>.<model>[_K].npy. Prints one table with a row per input
and every model side by side: the faces found by ORT and by each model, the largest |score
difference| over the 896 anchors (after the sigmoid), the smallest IoU and the largest |score
difference| of the matched detections, and the largest |raw regressor difference|; then a
summary line per model, the targets that failed and the timings. --detail adds one table per
model (with the faces missed or added and the largest |raw logit difference|); --json writes
everything, detections included.

Matching: the ORT detections, highest score first, each take the unmatched model detection that
overlaps them most; IoU >= 0.5 counts as found.

Targets (exit status 1 when one fails; 0 otherwise):
  float:        every raw output within 1e-3 of ORT (absolute) and the same detections
  gate model:   (--gate, default the first --quant) every ORT face found, max |score diff| over
                all anchors <= 0.05, IoU of every matched face >= 0.9
Other quantized models are reported but not gated.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import decode  # noqa: E402

FLOAT_TOL = 1e-3
SCORE_TOL = 0.05
IOU_MIN = 0.9
FOUND_IOU = 0.5


def parse(argv):
    opts = {"quant": [], "gate": None, "cvmrt": None, "json": None, "detail": False}
    i = 0
    while i < len(argv):
        key = argv[i]
        if key in ("--inputs", "--work", "--onnx", "--float", "--gate", "--cvmrt", "--json"):
            opts[key[2:]] = argv[i + 1]
            i += 2
        elif key == "--detail":
            opts["detail"] = True
            i += 1
        elif key == "--quant":
            name, _, path = argv[i + 1].partition("=")
            if not path:
                raise SystemExit("compare.py: --quant takes NAME=PATH")
            opts["quant"].append((name, path))
            i += 2
        else:
            raise SystemExit("compare.py: unknown argument %r (see the docstring)" % key)
    for k in ("inputs", "work", "onnx", "float"):
        if k not in opts:
            raise SystemExit("compare.py: missing --%s" % k)
    if opts["cvmrt"] is None:
        opts["cvmrt"] = os.path.join(HERE, "..", "..", "build", "tools", "cvmrt")
    if opts["gate"] is None and opts["quant"]:
        opts["gate"] = opts["quant"][0][0]
    return opts


def raw_path(raw_dir, stem, tag, k):
    return os.path.join(raw_dir, "%s.%s%s.npy" % (stem, tag, "" if k == 0 else "_%d" % k))


def load_outputs(raw_dir, stem, tag):
    return [np.load(raw_path(raw_dir, stem, tag, k)) for k in range(4)]


def run_cvmrt(cvmrt, model, x_path, out_path, dequantize):
    cmd = [cvmrt, "run", model, "--input", "data=" + x_path, "-o", out_path]
    if dequantize:
        cmd.append("--dequantize")
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise SystemExit("compare.py: %s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout))
    ms = None
    for line in r.stdout.splitlines():
        if line.startswith("backend:") and line.rstrip().endswith(" ms"):
            ms = float(line.rsplit(",", 1)[1].split()[0])
    return ms


def match(ref, dets):
    """Greedy one-to-one matching: list of (ref index, det index or None, IoU)."""
    free = list(range(len(dets)))
    pairs = []
    for i, r in enumerate(ref):
        best, best_iou = None, 0.0
        if free:
            ious = decode.iou(np.array(r["box"]), np.array([dets[j]["box"] for j in free]))
            j = int(np.argmax(ious))
            best, best_iou = free[j], float(ious[j])
        if best is not None and best_iou >= FOUND_IOU:
            free.remove(best)
            pairs.append((i, best, best_iou))
        else:
            pairs.append((i, None, best_iou))
    return pairs, free


def measure(ref_raw, raw, ref_dets, dets):
    rs, rr = decode.join_outputs(ref_raw)
    s, r = decode.join_outputs(raw)
    pairs, extra = match(ref_dets, dets)
    found = [p for p in pairs if p[1] is not None]
    return {
        "ort_faces": len(ref_dets),
        "faces": len(dets),
        "missed": len(pairs) - len(found),
        "extra": len(extra),
        "max_score_diff": float(np.abs(decode.sigmoid_scores(s) - decode.sigmoid_scores(rs)).max()),
        "min_iou": min([p[2] for p in pairs], default=None),
        "max_det_score_diff": max([abs(ref_dets[i]["score"] - dets[j]["score"]) for i, j, _ in found],
                                  default=None),
        "max_reg_diff": float(np.abs(r.astype(np.float64) - rr).max()),
        "max_logit_diff": float(np.abs(s.astype(np.float64) - rs).max()),
        "max_raw_diff": max(float(np.abs(a.astype(np.float64) - b).max()) for a, b in zip(raw, ref_raw)),
        "detections": [[round(d["score"], 4)] + [round(v, 4) for v in d["box"]] for d in dets],
    }


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def sfmt(v):
    """A score difference: 4 decimals, or 2 significant digits below 1e-3 (so float's show)."""
    if v is None:
        return "-"
    return "0" if v == 0 else format(v, ".4f") if v >= 1e-3 else format(v, ".1e")


def table(title, names, rows):
    head = ("| input | faces ORT / model | missed | extra | max score diff (896) | min IoU "
            "| max det score diff | max raw regressor diff | max raw logit diff |")
    lines = [title, "", head, "|" + "---|" * 9]
    for n in names:
        m = rows[n]
        lines.append("| %s | %d / %d | %d | %d | %s | %s | %s | %s | %s |" % (
            n, m["ort_faces"], m["faces"], m["missed"], m["extra"], sfmt(m["max_score_diff"]),
            fmt(m["min_iou"], ".4f"), sfmt(m["max_det_score_diff"]),
            fmt(m["max_reg_diff"], ".4g"), fmt(m["max_logit_diff"], ".4g")))
    return "\n".join(lines)


def combined_table(names, tags, rows):
    """One row per input, every model side by side (the table of the README)."""
    q = [t for t in tags if t != "float"]
    head = ("| input | faces ORT / %s | max score diff, 896 anchors (%s) | min IoU (%s) "
            "| max det score diff (%s) | max raw regressor diff (%s) |" % (
                " / ".join(tags), " / ".join(tags), " / ".join(q), " / ".join(q), " / ".join(tags)))
    lines = [head, "|---|---|---|---|---|---|"]
    for n in names:
        r = {t: rows[t][n] for t in tags}
        lines.append("| %s | %d / %s | %s | %s | %s | %s |" % (
            n, r[tags[0]]["ort_faces"], " / ".join(str(r[t]["faces"]) for t in tags),
            " / ".join(sfmt(r[t]["max_score_diff"]) for t in tags),
            " / ".join(fmt(r[t]["min_iou"], ".3f") for t in q),
            " / ".join(fmt(r[t]["max_det_score_diff"], ".3f") for t in q),
            " / ".join(fmt(r[t]["max_reg_diff"], ".3g") for t in tags)))
    return "\n".join(lines)


def summary_line(tag, names, rows):
    ms = [rows[n] for n in names]
    ious = [m["min_iou"] for m in ms if m["min_iou"] is not None and not m["missed"]]
    dets = [m["max_det_score_diff"] for m in ms if m["max_det_score_diff"] is not None]
    return ("%s: ORT faces %d, found %d, missed %d, extra %d; anchor score diff max %s "
            "(median over inputs %s); matched IoU min %s, mean %s; det score diff max %s; "
            "raw regressor diff max %.4g" % (
                tag, sum(m["ort_faces"] for m in ms), sum(m["ort_faces"] - m["missed"] for m in ms),
                sum(m["missed"] for m in ms), sum(m["extra"] for m in ms),
                sfmt(max(m["max_score_diff"] for m in ms)),
                sfmt(float(np.median([m["max_score_diff"] for m in ms]))),
                fmt(min(ious) if ious else None, ".4f"),
                fmt(float(np.mean(ious)) if ious else None, ".4f"),
                sfmt(max(dets) if dets else None), max(m["max_reg_diff"] for m in ms)))


def main(argv):
    o = parse(argv)
    raw_dir = os.path.join(o["work"], "raw")
    os.makedirs(raw_dir, exist_ok=True)
    with open(os.path.join(o["inputs"], "inputs.txt")) as f:
        names = [line.strip() for line in f if line.strip()]
    inputs = [os.path.join(o["inputs"], n + ".npy") for n in names]

    t0 = time.time()
    r = subprocess.run(["node", os.path.join(HERE, "ort_run.mjs"), o["onnx"], raw_dir] + inputs,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stdout.write(r.stdout)
        raise SystemExit("compare.py: onnxruntime-node failed (exit %d)" % r.returncode)
    ort_ms = [float(line.rsplit(",", 1)[1].split()[0]) for line in r.stdout.splitlines()
              if line.startswith("ort ")]
    timing = {"ort": (time.time() - t0, ort_ms)}

    models = [("float", o["float"], False)] + [(n, p, True) for n, p in o["quant"]]
    for tag, path, deq in models:
        t0 = time.time()
        ms = [run_cvmrt(o["cvmrt"], path, x, raw_path(raw_dir, n, tag, 0), deq)
              for n, x in zip(names, inputs)]
        timing[tag] = (time.time() - t0, ms)

    ort_dets = {n: decode.detect(*decode.join_outputs(load_outputs(raw_dir, n, "ort"))) for n in names}
    results = {"inputs": names, "ort": {n: [[round(d["score"], 4)] + [round(v, 4) for v in d["box"]]
                                            for d in ort_dets[n]] for n in names}, "models": {}}
    failures = []
    all_rows = {}
    for tag, path, deq in models:
        rows = {}
        for n in names:
            ref = load_outputs(raw_dir, n, "ort")
            raw = load_outputs(raw_dir, n, tag)
            rows[n] = measure(ref, raw, ort_dets[n], decode.detect(*decode.join_outputs(raw)))
        all_rows[tag] = rows
        results["models"][tag] = {"path": path, "rows": rows}
        for n in names:
            m = rows[n]
            why = []
            if tag == "float":
                if m["max_raw_diff"] > FLOAT_TOL:
                    why.append("raw output differs from ORT by %.3g > %g" % (m["max_raw_diff"], FLOAT_TOL))
                if m["missed"] or m["extra"]:
                    why.append("detections differ from ORT (missed %d, extra %d)"
                               % (m["missed"], m["extra"]))
            elif tag == o["gate"]:
                if m["missed"]:
                    why.append("%d of %d ORT faces not found" % (m["missed"], m["ort_faces"]))
                if m["max_score_diff"] > SCORE_TOL:
                    why.append("max score diff %.4f > %g" % (m["max_score_diff"], SCORE_TOL))
                if m["min_iou"] is not None and m["missed"] == 0 and m["min_iou"] < IOU_MIN:
                    why.append("IoU %.4f < %g" % (m["min_iou"], IOU_MIN))
            if why:
                failures.append("%s %s: %s" % (tag, n, "; ".join(why)))

    tags = [t for t, _, _ in models]
    print("models: " + ", ".join("%s = %s%s" % (t, os.path.basename(p),
                                             " (gated)" if t in ("float", o["gate"]) else "")
                                 for t, p, _ in models))
    print()
    print(combined_table(names, tags, all_rows))
    print()
    for tag in tags:
        print(summary_line(tag, names, all_rows[tag]))
    print()
    if o["detail"]:
        for tag, path, _ in models:
            print(table("### %s (%s)" % (tag, os.path.basename(path)), names, all_rows[tag]))
            print()

    print("timing (wall, all %d inputs; per-run time as the tool reports it):" % len(names))
    for tag, (wall, ms) in timing.items():
        ms = [v for v in ms if v is not None]
        med = float(np.median(ms)) if ms else float("nan")
        print("  %-16s %6.2f s wall, run median %.2f ms" % (tag, wall, med))
    results["timing"] = {k: {"wall_s": w, "run_ms": ms} for k, (w, ms) in timing.items()}
    if o["json"]:
        with open(o["json"], "w") as f:
            json.dump(results, f, indent=1)
    if failures:
        print("\nFAIL: targets missed on %d of %d inputs:" % (len(failures), len(names)))
        for line in failures:
            print("  " + line)
    else:
        print("\nPASS: cvmrt float within %g of ORT; %s finds every ORT face, max score diff <= %g, IoU >= %g"
              % (FLOAT_TOL, o["gate"], SCORE_TOL, IOU_MIN))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
