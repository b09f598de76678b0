// Node >= 18 fix for emscripten 3.1.6 (--pre-js, inside the module factory): node's global fetch
// makes the runtime fetch('/abs/path.wasm'), which fails; hide it so the fs reader is used, and
// keep the wasm path a plain file path (not a file:// URL) unless the caller gave locateFile.
var __emIsNodeRt = typeof process == 'object' && typeof process.versions == 'object' && typeof process.versions.node == 'string';
var fetch = __emIsNodeRt ? undefined : globalThis.fetch;
if (__emIsNodeRt && !Module['locateFile']) { Module['locateFile'] = function(path, prefix) { return prefix + path; }; }
