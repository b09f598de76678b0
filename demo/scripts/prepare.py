# Build-time data of the demo: quantized models, bundled inputs and the native CLI's results.
"""prepare.py [BUILD_DIR]

Makes demo/generated/ from a checkout whose native build is done (BUILD_DIR, default ../build,
holds tools/cvmrt; CVMRT=path overrides the CLI):

  public/models/fashion_int8.cvmrt        cvmrt quantize of examples/fashion_mnist/fashion_cnn.onnx
                                          (the calibration of tests/accuracy/fashion_mnist.sh)
  public/models/blazeface_int8_split.cvmrt
                                          cvmrt quantize --split of BlazeFace (examples/blazeface:
                                          fetch_model.sh, prepare_inputs.py's calibration batch)
  public/fashion/t10k-36.u8               the first 36 t10k images of Debian's
                                          dataset-fashion-mnist, 36 x 784 bytes, + LICENSE.md
  public/photos/*.png                     examples/blazeface/photos downscaled to 320 px (exact
                                          area average), PNG without colour profile, + LICENSE.md
  public/native.json                      what the native CLI computes for every bundled input:
                                          the SHA-256 of its int32 outputs (heads in order, little
                                          endian), the Fashion class (argmax of the ints), the
                                          BlazeFace detections (decode.py on `run --dequantize`)
  work/                                   intermediate files

Nothing is redone when generated/stamp.txt matches the inputs (CLI binary, scripts, models).
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np
from PIL import Image

DEMO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(DEMO)
BLAZE = os.path.join(ROOT, "examples", "blazeface")
FASHION = os.path.join(ROOT, "examples", "fashion_mnist")
sys.path[:0] = [BLAZE, FASHION]
import decode  # noqa: E402  (examples/blazeface/decode.py)
import make_calib  # noqa: E402  (examples/fashion_mnist/make_calib.py)
import prepare_inputs as face_inputs  # noqa: E402  (examples/blazeface/prepare_inputs.py)

OUT = os.path.join(DEMO, "generated")
PUB = os.path.join(OUT, "public")
WORK = os.path.join(OUT, "work")
PHOTOS = ("astronaut", "camera", "coffee", "chelsea")
PHOTO_SIDE = 320
FASHION_COUNT = 36
FACE_MODEL = "blazeface_int8_split.cvmrt"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def file_sha(path):
    with open(path, "rb") as f:
        return sha256(f.read())


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], check=True, stdout=subprocess.PIPE, text=True, **kw).stdout


class Cli:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args):
        return run([self.path, *args])

    def outputs(self, model, npy, tag):
        """Runs `model` on `npy`: the int32 outputs (a list of arrays) and the JSON report."""
        out = os.path.join(WORK, tag + ".json")
        self("run", model, "--input", "data=" + npy, "-o", out, "--format", "json")
        with open(out) as f:
            report = json.load(f)
        ints = [np.array(o["data"], dtype="<i4").reshape(o["shape"]) for o in report["outputs"]]
        return ints, report

    def dequantized(self, model, npy, tag, count):
        """`cvmrt run --dequantize` as float32 arrays (output k > 0 in NAME_k.npy)."""
        out = os.path.join(WORK, tag + ".deq.npy")
        self("run", model, "--input", "data=" + npy, "-o", out, "--format", "npy", "--dequantize")
        return [np.load(out if k == 0 else out[:-4] + "_%d.npy" % k) for k in range(count)]


def outputs_hash(ints):
    """The demo's one hash: SHA-256 of the int32 outputs, heads in order, little endian."""
    return sha256(b"".join(np.ascontiguousarray(a, dtype="<i4").tobytes() for a in ints))


def fashion(cli):
    """Quantized CNN, the first t10k images and the native class and hash of each."""
    work = os.path.join(WORK, "fashion")
    os.makedirs(work, exist_ok=True)
    run([sys.executable, os.path.join(FASHION, "make_calib.py"), "--out", work, "--first", FASHION_COUNT])
    model = os.path.join(PUB, "models", "fashion_int8.cvmrt")
    cli("quantize", os.path.join(FASHION, "fashion_cnn.onnx"), "--calib", os.path.join(work, "calib.npy"),
        "-o", model)
    raw = make_calib.read_idx(os.path.join(make_calib.DATA_DIR, "t10k-images-idx3-ubyte.gz"))[:FASHION_COUNT]
    labels = np.load(os.path.join(work, "t10k_labels.npy"))
    os.makedirs(os.path.join(PUB, "fashion"), exist_ok=True)
    with open(os.path.join(PUB, "fashion", "t10k-36.u8"), "wb") as f:
        f.write(np.ascontiguousarray(raw, dtype=np.uint8).tobytes())
    images = []
    report = None
    for i in range(FASHION_COUNT):
        npy = os.path.join(work, "x%d.npy" % i)
        np.save(npy, (raw[i].astype(np.float32) / np.float32(255.0))[None, None])  # as make_calib
        ints, report = cli.outputs(model, npy, "fashion_%d" % i)
        images.append({"index": i, "label": int(labels[i]), "class": int(np.argmax(ints[0])),
                       "hash": outputs_hash(ints)})
    return {"model": "models/fashion_int8.cvmrt", "modelBytes": os.path.getsize(model), "cost": report["cost"],
            "images": "fashion/t10k-36.u8", "samples": images}


def downscale(img, side):
    """uint8 (h, w[, 3]) -> longer side `side`, exact area average (prepare_inputs.resize_area)."""
    h, w = img.shape[:2]
    s = side / max(h, w)
    nh, nw = max(1, int(round(h * s))), max(1, int(round(w * s)))
    grey = img.ndim == 2
    small = face_inputs.resize_area(img[:, :, None] if grey else img, nh, nw)
    return small[:, :, 0] if grey else small


def face(cli):
    """Quantized BlazeFace, the bundled photos and the native hash and detections of each."""
    work = os.path.join(WORK, "face")
    os.makedirs(work, exist_ok=True)
    run([os.path.join(BLAZE, "fetch_model.sh"), work])
    run([sys.executable, os.path.join(BLAZE, "prepare_inputs.py"), os.path.join(work, "inputs")])
    model = os.path.join(PUB, "models", FACE_MODEL)
    calib = os.path.join(work, "inputs", "calib.npy")
    onnx = os.path.join(work, "blazeface.onnx")
    try:
        cli("quantize", onnx, "--calib", calib, "-o", model, "--split")
    except subprocess.CalledProcessError:  # as examples/blazeface/run.sh: Concat-with-zeros -> Pad
        run([sys.executable, os.path.join(BLAZE, "concat_to_pad.py"), onnx, os.path.join(work, "pad.onnx")])
        cli("quantize", os.path.join(work, "pad.onnx"), "--calib", calib, "-o", model, "--split")
    shutil.copyfile(os.path.join(work, "blazeface.LICENSE"), os.path.join(PUB, "models", "blazeface.LICENSE"))
    photos_dir = os.path.join(PUB, "photos")
    os.makedirs(photos_dir, exist_ok=True)
    photos = []
    report = None
    for name in PHOTOS:
        small = downscale(np.asarray(Image.open(os.path.join(BLAZE, "photos", name + ".png"))), PHOTO_SIDE)
        Image.fromarray(small).save(os.path.join(photos_dir, name + ".png"), optimize=True)
        npy = os.path.join(work, name + ".npy")
        np.save(npy, face_inputs.normalise(face_inputs.letterbox(face_inputs.to_rgb(small))))
        ints, report = cli.outputs(model, npy, "face_" + name)
        floats = cli.dequantized(model, npy, "face_" + name, len(ints))
        dets = decode.detect(*decode.join_outputs(floats))
        photos.append({"name": name, "file": "photos/%s.png" % name, "width": small.shape[1],
                       "height": small.shape[0], "hash": outputs_hash(ints),
                       "detections": [{"score": d["score"], "box": d["box"], "keypoints": d["keypoints"]}
                                      for d in dets]})
    with open(os.path.join(BLAZE, "photos", "LICENSE.md")) as f:
        note = f.read()
    with open(os.path.join(photos_dir, "LICENSE.md"), "w") as f:
        f.write(note + "\nThe demo serves copies of these photos downscaled to %d px on the longer side "
                "(exact area average, demo/scripts/prepare.py), re-encoded as PNG.\n" % PHOTO_SIDE)
    return {"model": "models/" + FACE_MODEL, "modelBytes": os.path.getsize(model), "cost": report["cost"],
            "photos": photos}


def fashion_license():
    with open("/usr/share/doc/dataset-fashion-mnist/copyright") as f:
        text = f.read()
    with open(os.path.join(PUB, "fashion", "LICENSE.md"), "w") as f:
        f.write("`t10k-36.u8`: the first 36 images (28 x 28 bytes each) of the Fashion-MNIST test set "
                "(t10k), from Debian's dataset-fashion-mnist. Its copyright file:\n\n```\n" + text + "```\n")


def stamp(cli_path):
    files = [cli_path, os.path.abspath(__file__), os.path.join(BLAZE, "decode.py"),
             os.path.join(BLAZE, "prepare_inputs.py"), os.path.join(BLAZE, "fetch_model.sh"),
             os.path.join(FASHION, "fashion_cnn.onnx"), os.path.join(FASHION, "make_calib.py")]
    files += [os.path.join(BLAZE, "photos", n + ".png") for n in PHOTOS]
    return "".join("%s %s\n" % (file_sha(p), os.path.relpath(p, ROOT)) for p in files)


def main(argv):
    build = os.path.abspath(argv[0] if argv else os.path.join(ROOT, "build"))
    cli_path = os.environ.get("CVMRT") or os.path.join(build, "tools", "cvmrt")
    if not os.access(cli_path, os.X_OK):
        print("prepare: %s is not built (cmake --build %s)" % (cli_path, build), file=sys.stderr)
        return 2
    want = stamp(cli_path)
    stamp_path = os.path.join(OUT, "stamp.txt")
    if os.path.exists(stamp_path) and open(stamp_path).read() == want:
        print("prepare: %s is up to date" % os.path.relpath(PUB, DEMO))
        return 0
    shutil.rmtree(OUT, ignore_errors=True)
    for d in (WORK, os.path.join(PUB, "models")):
        os.makedirs(d)
    cli = Cli(cli_path)
    results = {"cli": cli("--version").splitlines()[0],
               "hash": "SHA-256 of the int32 outputs, heads in order, little endian",
               "fashion": fashion(cli), "face": face(cli)}
    fashion_license()
    with open(os.path.join(PUB, "native.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(stamp_path, "w") as f:
        f.write(want)
    print("prepare: wrote %s (%s; %d Fashion images, %d photos)" % (
        os.path.relpath(PUB, DEMO), results["cli"], FASHION_COUNT, len(PHOTOS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
