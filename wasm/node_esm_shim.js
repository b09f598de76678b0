// Node >= 18 shim for emscripten 3.1.6 ES-module output (--extern-pre-js): its node branch uses
// require and __dirname, which an ES module lacks. Top level of the .mjs; a no-op in browsers.
// Node's modules are imported by computed names that bundlers are told to leave alone: webpack 5
// has no Node polyfills and fails on a literal import('module'); Vite warns about it.
const __emIsNode = typeof process == 'object' && typeof process.versions == 'object' && typeof process.versions.node == 'string';
const __emNodeImport = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:'.concat(name));
const require = __emIsNode ? (await __emNodeImport('module')).createRequire(import.meta.url) : undefined;
const __dirname = __emIsNode ? (await __emNodeImport('path')).dirname((await __emNodeImport('url')).fileURLToPath(import.meta.url)) : '';
