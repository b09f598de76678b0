// cvmrt's WebAssembly builds against onnxruntime-web, in one Node process, one thread: the int8
// conv2d/dense layers of ResNet-18 and MobileNet-v1, the SIMD128 dot-product peak, and startup.
//
//   node bench/wasm_ort_bench.mjs --layers DIR --ort DIR [--quick] [--filter S] [--json]
//                                 [--startup-model JSON,PARAMS]
//
// --layers: bench/layer_models.py's output (one CVM model per layer: conv2d/dense + bias +
// cvm_right_shift). --ort: bench/ort/make_models.py's output for the same workloads
// (QLinearConv: uint8 x int8 with requantization, the same work per layer; dense: MatMulInteger).
// bench/run_wasm_bench.sh prepares both and runs this. Needs js/dist (`cd js && npm run build`)
// and onnxruntime-web in bench/ort/node_modules (`cd bench/ort && npm install --ignore-scripts`).
//
// Printed per layer: median wall ms of cvmrt simd, cvmrt plain and onnxruntime-web (wasm EP,
// numThreads 1, SIMD build); ORT-web / cvmrt simd (> 1: cvmrt faster; the target is >= 1.5),
// plain / simd (the target is <= 6), cvmrt simd GOPS (2 x MACs / time) and its share of the
// measured SIMD128 peak: a loop of independent i32x4.dot_i16x8_s + i32x4.add chains, 8 MACs per
// dot, in a module assembled below (what V8 makes of the instruction on this CPU). GOPS count the
// direct convolution's MACs: 3x3 stride-1 layers run as Winograd F(2x2, 3x3) (2.25x fewer
// multiplies), so their share can pass 100 %.
// Exit status 1 when the simd and plain outputs of a layer differ.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'js', 'dist');
const VARIANTS = ['simd', 'plain'];

function parseArgs(argv) {
  const o = { layers: null, ort: null, quick: false, json: false, filter: '', startup: null };
  const usage = () => {
    console.error('usage: node bench/wasm_ort_bench.mjs --layers DIR --ort DIR [--quick] ' +
      '[--filter S] [--json] [--startup-model JSON,PARAMS]');
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage());
    if (a === '--quick') o.quick = true;
    else if (a === '--json') o.json = true;
    else if (a === '--layers') o.layers = value();
    else if (a === '--ort') o.ort = value();
    else if (a === '--filter') o.filter = value();
    else if (a === '--startup-model') o.startup = value().split(',');
    else usage();
  }
  if (!o.layers || !o.ort || (o.startup && o.startup.length !== 2)) usage();
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const readIndex = (dir) => readFileSync(join(dir, 'index.jsonl'), 'utf8').trim().split('\n')
  .map((l) => JSON.parse(l));

// ---- timing: warm-up, then the median of at least 5 runs and of minMs of runs ----

async function medianMs(run) {
  const minMs = opts.quick ? 200 : 1000;
  const warm = performance.now();
  for (let i = 0; i < 2 || performance.now() - warm < minMs / 4; i++) await run();
  const t = [];
  const start = performance.now();
  while (t.length < 5 || (performance.now() - start < minMs && t.length < 500)) {
    const t0 = performance.now();
    await run();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return t[t.length >> 1];
}

// ---- the SIMD128 dot-product peak ----

// func (param $n i32) (result i32): CHAINS chains acc_j = i32x4.add(acc_j,
// i32x4.dot_i16x8_s(acc_j, x)), n iterations, returns lane 0 of the sum of the chains (so nothing
// is dead code).
function peakModule(CHAINS) {
  const simd = (op) => [0xfd, ...leb(op)];
  function leb(n) {
    const out = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  }
  const I16X8_SPLAT = 0x10;
  const I32X4_SPLAT = 0x11;
  const I32X4_EXTRACT_LANE = 0x1b;
  const I32X4_ADD = 0xae;
  const I32X4_DOT_I16X8_S = 0xba;
  const x = CHAINS + 1;  // locals: 0 = n, 1..CHAINS = accumulators, CHAINS + 1 = x
  const body = [0x01, CHAINS + 1, 0x7b];  // CHAINS + 1 v128 locals
  body.push(0x20, 0x00, ...simd(I16X8_SPLAT), 0x21, x);  // x = i16x8.splat(n)
  for (let j = 1; j <= CHAINS; j++) body.push(0x41, j, ...simd(I32X4_SPLAT), 0x21, j);
  body.push(0x02, 0x40, 0x03, 0x40);  // block, loop
  for (let j = 1; j <= CHAINS; j++) {
    body.push(0x20, j, 0x20, j, 0x20, x, ...simd(I32X4_DOT_I16X8_S), ...simd(I32X4_ADD), 0x21, j);
  }
  // n -= 1; br_if loop (n != 0)
  body.push(0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b, 0x0b);
  body.push(0x20, 0x01);
  for (let j = 2; j <= CHAINS; j++) body.push(0x20, j, ...simd(I32X4_ADD));
  body.push(...simd(I32X4_EXTRACT_LANE), 0x00, 0x0b);
  const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f]),  // type (i32) -> i32
    ...section(3, [0x01, 0x00]),  // one function of type 0
    ...section(7, [0x01, 0x04, ...Buffer.from('peak'), 0x00, 0x00]),
    ...section(10, [0x01, ...leb(body.length), ...body]),
  ];
  return { bytes: new Uint8Array(bytes), macsPerIter: CHAINS * 8 };
}

// The fastest of several chain counts: too few chains wait on the dot's latency, too many
// outgrow the vector registers V8 allocates (15 on x86-64) and spill every iteration (on Zen 5,
// Node 20: 8 chains 37, 11 chains 47, 12 chains 23 GMAC/s).
async function simdPeakGmacs() {
  let best = 0;
  for (let chains = 6; chains <= 14; chains++) {
    const { bytes, macsPerIter } = peakModule(chains);
    const { instance } = await WebAssembly.instantiate(bytes);
    const iters = opts.quick ? 500_000 : 2_000_000;
    const ms = await medianMs(() => instance.exports.peak(iters));
    best = Math.max(best, (iters * macsPerIter) / (ms * 1e6));
  }
  return best;
}

// ---- the layers ----

function fnv1a(bytes) {  // 32-bit FNV-1a: enough to tell two outputs apart
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

function pattern(n, Type) {  // the input ort_bench.mjs feeds, shifted into int8 for cvmrt
  const out = new Type(n);
  for (let i = 0; i < n; i++) out[i] = Type === Int8Array ? ((i * 37) % 255) - 127 : (i * 37) % 256;
  return out;
}

async function loadOrt() {
  const require = createRequire(join(here, 'ort', 'package.json'));
  let entry;
  try {
    entry = require.resolve('onnxruntime-web').replace(/\.js$/, '.mjs');
  } catch {
    console.error('wasm_ort_bench: onnxruntime-web is missing: ' +
      '(cd bench/ort && npm install --ignore-scripts --no-audit --no-fund)');
    process.exit(2);
  }
  const ort = await import(pathToFileURL(entry).href);
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  return ort;
}

async function timeLayers(cvms, ort) {
  const ortIndex = readIndex(opts.ort).filter((m) => m.op !== 'ConvInteger');
  const rows = [];
  for (const layer of readIndex(opts.layers).filter((l) => l.name.includes(opts.filter))) {
    const n = layer.input.reduce((a, b) => a * b, 1);
    const data = pattern(n, Int8Array);
    const row = { name: layer.name, op: layer.op, macs: layer.macs };
    const sums = [];
    for (const variant of VARIANTS) {
      const cvm = cvms[variant];
      const model = cvm.loadModel({
        json: readFileSync(layer.json, 'utf8'), params: readFileSync(layer.params),
      });
      const once = () => {
        const outs = model.run({ data });
        const bytes = Object.values(outs).map((o) => o.toBytes());
        Object.values(outs).forEach((o) => o.dispose());
        return bytes;
      };
      sums.push(once().map(fnv1a).join(''));
      row[variant] = await medianMs(once);
      model.dispose();
    }
    row.same = sums.every((s) => s === sums[0]);
    const peer = ortIndex.find((m) => m.name === layer.name);
    if (peer) {
      const session = await ort.InferenceSession.create(readFileSync(peer.model), {
        executionProviders: ['wasm'], graphOptimizationLevel: 'all',
      });
      const x = new ort.Tensor(peer.dtype, pattern(n, peer.dtype === 'int8' ? Int8Array : Uint8Array),
        peer.input);
      row.ort = await medianMs(() => session.run({ x }));
      row.ort_op = peer.op;
      await session.release();
    }
    rows.push(row);
    if (opts.json) console.log(JSON.stringify(row));
  }
  return rows;
}

// ---- startup: a fresh Node process per build, init() to the first result of a small model ----

function startup(variant) {
  const [json, params] = opts.startup;
  const script = `
    const t0 = performance.now();
    const { init } = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.mjs')).href)});
    const t1 = performance.now();
    const cvm = await init({ variant: ${JSON.stringify(variant)} });
    const t2 = performance.now();
    const fs = await import('node:fs');
    const model = cvm.loadModel({ json: fs.readFileSync(${JSON.stringify(json)}, 'utf8'),
                                  params: fs.readFileSync(${JSON.stringify(params)}) });
    const n = model.inputs[0].shape.reduce((a, b) => a * b, 1);
    const outs = model.run({ [model.inputs[0].name]: new Int8Array(n) });
    Object.values(outs)[0].toTypedArray();
    const t3 = performance.now();
    console.log(JSON.stringify({ import_ms: t1 - t0, init_ms: t2 - t1, first_result_ms: t3 - t2,
                                 total_ms: t3 - t1 }));`;
  const runs = [];
  for (let i = 0; i < (opts.quick ? 3 : 7); i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`startup run failed: ${r.stderr}`);
    runs.push(JSON.parse(r.stdout));
  }
  const med = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[runs.length >> 1];
  return { variant, import_ms: med('import_ms'), init_ms: med('init_ms'),
           first_result_ms: med('first_result_ms'), total_ms: med('total_ms') };
}

// ---- report ----

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const pad = (c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]));
  const line = (r) => r.map(pad).join('  ');
  return [line(header), widths.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n');
}
const f3 = (x) => (x === undefined ? '-' : x.toFixed(3));
const fx = (x) => (x === undefined || !Number.isFinite(x) ? '-' : `${x.toFixed(2)}x`);
const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

for (const [dir, what] of [[join(dist, 'index.mjs'), 'js/dist (cd js && npm run build)']]) {
  if (!existsSync(dir)) {
    console.error(`wasm_ort_bench: ${what} is missing`);
    process.exit(2);
  }
}
const { init } = await import(pathToFileURL(join(dist, 'index.mjs')).href);
const cvms = {};
for (const v of VARIANTS) cvms[v] = await init({ variant: v });
const ort = await loadOrt();
const peak = await simdPeakGmacs();
const rows = await timeLayers(cvms, ort);
const starts = opts.startup ? VARIANTS.map(startup) : [];
if (opts.json) {
  console.log(JSON.stringify({ simd128_dot_peak_gmacs: peak }));
  starts.forEach((s) => console.log(JSON.stringify({ startup: s })));
} else {
  console.log(`== int8 layers, one thread, Node ${process.version}: median wall ms; ` +
    `SIMD128 dot peak ${peak.toFixed(1)} GMAC/s (${(2 * peak).toFixed(1)} GOPS)`);
  const ratios = { ort: [], plain: [] };
  const cells = rows.map((r) => {
    const vsOrt = r.ort / r.simd;
    const plainRatio = r.plain / r.simd;
    if (Number.isFinite(vsOrt)) ratios.ort.push(vsOrt);
    ratios.plain.push(plainRatio);
    const gops = (2 * r.macs) / (r.simd * 1e6);
    return [r.name, f3(r.simd), f3(r.plain), f3(r.ort), r.ort_op ?? '-', fx(vsOrt), fx(plainRatio),
      gops.toFixed(1), `${((100 * gops) / (2 * peak)).toFixed(0)}%`, r.same ? 'yes' : 'NO'];
  });
  cells.push(['geomean', '', '', '', '', fx(geomean(ratios.ort)), fx(geomean(ratios.plain)), '',
    '', '']);
  console.log(table(['layer', 'cvmrt simd', 'cvmrt plain', 'ORT-web', 'ORT op', 'ORT-web/simd',
    'plain/simd', 'simd GOPS', '% peak', 'simd = plain'], cells));
  console.log('(GOPS: 2 x the direct convolution\'s MACs / time; 3x3 stride-1 layers run as ' +
    'Winograd F(2x2, 3x3), 2.25x fewer multiplies, so they can pass 100 % of the dot peak)');
  if (starts.length) {
    console.log(`\n== startup in a fresh Node process (median ms): import of the package, ` +
      `init(), then loading and running ${opts.startup[0].split('/').pop()}`);
    console.log(table(['build', 'import', 'init()', 'load + first run', 'init() to first result'],
      starts.map((s) => [s.variant, f3(s.import_ms), f3(s.init_ms), f3(s.first_result_ms),
        f3(s.total_ms)])));
  }
}
if (rows.some((r) => !r.same)) {
  console.error('wasm_ort_bench: the simd and plain builds gave different outputs');
  process.exit(1);
}
