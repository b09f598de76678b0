// CvmArray: an explicit-lifetime handle on a native array (a DLTensor in the wasm heap).
import { dtypeInfo, dtypeFromCode } from './dtype.mjs';
import { CvmLogicError, CvmRuntimeError } from './shared.mjs';
import { numel, toNested, decodeHalf } from './util.mjs';

// DLTensor field offsets on wasm32 (sizeof(DLTensor) = 40).
const DL_DATA = 0;
const DL_NDIM = 12;
const DL_CODE = 16;
const DL_BITS = 17;
const DL_LANES = 18;
const DL_SHAPE = 20;
const DL_STRIDES = 24;

const inspect = Symbol.for('nodejs.util.inspect.custom');

// What the lifetime tracker knows of an array; it must not reference the CvmArray itself.
class ArrayRecord {
  constructor(native, handle, bytes, dtype, shape) {
    this.native = native;
    this.handle = handle;
    this.bytes = bytes;
    this.dtype = dtype;
    this.shape = shape;
    this.freed = false;
    this.scope = null;
  }

  get kind() { return 'array'; }

  free() { this.native.call('CVMArrayFree', this.handle); }

  describe() { return `an array ${this.dtype}[${this.shape.join(', ')}]`; }
}

export class CvmArray {
  /** @internal Use cvm.array(), zeros(), ... — never construct directly. */
  constructor(cvm, handle) {
    const n = cvm.native;
    const ndim = n.i32(handle + DL_NDIM);
    const u8 = n.u8;
    const dtype = dtypeFromCode(u8[handle + DL_CODE], u8[handle + DL_BITS],
      n.dv.getUint16(handle + DL_LANES, true));
    if (!dtype) {
      n.call('CVMArrayFree', handle);
      throw new CvmRuntimeError('a native array has a dtype the JS package does not know');
    }
    const shapePtr = n.u32(handle + DL_SHAPE);
    const shape = [];
    for (let i = 0; i < ndim; i++) shape.push(n.i64(shapePtr + 8 * i));
    this._cvm = cvm;
    this._h = handle;
    this._shape = Object.freeze(shape);
    this._dtype = dtype;
    this._size = numel(shape);
    this._rec = new ArrayRecord(n, handle, this._size * dtypeInfo(dtype).bytes, dtype, this._shape);
    cvm.lifetimes.adopt(this, this._rec);
  }

  /** The extents, outermost first (a frozen array of numbers; [] for a 0-d array). */
  get shape() { return this._shape; }
  get dtype() { return this._dtype; }
  get ndim() { return this._shape.length; }
  /** Number of elements. */
  get size() { return this._size; }
  /** Bytes of the elements, row-major. */
  get nbytes() { return this._rec.bytes; }
  get disposed() { return this._rec.freed; }

  /** @internal The live native handle; throws once disposed. */
  get handle() {
    if (this._rec.freed) {
      throw new CvmLogicError(`this ${this._rec.describe()} has been disposed`);
    }
    return this._h;
  }

  /** @internal Address of element 0 when compact, else 0. */
  _compactData() {
    const h = this.handle;
    const n = this._cvm.native;
    // c_api.h: strides are NULL exactly when the array is compact row-major.
    if (n.u32(h + DL_STRIDES) !== 0) return 0;
    return n.u32(h + DL_DATA);
  }

  /** A copy of the elements as bytes (little-endian, row-major). */
  toBytes() {
    const nbytes = this.nbytes;
    const n = this._cvm.native;
    const data = this._compactData();
    if (data || nbytes === 0) return n.u8.slice(data, data + nbytes);
    const tmp = n.malloc(nbytes);
    try {
      n.call('CVMArrayCopyToBytes', this._h, tmp, nbytes);
      return n.u8.slice(tmp, tmp + nbytes);
    } finally {
      n.free(tmp);
    }
  }

  /**
   * A copy of the elements in the dtype's typed array: BigInt64Array / BigUint64Array for
   * int64 / uint64, Uint16Array of raw bits for float16 / bfloat16, Uint8Array of 0/1 for bool.
   */
  toTypedArray() {
    const { Array: A } = dtypeInfo(this._dtype);
    return new A(this.toBytes().buffer, 0, this._size);
  }

  /** The elements as nested JS arrays (numbers; BigInts for 64-bit ints; booleans for bool). */
  toArray() {
    let flat = this.toTypedArray();
    if (this._dtype === 'bool') flat = Array.from(flat, (v) => v !== 0);
    else if (this._dtype === 'float16' || this._dtype === 'bfloat16') {
      flat = Array.from(flat, (v) => decodeHalf(v, this._dtype));
    }
    return toNested(flat, this._shape);
  }

  /** The single element of a size-1 array. */
  item() {
    if (this._size !== 1) {
      throw new CvmLogicError(`item(): expected an array of one element, found shape (${this._shape.join(', ')})`);
    }
    const v = this.toArray();
    return this.ndim === 0 ? v : v.flat(Infinity)[0];
  }

  /**
   * A zero-copy typed array over the elements in the wasm heap. It is invalidated (detached,
   * length 0) as soon as wasm memory grows — i.e. by any later cvmrt call that allocates — so
   * use it at once. Writes through it change the array (and any array sharing its storage).
   */
  view() {
    const { Array: A, bytes } = dtypeInfo(this._dtype);
    const data = this._compactData();
    if (!data && this._size !== 0) {
      throw new CvmLogicError('view(): the array is not compact; use toTypedArray()');
    }
    if (data % bytes !== 0) throw new CvmRuntimeError('view(): misaligned array data');
    return new A(this._cvm.native.buffer(), data, this._size);
  }

  /** Overwrites the elements from a typed array (or bytes) of exactly this array's size. */
  write(data) {
    const n = this._cvm.native;
    const info = dtypeInfo(this._dtype);
    // Raw bytes (Uint8Array) or the dtype's own typed array; never a silent reinterpretation.
    const ok = data instanceof Uint8Array || (ArrayBuffer.isView(data) && data.constructor === info.Array);
    if (!ok) {
      throw new CvmLogicError(`write(): expected a Uint8Array of bytes or a ${info.Array.name} for ${this._dtype}`);
    }
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.byteLength !== this.nbytes) {
      throw new CvmLogicError(`write(): expected ${this.nbytes} bytes, found ${bytes.byteLength}`);
    }
    const { base, p } = n.copyIn(bytes, 8);
    try {
      n.call('CVMArrayCopyFromBytes', this.handle, p, bytes.byteLength);
    } finally {
      n.free(base);
    }
    return this;
  }

  // ---- views (zero-copy: they share this array's memory, so writes show through both) ----

  /**
   * The same elements in a new shape; one extent may be -1 (inferred). A view when the strides
   * allow (always for a compact array), else a compact copy.
   */
  reshape(shape) {
    return this._cvm._view('CVMArrayReshape', this, shape, 'i64');
  }

  /** Permutes the axes: result axis i is axis axes[i] (default: all reversed). A view. */
  transpose(axes) {
    return this._cvm._view('CVMArrayPermute', this, axes ?? [], 'i32');
  }

  /**
   * NumPy basic slicing of the leading axes, as a view: begin/end/step hold one entry per
   * axis (or a number for axis 0); null/undefined entries and missing axes are omitted
   * bounds (the whole axis in the step's direction); negative indices count from the end,
   * out-of-range ones clamp, and steps may be negative.
   */
  slice(begin, end, step) {
    return this._cvm._slice(this, begin, end, step);
  }

  /** NumPy broadcasting to `shape`, as a view (stride 0 along broadcast axes). */
  broadcastTo(shape) {
    return this._cvm._view('CVMArrayBroadcastTo', this, shape, 'i64');
  }

  /** Drops extent-1 axes: all of them, or those in `axes` (each must have extent 1). A view. */
  squeeze(axes) {
    const list = axes === undefined || axes === null ? [] : typeof axes === 'number' ? [axes] : axes;
    return this._cvm._view('CVMArraySqueeze', this, list, 'i32');
  }

  /** Inserts an extent-1 axis at `axis` (negative counts from the end). A view. */
  expandDims(axis) {
    return this._cvm._expandDims(this, axis);
  }

  /** reshape([-1]). */
  flatten() { return this.reshape([-1]); }

  /** A new array converted to `dtype` with the native cast rules. */
  cast(dtype) { return this._cvm.cast(this, dtype); }

  /** A new compact array with a copy of the elements (sharing nothing with this one). */
  clone() { return this._cvm._clone(this); }

  /** Whether the elements lie row-major without gaps (views made by slice/transpose may not). */
  get compact() {
    const h = this.handle;
    return this._cvm.native.u32(h + DL_STRIDES) === 0;
  }

  dispose() {
    this._cvm.lifetimes.release(this, this._rec);
  }

  toString() {
    return `CvmArray(${this._dtype}, [${this._shape.join(', ')}]${this._rec.freed ? ', disposed' : ''})`;
  }

  [inspect]() {
    return this.toString();
  }
}
