// Quantized models' float interface: model.quantization, float32 inputs to run() and
// model.dequantize(), against the native CLI on models quantized here with a synthetic
// calibration batch: the Fashion-MNIST CNN (8-bit and --split; softmax tail) and a lone
// Sigmoid (its int output is the quantized input itself; sigmoid tail).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CvmLogicError } from 'cvmrt';
import { REPO, VARIANTS, nativeCli, readNpy, runtime } from './helpers.mjs';

const cli = nativeCli();
const work = mkdtempSync(join(tmpdir(), 'js_eng_quant_'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A float32 .npy (format 1.0, C order). */
function writeNpy(path, data, shape) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header = header.padEnd(118, ' ') + '\n';
  const head = Buffer.concat([Buffer.from([0x93]), Buffer.from('NUMPY'), Buffer.from([1, 0, header.length, 0]), Buffer.from(header, 'latin1')]);
  writeFileSync(path, Buffer.concat([head, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

// Deterministic pseudo-random pixels in [0, 1) (a 32-bit LCG).
function pixels(count, seed) {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s >>> 8) / 2 ** 24;
  }
  return out;
}

const CASES = [
  { tag: 'int8', onnx: 'examples/fashion_mnist/fashion_cnn.onnx', shape: [1, 1, 28, 28], flags: [] },
  { tag: 'split', onnx: 'examples/fashion_mnist/fashion_cnn.onnx', shape: [1, 1, 28, 28], flags: ['--split'] },
  { tag: 'sigmoid', onnx: 'tests/onnx/models/sigmoid.onnx', shape: [1, 3, 5, 7], flags: [] },
];

// Quantizes the case's ONNX model; the model file's path, its bytes and quant.json.
function quantized({ tag, onnx, shape, flags }) {
  const calib = join(work, `${tag}_calib.npy`);
  const size = shape.reduce((a, b) => a * b, 1);
  writeNpy(calib, pixels(16 * size, 7), [16, ...shape.slice(1)]);
  const model = join(work, `${tag}.cvmrt`);
  execFileSync(cli, ['quantize', join(REPO, onnx), '--calib', calib, '-o', model, '--cvm', join(work, tag), ...flags],
    { stdio: 'ignore' });
  return { model, bytes: readFileSync(model), quant: JSON.parse(readFileSync(join(work, tag, 'quant.json'), 'utf8')) };
}

// An input whose products with the scale hit halves of both signs, saturate, and include -inf.
function trickyInput(scale, size) {
  const x = pixels(size, 11).map((v) => 2 * v - 1);
  const special = [0.5, -0.5, 2.5, -2.5, 1.5, 1e9, -1e9].map((v) => v / scale);
  special.forEach((v, i) => { x[i] = v; });
  x[special.length] = -Infinity;
  x[special.length + 1] = -0.2;
  return x;
}

function nativeFloats(model, input, dequantize) {
  const out = join(work, 'out.npy');
  execFileSync(cli, ['run', model, '--input', `data=${input}`, '-o', out, '--format', 'npy',
    ...(dequantize ? ['--dequantize'] : [])], { stdio: 'ignore' });
  return readNpy(out);
}

for (const c of CASES) {
  const { tag, shape } = c;
  test(`quantized model (${tag}): metadata, float32 input and dequantize() equal the native CLI`, async (t) => {
    if (!cli) {
      t.skip('native CLI not found (build/tools/cvmrt or $CVMRT_CLI)');
      return;
    }
    const { model: path, bytes, quant } = quantized(c);
    const x = trickyInput(quant.inputs[0].scale, shape.reduce((a, b) => a * b, 1));
    const input = join(work, `${tag}_x.npy`);
    writeNpy(input, x, shape);
    const ints = nativeFloats(path, input, false);
    const floats = nativeFloats(path, input, true);
    for (const variant of VARIANTS) {
      const cvm = await runtime(variant);
      cvm.scope(() => {
        const model = cvm.loadModel(bytes);
        const q = model.quantization;
        assert.deepEqual(q.inputs.map((i) => ({ ...i })),
          quant.inputs.map(({ name, scale, precision }) => ({ name, scale, precision })));
        assert.deepEqual(q.outputs.map((o) => ({ ...o })), quant.outputs.map(({ name, scale, tail, tail_axis: a }) =>
          ({ name, scale, tail: tail || '', tailAxis: a === undefined ? -1 : a })));
        assert.equal(model.inputs[0].precision, tag === 'split' ? 15 : 8);
        assert.equal(q.outputs[0].tail, tag === 'sigmoid' ? 'sigmoid' : 'softmax');
        // A Float32Array and a float32 array give the native CLI's integers.
        const outs = model.run({ data: x });
        const key = model.outputs[0].key;
        assert.deepEqual(outs[key].toBytes(), ints.bytes, 'int outputs vs native');
        const again = model.run({ data: cvm.array(x, { shape }) });
        assert.deepEqual(again[key].toBytes(), ints.bytes);
        if (tag === 'sigmoid') {
          // The output is the quantized input: halves away from zero, saturation at +-127.
          assert.deepEqual([...outs[key].toTypedArray().slice(0, 9)], [1, -1, 3, -3, 2, 127, -127, -127, -13]);
        }
        // dequantize(): float32 bits of `cvmrt run --dequantize` (q / scale, then the softmax tail).
        const f = model.dequantize(outs)[key];
        assert.equal(f.dtype, 'float32');
        assert.deepEqual(f.toBytes(), floats.bytes, 'dequantized outputs vs native');
        // Errors: NaN, a wrong size, a wrong shape, dequantize() of something else.
        const nan = x.slice();
        nan[5] = NaN;
        assert.throws(() => model.run({ data: nan }), (e) => e instanceof CvmLogicError && /NaN at flat index 5/.test(e.message));
        assert.throws(() => model.run({ data: new Float32Array(10) }), /expected shape \(.*\), found 10 values/);
        assert.throws(() => model.run({ data: cvm.zeros([shape.reduce((a, b) => a * b, 1)], 'float32') }), /found shape \(\d+\)/);
        assert.throws(() => model.dequantize({}), CvmLogicError);
      });
      assert.equal(cvm.memory().liveArrays, 0);
    }
  });
}

test('models without quantization metadata: quantization is null, dequantize() a CvmLogicError', async () => {
  const dir = join(REPO, 'examples', 'models');
  for (const variant of VARIANTS) {
    const cvm = await runtime(variant);
    cvm.scope(() => {
      const model = cvm.loadModel({ json: readFileSync(join(dir, 'lenet.json'), 'utf8'), params: readFileSync(join(dir, 'lenet.params')) });
      assert.equal(model.quantization, null);
      assert.throws(() => model.dequantize({}), (e) => e instanceof CvmLogicError && /not quantized/.test(e.message));
    });
  }
});
