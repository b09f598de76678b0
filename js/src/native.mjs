// The C ABI as seen from JS: heap access, status-code checking, strings and scratch memory.
import { CvmError, CvmLogicError, CvmRuntimeError } from './shared.mjs';

// Every C function the package calls (c_api.h); checked when the module loads.
const REQUIRED = [
  'CVMGetLastError', 'CVMGetLibraryVersion', 'CVMGetLibraryVersionNumber',
  'CVMArrayAlloc', 'CVMArrayFree', 'CVMArrayCopyFromBytes', 'CVMArrayCopyToBytes',
  'CVMSaveParamsDictFormat', 'CVMLoadParamsDictEx', 'CVMSetBackend', 'CVMGetBackend',
  'CVMOpRun', 'CVMOpList', 'CVMOpInfo', 'CVMOpInfer', 'malloc', 'free', 'CVMArrayCopyFromTo',
  'CVMArrayReshape', 'CVMArrayPermute', 'CVMArraySlice', 'CVMArrayBroadcastTo', 'CVMArraySqueeze',
  'CVMArrayExpandDims',
];
// The models section of the ABI; the package works without it (loadModel then throws).
const MODEL_FUNCS = [
  'CVMModelLoadBytes', 'CVMModelLoadCVM', 'CVMModelFree', 'CVMModelGetCost',
  'CVMModelGetMemory', 'CVMModelGetByteLengths', 'CVMModelGetPostprocess', 'CVMModelNumInputs',
  'CVMModelNumOutputs', 'CVMModelGetInputInfo', 'CVMModelGetOutputInfo', 'CVMModelInferBytes',
  'CVMSessionCreate', 'CVMSessionFree', 'CVMSessionSetInput', 'CVMSessionRun',
  'CVMSessionGetOutput', 'CVMAPIGetVersion', 'CVMModelGetProducer', 'CVMModelGetQuantization',
  'CVMSessionGetKernelPlan',
];
const OPTIONAL = ['CVMGetBuildHash'];

const SCRATCH_BYTES = 4096;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Native {
  /** `mod` is an instantiated Emscripten module following the wasm/ build's contract. */
  constructor(mod, variant) {
    this.mod = mod;
    this.variant = variant;
    this.fn = Object.create(null);
    const missing = [];
    for (const name of REQUIRED) {
      const f = mod['_' + name];
      if (typeof f === 'function') this.fn[name] = f;
      else missing.push('_' + name);
    }
    if (missing.length) {
      throw new CvmRuntimeError(`the cvmrt ${variant} wasm module does not export ${missing.join(', ')}`);
    }
    this.hasModels = MODEL_FUNCS.every((n) => typeof mod['_' + n] === 'function');
    for (const name of [...MODEL_FUNCS, ...OPTIONAL]) {
      if (typeof mod['_' + name] === 'function') this.fn[name] = mod['_' + name];
    }
    this.dead = null;
    this._buf = null;
    // Out-parameters and small arguments; 64-byte aligned so int64 slots are aligned too.
    this.scratchBase = this.malloc(SCRATCH_BYTES + 64);
    this.scratch = (this.scratchBase + 63) & ~63;
  }

  // ---- heap ----

  /** The current wasm memory buffer (replaced whenever memory grows). */
  buffer() {
    const m = this.mod;
    if (m.HEAPU8) return m.HEAPU8.buffer;
    const mem = m.wasmMemory || (m.asm && m.asm.memory) || (m.wasmExports && m.wasmExports.memory);
    return mem.buffer;
  }

  _views() {
    const buf = this.buffer();
    if (buf !== this._buf) {
      this._buf = buf;
      this._u8 = new Uint8Array(buf);
      this._dv = new DataView(buf);
    }
  }

  get u8() {
    this._views();
    return this._u8;
  }

  get dv() {
    this._views();
    return this._dv;
  }

  u32(p) { return this.dv.getUint32(p, true); }
  i32(p) { return this.dv.getInt32(p, true); }
  // 64-bit values as numbers (exact up to 2^53, which every extent and cost stays below);
  // two 32-bit halves avoid a BigInt per access.
  i64(p) {
    const dv = this.dv;
    return dv.getInt32(p + 4, true) * 4294967296 + dv.getUint32(p, true);
  }
  u64(p) {
    const dv = this.dv;
    return dv.getUint32(p + 4, true) * 4294967296 + dv.getUint32(p, true);
  }
  setU32(p, v) { this.dv.setUint32(p, v, true); }
  setI64(p, v) {
    const dv = this.dv;
    dv.setUint32(p, v >>> 0, true);
    dv.setInt32(p + 4, Math.floor(v / 4294967296), true);
  }

  malloc(n) {
    const p = this.mod._malloc(Math.max(1, n)) >>> 0;
    if (p === 0) throw new CvmRuntimeError(`out of wasm memory allocating ${n} bytes`);
    return p;
  }

  free(p) {
    if (p) this.mod._free(p);
  }

  /** Copies `bytes` into a fresh allocation whose address is a multiple of `align`. */
  copyIn(bytes, align = 8) {
    const base = this.malloc(bytes.byteLength + align);
    const p = Math.ceil(base / align) * align;
    this.u8.set(bytes, p);
    return { base, p };
  }

  /** A NUL-terminated UTF-8 copy of `s` in a fresh allocation. */
  cstring(s) {
    const bytes = encoder.encode(String(s));
    const p = this.malloc(bytes.length + 1);
    const u8 = this.u8;
    u8.set(bytes, p);
    u8[p + bytes.length] = 0;
    return p;
  }

  /** The NUL-terminated UTF-8 string at `p` ("" for NULL). */
  string(p) {
    if (!p) return '';
    const u8 = this.u8;
    let end = p;
    while (u8[end] !== 0) end++;
    return decoder.decode(u8.subarray(p, end));
  }

  // ---- calls ----

  /** Calls C function `name`; a non-zero status becomes CvmLogicError / CvmRuntimeError. */
  call(name, ...args) {
    const status = this.raw(name, ...args);
    if (status !== 0) this.throwLast(status);
  }

  /** Calls C function `name` and returns its int result (traps become CvmRuntimeError). */
  raw(name, ...args) {
    if (this.dead) {
      throw new CvmRuntimeError(`the cvmrt wasm instance is unusable after an earlier abort: ${this.dead}`);
    }
    const f = this.fn[name];
    if (!f) throw new CvmRuntimeError(`the cvmrt wasm module does not export _${name}`);
    try {
      return f(...args);
    } catch (e) {
      throw this._trap(name, e);
    }
  }

  throwLast(status) {
    const msg = this.string(this.raw('CVMGetLastError') >>> 0) || `status ${status}`;
    if (status === 1) throw new CvmLogicError(msg);
    throw new CvmRuntimeError(msg);
  }

  _trap(name, e) {
    if (e instanceof CvmError) return e;
    // An Emscripten abort (or a wasm trap) leaves the instance in an undefined state.
    const text = e && e.message ? e.message : String(e);
    if (typeof WebAssembly === 'object' && e instanceof WebAssembly.RuntimeError) this.dead = text;
    else if (/Aborted|abort/i.test(text)) this.dead = text;
    return new CvmRuntimeError(`${name}: ${text}`, { cause: e });
  }
}
