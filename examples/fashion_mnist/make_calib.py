# Writes the Fashion-MNIST calibration batch and the t10k test set as .npy files for the cvmrt tests.
"""Write Fashion-MNIST arrays for calibration and accuracy tests of fashion_cnn.onnx.

    /usr/bin/python3 examples/fashion_mnist/make_calib.py --out DIR [--first K] [--calib N]

Writes, into DIR (created if missing):

    calib.npy         float32 [N,1,28,28]  the first N (default 256) TRAIN images
    t10k_images.npy   float32 [K,1,28,28]  the first K (default all 10000) t10k test images
    t10k_labels.npy   int32   [K]          their labels (0..9)

Pixels are normalised exactly as in training: byte / 255 as float32. Data comes from the Debian
package dataset-fashion-mnist (/usr/share/datasets/fashion-mnist). None of these files is committed;
tests generate them into a build folder.
"""

import argparse
import gzip
import os

import numpy as np

DATA_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    """Read a gzip-compressed unsigned-byte IDX file into an array of its stored shape."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if raw[:3] != b"\x00\x00\x08":
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def images(kind, count):
    """The first `count` images of split `kind` as float32 NCHW [count,1,28,28] in [0,1]."""
    raw = read_idx(os.path.join(DATA_DIR, f"{kind}-images-idx3-ubyte.gz"))[:count]
    return (raw.astype(np.float32) / np.float32(255.0))[:, None, :, :]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder to write calib.npy, t10k_images.npy, t10k_labels.npy")
    ap.add_argument("--first", type=int, default=10000, help="keep only the first K t10k images (default 10000)")
    ap.add_argument("--calib", type=int, default=256, help="number of TRAIN images in calib.npy (default 256)")
    args = ap.parse_args()
    if not 1 <= args.first <= 10000:
        ap.error("--first must be in 1..10000")
    if not 1 <= args.calib <= 60000:
        ap.error("--calib must be in 1..60000")

    os.makedirs(args.out, exist_ok=True)
    calib = np.ascontiguousarray(images("train", args.calib))
    test = np.ascontiguousarray(images("t10k", args.first))
    labels = read_idx(os.path.join(DATA_DIR, "t10k-labels-idx1-ubyte.gz"))[:args.first].astype(np.int32)

    np.save(os.path.join(args.out, "calib.npy"), calib)
    np.save(os.path.join(args.out, "t10k_images.npy"), test)
    np.save(os.path.join(args.out, "t10k_labels.npy"), labels)
    print(f"wrote {args.out}/calib.npy {list(calib.shape)}, t10k_images.npy {list(test.shape)}, "
          f"t10k_labels.npy {list(labels.shape)}")


if __name__ == "__main__":
    main()
