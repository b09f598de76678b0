// Pieces both entry points need synchronously: the error classes and the SIMD128 and EH probes.
// scripts/build.mjs inlines this file into dist/index.cjs (it must stay free of imports).

// No statement here changes anything outside this module ("sideEffects": false in
// package.json): no global is written and Symbol is not patched.

// The ES module and the CommonJS entry (which inlines this file) each define these classes —
// the dual-package hazard. `instanceof` still works across the copies: every cvmrt error
// carries its kinds under a registered symbol, and each class recognises them by name.
const KINDS = Symbol.for('cvmrt.error.kinds');

function hasKind(x, kind) {
  const kinds = x !== null && (typeof x === 'object' || typeof x === 'function') ? x[KINDS] : undefined;
  return Array.isArray(kinds) && kinds.includes(kind);
}

function brand(err, kinds) {
  Object.defineProperty(err, KINDS, { value: Object.freeze(kinds) });
}

/** Base of both cvmrt error kinds: the native message plus its C ABI status code. */
export class CvmError extends Error {
  constructor(message, status, options) {
    super(message, options);
    this.name = 'CvmError';
    /** 1 = logic error (bad input), 2 = runtime error (ours or the environment's). */
    this.status = status;
    brand(this, status === 1 ? ['CvmError', 'CvmLogicError'] : status === 2
      ? ['CvmError', 'CvmRuntimeError'] : ['CvmError']);
  }

  static [Symbol.hasInstance](x) { return hasKind(x, this.kind); }
}
CvmError.kind = 'CvmError';

/** The caller's or the model author's fault: bad shapes, attributes, files, limits. */
export class CvmLogicError extends CvmError {
  constructor(message, options) {
    super(message, 1, options);
    this.name = 'CvmLogicError';
  }
}
CvmLogicError.kind = 'CvmLogicError';

/** Ours or the environment's: out of memory, a broken invariant, a failed wasm load. */
export class CvmRuntimeError extends CvmError {
  constructor(message, options) {
    super(message, 2, options);
    this.name = 'CvmRuntimeError';
  }
}
CvmRuntimeError.kind = 'CvmRuntimeError';

// The smallest module using a SIMD128 instruction:
//   (module (func (result v128) i32.const 0 i32x4.splat))
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, //       type section: 1 type, func () -> (v128)
  0x03, 0x02, 0x01, 0x00, //                         function section: 1 function of type 0
  0x0a, 0x08, 0x01, 0x06, 0x00, //                   code section: 1 body of 6 bytes, 0 locals
  0x41, 0x00, //                                     i32.const 0
  0xfd, 0x11, //                                     i32x4.splat (SIMD prefix 0xfd, opcode 17)
  0x0b, //                                           end
]);

/** Whether this engine validates WebAssembly SIMD128 (false when WebAssembly is missing). */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// Both builds catch C++ exceptions with WebAssembly exception handling (-fwasm-exceptions):
//   (module (func try catch_all end))
const EH_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
  0x03, 0x02, 0x01, 0x00, 0x0a, 0x08, 0x01, 0x06, 0x00, 0x06, 0x40, 0x19, 0x0b, 0x0b,
]);

/** Whether this engine validates WebAssembly exception handling (try/catch_all). */
export function ehSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(EH_PROBE);
  } catch {
    return false;
  }
}
