// Param dicts: CVMLoadParamsDictEx / CVMSaveParamsDictFormat (cvmrt and legacy CVM formats).
import { CvmLogicError } from './shared.mjs';

const FORMATS = { cvmrt: 0, cvm: 1 };

/** Bytes of a Uint8Array / ArrayBuffer / typed array / Node Buffer, without copying. */
export function asBytes(data, what) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new CvmLogicError(`${what}: expected bytes (Uint8Array, ArrayBuffer or a typed array)`);
}

/**
 * Loads a param dict (cvmrt or legacy CVM format, detected from the bytes) into a Map from
 * name to a new array, in file order. `verify: false` skips the payload checksums only.
 */
export function loadParams(bytes, { verify = true } = {}) {
  const n = this.native;
  const raw = asBytes(bytes, 'loadParams()');
  // 64-byte aligned, as the cvmrt format's payloads are aligned relative to the buffer start.
  const { base, p } = n.copyIn(raw, 64);
  const out = new Map();
  try {
    const s = n.scratch;
    n.call('CVMLoadParamsDictEx', p, raw.byteLength, verify ? 1 : 0, s, s + 4, s + 8);
    const num = n.i32(s);
    const namesP = n.u32(s + 4);
    const valuesP = n.u32(s + 8);
    const entries = [];
    for (let i = 0; i < num; i++) {
      entries.push([n.string(n.u32(namesP + 4 * i)), n.u32(valuesP + 4 * i)]);
    }
    // Wrap every handle before anything can throw, so none of them leaks.
    for (const [name, h] of entries) out.set(name, this._wrap(h));
    return out;
  } finally {
    n.free(base);
  }
}

/**
 * Saves arrays as a param dict and returns its bytes. `dict`: a Map, a plain object, or an
 * iterable of [name, array] pairs; values may also be data array() accepts. format: 'cvmrt'
 * (default) or 'cvm' (the legacy CVM/TVM format).
 */
export function saveParams(dict, { format = 'cvmrt' } = {}) {
  const code = FORMATS[format];
  if (code === undefined) {
    throw new CvmLogicError(`saveParams(): format must be "cvmrt" or "cvm", found ${JSON.stringify(format)}`);
  }
  const entries = dict instanceof Map ? [...dict]
    : dict && typeof dict[Symbol.iterator] === 'function' ? [...dict]
      : dict && typeof dict === 'object' ? Object.entries(dict) : null;
  if (!entries) throw new CvmLogicError('saveParams(): expected a Map, an object or [name, array] pairs');
  const n = this.native;
  const temps = [];
  const strings = [];
  let list = 0;
  try {
    const arrays = entries.map(([, v]) => this._asArray(v, temps));
    list = n.malloc(8 * entries.length + 8);
    entries.forEach(([name], i) => {
      const sp = n.cstring(name);
      strings.push(sp);
      n.setU32(list + 8 * i, sp);
      n.setU32(list + 8 * i + 4, arrays[i].handle);
    });
    const s = n.scratch;
    n.call('CVMSaveParamsDictFormat', list, 2 * entries.length, code, s);
    const data = n.u32(s);
    const size = n.u32(s + 4);
    return n.u8.slice(data, data + size);
  } finally {
    n.free(list);
    for (const sp of strings) n.free(sp);
    for (const t of temps) t.dispose();
  }
}
