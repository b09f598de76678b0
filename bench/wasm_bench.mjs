// WebAssembly size and speed of the npm package: bytes of each variant, and per-operator latency
// in Node of the plain and SIMD128 builds on bench/workloads/ops.json, with output checksums.
//
//   node bench/wasm_bench.mjs [--quick] [--filter SUBSTRING] [--workloads FILE] [--json]
//                             [--native FILE] [--clock cpu|wall]
//
// Needs js/dist (`cd js && npm run build`). --native takes the JSON lines of the native bench
// (build/bench/op_latency_bench bench/workloads/ops.json) and adds its scalar and best-backend
// columns and the time ratios; bench/run_wasm_bench.sh does both in one command. --json prints
// JSON lines instead of tables. The tables compare median CPU times by default (steadier on a
// loaded machine, where a long call loses time slices); --clock wall compares wall times.
// Exit status 1 when the checksums of a workload differ, or a backend has no result for it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'js', 'dist');
const VARIANTS = ['plain', 'simd'];

const VALUED = ['--filter', '--workloads', '--native', '--clock'];

function parseArgs(argv) {
  const o = {
    quick: false, json: false, filter: '', workloads: join(here, 'workloads', 'ops.json'),
    native: null, clock: 'cpu',
  };
  const usage = () => {
    console.error('usage: node bench/wasm_bench.mjs [--quick] [--filter S] [--workloads FILE] ' +
      '[--json] [--native FILE] [--clock cpu|wall]');
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--json') o.json = true;
    else if (VALUED.includes(a) && i + 1 < argv.length) o[a.slice(2)] = argv[++i];
    else usage();
  }
  if (!['cpu', 'wall'].includes(o.clock)) usage();
  return o;
}
const opts = parseArgs(process.argv.slice(2));
const needed = VARIANTS.flatMap((v) => [`wasm/cvmrt-${v}.wasm`, `wasm/cvmrt-${v}.mjs`]);
for (const f of ['index.mjs', ...needed]) {
  if (!existsSync(join(dist, f))) {
    console.error(`wasm_bench: js/dist/${f} is missing: build it with \`cd js && npm run build\``);
    process.exit(2);
  }
}
const { init } = await import(pathToFileURL(join(dist, 'index.mjs')).href);

// ---- sizes: raw and zlib level 9 (gzip -9) bytes ----

function sizeOf(files) {
  let raw = 0;
  let gzip = 0;
  for (const f of files) {
    const bytes = readFileSync(f);
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzip };
}

function sizeRows() {
  const esm = readdirSync(dist).filter((f) => f.endsWith('.mjs')).sort().map((f) => join(dist, f));
  const pkg = sizeOf(esm);
  const rows = [
    { item: `package JS, ES module (dist/*.mjs, ${esm.length} files)`, ...pkg },
    { item: 'package JS, CommonJS entry (dist/index.cjs)', ...sizeOf([join(dist, 'index.cjs')]) },
  ];
  for (const v of VARIANTS) {
    const wasm = sizeOf([join(dist, 'wasm', `cvmrt-${v}.wasm`)]);
    const glue = sizeOf([join(dist, 'wasm', `cvmrt-${v}.mjs`)]);
    rows.push(
      { item: `${v}: cvmrt-${v}.wasm`, ...wasm },
      { item: `${v}: glue cvmrt-${v}.mjs`, ...glue },
      { item: `${v}: total download (wasm + glue + ES module JS)`,
        raw: wasm.raw + glue.raw + pkg.raw, gzip: wasm.gzip + glue.gzip + pkg.gzip });
  }
  return rows;
}

// ---- workloads: the generator and checksum of ops.json, as in bench/op_latency_bench.cc ----

function makeData({ shape, range: [lo, hi], seed }) {
  const n = shape.reduce((a, b) => a * b, 1);
  const span = hi - lo + 1;  // <= 2^32: exact in a double, as is s % span
  const out = new Int32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + (s % span);
  }
  return out;
}

// FNV-1a 64 of `bytes` continuing from state [hi, lo] (32-bit halves). The prime is
// 2^40 + 0x1b3: h * prime = h * 0x1b3 + (lo << 40) mod 2^64.
function fnv1a64(bytes, state = [0xcbf29ce4, 0x84222325]) {
  let [hi, lo] = state;
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ bytes[i]) >>> 0;
    const p = lo * 0x1b3;  // < 2^41: exact
    hi = (Math.imul(hi, 0x1b3) + Math.floor(p / 0x100000000) + (lo << 8)) >>> 0;
    lo = p >>> 0;
  }
  return [hi, lo];
}

function checksum(outs) {
  let state;
  for (const o of outs) state = fnv1a64(o.toBytes(), state);
  return state.map((x) => x.toString(16).padStart(8, '0')).join('');
}

// Median wall and CPU ms of one op call, as the native bench does: warm-up of at least 2 runs
// and minMs / 4, then at least 5 runs and at least minMs of them (at most 1000). The CPU time is
// the process's: the wasm runs on the main thread, but V8 compiles the optimised tier of hot
// functions on helper threads, which the warm-up leaves time for.
function timeOp(cvm, w, inputs) {
  const run = () => cvm.opAll(w.op, inputs, w.attrs).forEach((o) => o.dispose());
  const minMs = opts.quick ? 150 : 1000;
  const warm = performance.now();
  for (let i = 0; i < 2 || performance.now() - warm < minMs / 4; i++) run();
  const wall = [];
  const cpu = [];
  const start = performance.now();
  while (wall.length < 5 || (performance.now() - start < minMs && wall.length < 1000)) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    run();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const median = (v) => Math.round(v.sort((a, b) => a - b)[v.length >> 1] * 1e6) / 1e6;
  return { ms_median: median(wall), cpu_ms_median: median(cpu), iters: wall.length };
}

async function runWasm(workloads) {
  const cvms = await Promise.all(VARIANTS.map((variant) => init({ variant })));
  const lines = [];
  for (const w of workloads) {
    const data = w.inputs.map(makeData);
    VARIANTS.forEach((variant, k) => {
      const cvm = cvms[k];
      const inputs = data.map((d, i) => cvm.array(d, { shape: w.inputs[i].shape }));
      const outs = cvm.opAll(w.op, inputs, w.attrs);
      const sum = checksum(outs);
      outs.forEach((o) => o.dispose());
      const t = timeOp(cvm, w, inputs);
      inputs.forEach((a) => a.dispose());
      lines.push({
        name: w.name, op: w.op, backend: `wasm-${variant}`, kernel: cvm.backend, ...t,
        checksum: sum,
      });
    });
  }
  return lines;
}

// ---- report ----

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const ms = (x) => (x === undefined ? '-' : x < 1 ? x.toFixed(4) : x.toFixed(3));
const ratio = (a, b) => (a === undefined || b === undefined ? undefined : a / b);
const fmtRatio = (r) => (r === undefined ? '-' : `${r.toFixed(2)}x`);
const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const pad = (c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]));
  const line = (r) => r.map(pad).join('  ');
  return [line(header), widths.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n');
}

// The result lines of one workload per column, and whether they are all there and agree.
function verdict(name, columns, results) {
  const lines = columns.map((c) => results.find((l) => l.name === name && l.backend === c));
  const present = lines.filter(Boolean);
  const sums = new Set(present.map((l) => l.checksum));
  const state = sums.size > 1 ? 'NO' : present.length < columns.length ? 'missing' : 'yes';
  return { lines, state };
}

function report(workloads, results, withNative, sizes) {
  const best = results.find((l) => l.backend !== 'scalar' && !l.backend.startsWith('wasm-'));
  const columns = withNative ? ['scalar', best?.backend ?? 'best'] : [];
  columns.push('wasm-plain', 'wasm-simd');
  const field = opts.clock === 'cpu' ? 'cpu_ms_median' : 'ms_median';
  const rows = [];
  const ratios = [[], [], []];
  let failures = 0;
  for (const w of workloads) {
    const { lines, state } = verdict(w.name, columns, results);
    if (state !== 'yes') failures++;
    const t = lines.map((l) => l?.[field]);
    const [plain, simd] = t.slice(-2);
    const r = withNative ? [ratio(simd, t[1]), ratio(simd, plain), ratio(t[0], simd)]
      : [ratio(simd, plain)];
    r.forEach((x, i) => x !== undefined && ratios[i].push(x));
    rows.push([w.name, ...t.map(ms), ...r.map(fmtRatio), state]);
  }
  const g = ratios.filter((x) => x.length).map(geomean);
  rows.push(['geomean', ...columns.map(() => ''), ...g.map(fmtRatio), '']);
  const header = ['workload', ...columns.map((c) => `${c.startsWith('wasm') ? '' : 'native '}` +
    `${c.replace('-', ' ')} ms`)];
  header.push(...(withNative ? ['simd/native best', 'simd/plain', 'native scalar/simd']
    : ['simd/plain']), 'checksums equal');
  console.log(`== operator latency, one thread: median ${opts.clock} time in ms ` +
    `(Node ${process.version}); ratios are time ratios`);
  console.log(table(header, rows));
  console.log('\n== sizes (raw and gzip -9)');
  const sizeCells = sizes.map((s) => [s.item, kib(s.raw), kib(s.gzip)]);
  console.log(table(['file', 'raw', 'gzip -9'], sizeCells));
  return failures;
}

// ---- main ----

const workloads = JSON.parse(readFileSync(opts.workloads, 'utf8')).workloads
  .filter((w) => w.name.includes(opts.filter));
const native = opts.native
  ? readFileSync(opts.native, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
  : [];
const wasm = await runWasm(workloads);
const sizes = sizeRows();
let failures;
if (opts.json) {
  for (const s of sizes) console.log(JSON.stringify({ size: s.item, raw: s.raw, gzip: s.gzip }));
  for (const l of wasm) console.log(JSON.stringify(l));
  const columns = VARIANTS.map((v) => `wasm-${v}`);
  failures = workloads.filter((w) => verdict(w.name, columns, wasm).state !== 'yes').length;
} else {
  failures = report(workloads, [...native, ...wasm], opts.native !== null, sizes);
}
if (failures) {
  console.error(`wasm_bench: CHECKSUM MISMATCH in ${failures} workload(s) of ` +
    `${basename(opts.workloads)}: outputs differ between backends, or a backend has no result`);
  process.exit(1);
}
