// Runs the BlazeFace ONNX model under onnxruntime-node on .npy inputs; saves the outputs.
//
//   node examples/blazeface/ort_run.mjs MODEL.onnx OUT_DIR INPUT.npy [INPUT.npy ...]
//
// For each INPUT (float32, the model's input shape [1,128,128,3] or any shape with that many
// elements) writes OUT_DIR/<stem>.ort.npy for output 0 and OUT_DIR/<stem>.ort_K.npy for output
// K > 0, in the graph's output order -- the same naming as `cvmrt run -o <stem>.ort.npy`.
// onnxruntime-node comes from bench/ort/node_modules (`cd bench/ort && ONNXRUNTIME_NODE_INSTALL=skip
// npm install`). Graph optimisations are off and one thread is used, so the reference is the plain
// operator-by-operator float computation. Prints one line per input with its time.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const requireFromBench = createRequire(join(here, '..', '..', 'bench', 'ort', 'package.json'));

function loadOrt() {
  try {
    return requireFromBench('onnxruntime-node');
  } catch (e) {
    console.error('ort_run: cannot load onnxruntime-node from bench/ort/node_modules; run\n' +
      '  (cd bench/ort && ONNXRUNTIME_NODE_INSTALL=skip npm install)\n' + String(e.message ?? e));
    process.exit(3);
  }
}

function readNpyFloat32(path) {
  const buf = readFileSync(path);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = buf[6];
  const start = major === 1 ? 10 : 12;
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  if (descr !== '<f4') throw new Error(`${path}: dtype ${descr}, expected <f4 (float32)`);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${path}: Fortran order is not supported`);
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '')
    .split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const offset = start + headerLen;
  if (offset + 4 * count > buf.length) throw new Error(`${path}: file is shorter than its header says`);
  const data = new Float32Array(count);
  for (let i = 0; i < count; ++i) data[i] = buf.readFloatLE(offset + 4 * i);
  return { data, shape };
}

function writeNpyFloat32(path, data, shape) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const out = Buffer.alloc(10 + header.length + 4 * data.length);
  out.write('\x93NUMPY', 0, 'latin1');
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(header.length, 8);
  out.write(header, 10, 'latin1');
  for (let i = 0; i < data.length; ++i) out.writeFloatLE(data[i], 10 + header.length + 4 * i);
  writeFileSync(path, out);
}

async function main() {
  const [modelPath, outDir, ...inputs] = process.argv.slice(2);
  if (!modelPath || !outDir || inputs.length === 0) {
    console.error('usage: node ort_run.mjs MODEL.onnx OUT_DIR INPUT.npy [INPUT.npy ...]');
    process.exit(2);
  }
  const ort = loadOrt();
  mkdirSync(outDir, { recursive: true });
  const session = await ort.InferenceSession.create(modelPath, {
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    logSeverityLevel: 3,
  });
  const inputName = session.inputNames[0];
  const dims = [1, 128, 128, 3];
  for (const path of inputs) {
    const x = readNpyFloat32(path);
    if (x.data.length !== 128 * 128 * 3) throw new Error(`${path}: ${x.data.length} values, expected 49152`);
    const t0 = process.hrtime.bigint();
    const result = await session.run({ [inputName]: new ort.Tensor('float32', x.data, dims) });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const stem = basename(path).replace(/\.npy$/, '');
    session.outputNames.forEach((name, k) => {
      const t = result[name];
      const file = join(outDir, k === 0 ? `${stem}.ort.npy` : `${stem}.ort_${k}.npy`);
      writeNpyFloat32(file, t.data, t.dims.map(Number));
    });
    console.log(`ort ${stem}: ${session.outputNames.length} outputs, ${ms.toFixed(2)} ms`);
  }
}

main().catch((e) => {
  console.error(`ort_run: ${e.stack ?? e}`);
  process.exit(1);
});
