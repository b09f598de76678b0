// The example models (../examples/models) through both variants: outputs and cost equal the
// native CLI's, and the cost equals examples/models/expected.json (computed independently).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CvmLogicError } from 'cvmrt';
import { REPO, VARIANTS, nativeCli, nativeRun, readNpy, runtime } from './helpers.mjs';

const MODELS = join(REPO, 'examples', 'models');
const names = existsSync(MODELS)
  ? readdirSync(MODELS).filter((f) => f.endsWith('.json') && f !== 'expected.json').map((f) => f.slice(0, -5)).sort()
  : [];
const expected = existsSync(join(MODELS, 'expected.json'))
  ? JSON.parse(readFileSync(join(MODELS, 'expected.json'), 'utf8')) : {};
const cli = nativeCli();
const native = new Map();

function files(name) {
  return {
    json: readFileSync(join(MODELS, `${name}.json`), 'utf8'),
    params: readFileSync(join(MODELS, `${name}.params`)),
    input: readNpy(join(MODELS, `${name}_input.npy`)),
  };
}

test('example models exist', () => {
  assert.ok(names.length >= 7, `expected the example models under ${MODELS}, found ${names.length}`);
});

for (const variant of VARIANTS) {
  for (const name of names) {
    test(`model ${variant} ${name}: cost and outputs equal the native CLI`, async (t) => {
      const cvm = await runtime(variant);
      const { json, params, input } = files(name);
      cvm.scope(() => {
        const model = cvm.loadModel({ json, params });
        if (expected[name]) assert.deepEqual({ ...model.cost }, expected[name].cost, 'cost vs expected.json');
        const data = cvm.fromBytes(input.bytes, { shape: input.shape, dtype: input.dtype });
        const result = model.run({ data });
        // Keyed by output name, in the order of model.outputs.
        assert.deepEqual(Object.keys(result), model.outputs.map((o) => o.key));
        const outs = model.outputs.map((o) => result[o.key]);
        if (expected[name] && expected[name].output) {
          assert.deepEqual([...outs[0].toTypedArray()], expected[name].output);
        }
        if (!cli) {
          t.skip(`native CLI not found (build/tools/cvmrt or $CVMRT_CLI): compared with expected.json only`);
          return;
        }
        const ref = nativeRun(cli, [join(MODELS, `${name}.json`), '--params', join(MODELS, `${name}.params`),
          '--input', `data=${join(MODELS, `${name}_input.npy`)}`]);
        native.set(name, ref);
        assert.deepEqual({ ...model.cost }, ref.cost, 'cost vs native');
        assert.equal(outs.length, ref.outputs.length);
        ref.outputs.forEach((o, i) => {
          assert.equal(outs[i].dtype, o.dtype);
          assert.deepEqual([...outs[i].shape], o.shape, `output ${i} shape`);
          assert.deepEqual([...outs[i].toTypedArray()], o.data.map(Number), `output ${i} data`);
          assert.equal(model.outputs[i].name, o.name);
          assert.equal(model.outputs[i].precision, o.precision);
        });
        // CVMAPIInference layout (postprocess results: argmax, detection, ...).
        if (ref.result) {
          const bytes = model.infer(input.bytes);
          const A = ref.result.type_size === 4 ? Int32Array : Int8Array;
          const got = new A(bytes.buffer, bytes.byteOffset, bytes.byteLength / A.BYTES_PER_ELEMENT);
          assert.deepEqual([...got], ref.result.values.map(Number), 'infer() bytes');
        }
        assert.equal(model.postprocess, ref.postprocess || '');
      });
      assert.equal(cvm.memory().liveArrays, 0);
      assert.equal(cvm.memory().liveModels, 0);
    });
  }
}

test('models: setBackend() between runs: the next run is remade on the new backend, same bits', async () => {
  for (const variant of VARIANTS) {
    const cvm = await runtime(variant);
    const { json, params, input } = files('lenet');
    cvm.scope(() => {
      const model = cvm.loadModel({ json, params });
      const data = cvm.fromBytes(input.bytes, { shape: input.shape, dtype: input.dtype });
      const key = model.outputs[0].key;
      const want = [...model.run({ data })[key].toTypedArray()];
      try {
        cvm.setBackend('scalar');
        assert.deepEqual([...model.run({ data })[key].toTypedArray()], want);
        assert.deepEqual([...model.run({ data })[key].toTypedArray()], want);
      } finally {
        cvm.setBackend('auto');
      }
      assert.deepEqual([...model.run({ data })[key].toTypedArray()], want);
    });
    assert.equal(cvm.memory().liveModels, 0);
    assert.equal(cvm.memory().liveArrays, 0);
  }
});

test('models: kernelPlan() shows each node\'s kernel chain and what ran', async () => {
  for (const variant of VARIANTS) {
    const cvm = await runtime(variant);
    const { json, params, input } = files('lenet');
    cvm.scope(() => {
      const model = cvm.loadModel({ json, params });
      const before = model.kernelPlan();
      assert.equal(before.backend, variant === 'simd' ? 'wasm' : 'portable');
      const conv = before.nodes.find((n) => n.op === 'conv2d');
      assert.ok(conv, 'lenet has a conv2d node');
      const chain = conv.chains[0];
      assert.equal(chain.kernelOp, 'conv2d');
      assert.equal(chain.dtype, 'int32');
      assert.equal(chain.entries.at(-1), 'conv2d_i32__scalar');
      if (variant === 'simd') assert.equal(chain.entries[0], 'conv2d_i32__wasm_simd128');
      // plain: LeNet's 5x5 layers move the Winograd entry (3x3 only) behind the GEMM.
      else {
        assert.deepEqual(chain.entries,
          ['conv2d_i32__portable', 'conv2d_i32__portable_winograd', 'conv2d_i32__scalar']);
      }
      assert.equal(chain.lastRan, '');
      model.run({ data: cvm.fromBytes(input.bytes, { shape: input.shape, dtype: input.dtype }) });
      const after = model.kernelPlan();
      assert.equal(after.nodes.find((n) => n.op === 'conv2d').chains[0].lastRan,
        chain.entries[0]);
      // LeNet's clamps after each conv2d / dense run as one pass (the run's first node; the
      // others name it), which the layer's kernel applies as it stores (both variants' conv2d
      // and dense kernels do: then the pass names the layer). Every fused node leads, in at
      // most two steps, to a node that ran itself.
      const fused = after.nodes.filter((n) => n.fusedInto !== '');
      assert.ok(fused.length >= 4, `${fused.length} fused nodes`);
      const byName = new Map(after.nodes.map((n) => [n.node, n]));
      const computedBy = (n) => {
        let m = n;
        for (let hop = 0; hop < 2 && m && m.fusedInto !== ''; ++hop) m = byName.get(m.fusedInto);
        return m;
      };
      for (const node of fused) {
        assert.ok(['cvm_right_shift', 'cvm_clip', 'clip', 'relu'].includes(node.op), node.op);
        assert.equal(computedBy(node)?.fusedInto, '', node.node);
      }
      const shifts = fused.filter((n) => n.op === 'cvm_right_shift');
      assert.ok(shifts.length >= 1, 'a conv2d / dense kernel applied its shift');
      for (const n of shifts) assert.ok(['conv2d', 'dense'].includes(byName.get(n.fusedInto).op));
      cvm.setBackend('scalar');
      try {
        const scalar = model.kernelPlan();
        assert.equal(scalar.backend, 'scalar');
        for (const node of scalar.nodes) for (const c of node.chains) assert.equal(c.entries.length, 1);
      } finally {
        cvm.setBackend('auto');
      }
      model.dispose();
      assert.throws(() => model.kernelPlan(), CvmLogicError);
    });
    assert.equal(cvm.memory().liveModels, 0);
  }
});

test('models: lenet from a cvmrt model file, run twice, dispose', async (t) => {
  const cvm = await runtime(VARIANTS[0]);
  const { json, params, input } = files('lenet');
  // A cvmrt model file made by the native converter, when the CLI exists.
  let bytes = null;
  if (cli) {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'js_eng_model_'));
    try {
      execFileSync(cli, ['convert', join(MODELS, 'lenet.json'), join(MODELS, 'lenet.params'), '-o', join(dir, 'l.cvmrt')], { stdio: 'ignore' });
      bytes = readFileSync(join(dir, 'l.cvmrt'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const a = cvm.loadModel({ json: JSON.parse(json), params });
  const b = bytes ? cvm.loadModel(bytes) : null;
  const first = a.run({ data: new Int8Array(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength) });
  const again = a.run({ data: new Int8Array(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength) });
  const key = a.outputs[0].key;
  assert.equal(key, a.outputs[0].name);
  assert.deepEqual([...first[key].toTypedArray()], [...again[key].toTypedArray()]);
  if (b) {
    assert.deepEqual({ ...b.cost }, { ...a.cost });
    cvm.scope(() => {
      const viaFile = b.run({ data: cvm.fromBytes(input.bytes, { shape: input.shape, dtype: 'int8' }) });
      assert.deepEqual([...viaFile[key].toTypedArray()], [...first[key].toTypedArray()]);
    });
    // One version: the file records the library that wrote it (the CLI's, the package's own).
    assert.equal(b.producer, `cvmrt ${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}`);
    b.dispose();
  } else {
    t.diagnostic('native CLI not found: the cvmrt model file path is not exercised');
  }
  assert.equal(a.postprocess, 'argmax');
  assert.equal(a.producer, '');  // a CVM JSON model names no writer
  assert.equal(new Int32Array(a.infer(input.bytes).buffer)[0], 5);
  Object.values(first).forEach((o) => o.dispose());
  Object.values(again).forEach((o) => o.dispose());
  a[Symbol.dispose]();
  assert.equal(a.disposed, true);
  assert.equal(cvm.memory().liveModels, 0);
});

test('models: errors are CvmLogicError with the native message', async () => {
  const cvm = await runtime(VARIANTS[VARIANTS.length - 1]);
  assert.throws(() => cvm.loadModel({ json: '{"nodes": 3}', params: new Uint8Array(0) }), CvmLogicError);
  assert.throws(() => cvm.loadModel(new Uint8Array([1, 2, 3, 4])), CvmLogicError);
  const { json, params } = files('lenet');
  const m = cvm.loadModel({ json, params });
  try {
    cvm.scope(() => {
      assert.throws(() => m.run({ data: cvm.zeros([1, 1, 28, 27], 'int8') }), (e) => e instanceof CvmLogicError && /shape/.test(e.message));
      assert.throws(() => m.run({ nodata: cvm.zeros([1], 'int8') }), /no input "nodata"/);
      assert.throws(() => m.run(cvm.zeros([1, 1, 28, 28], 'int8')), /keyed by input name/);
      assert.throws(() => m.run([new Int8Array(784)]), /keyed by input name/);
    });
    assert.throws(() => m.infer(new Uint8Array(3)), CvmLogicError);
  } finally {
    m.dispose();
  }
  assert.throws(() => m.run({ data: new Int8Array(784) }), /disposed/);
  assert.equal(cvm.memory().liveArrays, 0);
});
