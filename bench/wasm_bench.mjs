// WebAssembly size and speed of the npm package: raw and gzip bytes of each variant's .wasm and
// JS, and conv2d / dense / elementwise latency in Node for the plain and SIMD128 builds.
//   node bench/wasm_bench.mjs [--quick]     (after `npm run build` in js/)
// The native side of the same shapes is printed by the native benchmarks (bench/*.cc).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const jsRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'js');
const dist = join(jsRoot, 'dist');
const quick = process.argv.includes('--quick');
const { init } = await import(pathToFileURL(join(dist, 'index.mjs')).href);

const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
function sizes(files) {
  const raw = files.reduce((s, f) => s + readFileSync(f).length, 0);
  const gz = files.reduce((s, f) => s + gzipSync(readFileSync(f), { level: 9 }).length, 0);
  return { raw, gz };
}

console.log('== size (gzip -9)');
const pkgJs = readdirSync(dist).filter((f) => /\.(mjs|cjs)$/.test(f)).map((f) => join(dist, f));
const pkg = sizes(pkgJs);
console.log(`package JS (dist/*.mjs, *.cjs)   raw ${kb(pkg.raw).padStart(11)}   gzip ${kb(pkg.gz).padStart(10)}`);
for (const v of ['simd', 'plain']) {
  const wasm = sizes([join(dist, 'wasm', `cvmrt-${v}.wasm`)]);
  const glue = sizes([join(dist, 'wasm', `cvmrt-${v}.mjs`)]);
  console.log(`${v.padEnd(5)} .wasm                        raw ${kb(wasm.raw).padStart(11)}   gzip ${kb(wasm.gz).padStart(10)}`);
  console.log(`${v.padEnd(5)} glue .mjs                    raw ${kb(glue.raw).padStart(11)}   gzip ${kb(glue.gz).padStart(10)}`);
  console.log(`${v.padEnd(5)} total download (wasm+JS)     raw ${kb(wasm.raw + glue.raw + pkg.raw).padStart(11)}   gzip ${kb(wasm.gz + glue.gz + pkg.gz).padStart(10)}`);
}

// Deterministic int8-range data (CVM operators take int32 arrays holding small values).
function data(n, seed) {
  const out = new Int32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s >>> 24) - 128;
  }
  return out;
}

const CASES = [
  { name: 'conv2d x(1,16,32,32) w(32,16,3,3) pad 1', make: (c) => [c.array(data(16 * 32 * 32, 1), { shape: [1, 16, 32, 32] }), c.array(data(32 * 16 * 9, 2), { shape: [32, 16, 3, 3] })],
    run: (c, [x, w]) => c.conv2d(x, w, null, { padding: [1, 1] }) },
  { name: 'dense x(16,512) w(256,512)', make: (c) => [c.array(data(16 * 512, 3), { shape: [16, 512] }), c.array(data(256 * 512, 4), { shape: [256, 512] })],
    run: (c, [x, w]) => c.dense(x, w) },
  { name: 'elemwise_add int32 (1024,1024)', make: (c) => [c.array(data(1 << 20, 5), { shape: [1024, 1024] }), c.array(data(1 << 20, 6), { shape: [1024, 1024] })],
    run: (c, [a, b]) => c.op('elemwise_add', [a, b]) },
  { name: 'broadcast_mul int32 (1024,1024)x(1024)', make: (c) => [c.array(data(1 << 20, 7), { shape: [1024, 1024] }), c.array(data(1024, 8), { shape: [1024] })],
    run: (c, [a, b]) => c.op('broadcast_mul', [a, b]) },
  { name: 'relu int32 (1024,1024)', make: (c) => [c.array(data(1 << 20, 9), { shape: [1024, 1024] })],
    run: (c, [a]) => c.relu(a) },
];

// Median milliseconds per run over at least `minMs` of runs (after warm-up).
function time(cvm, kase) {
  const inputs = kase.make(cvm);
  for (let i = 0; i < 3; i++) kase.run(cvm, inputs).dispose();
  const samples = [];
  const minMs = quick ? 150 : 600;
  const start = performance.now();
  while (samples.length < 5 || (performance.now() - start < minMs && samples.length < 500)) {
    const t0 = performance.now();
    const out = kase.run(cvm, inputs);
    samples.push(performance.now() - t0);
    out.dispose();
  }
  inputs.forEach((a) => a.dispose());
  samples.sort((a, b) => a - b);
  return { ms: samples[samples.length >> 1] };
}

const runtimes = { plain: await init({ variant: 'plain' }), simd: await init({ variant: 'simd' }) };
console.log(`\n== latency in Node ${process.version} (median ms; ratio = plain / simd)`);
console.log(`backends: plain=${runtimes.plain.info().backend} simd=${runtimes.simd.info().backend}`);
console.log(`${'case'.padEnd(42)} ${'plain ms'.padStart(10)} ${'simd ms'.padStart(10)} ${'ratio'.padStart(7)}  same bits`);
for (const kase of CASES) {
  const p = time(runtimes.plain, kase);
  const s = time(runtimes.simd, kase);
  // The two builds must agree bit for bit.
  const bits = ['plain', 'simd'].map((v) => runtimes[v].scope(() => {
    const out = kase.run(runtimes[v], kase.make(runtimes[v]));
    return Buffer.from(out.toBytes()).toString('base64');
  }));
  console.log(`${kase.name.padEnd(42)} ${p.ms.toFixed(3).padStart(10)} ${s.ms.toFixed(3).padStart(10)} ${(p.ms / s.ms).toFixed(2).padStart(6)}x  ${bits[0] === bits[1] ? 'yes' : 'NO'}`);
}
