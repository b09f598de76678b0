// The object init() resolves to: array factories, operators, params, models and lifetimes.
import { CvmArray } from './array.mjs';
import { dtypeInfo, dtypeOfTypedArray, DTYPES } from './dtype.mjs';
import { Lifetimes, supportDispose } from './lifetime.mjs';
import { CvmModel, loadModel } from './model.mjs';
import { installOps } from './ops.mjs';
import { loadParams, saveParams } from './params.mjs';
import { CvmLogicError } from './shared.mjs';
import { checkShape, fromNested, numel } from './util.mjs';

const MAX_DIMS = 32;
// CVM_SLICE_DEFAULT of c_api.h (INT64_MIN): an omitted slice bound.
const SLICE_DEFAULT = -(2 ** 63);

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

  /** The name of the kernel table in use: "wasm" (SIMD128 kernels) or "scalar". */
  get backend() {
    return this.native.string(this.native.raw('CVMGetBackend') >>> 0);
  }

  /**
   * Selects the preferred backend ("auto", "scalar", ...); same bits, different speed. Operators
   * use it from the next call, models from their next run() (a native session binds its kernels
   * when it is made, so a model's session is remade after a switch).
   */
  setBackend(name) {
    const p = this.native.cstring(name);
    try {
      this.native.call('CVMSetBackend', p);
      this._backendSwitches = (this._backendSwitches || 0) + 1;
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

  // ---- views: the C ABI makes them (shape checks and strides live in the core, once) ----

  /**
   * @internal A new handle from view call `fn`(handle, list, list.length, out), `list` a JS
   * array of integers passed as int64 ('i64') or int32 ('i32') values.
   */
  _view(fn, a, list, kind) {
    const what = VIEW_NAMES[fn];
    const values = integerList(list, what, kind === 'i32');
    if (values.length > MAX_DIMS) {
      throw new CvmLogicError(`${what}: at most ${MAX_DIMS} entries, found ${values.length}`);
    }
    const n = this.native;
    const s = n.scratch;
    values.forEach((v, i) => {
      if (kind === 'i64') n.setI64(s + 8 * i, v);
      else n.dv.setInt32(s + 4 * i, v, true);
    });
    const out = s + 8 * MAX_DIMS;
    n.setU32(out, 0);
    n.call(fn, a.handle, values.length ? s : 0, values.length, out);
    return new CvmArray(this, n.u32(out));
  }

  /** @internal CVMArraySlice with omitted bounds as CVM_SLICE_DEFAULT. */
  _slice(a, begin, end, step) {
    const lists = [begin, end, step].map((v, k) => {
      const name = ['begin', 'end', 'step'][k];
      if (v === undefined || v === null) return [];
      const arr = typeof v === 'number' || typeof v === 'bigint' ? [v] : v;
      if (!Array.isArray(arr)) throw new CvmLogicError(`slice: ${name} must be an array, a number or null`);
      return arr.map((x, i) => (x === undefined || x === null ? SLICE_DEFAULT
        : checkInteger(x, `slice: ${name}[${i}]`)));
    });
    const naxes = Math.max(...lists.map((l) => l.length));
    if (naxes > MAX_DIMS) throw new CvmLogicError(`slice: at most ${MAX_DIMS} axes, found ${naxes}`);
    const n = this.native;
    const s = n.scratch;
    lists.forEach((l, k) => {
      for (let i = 0; i < naxes; i++) n.setI64(s + 8 * (k * MAX_DIMS + i), i < l.length ? l[i] : SLICE_DEFAULT);
    });
    const out = s + 24 * MAX_DIMS;
    n.setU32(out, 0);
    n.call('CVMArraySlice', a.handle, s, s + 8 * MAX_DIMS, s + 16 * MAX_DIMS, naxes, out);
    return new CvmArray(this, n.u32(out));
  }

  /** @internal CVMArrayExpandDims. */
  _expandDims(a, axis) {
    const n = this.native;
    const out = n.scratch;
    n.setU32(out, 0);
    n.call('CVMArrayExpandDims', a.handle, checkInteger(axis, 'expandDims: axis', true), out);
    return new CvmArray(this, n.u32(out));
  }

  /** @internal A new compact array holding a copy of a's elements (any strides). */
  _clone(a) {
    const out = this._alloc(a.shape, a.dtype);
    try {
      this.native.call('CVMArrayCopyFromTo', a.handle, out.handle, 0);
    } catch (e) {
      out.dispose();
      throw e;
    }
    return out;
  }
}

const VIEW_NAMES = {
  CVMArrayReshape: 'reshape', CVMArrayPermute: 'transpose', CVMArrayBroadcastTo: 'broadcastTo',
  CVMArraySqueeze: 'squeeze',
};

// An integer for a C argument (no silent truncation of 1.5 or '2'); int32 when `small`.
function checkInteger(x, what, small = false) {
  const v = typeof x === 'bigint' ? Number(x) : x;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || (small && (v < -(2 ** 31) || v >= 2 ** 31))) {
    throw new CvmLogicError(`${what}: expected an integer, found ${String(x)}`);
  }
  return v;
}

function integerList(list, what, small) {
  if (!Array.isArray(list) && !ArrayBuffer.isView(list)) {
    throw new CvmLogicError(`${what}: expected an array of integers, found ${typeof list}`);
  }
  return Array.from(list, (x, i) => checkInteger(x, `${what}: entry ${i}`, small));
}

installOps(Cvm);
supportDispose(CvmArray, CvmModel);
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
