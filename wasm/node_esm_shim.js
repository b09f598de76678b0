// Node >= 18 shim for emscripten 3.1.6 ES-module output (--extern-pre-js): its node branch uses
// require and __dirname, which an ES module lacks. Top level of the .mjs; a no-op in browsers.
const __emIsNode = typeof process == 'object' && typeof process.versions == 'object' && typeof process.versions.node == 'string';
const require = __emIsNode ? (await import('module')).createRequire(import.meta.url) : undefined;
const __dirname = __emIsNode ? (await import('path')).dirname((await import('url')).fileURLToPath(import.meta.url)) : '';
