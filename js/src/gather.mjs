// Strided element copies in JS for the view-like methods of non-int32 arrays (any dtype, exact).
import { numel } from './util.mjs';

const WORD = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array, 8: Uint32Array };

/**
 * Copies elements of compact `src` bytes (at heap address srcPtr) to compact dst (dstPtr):
 * dst[i0, i1, ...] = src[base + Σ ik·strides[k]] (element units), for dst of shape `shape`.
 * Elements are moved as integer words, so float payloads (NaN bits, -0) are kept exactly.
 */
export function gatherInto(buffer, srcPtr, dstPtr, elemBytes, shape, strides, base) {
  const words = elemBytes === 8 ? 2 : 1;
  const W = WORD[elemBytes];
  const wordBytes = elemBytes / words;
  const src = new W(buffer, srcPtr, Math.floor((buffer.byteLength - srcPtr) / wordBytes));
  const dst = new W(buffer, dstPtr, numel(shape) * words);
  const nd = shape.length;
  const total = numel(shape);
  if (total === 0) return;
  const idx = new Array(nd).fill(0);
  const inner = nd ? shape[nd - 1] : 1;
  const innerStride = nd ? strides[nd - 1] * words : 0;
  let off = base * words;
  let o = 0;
  for (let done = 0; done < total; done += inner) {
    let s = off;
    if (words === 1) {
      for (let i = 0; i < inner; i++, s += innerStride) dst[o++] = src[s];
    } else {
      for (let i = 0; i < inner; i++, s += innerStride) {
        dst[o++] = src[s];
        dst[o++] = src[s + 1];
      }
    }
    // Advance the odometer over the outer axes.
    for (let d = nd - 2; d >= 0; d--) {
      idx[d]++;
      off += strides[d] * words;
      if (idx[d] < shape[d]) break;
      off -= idx[d] * strides[d] * words;
      idx[d] = 0;
    }
  }
}

/** Row-major element strides of `shape`. */
export function compactStrides(shape) {
  const out = new Array(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    out[i] = s;
    s *= shape[i];
  }
  return out;
}
