// Pieces both entry points need synchronously: error classes, the SIMD128 probe, Symbol.dispose.
// scripts/build.mjs inlines this file into dist/index.cjs (it must stay free of imports).

// `using` and Symbol.dispose: engines without explicit resource management get the same
// well-known symbol TypeScript's downlevel helpers and core-js look up.
if (typeof Symbol.dispose !== 'symbol') {
  Object.defineProperty(Symbol, 'dispose', { value: Symbol.for('Symbol.dispose') });
}

// The error classes live once per realm (on globalThis under a registered symbol), so the ESM
// and CJS copies of this package — the dual-package hazard — share them and `instanceof` works
// whichever entry threw or is asked.
const ERRORS_KEY = Symbol.for('cvmrt.errors.v1');

function defineErrors() {
  /** Base of both cvmrt error kinds: the native message plus its C ABI status code. */
  class CvmError extends Error {
    constructor(message, status, options) {
      super(message, options);
      this.name = 'CvmError';
      /** 1 = logic error (bad input), 2 = runtime error (ours or the environment's). */
      this.status = status;
    }
  }
  /** The caller's or the model author's fault: bad shapes, attributes, files, limits. */
  class CvmLogicError extends CvmError {
    constructor(message, options) {
      super(message, 1, options);
      this.name = 'CvmLogicError';
    }
  }
  /** Ours or the environment's: out of memory, a broken invariant, a failed wasm load. */
  class CvmRuntimeError extends CvmError {
    constructor(message, options) {
      super(message, 2, options);
      this.name = 'CvmRuntimeError';
    }
  }
  return Object.freeze({ CvmError, CvmLogicError, CvmRuntimeError });
}

if (!globalThis[ERRORS_KEY]) {
  Object.defineProperty(globalThis, ERRORS_KEY, { value: defineErrors() });
}
export const { CvmError, CvmLogicError, CvmRuntimeError } = globalThis[ERRORS_KEY];

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
