// Pure helpers: shape validation, nested arrays, half-float decoding and attribute JSON.
import { CvmLogicError } from './shared.mjs';

/** Element count of `shape` (1 for []). */
export function numel(shape) {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Validates a shape given by the caller and returns it as a plain number array. */
export function checkShape(shape, what = 'shape') {
  if (!Array.isArray(shape) && !ArrayBuffer.isView(shape)) {
    throw new CvmLogicError(`${what}: expected an array of extents, found ${typeof shape}`);
  }
  const out = Array.from(shape, Number);
  for (const d of out) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new CvmLogicError(`${what}: extents must be non-negative integers, found (${out.join(', ')})`);
    }
  }
  return out;
}

/** Nested JS arrays of `shape` from a flat array-like. */
export function toNested(flat, shape) {
  if (shape.length === 0) return flat[0];
  let pos = 0;
  const build = (d) => {
    const n = shape[d];
    const out = new Array(n);
    if (d === shape.length - 1) {
      for (let i = 0; i < n; i++) out[i] = flat[pos++];
    } else {
      for (let i = 0; i < n; i++) out[i] = build(d + 1);
    }
    return out;
  };
  return build(0);
}

/** Shape and flat elements of a (rectangular) nested array or a scalar. */
export function fromNested(data) {
  const shape = [];
  let probe = data;
  while (Array.isArray(probe)) {
    shape.push(probe.length);
    probe = probe[0];
  }
  const flat = [];
  const walk = (v, d) => {
    if (d === shape.length) {
      if (Array.isArray(v)) throw new CvmLogicError('array(): nested arrays are ragged (too deep)');
      flat.push(v);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[d]) {
      throw new CvmLogicError(`array(): nested arrays are ragged: expected ${shape[d]} entries at depth ${d}`);
    }
    for (const x of v) walk(x, d + 1);
  };
  walk(data, 0);
  return { shape, flat };
}

/** The value of float16 / bfloat16 bits `h` as a number. */
export function decodeHalf(h, dtype) {
  if (dtype === 'bfloat16') {
    const f = new Float32Array(new Uint32Array([h << 16]).buffer);
    return f[0];
  }
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

// One attribute value as JSON text for CVMOpRun (c_api.h: strings pass through as CVM text,
// integers, booleans, null and arrays of integers become CVM attribute text natively).
function attrJson(key, v) {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) {
      throw new CvmLogicError(`attribute "${key}": expected a finite number, found ${v}`);
    }
    return JSON.stringify(v);
  }
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    return `[${Array.from(v, (x) => attrJson(key, x)).join(',')}]`;
  }
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'object') {
    // Objects are not CVM attributes; let the native parser name the key in its error.
    return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x));
  }
  throw new CvmLogicError(`attribute "${key}": unsupported value of type ${typeof v}`);
}

/** A JS attribute object as the JSON object text CVMOpRun takes ("" for none). */
export function attrsToJson(attrs) {
  if (attrs === undefined || attrs === null) return '';
  if (typeof attrs === 'string') return attrs;
  if (typeof attrs !== 'object' || Array.isArray(attrs)) {
    throw new CvmLogicError('op(): attrs must be an object of attribute values');
  }
  const parts = [];
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${attrJson(k, v)}`);
  }
  return `{${parts.join(',')}}`;
}
