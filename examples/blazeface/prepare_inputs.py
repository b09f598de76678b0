# Makes the BlazeFace test inputs and calibration batch (float32 NHWC .npy in [-1, 1]) from skimage photos.
"""Prepare BlazeFace front (128x128) inputs.

    prepare_inputs.py OUT_DIR [--extra DIR] [--photos PHOTO_DIR]

Writes to OUT_DIR:

  <name>.npy     one float32 [1, 128, 128, 3] input per photo: RGB, NHWC (the model's own input
                 layout; its first node transposes to NCHW), values pixel / 127.5 - 1 in [-1, 1]
                 (MediaPipe's float range for the front model)
  calib.npy      float32 [32, 128, 128, 3]: the four skimage photos, each as 8 variants (see
                 `calibration`)
  inputs.txt     the names of the inputs, one a line, in order
  <name>.png     the 128x128 letterboxed image that each input holds (to look at)

The photos are skimage.data's astronaut (a face), camera (a person from behind a camera), coffee
and chelsea (no human face). camera is grey and is repeated into three channels. Each photo is
letterboxed: scaled so that its longer side is 128 with an exact area-average resize, rounded to
uint8, and centred on black. Everything is numpy and integer rounding, so the bytes are the same
on every run and machine.

--extra DIR: also every DIR/sample*.jpg (the demo photos of the npm package @vladmandic/face-api,
group photos of 1920 px width): the whole frame letterboxed (`fa<N>`) and eight square tiles of
half the photo's height (2 rows x 4 columns, evenly spaced; `fa<N>_t<R><C>`), where the faces are
large enough for a short-range model. These are test inputs only, never calibration data.

--photos PHOTO_DIR: also copy the four source PNG files there byte for byte (the committed
copies in examples/blazeface/photos/ were made this way from Debian's python3-skimage 0.19.3).
"""
import os
import sys

import numpy as np

SIZE = 128


def area_sum(x, n_out, axis):
    """Exact area-average resize of integer array x along axis to n_out samples, as integers.

    Returns the numerators: the mean of output sample o is result[o] / n_in. In units of
    1/n_out input pixels, output o covers [o * n_in, (o + 1) * n_in) and input pixel i covers
    [i * n_out, (i + 1) * n_out), so every overlap is an integer and the whole resize is exact
    integer arithmetic (no float summation order to depend on).
    """
    x = np.moveaxis(np.asarray(x, dtype=np.int64), axis, 0)
    n_in = x.shape[0]
    padded = np.concatenate([x, np.zeros((1,) + x.shape[1:], dtype=np.int64)])
    prefix = np.concatenate([np.zeros((1,) + x.shape[1:], dtype=np.int64), np.cumsum(x, axis=0)])
    p = np.arange(n_out + 1, dtype=np.int64) * n_in          # interval ends, in 1/n_out units
    q, r = p // n_out, p % n_out
    rshape = (-1,) + (1,) * (x.ndim - 1)
    g = n_out * prefix[q] + r.reshape(rshape) * padded[q]    # n_out * (integral from 0 to p)
    return np.moveaxis(g[1:] - g[:-1], 0, axis)


def resize_area(img, out_h, out_w):
    """uint8 (h, w, 3) -> uint8 (out_h, out_w, 3): exact area average, rounded half up."""
    h, w = img.shape[:2]
    num = area_sum(area_sum(img, out_h, 0), out_w, 1)
    den = h * w
    return ((2 * num + den) // (2 * den)).astype(np.uint8)


def letterbox(img, size=SIZE):
    """uint8 (h, w, 3) -> uint8 (size, size, 3): longer side to size, centred on black."""
    h, w = img.shape[:2]
    s = size / max(h, w)
    nh, nw = max(1, int(round(h * s))), max(1, int(round(w * s)))
    small = resize_area(img, nh, nw)
    out = np.zeros((size, size, 3), dtype=np.uint8)
    top, left = (size - nh) // 2, (size - nw) // 2
    out[top:top + nh, left:left + nw] = small
    return out


def to_rgb(img):
    img = np.asarray(img)
    if img.ndim == 2:
        img = np.repeat(img[:, :, None], 3, axis=2)
    if img.shape[2] == 4:
        img = img[:, :, :3]
    if img.dtype != np.uint8:
        raise ValueError("expected uint8 pixels, got %s" % img.dtype)
    return np.ascontiguousarray(img)


def normalise(img8):
    """uint8 (128, 128, 3) -> float32 (1, 128, 128, 3) in [-1, 1]."""
    return (img8.astype(np.float32) / np.float32(127.5) - np.float32(1.0))[None]


def crop_square(img, frac, cx=0.5, cy=0.5):
    """A square crop of side frac * min(h, w) centred at (cx, cy) (fractions), kept inside."""
    h, w = img.shape[:2]
    side = int(round(frac * min(h, w)))
    x0 = min(max(int(round(cx * w - side / 2)), 0), w - side)
    y0 = min(max(int(round(cy * h - side / 2)), 0), h - side)
    return img[y0:y0 + side, x0:x0 + side]


def adjust(img8, gain, offset):
    """Brightness/contrast: round(x * gain + offset), clipped to uint8."""
    return np.clip(np.floor(img8.astype(np.float64) * gain + offset + 0.5), 0, 255).astype(np.uint8)


def calibration(photos):
    """8 deterministic variants of each photo -> float32 (8 * len(photos), 128, 128, 3)."""
    out = []
    for name, img in photos:
        base = letterbox(img)
        variants = [
            base,
            base[:, ::-1],                              # mirror
            letterbox(crop_square(img, 0.8)),          # zoom in, centre
            letterbox(crop_square(img, 0.6, 0.4, 0.4)),  # zoom in, upper left
            adjust(base, 0.7, 0),                       # darker
            adjust(base, 1.25, 10),                     # brighter
            adjust(base, 0.6, 60),                      # low contrast
            letterbox(crop_square(img, 0.9, 0.55, 0.45))[:, ::-1],  # small shift, mirrored
        ]
        out.extend(normalise(np.ascontiguousarray(v))[0] for v in variants)
    return np.stack(out).astype(np.float32)


def save_png(path, img8):
    import skimage.io
    skimage.io.imsave(path, img8, check_contrast=False)


def skimage_photos():
    import skimage.data
    return [(n, to_rgb(getattr(skimage.data, n)())) for n in ("astronaut", "camera", "coffee", "chelsea")]


def extra_inputs(folder):
    """(name, uint8 128x128x3) for every sample*.jpg in folder: the frame and 8 tiles."""
    import skimage.io
    out = []
    files = sorted(f for f in os.listdir(folder) if f.startswith("sample") and f.endswith(".jpg"))
    for f in files:
        img = to_rgb(skimage.io.imread(os.path.join(folder, f)))
        tag = "fa" + f[len("sample"):-len(".jpg")]
        out.append((tag, letterbox(img)))
        h, w = img.shape[:2]
        side = h // 2
        ys = [0, h - side]
        xs = [int(round(k * (w - side) / 3)) for k in range(4)]
        for r, y in enumerate(ys):
            for c, x in enumerate(xs):
                out.append(("%s_t%d%d" % (tag, r, c), letterbox(img[y:y + side, x:x + side])))
    return out


def main(argv):
    args, extra, photo_dir = [], None, None
    i = 0
    while i < len(argv):
        if argv[i] == "--extra":
            extra, i = argv[i + 1], i + 2
        elif argv[i] == "--photos":
            photo_dir, i = argv[i + 1], i + 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 1:
        print("usage: prepare_inputs.py OUT_DIR [--extra DIR] [--photos PHOTO_DIR]", file=sys.stderr)
        return 2
    out_dir = args[0]
    os.makedirs(out_dir, exist_ok=True)
    photos = skimage_photos()
    inputs = [(n, letterbox(img)) for n, img in photos]
    if extra:
        inputs += extra_inputs(extra)
    for name, img8 in inputs:
        np.save(os.path.join(out_dir, name + ".npy"), normalise(img8))
        save_png(os.path.join(out_dir, name + ".png"), img8)
    with open(os.path.join(out_dir, "inputs.txt"), "w") as f:
        f.write("".join(n + "\n" for n, _ in inputs))
    calib = calibration(photos)
    np.save(os.path.join(out_dir, "calib.npy"), calib)
    if photo_dir:
        os.makedirs(photo_dir, exist_ok=True)
        import shutil
        import skimage.data
        data_dir = os.path.dirname(skimage.data.__file__)
        for name, _ in photos:
            shutil.copyfile(os.path.join(data_dir, name + ".png"), os.path.join(photo_dir, name + ".png"))
    print("wrote %d inputs and calib.npy %s to %s" % (len(inputs), list(calib.shape), out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
