// The float interface of quantized models: their metadata (CVMModelGetQuantization), and input
// quantization as the native Model::quantize_input.
import { CvmLogicError } from './shared.mjs';

/**
 * The quantization metadata from CVMModelGetQuantization's JSON ("" for a model that is not
 * quantized: null), frozen, in the package's names.
 */
export function parseQuantization(json) {
  if (!json) return null;
  const q = JSON.parse(json);
  const freeze = (list) => Object.freeze(list.map((t) => Object.freeze(t)));
  return Object.freeze({
    inputs: freeze(q.inputs.map(({ name, scale, precision }) => ({ name, scale, precision }))),
    outputs: freeze(q.outputs.map(({ name, scale, tail, tail_axis: tailAxis }) => ({ name, scale, tail, tailAxis }))),
  });
}

/**
 * Float32 values -> the integers they stand for: clamp(round(x * scale), +-(2^(p-1)-1)), the
 * product in double and halves rounded away from zero (std::round), as Model::quantize_input.
 * An Int8Array for precision <= 8, else an Int32Array.
 */
export function quantizeValues(values, { scale, precision }, what) {
  const bound = 2 ** (precision - 1) - 1;
  const out = precision <= 8 ? new Int8Array(values.length) : new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (Number.isNaN(x)) throw new CvmLogicError(`${what}: NaN at flat index ${i} cannot be quantized`);
    const p = x * scale;
    let r = Math.trunc(p);                     // p - trunc(p) is exact in double
    if (Math.abs(p - r) >= 0.5) r += Math.sign(p);
    out[i] = r > bound ? bound : r < -bound ? -bound : r;
  }
  return out;
}
