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
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { readNpy, writeNpy } from '../../bench/ort/npy.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const requireFromBench = createRequire(join(here, '..', '..', 'bench', 'ort', 'package.json'));
const ort = requireFromBench('onnxruntime-node');

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
  writeNpy(predOut, predictions);
  console.log(`onnxruntime-node ${ort.env.versions?.common ?? ''} top-1 accuracy on ${n} t10k images: ` +
              `${(100 * correct / n).toFixed(2)}% (${correct}/${n}); predictions written to ${predOut}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
