// The .npy reader and writer of the Node scripts (float32 and int32, little-endian, C order).
//
//   import { readNpy, writeNpy, npyEncode, npyDecode } from '.../bench/ort/npy.mjs';
//
// Writes format version 1.0; reads 1.x and 2.x. Arrays are { data: Float32Array | Int32Array,
// shape: number[] }.
import { readFileSync, writeFileSync } from 'node:fs';

const NPY_DESCR = { float32: '<f4', int32: '<i4' };
const NPY_CTOR = { '<f4': Float32Array, '<i4': Int32Array };

// The .npy bytes of `typedArray` (Float32Array or Int32Array) with `shape`.
export function npyEncode(typedArray, shape) {
  const dtype = typedArray instanceof Float32Array ? 'float32' : typedArray instanceof Int32Array ? 'int32' : null;
  if (!dtype) throw new Error('npyEncode: only Float32Array and Int32Array are supported');
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== typedArray.length) throw new Error(`npyEncode: shape ${shape} does not hold ${typedArray.length} values`);
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${NPY_DESCR[dtype]}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // Magic (6) + version (2) + length (2) + header + '\n' is padded with spaces to a multiple of 64.
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const out = Buffer.alloc(10 + header.length + typedArray.byteLength);
  out.write('\x93NUMPY', 0, 'latin1');
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(header.length, 8);
  out.write(header, 10, 'latin1');
  const bytes = Buffer.from(typedArray.buffer, typedArray.byteOffset, typedArray.byteLength);
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('npyEncode: big-endian host');
  bytes.copy(out, 10 + header.length);
  return out;
}

// The array in the .npy bytes `buf`; `what` names them in errors.
export function npyDecode(buf, what = '.npy data') {
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${what}: not a .npy file`);
  const major = buf[6];
  const start = major === 1 ? 10 : 12;
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${what}: Fortran order is not supported`);
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '')
    .split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const ctor = NPY_CTOR[descr];
  if (!ctor) throw new Error(`${what}: unsupported dtype ${descr}`);
  const count = shape.reduce((a, b) => a * b, 1);
  const dataStart = start + headerLen;
  const copy = new Uint8Array(count * ctor.BYTES_PER_ELEMENT);
  if (dataStart + copy.length > buf.length) throw new Error(`${what}: file is shorter than its header says`);
  copy.set(buf.subarray(dataStart, dataStart + copy.length));
  return { data: new ctor(copy.buffer), shape };
}

export function readNpy(path) {
  return npyDecode(readFileSync(path), path);
}

export function writeNpy(path, typedArray, shape = [typedArray.length]) {
  writeFileSync(path, npyEncode(typedArray, shape));
}
