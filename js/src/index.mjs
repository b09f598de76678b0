// cvmrt for JavaScript: init() picks and loads a WebAssembly build and returns the runtime.
import { CvmArray } from './array.mjs';
import { Cvm } from './cvm.mjs';
import { supportDispose } from './lifetime.mjs';
import { CvmModel } from './model.mjs';
import { Native } from './native.mjs';
import { CvmLogicError, CvmRuntimeError, ehSupported, simdSupported } from './shared.mjs';

export { CvmError, CvmLogicError, CvmRuntimeError, simdSupported } from './shared.mjs';

const VARIANTS = ['auto', 'simd', 'plain'];

const isNode = typeof process === 'object' && process !== null && typeof process.versions === 'object' &&
  process.versions !== null && typeof process.versions.node === 'string';

// Both glue modules and both .wasm files are named by literal specifiers next to
// import.meta.url, so `vite build` and webpack 5 include them without configuration (Vite's dev
// server needs optimizeDeps.exclude: ['cvmrt']; plain Rollup needs a URL/asset plugin). The glue
// is linked with -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0: it adds no process handlers.
async function loadFactory(variant) {
  const m = variant === 'simd'
    ? await import('./wasm/cvmrt-simd.mjs')
    : await import('./wasm/cvmrt-plain.mjs');
  const f = m.default || m.createCvmrtModule;
  if (typeof f !== 'function') throw new Error('the glue module exports no factory');
  return f;
}

function wasmUrl(variant) {
  return variant === 'simd'
    ? new URL('./wasm/cvmrt-simd.wasm', import.meta.url)
    : new URL('./wasm/cvmrt-plain.wasm', import.meta.url);
}

async function readLocal(location) {
  const fsName = 'node:fs/promises';
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsName);
  const bytes = await fs.readFile(location instanceof URL ? location : location.startsWith('file:') ? new URL(location) : location);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function isLocalPath(s) {
  return s instanceof URL ? s.protocol === 'file:' : /^file:|^\/|^[A-Za-z]:[\\/]|^\.\.?[\\/]/.test(s) && !/^\/\//.test(s);
}

/**
 * Loads a WebAssembly build of cvmrt and returns a runtime instance (each call makes a new,
 * independent instance with its own heap).
 *
 * options.variant: 'auto' (default: 'simd' when the engine validates SIMD128, else 'plain'),
 *   'simd' or 'plain'. Both give the same bits.
 * options.wasmBinary: the .wasm bytes of the chosen variant (skips locating it).
 * options.locateFile(path, prefix): where to fetch `cvmrt-<variant>.wasm` from.
 * options.debug: warn, with the creation stack, when an array is garbage-collected undisposed.
 * options.backend: a backend name for CVMSetBackend ('scalar', ...).
 */
export async function init(options = {}) {
  const { variant = 'auto', wasmBinary, locateFile, debug = false, backend, print, printErr, warn } = options;
  if (!VARIANTS.includes(variant)) {
    throw new CvmLogicError(`init(): variant must be one of ${VARIANTS.join(', ')}, found ${JSON.stringify(variant)}`);
  }
  if (typeof WebAssembly !== 'object') throw new CvmRuntimeError('init(): this engine has no WebAssembly');
  if (!ehSupported()) {
    throw new CvmRuntimeError('init(): this engine lacks WebAssembly exception handling, which both cvmrt ' +
      'builds need (Node >= 17, Chrome >= 95, Firefox >= 100, Safari >= 15.2)');
  }
  const simd = simdSupported();
  const chosen = variant === 'auto' ? (simd ? 'simd' : 'plain') : variant;
  if (chosen === 'simd' && !simd) {
    throw new CvmRuntimeError('init(): variant "simd" was requested but this engine does not validate ' +
      'WebAssembly SIMD128; use "plain" or "auto"');
  }
  let factory;
  try {
    factory = await loadFactory(chosen);
  } catch (e) {
    throw new CvmRuntimeError(`init(): could not load the cvmrt ${chosen} module (wasm/cvmrt-${chosen}.mjs): ${e.message}`, { cause: e });
  }
  const moduleArg = {};
  if (print) moduleArg.print = print;
  if (printErr) moduleArg.printErr = printErr;
  const file = `cvmrt-${chosen}.wasm`;
  try {
    if (wasmBinary) {
      moduleArg.wasmBinary = wasmBinary instanceof ArrayBuffer ? new Uint8Array(wasmBinary)
        : new Uint8Array(wasmBinary.buffer, wasmBinary.byteOffset, wasmBinary.byteLength);
    } else if (locateFile) {
      const prefix = wasmUrl(chosen).href.replace(/[^/]*$/, '');
      const where = locateFile(file, prefix);
      if (isNode && isLocalPath(where)) moduleArg.wasmBinary = await readLocal(where);
      else moduleArg.locateFile = (path, pre) => (path === file ? String(where) : locateFile(path, pre));
    } else {
      const url = wasmUrl(chosen);
      if (isNode && url.protocol === 'file:') moduleArg.wasmBinary = await readLocal(url);
      else moduleArg.locateFile = (path, pre) => (path.endsWith('.wasm') ? url.href : pre + path);
    }
  } catch (e) {
    throw new CvmRuntimeError(`init(): could not read ${file}: ${e.message}`, { cause: e });
  }
  let mod;
  try {
    mod = await factory(moduleArg);
  } catch (e) {
    throw new CvmRuntimeError(`init(): could not instantiate ${file}: ${e && e.message ? e.message : e}`, { cause: e });
  }
  // `using` support for a Symbol.dispose polyfilled after this package was imported.
  supportDispose(CvmArray, CvmModel);
  const cvm = new Cvm(new Native(mod, chosen), { debug, warn });
  if (backend) cvm.setBackend(backend);
  return cvm;
}
