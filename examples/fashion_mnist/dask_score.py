# Scores the 10,000 Fashion-MNIST test images on a local Dask cluster with cvmrt.dask (verified).
"""Score the Fashion-MNIST test set with the quantized CNN on a local Dask cluster.

    PYTHONPATH=build/python /usr/bin/python3 examples/fashion_mnist/dask_score.py \
        [--workers 2] [--chunk 1000] [--model M] [--images I] [--labels L]

Starts a distributed.LocalCluster of --workers processes (one thread each, on 127.0.0.1, and
CVMRT_THREADS=1: one thread per operator), splits the images into chunks of --chunk and runs
cvmrt.dask.predict(model, x, verify=True): every worker loads the model once and returns its
chunks' outputs with one SHA-256 per chunk. Prints top-1 accuracy, throughput (of the compute,
and overall including the cluster's startup), every chunk's hash and one SHA-256 of all output
bytes. The outputs are the same bits on every machine: the
combined hash depends on neither --workers nor --chunk, the chunk hashes only on --chunk.

The model and images come from the main job (bash scripts/main_job.sh build) in build/main-job.
"""
import argparse
import hashlib
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAIN_JOB = os.path.join(ROOT, "build", "main-job")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=os.path.join(MAIN_JOB, "fashion_int8.cvmrt"))
    p.add_argument("--images", default=os.path.join(MAIN_JOB, "t10k_images.npy"))
    p.add_argument("--labels", default=os.path.join(MAIN_JOB, "t10k_labels.npy"))
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--chunk", type=int, default=1000, help="images per chunk (default 1000)")
    return p.parse_args()


def main():
    args = parse_args()
    missing = [p for p in (args.model, args.images, args.labels) if not os.path.exists(p)]
    if missing:
        print(f"missing: {', '.join(missing)}\nmake them with the main job: "
              "bash scripts/main_job.sh build", file=sys.stderr)
        sys.exit(2)

    import dask
    import dask.array as da
    from distributed import Client, LocalCluster

    import cvmrt.dask

    images = np.load(args.images)
    labels = np.load(args.labels)
    start = time.perf_counter()
    # One operator thread per worker (CVMRT_THREADS=1): the worker processes share the cores.
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None,
                      env={"CVMRT_THREADS": "1"}) as cluster, Client(cluster):
        x = da.from_array(images, chunks=(args.chunk,) + images.shape[1:])
        outputs, hashes = cvmrt.dask.predict(args.model, x, verify=True)
        compute_start = time.perf_counter()
        probs, chunk_hashes = dask.compute(outputs, hashes)
        compute_s = time.perf_counter() - compute_start
    total_s = time.perf_counter() - start

    # The workers hashed what they computed; the gathered outputs must hash the same.
    bounds = np.cumsum((0,) + x.chunks[0])
    local = [hashlib.sha256(probs[a:b].tobytes()).hexdigest() for a, b in zip(bounds, bounds[1:])]
    if local != list(chunk_hashes):
        sys.exit("the gathered outputs do not match the workers' chunk hashes")

    n = len(images)
    correct = int(np.sum(probs.argmax(axis=1) == labels))
    print(f"model:      {args.model}")
    print(f"cluster:    {args.workers} worker processes x 1 thread, CVMRT_THREADS=1 (127.0.0.1)")
    print(f"accuracy:   {correct / n * 100:.2f} % top-1 ({correct} of {n})")
    print(f"throughput: {n / compute_s:.0f} images/s in the compute ({compute_s:.2f} s, "
          f"model loading on the workers included); {total_s:.2f} s in all with cluster startup")
    print(f"chunks:     {len(chunk_hashes)} of up to {args.chunk} images, SHA-256 of each "
          "(computed on the workers, checked against the gathered outputs):")
    for i, digest in enumerate(chunk_hashes):
        print(f"  {i:3d}  images {bounds[i]:5d}-{bounds[i + 1] - 1:5d}  {digest}")
    print(f"outputs:    SHA-256 {hashlib.sha256(probs.tobytes()).hexdigest()} "
          f"(all {probs.shape} {probs.dtype} softmax outputs, in order)")


if __name__ == "__main__":
    main()
