# Measures the Python binding's overhead: Fashion-MNIST int8 batch scoring, images/s vs the C++ CLI.
"""Images/s of scoring the Fashion-MNIST test set with the quantized CNN through the cvmrt Python
package (one call, Python threads, Dask worker processes), against the C++ CLI's own throughput.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--quick] [--repeat N]
        [--model M] [--images I] [--labels L] [--cli build/tools/cvmrt]

bench/run_python_bench.sh makes the model and images when missing and runs this. Every row runs
with one thread per operator (cvmrt.set_num_threads(1), CVMRT_THREADS=1 for the CLI and the Dask
workers) and is the median of --repeat runs; the Dask rows time the compute only, after a warm-up
compute. The CLI must give the same predictions as the single-call Python run, and the other
Python and Dask rows the same output bits (exit 1 otherwise).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

import cvmrt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from markdown_table import print_table  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN_JOB = os.path.join(ROOT, "build", "main-job")
SLICE = 500  # images per model.run call of the threaded rows, and per Dask chunk
THREADS_ENV = {"CVMRT_THREADS": "1"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=os.path.join(MAIN_JOB, "fashion_int8.cvmrt"))
    p.add_argument("--images", default=os.path.join(MAIN_JOB, "t10k_images.npy"))
    p.add_argument("--labels", default=os.path.join(MAIN_JOB, "t10k_labels.npy"))
    p.add_argument("--cli", default=os.path.join(ROOT, "build", "tools", "cvmrt"))
    p.add_argument("--repeat", type=int, default=3, help="runs per row; the median is shown")
    p.add_argument("--quick", action="store_true", help="the first 1000 images only")
    return p.parse_args()


def timed(fn, repeat):
    """(median seconds of `repeat` calls of fn, fn's last result)."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def cli_row(args, n, tmp):
    """The CLI's own inputs/s (median of --repeat runs, as it prints them) and its predictions."""
    preds = os.path.join(tmp, "cli_predictions.npy")
    cmd = [args.cli, "--threads", "1", "eval", args.model, "--inputs", args.images,
           "--labels", args.labels, "--limit", str(n), "--predictions", preds]
    rates = []
    for _ in range(args.repeat):
        out = subprocess.run(cmd, env={**os.environ, **THREADS_ENV}, check=True,
                             capture_output=True, text=True).stdout
        match = re.search(r"^run:\s+(\d+) inputs in .*\(([\d.]+) inputs/s", out, re.M)
        if not match or int(match.group(1)) != n:
            sys.exit(f"unexpected output of {' '.join(cmd)}:\n{out}")
        rates.append(float(match.group(2)))
    return statistics.median(rates), np.load(preds)


def threaded_run(model, x, k):
    """k Python threads share one model; thread i runs slices i, i+k, ... of SLICE images."""
    starts = range(0, len(x), SLICE)
    out = np.empty((len(x), 10), dtype=np.float32)

    def work(mine):
        for s in mine:
            out[s:s + SLICE] = model.run({"data": x[s:s + SLICE]})["softmax"]

    threads = [threading.Thread(target=work, args=(starts[i::k],)) for i in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def scheduler_tasks(dask_scheduler):
    return len(dask_scheduler.tasks)


def forget(client, held):
    """Waits until the scheduler has forgotten the last compute's results (it releases them
    asynchronously), so the next compute runs the model again instead of reusing them."""
    while client.run_on_scheduler(scheduler_tasks) > held:
        time.sleep(0.01)


def dask_rows(args, x, workers):
    """{k: (median compute seconds, outputs)} for a LocalCluster of k single-threaded worker
    processes; the input chunks are held on the workers first, one warm-up compute loads the
    model on every worker, and then only the computes are timed."""
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    import cvmrt.dask

    rows = {}
    for k in workers:
        with LocalCluster(n_workers=k, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, env=THREADS_ENV) as cluster, \
                Client(cluster) as client:
            threads = set(client.run(lambda: __import__("cvmrt").num_threads()).values())
            if threads != {1}:
                sys.exit(f"Dask workers use {threads} operator threads, expected 1")
            data = da.from_array(x, chunks=(SLICE,) + x.shape[1:]).persist()
            wait(data)
            held = client.run_on_scheduler(scheduler_tasks)
            outputs = cvmrt.dask.predict(args.model, data)
            outputs.compute()  # warm-up: every worker loads the model
            times = []
            for _ in range(args.repeat):
                forget(client, held)
                start = time.perf_counter()
                result = outputs.compute()
                times.append(time.perf_counter() - start)
            rows[k] = (statistics.median(times), result)
    return rows


def main():
    args = parse_args()
    missing = [p for p in (args.model, args.images, args.labels) if not os.path.exists(p)]
    if missing:
        print(f"missing: {', '.join(missing)}\nmake them with the main job: "
              "bash scripts/main_job.sh build (or run bench/run_python_bench.sh)", file=sys.stderr)
        sys.exit(2)
    n = 1000 if args.quick else 10000
    x = np.load(args.images)[:n]
    labels = np.load(args.labels)[:n]
    cvmrt.set_num_threads(1)
    model = cvmrt.load_model(args.model)

    info = cvmrt.system_info()
    print(f"CPU: {info['cpu_model']}, ISA level {info['isa_level']}, nproc {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{n} Fashion-MNIST test images, {os.path.basename(args.model)}, median of "
          f"{args.repeat} runs per row; 1 thread per operator everywhere "
          "(set_num_threads(1), CVMRT_THREADS=1 for the CLI and the Dask workers)")

    with tempfile.TemporaryDirectory() as tmp:
        cli_rate, cli_preds = cli_row(args, n, tmp)
    single_s, reference = timed(lambda: model.run({"data": x})["softmax"], args.repeat)
    results = [("Python, one process, model.run on the whole batch", single_s, reference)]
    for k in (1, 2):
        s, out = timed(lambda: threaded_run(model, x, k), args.repeat)
        results.append((f"Python threads: {k}", s, out))
    for k, (s, out) in dask_rows(args, x, (1, 2)).items():
        results.append((f"Dask, {k} worker process{'es' if k > 1 else ''}", s, out))

    rows = [("C++ CLI (cvmrt eval)", f"{cli_rate:.0f}", "1.00")]
    rows += [(name, f"{n / s:.0f}", f"{n / s / cli_rate:.2f}") for name, s, _ in results]
    print_table(("run", "images/s", "vs CLI"), rows)
    print(f"vs CLI: images/s / the CLI's (its own timing of the runs: no process start, no model "
          f"load). Threads and Dask: {SLICE} images per model.run call / chunk. Dask: compute "
          "only, after one warm-up compute (worker startup and model loading excluded), input "
          "chunks already on the workers.")

    # The predictions must agree everywhere; the Python and Dask outputs to the bit.
    predictions = reference.argmax(axis=1)
    same = np.array_equal(cli_preds, predictions) and all(
        np.array_equal(out, reference) for _, _, out in results)
    print(f"top-1 accuracy: {np.mean(predictions == labels) * 100:.2f} %")
    if not same:
        print("identical outputs: NO (a row's outputs differ from the single-call run)")
        sys.exit(1)
    print("identical outputs: yes (CLI predictions; every Python and Dask output bit for bit)")


if __name__ == "__main__":
    main()
