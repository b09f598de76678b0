// Explicit lifetimes of native objects: counters, cvm.scope(), `using`, and a FinalizationRegistry net.
import { CvmLogicError } from './shared.mjs';

/**
 * Each tracked object (an array or a model) carries a record `{ kind, bytes, free, describe,
 * stack, freed }`. The record never points back at the object, so the FinalizationRegistry can
 * collect the object and then free the native side through the record.
 */
export class Lifetimes {
  constructor({ debug = false, warn = console.warn } = {}) {
    this.debug = debug;
    this.warn = warn;
    this.scopes = [];
    this.liveArrays = 0;
    this.liveModels = 0;
    this.bytes = 0;
    this.leaked = 0;
    this.registry = typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry((rec) => this._collected(rec))
      : null;
  }

  /** Starts tracking `obj` with record `rec`; it joins the innermost open scope. */
  adopt(obj, rec) {
    rec.freed = false;
    if (this.debug) rec.stack = new Error('created here').stack;
    if (rec.kind === 'array') this.liveArrays++;
    else this.liveModels++;
    this.bytes += rec.bytes;
    if (this.registry) this.registry.register(obj, rec, rec);
    const top = this.scopes[this.scopes.length - 1];
    if (top) {
      top.add(obj);
      rec.scope = top;
    }
  }

  /** Frees the native side of `obj` now; false when it was already freed. */
  release(obj, rec) {
    if (rec.freed) return false;
    if (rec.scope) rec.scope.delete(obj);
    rec.scope = null;
    if (this.registry) this.registry.unregister(rec);
    this._free(rec);
    return true;
  }

  _free(rec) {
    rec.freed = true;
    if (rec.kind === 'array') this.liveArrays--;
    else this.liveModels--;
    this.bytes -= rec.bytes;
    rec.free();
  }

  _collected(rec) {
    if (rec.freed) return;
    this.leaked++;
    try {
      this._free(rec);
    } catch {
      // The instance may be gone; nothing more can be done for a collected object.
    }
    if (this.debug) {
      this.warn(`cvmrt: ${rec.describe()} was garbage-collected without dispose(); it has been ` +
        `freed now. Call dispose(), use \`using\` or cvm.scope().\n${rec.stack || ''}`);
    }
  }

  /** Removes `obj` from whatever scope holds it, so no scope disposes it. */
  keep(obj) {
    const rec = obj && obj._rec;
    if (!rec) throw new CvmLogicError('keep(): expected an array or a model');
    if (rec.scope) rec.scope.delete(obj);
    rec.scope = null;
    return obj;
  }

  /**
   * Runs fn synchronously and disposes what it created except what it returns. An async fn
   * (or one returning a promise) is refused: arrays other code creates while it awaits would
   * be attributed to the scope, so it is a CvmLogicError, as in TensorFlow.js's tidy().
   */
  scope(fn) {
    if (typeof fn !== 'function') throw new CvmLogicError('scope(): expected a function');
    if (isAsyncFunction(fn)) throw new CvmLogicError(ASYNC_SCOPE);
    const set = new Set();
    this.scopes.push(set);
    let result;
    try {
      result = fn();
    } catch (e) {
      this._close(set, undefined);
      throw e;
    }
    if (result !== null && (typeof result === 'object' || typeof result === 'function') &&
        typeof result.then === 'function') {
      // Whatever it created so far is freed; its later failure is this error's business.
      this._close(set, undefined);
      Promise.resolve(result).catch(() => {});
      throw new CvmLogicError(ASYNC_SCOPE);
    }
    this._close(set, result);
    return result;
  }

  _close(set, result) {
    const i = this.scopes.lastIndexOf(set);
    if (i >= 0) this.scopes.splice(i, 1);
    const kept = new Set();
    collect(result, kept, 0);
    const parent = this.scopes[this.scopes.length - 1];
    for (const obj of [...set]) {
      if (kept.has(obj)) {
        // A returned object belongs to the enclosing scope from now on.
        set.delete(obj);
        obj._rec.scope = parent || null;
        if (parent) parent.add(obj);
      } else {
        obj.dispose();
      }
    }
  }
}

const ASYNC_SCOPE = 'scope(): fn must be synchronous (it is async or returned a promise); ' +
  'arrays created by other code while it awaits would be disposed with it. Use scope() inside ' +
  'each synchronous step, and dispose() or `using` across awaits.';

function isAsyncFunction(fn) {
  const tag = fn[Symbol.toStringTag];
  return tag === 'AsyncFunction' || tag === 'AsyncGeneratorFunction';
}

/**
 * Gives each class a [Symbol.dispose]() that calls dispose(), once the engine (or a polyfill
 * loaded before init()) defines Symbol.dispose. Symbol itself is never patched.
 */
export function supportDispose(...classes) {
  if (typeof Symbol.dispose !== 'symbol') return;
  for (const C of classes) {
    if (Object.prototype.hasOwnProperty.call(C.prototype, Symbol.dispose)) continue;
    Object.defineProperty(C.prototype, Symbol.dispose, {
      value: function disposeResource() { this.dispose(); }, writable: true, configurable: true,
    });
  }
}

// Finds the tracked objects inside a scope's result: arrays, plain objects, Maps and Sets.
function collect(v, out, depth) {
  if (v === null || typeof v !== 'object' || depth > 32) return;
  if (v._rec) {
    out.add(v);
    return;
  }
  if (ArrayBuffer.isView(v)) return;
  if (Array.isArray(v) || v instanceof Set) {
    for (const x of v) collect(x, out, depth + 1);
  } else if (v instanceof Map) {
    for (const [k, x] of v) {
      collect(k, out, depth + 1);
      collect(x, out, depth + 1);
    }
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) {
      for (const k of Object.keys(v)) collect(v[k], out, depth + 1);
    }
  }
}
