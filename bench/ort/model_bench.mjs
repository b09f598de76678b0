// Times whole models: ONNX Runtime (node CPU EP, web wasm EP) on make_qdq_models.py's QDQ models, or cvmrt's wasm builds on CVM models.
//
//   node bench/ort/model_bench.mjs ort INDEX.jsonl [--quick] [--check DIR]
//   node bench/ort/model_bench.mjs cvmrt LIST.jsonl [--quick] [--no-plain]
//   node bench/ort/model_bench.mjs threads LIST.jsonl DIR [--quick]
//
// ort: INDEX.jsonl is make_qdq_models.py's index ({name, model, input, shape, npy}). Each model
// runs under onnxruntime-node (CPU EP, graphOptimizationLevel 'all', intraOpNumThreads 1 and 2,
// interOpNumThreads 1, sequential) and onnxruntime-web (executionProviders ['wasm'],
// ort.env.wasm.numThreads 1, SIMD) in this Node process. One JSON line per model and runtime:
// {side: "ort", runtime: "ort-node" | "ort-web", name, threads, ms (median wall), min, runs,
// fused}. --check DIR also writes ORT's optimized model (optimizedModelFilePath) to
// DIR/<name>.ort-opt.onnx and counts its operators: "fused" is e.g. {QLinearConv: 20, ...}
// (counted by a small protobuf scan, no onnx package needed).
// cvmrt: LIST.jsonl has one line per model: {name, model} (a cvmrt model file) or
// {name, json, params} (a CVM graph JSON and params), and npy (the input: float32 for a
// quantized model, fed as the model's metadata says; int8/int32 for a CVM model). Each model runs
// in the npm package's two wasm builds (js/dist, or $CVMRT_JS_DIST: init({variant})); one line per
// model and variant: {side: "cvmrt-wasm", variant, name, ms, min, runs, sha256} where sha256
// hashes the bytes of every output in model.outputs order (what the native side hashes from
// `cvmrt run -o`).
// threads: the wasm threads experiment. DIR holds cvmrt-simd.{mjs,wasm} built with -pthread
// (scripts/build-wasm-threads.sh); each model of LIST runs in it with CVMSetNumThreads 1 and 2,
// next to the package's single-thread simd build: {side: "cvmrt-wasm-threads", build:
// "pthread" | "single", threads, name, ms, min, runs, sha256}.
// Medians of wall-clock times after warm-up runs; about 1.5 s of timed runs per row (0.3 s with
// --quick), at least 5 runs (3 with --quick, or when one run takes over 0.5 s: then one warm-up).
import { createHash } from 'node:crypto';
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const here = dirname(fileURLToPath(import.meta.url));
const [mode, list, ...rest] = process.argv.slice(2);
const quick = rest.includes('--quick');
const checkAt = rest.indexOf('--check');
const checkDir = checkAt >= 0 ? rest[checkAt + 1] : null;
if (!['ort', 'cvmrt', 'threads'].includes(mode) || !list || (mode === 'threads' && !rest[0])) {
  console.error('usage: node bench/ort/model_bench.mjs ort INDEX.jsonl [--quick] [--check DIR]\n' +
    '       node bench/ort/model_bench.mjs cvmrt LIST.jsonl [--quick]\n' +
    '       node bench/ort/model_bench.mjs threads LIST.jsonl DIR [--quick]');
  process.exit(2);
}
const budgetMs = quick ? 300 : 1500;
const minRuns = quick ? 3 : 5;
const entries = readFileSync(list, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

// .npy: float32, int8, uint8 and int32, little-endian, C order, format 1.x/2.x.
function readNpy(path) {
  const buf = readFileSync(path);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const start = buf[6] === 1 ? 10 : 12;
  const len = buf[6] === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const header = buf.toString('latin1', start, start + len);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '').split(',')
    .map((s) => s.trim()).filter((s) => s).map(Number);
  const Ctor = { '<f4': Float32Array, '|i1': Int8Array, '|u1': Uint8Array, '<i4': Int32Array }[descr];
  if (!Ctor) throw new Error(`${path}: unsupported dtype ${descr}`);
  const n = shape.reduce((a, b) => a * b, 1);
  const bytes = buf.subarray(start + len, start + len + n * Ctor.BYTES_PER_ELEMENT);
  const data = new Ctor(n);
  new Uint8Array(data.buffer).set(bytes);
  return { data, shape };
}

async function median(fn) {
  const w0 = performance.now();
  await fn();                                           // warm-up: two runs, one when slow
  const slow = performance.now() - w0 > 500;
  if (!slow) await fn();
  const times = [];
  const start = performance.now();
  while (times.length < (slow ? 3 : minRuns) || (performance.now() - start < budgetMs && times.length < 2000)) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[times.length >> 1], min: times[0], runs: times.length };
}

// Operator types of an ONNX model file: scans NodeProto.op_type (field 4) in GraphProto.node
// (field 1) of ModelProto.graph (field 7) with a minimal protobuf reader.
function opCounts(bytes) {
  const readVarint = (b, p) => {
    let v = 0;
    let m = 1;
    for (;;) {
      const c = b[p++];
      v += (c & 0x7f) * m;
      m *= 128;
      if (c < 0x80) return [v, p];
    }
  };
  const fields = (b, from, to, cb) => {
    let p = from;
    while (p < to) {
      let key;
      [key, p] = readVarint(b, p);
      const wire = key & 7;
      const field = Math.floor(key / 8);
      if (wire === 0) [, p] = readVarint(b, p);
      else if (wire === 1) p += 8;
      else if (wire === 5) p += 4;
      else if (wire === 2) {
        let n;
        [n, p] = readVarint(b, p);
        cb(field, p, p + n);
        p += n;
      } else throw new Error('opCounts: unexpected wire type');
    }
  };
  const counts = {};
  fields(bytes, 0, bytes.length, (f, a, b) => {
    if (f !== 7) return;
    fields(bytes, a, b, (g, c, d) => {
      if (g !== 1) return;
      fields(bytes, c, d, (h, e, z) => {
        if (h === 4) {
          const op = Buffer.from(bytes.subarray(e, z)).toString('utf8');
          counts[op] = (counts[op] || 0) + 1;
        }
      });
    });
  });
  return counts;
}

async function benchOrt() {
  const require = createRequire(join(here, 'package.json'));
  const ortNode = require('onnxruntime-node');
  const web = await import(pathToFileURL(require.resolve('onnxruntime-web').replace(/\.js$/, '.mjs')).href);
  web.env.wasm.numThreads = 1;
  web.env.wasm.simd = true;
  if (checkDir) mkdirSync(checkDir, { recursive: true });
  for (const m of entries) {
    const x = readNpy(m.npy);
    for (const threads of [1, 2]) {
      const opts = {
        intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      };
      let optPath = null;
      if (checkDir && threads === 1) {
        optPath = join(checkDir, `${m.name}.ort-opt.onnx`);
        opts.optimizedModelFilePath = optPath;
      }
      const session = await ortNode.InferenceSession.create(m.model, opts);
      const feeds = { [m.input]: new ortNode.Tensor('float32', x.data, m.shape) };
      const t = await median(() => session.run(feeds));
      const row = { side: 'ort', runtime: 'ort-node', name: m.name, threads, ...t };
      if (optPath) row.fused = opCounts(readFileSync(optPath));
      console.log(JSON.stringify(row));
      await session.release();
    }
    const session = await web.InferenceSession.create(readFileSync(m.model), {
      executionProviders: ['wasm'], graphOptimizationLevel: 'all',
    });
    const feeds = { [m.input]: new web.Tensor('float32', x.data, m.shape) };
    const t = await median(() => session.run(feeds));
    console.log(JSON.stringify({ side: 'ort', runtime: 'ort-web', name: m.name, threads: 1, ...t }));
    await session.release();
  }
}

const dist = process.env.CVMRT_JS_DIST || join(here, '..', '..', 'js', 'dist');

// Times model entry m in `cvm` (a package instance); the timing and the outputs' sha256.
async function timeModel(cvm, m) {
  const model = m.model
    ? cvm.loadModel(new Uint8Array(readFileSync(m.model)))
    : cvm.loadModel({ json: readFileSync(m.json, 'utf8'), params: readFileSync(m.params) });
  const x = readNpy(m.npy).data;
  const once = () => {
    const outs = model.run({ [model.inputs[0].name]: x });
    const bytes = model.outputs.map((o) => outs[o.key].toBytes());
    Object.values(outs).forEach((o) => o.dispose());
    return bytes;
  };
  const hash = createHash('sha256');
  for (const b of once()) hash.update(b);
  const sha256 = hash.digest('hex');
  const t = await median(once);
  model.dispose();
  return { ...t, sha256 };
}

async function benchCvmrt() {
  const { init } = await import(pathToFileURL(join(dist, 'index.mjs')).href);
  const variants = rest.includes('--no-plain') ? ['simd'] : ['simd', 'plain'];
  for (const variant of variants) {
    const cvm = await init({ variant });
    for (const m of entries) {
      const t = await timeModel(cvm, m);
      console.log(JSON.stringify({
        side: 'cvmrt-wasm', variant, backend: cvm.info().backend, name: m.name, ...t,
      }));
    }
  }
}

// The -pthread build in rest[0] at 1 and 2 threads, through the package's own classes (the
// package itself loads only its two single-thread builds), and the shipped simd build.
async function benchThreads() {
  const dir = rest[0];
  const { init } = await import(pathToFileURL(join(dist, 'index.mjs')).href);
  const { Cvm } = await import(pathToFileURL(join(dist, 'cvm.mjs')).href);
  const { Native } = await import(pathToFileURL(join(dist, 'native.mjs')).href);
  const factory = (await import(pathToFileURL(join(dir, 'cvmrt-simd.mjs')).href)).default;
  const mod = await factory({ wasmBinary: new Uint8Array(readFileSync(join(dir, 'cvmrt-simd.wasm'))) });
  const threaded = new Cvm(new Native(mod, 'simd'));
  const single = await init({ variant: 'simd' });
  for (const m of entries) {
    const t = await timeModel(single, m);
    console.log(JSON.stringify({ side: 'cvmrt-wasm-threads', build: 'single', threads: 1, name: m.name, ...t }));
    for (const threads of [1, 2]) {
      if (mod._CVMSetNumThreads(threads) !== 0) throw new Error(`CVMSetNumThreads(${threads}) failed`);
      const tt = await timeModel(threaded, m);
      console.log(JSON.stringify({ side: 'cvmrt-wasm-threads', build: 'pthread', threads, name: m.name, ...tt }));
    }
  }
  process.exit(0);  // the pthread pool's workers would keep node alive
}

if (mode === 'ort') await benchOrt();
else if (mode === 'threads') await benchThreads();
else await benchCvmrt();
