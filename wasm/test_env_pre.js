// Test programs only (--pre-js): getenv() sees node's environment (emscripten starts from a fixed
// default), so ctest's ENVIRONMENT properties reach the tests as they do natively.
Module['preRun'] = (Module['preRun'] || []).concat(function() {
  if (typeof ENV == 'object' && typeof process == 'object') Object.assign(ENV, process.env);
});
