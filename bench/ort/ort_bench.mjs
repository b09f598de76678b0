// Times ONNX Runtime (onnxruntime-node, CPU) on the models of make_models.py at 1 and 2 intra-op
// threads; prints one JSON line per model and thread count: {name, op, threads, ms} (median).
//
//   node ort_bench.mjs MODEL_DIR [--quick]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as ort from 'onnxruntime-node';

const dir = process.argv[2];
const quick = process.argv.includes('--quick');
const budgetMs = quick ? 50 : 300;
const models = readFileSync(join(dir, 'index.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));

function randomInput(shape, dtype) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = dtype === 'int8' ? new Int8Array(n) : new Uint8Array(n);
  for (let i = 0; i < n; ++i) data[i] = dtype === 'int8' ? (i * 37 % 255) - 127 : (i * 37) % 256;
  return new ort.Tensor(dtype, data, shape);
}

for (const m of models) {
  for (const threads of [1, 2]) {
    const session = await ort.InferenceSession.create(m.model, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    const feeds = { x: randomInput(m.input, m.dtype) };
    await session.run(feeds);  // warm up
    const times = [];
    const start = performance.now();
    while (times.length < 3 || (performance.now() - start < budgetMs && times.length < 500)) {
      const t0 = performance.now();
      await session.run(feeds);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const ms = times[times.length >> 1];
    console.log(JSON.stringify({ name: m.name, op: m.op, threads, ms }));
    await session.release();
  }
}
