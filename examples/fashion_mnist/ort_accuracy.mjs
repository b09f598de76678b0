// Measures top-1 accuracy of fashion_cnn.onnx on Fashion-MNIST t10k under ONNX Runtime and saves its predictions.
//
//   node examples/fashion_mnist/ort_accuracy.mjs DATA_DIR PRED_OUT.npy [MODEL.onnx]
//
// DATA_DIR holds t10k_images.npy (float32 [K,1,28,28], pixel/255) and t10k_labels.npy (int32 [K]),
// as written by make_calib.py --out DATA_DIR. Each image is run alone (the model's batch is 1);
// the argmax of "probs" for every image is written to PRED_OUT.npy (int32 [K]) and the accuracy is
// printed. MODEL defaults to fashion_cnn.onnx beside this script. onnxruntime-node is loaded from
// bench/ort/node_modules (run `npm install` in bench/ort first).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const requireFromBench = createRequire(join(here, '..', '..', 'bench', 'ort', 'package.json'));
const ort = requireFromBench('onnxruntime-node');

function readNpy(path) {
  const buf = readFileSync(path);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = buf[6];
  const start = major === 1 ? 10 : 12;
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${path}: Fortran order is not supported`);
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '')
    .split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const ctor = { '<f4': Float32Array, '<i4': Int32Array }[descr];
  if (!ctor) throw new Error(`${path}: unsupported dtype ${descr}`);
  const count = shape.reduce((a, b) => a * b, 1);
  const bytes = new Uint8Array(count * ctor.BYTES_PER_ELEMENT);
  if (start + headerLen + bytes.length > buf.length) throw new Error(`${path}: file is shorter than its header says`);
  bytes.set(buf.subarray(start + headerLen, start + headerLen + bytes.length));
  return { data: new ctor(bytes.buffer), shape };
}

function writeNpyInt32(path, values) {
  let header = `{'descr': '<i4', 'fortran_order': False, 'shape': (${values.length},), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const out = Buffer.alloc(10 + header.length + values.byteLength);
  out.write('\x93NUMPY', 0, 'latin1');
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(header.length, 8);
  out.write(header, 10, 'latin1');
  Buffer.from(values.buffer, values.byteOffset, values.byteLength).copy(out, 10 + header.length);
  writeFileSync(path, out);
}

async function main() {
  const [dataDir, predOut, modelArg] = process.argv.slice(2);
  if (!dataDir || !predOut) {
    console.error('usage: node ort_accuracy.mjs DATA_DIR PRED_OUT.npy [MODEL.onnx]');
    process.exit(2);
  }
  const modelPath = modelArg ?? join(here, 'fashion_cnn.onnx');
  const images = readNpy(join(dataDir, 't10k_images.npy'));
  const labels = readNpy(join(dataDir, 't10k_labels.npy'));
  const [n, c, h, w] = images.shape;
  if (c !== 1 || h !== 28 || w !== 28 || labels.shape[0] !== n) {
    throw new Error(`unexpected shapes: images [${images.shape}], labels [${labels.shape}]`);
  }

  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const inputName = session.inputNames[0];
  const outputName = session.outputNames[0];
  const per = c * h * w;
  const predictions = new Int32Array(n);
  let correct = 0;
  for (let i = 0; i < n; ++i) {
    const x = new ort.Tensor('float32', images.data.subarray(i * per, (i + 1) * per), [1, c, h, w]);
    const probs = (await session.run({ [inputName]: x }))[outputName].data;
    let best = 0;
    for (let k = 1; k < probs.length; ++k) if (probs[k] > probs[best]) best = k;  // first max wins
    predictions[i] = best;
    if (best === labels.data[i]) ++correct;
  }
  await session.release();
  writeNpyInt32(predOut, predictions);
  console.log(`onnxruntime-node ${ort.env.versions?.common ?? ''} top-1 accuracy on ${n} t10k images: ` +
              `${(100 * correct / n).toFixed(2)}% (${correct}/${n}); predictions written to ${predOut}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
