// Element types: DLPack codes and bits of each cvmrt dtype name, and the typed array holding it.
import { CvmLogicError } from './shared.mjs';

// code: DLPack type code (0 int, 1 uint, 2 float, 4 bfloat, 6 bool); Array: the typed array
// whose elements have exactly this layout (float16/bfloat16 as raw Uint16 bits, bool as 0/1
// bytes); big: elements are BigInts.
const TABLE = {
  int8: { code: 0, bits: 8, Array: Int8Array },
  int16: { code: 0, bits: 16, Array: Int16Array },
  int32: { code: 0, bits: 32, Array: Int32Array },
  int64: { code: 0, bits: 64, Array: BigInt64Array, big: true },
  uint8: { code: 1, bits: 8, Array: Uint8Array },
  uint16: { code: 1, bits: 16, Array: Uint16Array },
  uint32: { code: 1, bits: 32, Array: Uint32Array },
  uint64: { code: 1, bits: 64, Array: BigUint64Array, big: true },
  float16: { code: 2, bits: 16, Array: Uint16Array, bitsOnly: true },
  bfloat16: { code: 4, bits: 16, Array: Uint16Array, bitsOnly: true },
  float32: { code: 2, bits: 32, Array: Float32Array },
  float64: { code: 2, bits: 64, Array: Float64Array },
  bool: { code: 6, bits: 8, Array: Uint8Array, bitsOnly: true },
};
for (const [name, d] of Object.entries(TABLE)) {
  d.name = name;
  d.bytes = d.bits / 8;
  Object.freeze(d);
}

/** Every dtype name cvmrt supports. */
export const DTYPES = Object.freeze(Object.keys(TABLE));

/** The table entry of dtype `name`; CvmLogicError when unknown. */
export function dtypeInfo(name) {
  const d = typeof name === 'string' ? TABLE[name] : undefined;
  if (!d) {
    throw new CvmLogicError(
      `unknown dtype ${JSON.stringify(name)}: expected one of ${DTYPES.join(', ')}`);
  }
  return d;
}

/** The dtype name of a DLPack (code, bits, lanes) triple, or undefined. */
export function dtypeFromCode(code, bits, lanes) {
  if (lanes !== 1) return undefined;
  for (const d of Object.values(TABLE)) {
    if (d.code === code && d.bits === bits) return d.name;
  }
  return undefined;
}

// The natural dtype of each typed array type (Uint8ClampedArray reads as uint8).
const NATURAL = new Map([
  [Int8Array, 'int8'], [Int16Array, 'int16'], [Int32Array, 'int32'],
  [BigInt64Array, 'int64'], [Uint8Array, 'uint8'], [Uint8ClampedArray, 'uint8'],
  [Uint16Array, 'uint16'], [Uint32Array, 'uint32'], [BigUint64Array, 'uint64'],
  [Float32Array, 'float32'], [Float64Array, 'float64'],
]);

/** The dtype a typed array holds, or undefined for anything else. */
export function dtypeOfTypedArray(a) {
  return ArrayBuffer.isView(a) && !(a instanceof DataView) ? NATURAL.get(a.constructor) : undefined;
}
