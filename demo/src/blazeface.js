// BlazeFace front (128 x 128) pre- and post-processing in JavaScript.
// The exact integer letterbox of examples/blazeface/prepare_inputs.py and the anchor decoding +
// weighted NMS of examples/blazeface/decode.py, with numpy's bits.
export const SIZE = 128;
const SCORE_THRESHOLD = 0.75;
const NMS_IOU = 0.3;
const SCORE_CLIP = 100;

// Python's round(): halves to even (x >= 0 here).
function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 === 1 ? r - 1 : r;
}

/**
 * prepare_inputs.area_sum along the middle axis of `outer` x `nIn` x `inner` values: for each
 * output o, nOut times the integral of the input over [o, o + 1) * nIn / nOut, all integers
 * (exact in doubles far beyond any photo size).
 */
function areaSum(src, outer, nIn, inner, nOut) {
  const out = new Float64Array(outer * nOut * inner);
  const prefix = new Float64Array(inner);  // the sum of the first q lines
  const prev = new Float64Array(inner);    // the previous interval end's value
  for (let b = 0; b < outer; b++) {
    const base = b * nIn * inner;
    prefix.fill(0);
    prev.fill(0);
    let q = 0;
    for (let o = 1; o <= nOut; o++) {
      const p = o * nIn;
      const end = Math.floor(p / nOut);
      const r = p % nOut;
      for (; q < end; q++) for (let c = 0; c < inner; c++) prefix[c] += src[base + q * inner + c];
      const at = (b * nOut + o - 1) * inner;
      for (let c = 0; c < inner; c++) {
        const g = nOut * prefix[c] + (r ? r * src[base + q * inner + c] : 0);
        out[at + c] = g - prev[c];
        prev[c] = g;
      }
    }
  }
  return out;
}

/**
 * RGBA pixels (w x h) -> the model input: scaled so that the longer side is 128 by an exact
 * area average rounded half up, centred on black, each byte as float32(byte / 127.5) - 1; NHWC.
 * Also the placement { top, left, nh, nw } to map detections back onto the picture.
 */
export function letterbox(rgba, w, h) {
  const s = SIZE / Math.max(h, w);
  const nh = Math.max(1, roundHalfEven(h * s));
  const nw = Math.max(1, roundHalfEven(w * s));
  const rgb = new Float64Array(w * h * 3);
  for (let i = 0; i < w * h; i++) rgb.set(rgba.subarray(4 * i, 4 * i + 3), 3 * i);
  const num = areaSum(areaSum(rgb, 1, h, w * 3, nh), nh, w, 3, nw);
  const den = h * w;
  const top = Math.floor((SIZE - nh) / 2);
  const left = Math.floor((SIZE - nw) / 2);
  const input = new Float32Array(SIZE * SIZE * 3).fill(-1);  // black
  for (let y = 0; y < nh; y++) {
    for (let i = 0; i < nw * 3; i++) {
      const v = Math.floor((2 * num[y * nw * 3 + i] + den) / (2 * den));
      input[((top + y) * SIZE + left) * 3 + i] = Math.fround(v / 127.5) - 1;
    }
  }
  return { input, top, left, nh, nw };
}

// The 896 anchor centres: 16 x 16 cells x 2 anchors (stride 8), 8 x 8 cells x 6 (stride 16).
const ANCHORS = [];
for (const [cells, perCell] of [[16, 2], [8, 6]]) {
  for (let y = 0; y < cells; y++) {
    for (let x = 0; x < cells; x++) {
      for (let k = 0; k < perCell; k++) ANCHORS.push([(x + 0.5) / cells, (y + 0.5) / cells]);
    }
  }
}

function iou(a, b) {
  const ix = Math.max(Math.min(a[2], b[2]) - Math.max(a[0], b[0]), 0);
  const iy = Math.max(Math.min(a[3], b[3]) - Math.max(a[1], b[1]), 0);
  const inter = ix * iy;
  const union = Math.max(a[2] - a[0], 0) * Math.max(a[3] - a[1], 0) +
    Math.max(b[2] - b[0], 0) * Math.max(b[3] - b[1], 0) - inter;
  return union > 0 ? inter / union : 0;
}

// numpy's sum of a 1-D float64 array (pairwise: eight partial sums from 8 elements on, halves
// above 128), so that the weighted means below have decode.py's bits.
function npSum(a) {
  if (a.length < 8) return a.reduce((s, v) => s + v, 0);
  if (a.length > 128) {
    const half = Math.floor(a.length / 2) & ~7;
    return npSum(a.slice(0, half)) + npSum(a.slice(half));
  }
  const r = a.slice(0, 8);
  let i = 8;
  for (; i < a.length - (a.length % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[i + j];
  let s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < a.length; i++) s += a[i];
  return s;
}

/**
 * The model's four dequantized outputs (scores 512 and 384, regressors 512 x 16 and 384 x 16)
 * -> detections [{ score, box: [x1, y1, x2, y2], keypoints: [[x, y] x 6] }] in [0, 1]
 * coordinates of the 128 x 128 input, highest score first (decode.py's detect()).
 */
export function detect([s8, s16, b8, b16], threshold = SCORE_THRESHOLD) {
  const candidates = [];
  for (let i = 0; i < ANCHORS.length; i++) {
    const logit = i < 512 ? s8[i] : s16[i - 512];
    const score = 1 / (1 + Math.exp(-Math.min(Math.max(logit, -SCORE_CLIP), SCORE_CLIP)));
    if (!(score >= threshold)) continue;
    const reg = i < 512 ? b8.subarray(16 * i, 16 * i + 16) : b16.subarray(16 * (i - 512), 16 * (i - 511));
    const r = Array.from(reg, (v) => v / SIZE);
    const [ax, ay] = ANCHORS[i];
    const cx = ax + r[0];
    const cy = ay + r[1];
    const box = [cx - r[2] / 2, cy - r[3] / 2, cx + r[2] / 2, cy + r[3] / 2];
    const keypoints = [0, 1, 2, 3, 4, 5].map((k) => [r[4 + 2 * k] + ax, r[5 + 2 * k] + ay]);
    candidates.push({ score, box, keypoints });
  }
  // Weighted NMS: the best remaining detection absorbs those overlapping it by IoU > 0.3 and
  // becomes their score-weighted mean (stable order: equal scores keep the anchor order).
  let remaining = candidates.sort((a, b) => b.score - a.score);
  const result = [];
  while (remaining.length) {
    const top = remaining[0];
    let group = remaining.filter((d) => iou(top.box, d.box) > NMS_IOU);
    if (!group.includes(top)) group = [top];
    const wsum = npSum(group.map((d) => d.score));
    // numpy sums the weighted rows one after another (a reduction over axis 0).
    const mean = (get) => get(top).map((_, j) => group.reduce((s, d) => s + get(d)[j] * d.score, 0) / wsum);
    result.push({
      score: top.score,
      box: mean((d) => d.box),
      keypoints: [0, 1, 2, 3, 4, 5].map((k) => mean((d) => d.keypoints[k])),
    });
    remaining = remaining.filter((d) => !group.includes(d));
  }
  return result;
}
