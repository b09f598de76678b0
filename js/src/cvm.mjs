// The object init() resolves to: array factories, operators, params, models and lifetimes.
import { CvmArray } from './array.mjs';
import { dtypeInfo, dtypeOfTypedArray, DTYPES } from './dtype.mjs';
import { compactStrides, gatherInto } from './gather.mjs';
import { Lifetimes } from './lifetime.mjs';
import { loadModel } from './model.mjs';
import { installOps } from './ops.mjs';
import { loadParams, saveParams } from './params.mjs';
import { CvmLogicError } from './shared.mjs';
import { checkShape, fromNested, numel, resolveReshape } from './util.mjs';

const MAX_DIMS = 32;

export class Cvm {
  /** @internal Use init(). */
  constructor(native, { debug = false, warn } = {}) {
    this.native = native;
    this.lifetimes = new Lifetimes({ debug, warn });
    this.debug = debug;
    this._names = new Map();
  }

  /** Variant, library version and backend of this instance. */
  info() {
    const n = this.native;
    const out = {
      variant: n.variant,
      version: n.string(n.raw('CVMGetLibraryVersion') >>> 0),
      versionNumber: n.raw('CVMGetLibraryVersionNumber'),
      backend: this.backend,
    };
    if (n.fn.CVMGetBuildHash) out.buildHash = n.string(n.raw('CVMGetBuildHash') >>> 0);
    else if (typeof n.mod.cvmrtBuildHash === 'string') out.buildHash = n.mod.cvmrtBuildHash;
    return out;
  }

  /** The preferred backend's name ("scalar", "wasm_simd128", ...). */
  get backend() {
    return this.native.string(this.native.raw('CVMGetBackend') >>> 0);
  }

  /** Selects the preferred backend ("auto", "scalar", ...); same bits, different speed. */
  setBackend(name) {
    const p = this.native.cstring(name);
    try {
      this.native.call('CVMSetBackend', p);
    } finally {
      this.native.free(p);
    }
  }

  /** Live native objects and heap size (bytes = element bytes of the live arrays). */
  memory() {
    const l = this.lifetimes;
    return {
      liveArrays: l.liveArrays,
      liveModels: l.liveModels,
      bytes: l.bytes,
      wasmHeapBytes: this.native.buffer().byteLength,
      leaked: l.leaked,
    };
  }

  /** Runs fn and disposes every array/model it created except those in its (awaited) result. */
  scope(fn) {
    return this.lifetimes.scope(fn);
  }

  /** Takes an array or model out of the enclosing scope(s): it must then be disposed by hand. */
  keep(x) {
    return this.lifetimes.keep(x);
  }

  /**
   * Calls fn with a NUL-terminated copy of name `s`. Copies are cached (operator names are a
   * small fixed set); past 512 distinct names, further ones are freed after the call.
   */
  _withName(s, fn) {
    let p = this._names.get(s);
    if (p !== undefined) return fn(p);
    p = this.native.cstring(s);
    if (this._names.size < 512) {
      this._names.set(s, p);
      return fn(p);
    }
    try {
      return fn(p);
    } finally {
      this.native.free(p);
    }
  }

  // ---- creation ----

  /** @internal A new zero-filled compact array. */
  _alloc(shape, dtype) {
    const n = this.native;
    const info = dtypeInfo(dtype);
    const dims = checkShape(shape);
    if (dims.length > MAX_DIMS) throw new CvmLogicError(`at most ${MAX_DIMS} dimensions, found ${dims.length}`);
    const s = n.scratch;
    for (let i = 0; i < dims.length; i++) n.setI64(s + 8 * i, dims[i]);
    const out = s + 8 * MAX_DIMS;
    n.setU32(out, 0);
    n.call('CVMArrayAlloc', s, dims.length, info.code, info.bits, 1, 1, 0, out);
    return new CvmArray(this, n.u32(out));
  }

  /** @internal Wraps a handle the library returned (ownership passes to the array). */
  _wrap(handle) {
    return new CvmArray(this, handle);
  }

  /** @internal A new array holding `bytes` (exactly its size) in `shape`/`dtype`. */
  _fromBytes(bytes, shape, dtype) {
    const a = this._alloc(shape, dtype);
    if (bytes.byteLength !== a.nbytes) {
      a.dispose();
      throw new CvmLogicError(`expected ${a.nbytes} bytes for ${dtype}[${shape.join(', ')}], found ${bytes.byteLength}`);
    }
    if (a.nbytes) this.native.u8.set(bytes, a._compactData());
    return a;
  }

  /**
   * A new array from a typed array, nested JS arrays or a scalar. Without `dtype`, typed arrays
   * keep theirs, BigInts give int64, booleans bool, integers int32 and other numbers float32.
   * Converting a typed array to another dtype uses the native cast rules.
   */
  array(data, { shape, dtype } = {}) {
    if (data instanceof CvmArray) {
      const copy = dtype && dtype !== data.dtype ? this.cast(data, dtype) : data.clone();
      return shape ? this._replace(copy, () => copy.reshape(shape)) : copy;
    }
    if (dtype !== undefined) dtypeInfo(dtype);
    if (ArrayBuffer.isView(data)) {
      const nat = dtypeOfTypedArray(data);
      if (!nat) throw new CvmLogicError('array(): DataView is not supported; use fromBytes()');
      const dims = shape === undefined ? [data.length] : checkShape(shape);
      if (numel(dims) !== data.length) {
        throw new CvmLogicError(`array(): shape (${dims.join(', ')}) holds ${numel(dims)} elements, the data has ${data.length}`);
      }
      const target = dtype || nat;
      const info = dtypeInfo(target);
      const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (target === nat || (info.bitsOnly && target !== 'bool' && data.constructor === info.Array)) {
        return this._fromBytes(raw, dims, target);
      }
      const a = this._fromBytes(raw, dims, nat);
      return this._replace(a, () => this.cast(a, target));
    }
    if (data instanceof ArrayBuffer) {
      throw new CvmLogicError('array(): an ArrayBuffer has no element type; use fromBytes() or a typed array');
    }
    const { shape: inferred, flat } = fromNested(data);
    const dims = shape === undefined ? inferred : checkShape(shape);
    if (numel(dims) !== flat.length) {
      throw new CvmLogicError(`array(): shape (${dims.join(', ')}) holds ${numel(dims)} elements, the data has ${flat.length}`);
    }
    const target = dtype || inferDtype(flat);
    const info = dtypeInfo(target);
    if (info.bitsOnly && target !== 'bool') {
      // float16 / bfloat16: round natively from float64, exactly like cast().
      const a = this._fromBytes(new Uint8Array(toTyped(flat, 'float64').buffer), dims, 'float64');
      return this._replace(a, () => this.cast(a, target));
    }
    const ta = toTyped(flat, target);
    return this._fromBytes(new Uint8Array(ta.buffer), dims, target);
  }

  /** Runs make(), then disposes `tmp` even when make() throws. */
  _replace(tmp, make) {
    try {
      return make();
    } finally {
      tmp.dispose();
    }
  }

  /** A new array over a copy of raw little-endian row-major `bytes`. */
  fromBytes(bytes, { shape, dtype } = {}) {
    const raw = bytes instanceof ArrayBuffer ? new Uint8Array(bytes)
      : ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null;
    if (!raw) throw new CvmLogicError('fromBytes(): expected bytes (Uint8Array, ArrayBuffer or a view)');
    if (shape === undefined) throw new CvmLogicError('fromBytes(): shape is required');
    return this._fromBytes(raw, checkShape(shape), dtype || 'uint8');
  }

  zeros(shape, dtype = 'int32') {
    return this._alloc(shape, dtype);
  }

  ones(shape, dtype = 'int32') {
    return this.full(shape, 1, dtype);
  }

  /** A new array of `shape` with every element `value` (converted as array() does). */
  full(shape, value, dtype) {
    const one = this.array(value, { dtype });
    try {
      if (one.size !== 1) throw new CvmLogicError('full(): value must be a scalar');
      const out = this._alloc(shape, one.dtype);
      if (out.size) {
        const { Array: A } = dtypeInfo(one.dtype);
        out.view().fill(new A(one.toBytes().buffer)[0]);
      }
      return out;
    } finally {
      one.dispose();
    }
  }

  // ---- view-like transformations (copies; int32 through the CVM operators) ----

  _reshape(a, shape) {
    const dims = resolveReshape(shape, a.size);
    if (a.dtype === 'int32' && dims.length > 0 && a.size > 0) {
      return this.op('reshape', [a], { shape: dims });
    }
    return this._gather(a, dims, null);
  }

  _transpose(a, perm) {
    if (a.dtype === 'int32' && perm.length > 0 && a.size > 0) {
      return this.op('transpose', [a], { axes: perm });
    }
    const st = compactStrides(a.shape);
    return this._gather(a, perm.map((p) => a.shape[p]), { strides: perm.map((p) => st[p]), base: 0 });
  }

  _slice(a, spec) {
    const shape = spec.map((s) => s.count);
    if (a.dtype === 'int32' && spec.length > 0 && numel(shape) > 0 && spec.every((s) => s.step > 0)) {
      return this.op('strided_slice', [a], {
        begin: spec.map((s) => s.start),
        end: spec.map((s) => s.start + s.step * (s.count - 1) + 1),
        stride: spec.map((s) => s.step),
      });
    }
    const st = compactStrides(a.shape);
    let base = 0;
    spec.forEach((s, i) => { base += s.start * st[i]; });
    return this._gather(a, shape, { strides: spec.map((s, i) => s.step * st[i]), base });
  }

  /** A new compact array of `shape` gathering a's elements (map null: a plain copy). */
  _gather(a, shape, map) {
    const out = this._alloc(shape, a.dtype);
    if (out.size === 0) return out;
    const n = this.native;
    const { bytes } = dtypeInfo(a.dtype);
    let src = a._compactData();
    let tmp = 0;
    if (!src) {
      const b = a.toBytes();
      const c = n.copyIn(b, 64);
      tmp = c.base;
      src = c.p;
    }
    try {
      const dst = out._compactData();
      if (!map) n.u8.copyWithin(dst, src, src + out.nbytes);
      else gatherInto(n.buffer(), src, dst, bytes, shape, map.strides, map.base);
    } finally {
      n.free(tmp);
    }
    return out;
  }
}

installOps(Cvm);
Cvm.prototype.loadParams = loadParams;
Cvm.prototype.saveParams = saveParams;
Cvm.prototype.loadModel = loadModel;
Cvm.prototype.dtypes = DTYPES;

function inferDtype(flat) {
  if (flat.length === 0) return 'int32';
  if (flat.every((v) => typeof v === 'boolean')) return 'bool';
  if (flat.some((v) => typeof v === 'bigint')) return 'int64';
  return flat.every((v) => Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) ? 'int32' : 'float32';
}

// A typed array of `dtype` holding `flat`, rejecting values the dtype cannot represent.
function toTyped(flat, dtype) {
  const info = dtypeInfo(dtype);
  const out = new info.Array(flat.length);
  for (let i = 0; i < flat.length; i++) {
    let v = flat[i];
    if (typeof v === 'boolean') v = v ? 1 : 0;
    if (dtype === 'bool') {
      out[i] = v ? 1 : 0;
      continue;
    }
    if (info.big) {
      if (typeof v === 'number' && Number.isInteger(v)) v = BigInt(v);
      if (typeof v !== 'bigint') throw badValue(v, i, dtype);
      out[i] = v;
      if (out[i] !== v) throw badValue(v, i, dtype);
      continue;
    }
    if (typeof v === 'bigint') v = Number(v);
    if (typeof v !== 'number') throw badValue(v, i, dtype);
    out[i] = v;
    if (info.code !== 2 && out[i] !== v) throw badValue(v, i, dtype);
  }
  return out;
}

function badValue(v, i, dtype) {
  return new CvmLogicError(`array(): element ${i} (${String(v)}) is not representable as ${dtype}`);
}
