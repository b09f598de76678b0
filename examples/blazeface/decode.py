# BlazeFace front (128x128) post-processing in numpy: anchors, score sigmoid, box decoding, weighted NMS.
"""Decode the raw outputs of the BlazeFace front-camera model into face detections.

The model (MediaPipe face_detection_front, as converted for Barracuda) predicts, for each of 896
SSD anchors, one raw score logit and 16 regressor values: the box centre offset (x, y) and size
(w, h) in input pixels, then six key points (x, y) as pixel offsets from the anchor centre.

Anchors (MediaPipe's SsdAnchorsCalculator with the front model's options: 128x128 input, strides
8, 16, 16, 16, anchor offset 0.5, fixed anchor size): layers of equal stride share one grid, so
there are two grids:

    stride 8:  16 x 16 cells, 2 anchors per cell  -> 512 anchors
    stride 16:  8 x  8 cells, 6 anchors per cell  -> 384 anchors

in row-major cell order (y, then x, then the anchor within the cell). Every anchor has width and
height 1 and its centre at ((x + 0.5) / cells, (y + 0.5) / cells) in [0, 1] image coordinates.

Decoding (MediaPipe TensorsToDetectionsCalculator, x/y/w/h scale 128, sigmoid scores clipped to
+-100 before the sigmoid):

    cx = ax + raw[0] / 128     cy = ay + raw[1] / 128
    w  = raw[2] / 128          h  = raw[3] / 128
    key point k: (ax + raw[4 + 2k] / 128, ay + raw[5 + 2k] / 128)

Detections with score >= 0.75 (the threshold of the front model's graph and of the Barracuda
port) go through weighted non-maximum suppression at IoU 0.3: the highest-scoring remaining
detection collects every remaining one that overlaps it by IoU > 0.3; the result keeps the
highest score and the score-weighted mean of the collected boxes and key points.

Usage as a script:

    decode.py RAW.npz [RAW.npz ...] [--threshold 0.75] [--nms 0.3]

where each RAW.npz holds `scores` (896,) and `regressors` (896, 16), or the model's four outputs
as `out0` .. `out3` (see `load_raw`), prints one
JSON object per file: {"file": ..., "detections": [[score, x1, y1, x2, y2], ...]} with the box
corners in [0, 1] image coordinates (origin top-left).
"""
import json
import sys

import numpy as np

INPUT_SIZE = 128
SCORE_THRESHOLD = 0.75
NMS_IOU = 0.3
SCORE_CLIP = 100.0


def anchors():
    """The 896 anchor centres, float64 (896, 2) as (x, y) in [0, 1]."""
    out = []
    for cells, per_cell in ((16, 2), (8, 6)):
        for y in range(cells):
            for x in range(cells):
                for _ in range(per_cell):
                    out.append(((x + 0.5) / cells, (y + 0.5) / cells))
    return np.array(out, dtype=np.float64)


ANCHORS = anchors()


def sigmoid_scores(logits):
    """Sigmoid of the raw logits after clipping to +-SCORE_CLIP (float64)."""
    z = np.clip(np.asarray(logits, dtype=np.float64).reshape(-1), -SCORE_CLIP, SCORE_CLIP)
    return 1.0 / (1.0 + np.exp(-z))


def join_outputs(outputs):
    """The model's four outputs (scores 512, scores 384, boxes 512, boxes 384) -> (896,), (896, 16)."""
    s8, s16, b8, b16 = (np.asarray(o, dtype=np.float32) for o in outputs)
    scores = np.concatenate([s8.reshape(-1), s16.reshape(-1)])
    regressors = np.concatenate([b8.reshape(-1, 16), b16.reshape(-1, 16)])
    if scores.shape != (896,) or regressors.shape != (896, 16):
        raise ValueError("expected 512 + 384 anchors, got scores %s, regressors %s"
                         % (scores.shape, regressors.shape))
    return scores, regressors


def decode_boxes(regressors):
    """(896, 16) raw regressors -> (896, 4) boxes [x1, y1, x2, y2] and (896, 6, 2) key points."""
    r = np.asarray(regressors, dtype=np.float64) / INPUT_SIZE
    cx = ANCHORS[:, 0] + r[:, 0]
    cy = ANCHORS[:, 1] + r[:, 1]
    w = r[:, 2]
    h = r[:, 3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    kp = r[:, 4:16].reshape(-1, 6, 2) + ANCHORS[:, None, :]
    return boxes, kp


def iou(a, b):
    """IoU of one box a [x1, y1, x2, y2] with boxes b (n, 4)."""
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    ix = np.clip(np.minimum(a[2], b[:, 2]) - np.maximum(a[0], b[:, 0]), 0, None)
    iy = np.clip(np.minimum(a[3], b[:, 3]) - np.maximum(a[1], b[:, 1]), 0, None)
    inter = ix * iy
    area_a = max(a[2] - a[0], 0) * max(a[3] - a[1], 0)
    area_b = np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None)
    union = area_a + area_b - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def weighted_nms(scores, boxes, keypoints, iou_threshold=NMS_IOU):
    """MediaPipe's weighted NMS over candidates already above the threshold.

    Returns a list of (score, box (4,), keypoints (6, 2)) in descending score order. Ties in
    score keep the lower anchor index first (stable sort), so the result is deterministic.
    """
    order = np.argsort(-scores, kind="stable")
    remaining = list(order)
    result = []
    while remaining:
        top = remaining[0]
        overlaps = iou(boxes[top], boxes[remaining])
        group = [remaining[i] for i in range(len(remaining)) if overlaps[i] > iou_threshold]
        if top not in group:  # a degenerate (empty) box: keep it alone
            group = [top]
        weights = scores[group]
        box = (boxes[group] * weights[:, None]).sum(axis=0) / weights.sum()
        kp = (keypoints[group] * weights[:, None, None]).sum(axis=0) / weights.sum()
        result.append((float(scores[top]), box, kp))
        taken = set(group)
        remaining = [i for i in remaining if i not in taken]
    return result


def detect(scores_raw, regressors, threshold=SCORE_THRESHOLD, iou_threshold=NMS_IOU):
    """Raw scores (896,) and regressors (896, 16) -> list of dicts with score, box, keypoints."""
    scores = sigmoid_scores(scores_raw)
    boxes, kps = decode_boxes(regressors)
    keep = np.nonzero(scores >= threshold)[0]
    dets = weighted_nms(scores[keep], boxes[keep], kps[keep], iou_threshold)
    return [{"score": s, "box": [float(v) for v in b], "keypoints": k.tolist()}
            for s, b, k in dets]


def load_raw(path):
    """A .npz with `scores` and `regressors`, or with the four model outputs `out0`..`out3`."""
    with np.load(path) as z:
        if "scores" in z:
            return z["scores"], z["regressors"]
        return join_outputs([z["out%d" % k] for k in range(4)])


def main(argv):
    threshold, nms, files = SCORE_THRESHOLD, NMS_IOU, []
    i = 0
    while i < len(argv):
        if argv[i] == "--threshold":
            threshold = float(argv[i + 1])
            i += 2
        elif argv[i] == "--nms":
            nms = float(argv[i + 1])
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if not files:
        print(__doc__.split("Usage as a script:")[1].strip(), file=sys.stderr)
        return 2
    for f in files:
        scores, regs = load_raw(f)
        dets = detect(scores, regs, threshold, nms)
        print(json.dumps({"file": f, "detections": [
            [round(d["score"], 6)] + [round(v, 6) for v in d["box"]] for d in dets]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
