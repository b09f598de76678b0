// Runs every ONNX model of a folder under ONNX Runtime and writes a seeded input and ORT's output beside it as .npy.
//
//   node tests/onnx/ort_reference.mjs [MODEL_DIR]      (default: tests/onnx/models)
//
// For each MODEL_DIR/NAME.onnx (one float32 input of fixed shape, one float32 output) it writes
// NAME.input.npy (float32, uniform in [-2, 2), from a generator seeded by the model's name) and
// NAME.ort.npy (float32, ONNX Runtime CPU output for that input). onnxruntime-node is taken from
// bench/ort/node_modules (run `npm install` in bench/ort first).
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { npyDecode, npyEncode } from '../../bench/ort/npy.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const requireFromBench = createRequire(join(here, '..', '..', 'bench', 'ort', 'package.json'));
const ort = requireFromBench('onnxruntime-node');

// ---- seeded inputs --------------------------------------------------------------------------------

function nameSeed(name) {
  // FNV-1a over the UTF-8 bytes of the name.
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h;
}

function uniformInput(name, count, lo, hi) {
  // splitmix32-style generator: a 32-bit state advanced by a fixed odd constant, then mixed.
  let state = nameSeed(name);
  const out = new Float32Array(count);
  for (let i = 0; i < count; ++i) {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    out[i] = lo + (hi - lo) * (z / 4294967296);
  }
  return out;
}

// ---- main -------------------------------------------------------------------------------------------

async function main() {
  const dir = process.argv[2] ?? join(here, 'models');
  const names = readdirSync(dir).filter((f) => f.endsWith('.onnx')).map((f) => f.slice(0, -5)).sort();
  if (names.length === 0) throw new Error(`no .onnx files in ${dir}`);
  for (const name of names) {
    const session = await ort.InferenceSession.create(join(dir, `${name}.onnx`), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'disabled',
    });
    if (session.inputNames.length !== 1 || session.outputNames.length !== 1) {
      throw new Error(`${name}: expected one input and one output`);
    }
    const meta = session.inputMetadata[0];
    const shape = meta.shape;
    if (meta.type !== 'float32' || !shape.every((d) => Number.isInteger(d) && d > 0)) {
      throw new Error(`${name}: input must be float32 with a fixed shape (got ${meta.type} [${shape}])`);
    }
    const count = shape.reduce((a, b) => a * b, 1);
    const input = uniformInput(name, count, -2, 2);
    const result = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', input, shape) });
    const y = result[session.outputNames[0]];
    if (y.type !== 'float32') throw new Error(`${name}: output is ${y.type}, expected float32`);
    const yData = new Float32Array(y.data);
    writeFileSync(join(dir, `${name}.input.npy`), npyEncode(input, shape));
    writeFileSync(join(dir, `${name}.ort.npy`), npyEncode(yData, [...y.dims]));
    // Round-trip check of the writer.
    const back = npyDecode(readFileSync(join(dir, `${name}.ort.npy`)));
    if (back.data.length !== yData.length || back.data.some((v, i) => !Object.is(v, yData[i]))) {
      throw new Error(`${name}: .npy round trip failed`);
    }
    console.log(`${name.padEnd(24)} x[${shape.join(',')}] -> y[${y.dims.join(',')}]`);
    await session.release();
  }
  console.log(`${names.length} models`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
