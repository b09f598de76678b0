// CommonJS entry of cvmrt: the same API as the ES module, reached through an async init().
'use strict';

/*@SHARED@*/

let esm = null;
/** Loads the ES module build (dynamic import works from CommonJS in Node >= 12 and bundlers). */
function load() {
  if (!esm) esm = import('./index.mjs');
  return esm;
}

/** Same as the ES module's init(): resolves to a runtime instance. */
async function init(options) {
  return (await load()).init(options);
}

module.exports = { init, load, simdSupported, CvmError, CvmLogicError, CvmRuntimeError };
