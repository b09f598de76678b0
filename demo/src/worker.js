// Web Worker: one cvmrt runtime and one quantized model, running inference off the page's thread.
// The runtime is the simd or the plain wasm build; each result carries the SHA-256 of the raw
// int32 outputs.
import { init } from 'cvmrt';

let cvm;
let model;

async function load({ variant, modelUrl }) {
  const t0 = performance.now();
  cvm = await init({ variant });
  const bytes = new Uint8Array(await (await fetch(modelUrl)).arrayBuffer());
  model = cvm.loadModel(bytes);
  return { ...cvm.info(), cost: { ...model.cost }, modelBytes: bytes.byteLength, loadMs: performance.now() - t0 };
}

// float32 input in (quantized by the model's metadata); the int32 outputs, their float values
// (q / scale, then the model's softmax or sigmoid tail) and the SHA-256 of the int32 bytes.
async function run({ input }) {
  const t0 = performance.now();
  const { ints, floats } = cvm.scope(() => {
    const outs = model.run({ data: input });
    const deq = model.dequantize(outs);
    return {
      ints: model.outputs.map((o) => outs[o.key].toTypedArray()),
      floats: model.outputs.map((o) => deq[o.key].toTypedArray()),
    };
  });
  const ms = performance.now() - t0;
  const bytes = new Uint8Array(ints.reduce((n, a) => n + a.byteLength, 0));
  ints.reduce((at, a) => { bytes.set(new Uint8Array(a.buffer), at); return at + a.byteLength; }, 0);
  // WebCrypto exists in secure contexts only (https, localhost): elsewhere no hash.
  const digest = crypto.subtle ? new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)) : null;
  const hash = digest ? Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('') : null;
  return { ms, hash, ints, floats };
}

self.onmessage = async ({ data: { id, type, args } }) => {
  try {
    const result = await (type === 'load' ? load(args) : run(args));
    self.postMessage({ id, result });
  } catch (e) {
    self.postMessage({ id, error: String((e && e.message) || e) });
  }
};
