// The public API on both variants: arrays, dtypes, views, operators, params, errors, info.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CvmError, CvmLogicError, CvmRuntimeError, init, simdSupported } from 'cvmrt';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JS_ROOT, VARIANTS, runtime } from './helpers.mjs';

test('init: info() reports the variant and the library version', async () => {
  for (const variant of VARIANTS) {
    const cvm = await runtime(variant);
    const info = cvm.info();
    assert.equal(info.variant, variant);
    // One version: the library in the wasm is the package's own.
    assert.equal(info.version, JSON.parse(readFileSync(join(JS_ROOT, 'package.json'), 'utf8')).version);
    // The kernel table in use: the SIMD128 build prefers its "wasm" table.
    assert.equal(info.backend, variant === 'simd' ? 'wasm' : 'portable');
    cvm.setBackend('scalar');
    assert.equal(cvm.info().backend, 'scalar');
    cvm.setBackend('auto');
    assert.equal(cvm.info().backend, info.backend);
  }
  const auto = await init();
  assert.equal(auto.info().variant, simdSupported() ? 'simd' : 'plain');
  await assert.rejects(init({ variant: 'avx' }), CvmLogicError);
});

test('init: wasmBinary and locateFile override where the wasm comes from', async () => {
  const dir = join(JS_ROOT, 'dist', 'wasm');
  const variant = VARIANTS[VARIANTS.length - 1];
  const file = `cvmrt-${variant}.wasm`;
  const viaBinary = await init({ variant, wasmBinary: readFileSync(join(dir, file)) });
  assert.equal(viaBinary.info().variant, variant);
  const asked = [];
  const viaLocate = await init({ variant, locateFile: (path, prefix) => { asked.push([path, prefix]); return pathToFileURL(join(dir, path)).href; } });
  assert.deepEqual(viaLocate.scope(() => viaLocate.add([1], [2]).toArray()), [3]);
  assert.equal(asked[0][0], file);
  assert.match(asked[0][1], /\/wasm\/$/);
  await assert.rejects(init({ variant, locateFile: () => join(dir, 'missing.wasm') }), CvmRuntimeError);
  await assert.rejects(init({ variant, wasmBinary: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) }), CvmRuntimeError);
});

for (const variant of VARIANTS) {
  test(`arrays ${variant}: creation, dtypes and read-back`, async () => {
    const cvm = await runtime(variant);
    cvm.scope(() => {
      const a = cvm.array([[1, 2, 3], [4, 5, 6]]);
      assert.equal(a.dtype, 'int32');
      assert.deepEqual(a.shape, [2, 3]);
      assert.equal(a.size, 6);
      assert.equal(a.nbytes, 24);
      assert.deepEqual(a.toArray(), [[1, 2, 3], [4, 5, 6]]);
      assert.deepEqual([...a.toTypedArray()], [1, 2, 3, 4, 5, 6]);
      assert.ok(a.toTypedArray() instanceof Int32Array);

      assert.equal(cvm.array([1.5, 2]).dtype, 'float32');
      assert.equal(cvm.array([true, false]).dtype, 'bool');
      assert.deepEqual(cvm.array([true, false]).toArray(), [true, false]);
      assert.equal(cvm.array(7).ndim, 0);
      assert.equal(cvm.array(7).item(), 7);

      const big = cvm.array([2n ** 62n, -(2n ** 63n)]);
      assert.equal(big.dtype, 'int64');
      assert.ok(big.toTypedArray() instanceof BigInt64Array);
      assert.deepEqual([...big.toTypedArray()], [2n ** 62n, -(2n ** 63n)]);
      assert.deepEqual([...cvm.array([1, 2], { dtype: 'uint64' }).toTypedArray()], [1n, 2n]);

      const f = cvm.array(new Float32Array([1, -2.5]), { shape: [2, 1] });
      assert.equal(f.dtype, 'float32');
      assert.deepEqual(f.toArray(), [[1], [-2.5]]);

      // A typed array converted to another dtype uses the native cast (truncation toward 0).
      assert.deepEqual([...cvm.array(new Float32Array([1.9, -1.9, 300]), { dtype: 'int32' }).toTypedArray()], [1, -1, 300]);
      // float16 / bfloat16 round natively; read as raw bits or values.
      const h = cvm.array([1, -2, 0.5], { dtype: 'float16' });
      assert.deepEqual([...h.toTypedArray()], [0x3c00, 0xc000, 0x3800]);
      assert.deepEqual(h.toArray(), [1, -2, 0.5]);
      const bf = cvm.array(new Uint16Array([0x3f80]), { dtype: 'bfloat16' });
      assert.deepEqual(bf.toArray(), [1]);

      assert.deepEqual(cvm.zeros([2, 2], 'int8').toArray(), [[0, 0], [0, 0]]);
      assert.deepEqual(cvm.ones([3], 'float64').toArray(), [1, 1, 1]);
      assert.deepEqual(cvm.full([2], -7n, 'int64').toArray(), [-7n, -7n]);
      assert.deepEqual(cvm.full([2], 1.5, 'bfloat16').toArray(), [1.5, 1.5]);
      assert.deepEqual(cvm.zeros([0, 3]).shape, [0, 3]);
      assert.deepEqual(cvm.zeros([0, 3]).toArray(), []);

      const raw = cvm.fromBytes(new Uint8Array([0, 0, 0x80, 0x3f]), { shape: [1], dtype: 'float32' });
      assert.deepEqual(raw.toArray(), [1]);
      assert.deepEqual([...raw.toBytes()], [0, 0, 0x80, 0x3f]);

      assert.throws(() => cvm.array([300], { dtype: 'int8' }), /not representable as int8/);
      assert.throws(() => cvm.array([1.5], { dtype: 'int32' }), CvmLogicError);
      assert.throws(() => cvm.array([[1, 2], [3]]), /ragged/);
      assert.throws(() => cvm.array([1, 2, 3], { shape: [2, 2] }), /holds 4 elements/);
      assert.throws(() => cvm.zeros([2], 'complex64'), /unknown dtype/);
      assert.throws(() => cvm.zeros([-1]), CvmLogicError);
    });
    assert.equal(cvm.memory().liveArrays, 0);
  });

  test(`arrays ${variant}: view(), write() and shape transformations`, async () => {
    const cvm = await runtime(variant);
    cvm.scope(() => {
      const a = cvm.array(new Int32Array([0, 1, 2, 3, 4, 5]), { shape: [2, 3] });
      const v = a.view();
      assert.ok(v instanceof Int32Array);
      assert.equal(v.length, 6);
      v[0] = 42;  // zero-copy: writes the array
      assert.equal(a.toArray()[0][0], 42);
      a.write(new Int32Array([5, 4, 3, 2, 1, 0]));
      assert.deepEqual(a.toArray(), [[5, 4, 3], [2, 1, 0]]);
      assert.throws(() => a.write(new Float32Array(6)), /Int32Array/);
      assert.throws(() => a.write(new Int32Array(5)), /expected 24 bytes/);

      for (const dtype of ['int32', 'float32', 'int8', 'int64', 'float16']) {
        const x = cvm.array([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], { dtype });
        const num = (arr) => JSON.parse(JSON.stringify(arr.toArray(), (_, y) => (typeof y === 'bigint' ? Number(y) : y)));
        assert.deepEqual(num(x.reshape([2, -1])), [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]], dtype);
        assert.deepEqual(num(x.transpose()), [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]], dtype);
        assert.deepEqual(num(x.slice([1, 1], [3, 4], [1, 2])), [[5, 7], [9, 11]], dtype);
        assert.deepEqual(num(x.slice([null, -1], [null, null], [-1, -2])), [[11, 9], [7, 5], [3, 1]], dtype);
        assert.deepEqual(num(x.slice([5])), [], dtype);
        assert.deepEqual(num(x.flatten()), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], dtype);
        assert.deepEqual(num(x.clone()), num(x), dtype);
        assert.equal(x.transpose([1, 0]).dtype, dtype);
      }
      const x = cvm.array([[1, 2], [3, 4]]);
      assert.throws(() => x.reshape([3, -1]), (e) => e instanceof CvmLogicError && /reshape/.test(e.message));
      assert.throws(() => x.reshape([1.5, 2]), /reshape: entry 0: expected an integer/);
      assert.throws(() => x.transpose([0, 0]), (e) => e instanceof CvmLogicError && /axis 0 repeated/.test(e.message));
      assert.throws(() => x.slice([0], [1], [0]), (e) => e instanceof CvmLogicError && /step 0/.test(e.message));
      assert.throws(() => x.slice([0, 0, 0]), CvmLogicError);  // more axes than the array has
      assert.throws(() => x.slice(['1']), /expected an integer/);
      assert.throws(() => x.squeeze(0), CvmLogicError);
      assert.throws(() => x.broadcastTo([3, 2]), CvmLogicError);
      assert.throws(() => x.expandDims(3), CvmLogicError);
    });
  });

  test(`views ${variant}: reshape, transpose, slice, broadcastTo, squeeze, expandDims share memory`, async () => {
    const cvm = await runtime(variant);
    cvm.scope(() => {
      const a = cvm.array(new Float64Array([0, 1, 2, 3, 4, 5]), { shape: [2, 3] });
      const t = a.transpose();
      const s = a.slice([null, 2], [null, null], [1, -1]);  // a[:, 2::-1]
      const r = a.reshape([3, 2]);
      const b = a.slice([1]).broadcastTo([4, 1, 3]);
      const q = a.slice([0], [1]).squeeze();
      const e = a.expandDims(-1);
      assert.deepEqual(t.toArray(), [[0, 3], [1, 4], [2, 5]]);
      assert.deepEqual(s.toArray(), [[2, 1, 0], [5, 4, 3]]);
      assert.deepEqual(b.shape, [4, 1, 3]);
      assert.deepEqual(q.toArray(), [0, 1, 2]);
      assert.deepEqual(e.shape, [2, 3, 1]);
      assert.equal(t.compact, false);
      assert.equal(r.compact, true);
      assert.throws(() => t.view(), /not compact/);
      // One write shows through every view (they are windows on one buffer).
      a.write(new Float64Array([10, 11, 12, 13, 14, 15]));
      assert.deepEqual(t.toArray(), [[10, 13], [11, 14], [12, 15]]);
      assert.deepEqual(s.toArray(), [[12, 11, 10], [15, 14, 13]]);
      assert.deepEqual(r.toArray(), [[10, 11], [12, 13], [14, 15]]);
      assert.deepEqual(b.toArray()[3], [[13, 14, 15]]);
      assert.deepEqual(q.toArray(), [10, 11, 12]);
      t.write(new Float64Array([0, 3, 1, 4, 2, 5]));  // writing a strided view writes the source
      assert.deepEqual(a.toArray(), [[0, 1, 2], [3, 4, 5]]);
      // A view outlives its source; clone() shares nothing.
      const c = s.clone();
      assert.equal(c.compact, true);
      a.dispose();
      assert.deepEqual(s.toArray(), [[2, 1, 0], [5, 4, 3]]);
      s.write(new Float64Array(6));
      assert.deepEqual(c.toArray(), [[2, 1, 0], [5, 4, 3]]);
      assert.deepEqual(t.toArray(), [[0, 0], [0, 0], [0, 0]]);
      // Operators take views like any array (the kernels read their strides).
      const m = cvm.array([[1, 2, 3], [4, 5, 6]]);
      assert.deepEqual(cvm.add(m.transpose(), 100).toArray(), [[101, 104], [102, 105], [103, 106]]);
      assert.deepEqual(cvm.sum(m.slice([0, 0], [2, 3], [1, 2]), { axis: 1 }).toArray(), [4, 10]);
    });
    assert.equal(cvm.memory().liveArrays, 0);
  });

  test(`views ${variant}: slice agrees with NumPy's rules on seeded random cases`, async () => {
    const cvm = await runtime(variant);
    let seed = 12345;
    const rand = (n) => {  // xorshift32: a fixed sequence
      seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    // NumPy's slice.indices(dim) for one axis, written out from its definition.
    const indices = (dim, b, e, st) => {
      const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
      const norm = (v, dflt) => (v === null ? dflt : st > 0 ? clamp(v < 0 ? v + dim : v, 0, dim)
        : clamp(v < 0 ? v + dim : v, -1, dim - 1));
      const lo = norm(b, st > 0 ? 0 : dim - 1);
      const hi = norm(e, st > 0 ? dim : -1);
      const out = [];
      for (let i = lo; st > 0 ? i < hi : i > hi; i += st) out.push(i);
      return out;
    };
    const pick = (dim) => [null, rand(2 * dim + 5) - dim - 2][rand(4) ? 1 : 0];
    for (let trial = 0; trial < 300; trial++) {
      const shape = Array.from({ length: 1 + rand(3) }, () => rand(5));
      const n = shape.reduce((p, d) => p * d, 1);
      const naxes = rand(shape.length + 1);
      const begin = []; const end = []; const step = [];
      for (let ax = 0; ax < naxes; ax++) {
        begin.push(pick(shape[ax]));
        end.push(pick(shape[ax]));
        step.push([1, 2, 3, -1, -2, null][rand(6)]);
      }
      const per = shape.map((d, ax) => (ax < naxes ? indices(d, begin[ax], end[ax], step[ax] ?? 1) : [...Array(d).keys()]));
      const strides = shape.map((_, ax) => shape.slice(ax + 1).reduce((p, d) => p * d, 1));
      const expected = [];
      const walk = (ax, off) => {
        if (ax === shape.length) { expected.push(off); return; }
        for (const i of per[ax]) walk(ax + 1, off + i * strides[ax]);
      };
      walk(0, 0);
      cvm.scope(() => {
        const x = cvm.array(Int16Array.from({ length: n }, (_, i) => i), { shape });
        const v = x.slice(begin, end, step);
        const what = `shape [${shape}] begin [${begin}] end [${end}] step [${step}]`;
        assert.deepEqual(v.shape, per.map((p) => p.length), what);
        assert.deepEqual([...v.toTypedArray()], expected, what);
      });
    }
  });

  test(`operators ${variant}: op(), conveniences and attribute conversion`, async () => {
    const cvm = await runtime(variant);
    cvm.scope(() => {
      const a = cvm.array([[1, 2, 3], [4, 5, 6]]);
      const b = cvm.array([10, 20, 30]);
      assert.deepEqual(cvm.add(a, b).toArray(), [[11, 22, 33], [14, 25, 36]]);
      assert.deepEqual(cvm.op('broadcast_add', [a, b]).toArray(), [[11, 22, 33], [14, 25, 36]]);
      assert.deepEqual(cvm.sub(a, 1).toArray(), [[0, 1, 2], [3, 4, 5]]);  // data as a temporary
      assert.deepEqual(cvm.mul(a, a).toArray(), [[1, 4, 9], [16, 25, 36]]);
      assert.deepEqual(cvm.relu(cvm.array([-3, 0, 3])).toArray(), [0, 0, 3]);
      assert.deepEqual(cvm.sum(a).toArray(), 21);
      assert.deepEqual(cvm.sum(a, { axis: 1 }).toArray(), [6, 15]);
      assert.deepEqual(cvm.sum(a, { axis: [0], keepdims: true }).toArray(), [[5, 7, 9]]);
      assert.deepEqual(cvm.max(a, { axis: 0 }).toArray(), [4, 5, 6]);
      assert.deepEqual(cvm.argmax(cvm.array([3, 9, 2])).toArray(), 1n);
      assert.deepEqual(cvm.matmul(a, cvm.array([[1], [0], [1]])).toArray(), [[4], [10]]);
      assert.deepEqual(cvm.cast(cvm.array([1.7, -1.7]), 'int8').toArray(), [1, -1]);
      assert.deepEqual(cvm.clip(cvm.array([-100, 5, 100]), -10, 10).toArray(), [-10, 5, 10]);
      assert.deepEqual(cvm.equal(cvm.array([1, 2]), cvm.array([1, 3])).toArray(), [true, false]);
      assert.deepEqual(cvm.dense(cvm.array([[1, 2]]), cvm.array([[1, 1], [2, -1]]), cvm.array([100, 0])).toArray(), [[103, 0]]);
      const x = cvm.array([[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]);
      const w = cvm.array([[[[1, 0], [0, 1]]]]);
      assert.deepEqual(cvm.conv2d(x, w).toArray(), [[[[6, 8], [12, 14]]]]);
      assert.deepEqual(cvm.conv2d(x, w, null, { padding: [1, 1], strides: [2, 2] }).toArray(), [[[[1, 3], [7, 14]]]]);
      assert.deepEqual(cvm.maxPool2d(x, [2, 2]).toArray(), [[[[5, 6], [8, 9]]]]);
      assert.deepEqual(cvm.concatenate([cvm.array([[1]]), cvm.array([[2]])], 0).toArray(), [[1], [2]]);
      // Attribute values: numbers, booleans, arrays and CVM text all reach the parser.
      assert.deepEqual(cvm.op('transpose', [a], { axes: [1, 0] }).shape, [3, 2]);
      assert.deepEqual(cvm.op('transpose', [a], { axes: '(1, 0)' }).shape, [3, 2]);
      assert.deepEqual(cvm.op('cvm_right_shift', [cvm.array([7, -7])], { shift_bit: 1, precision: 8, is_sign: true }).toArray(), [4, -3]);
      // Multi-output operators.
      const boxes = cvm.array([[[0, 5, 1, 1, 2, 2], [1, 0, 1, 1, 2, 2]]]);
      assert.throws(() => cvm.op('get_valid_counts', [boxes], { score_threshold: 1 }),
        (e) => e instanceof CvmLogicError && /has 2 outputs; use cvm.opMulti/.test(e.message));
      const outs = cvm.opMulti('get_valid_counts', [boxes], { score_threshold: 1 });
      assert.equal(cvm.opAll('get_valid_counts', [boxes], { score_threshold: 1 }).length, 2);  // 0.1 name
      assert.ok(Array.isArray(cvm.opMulti('relu', [cvm.array([-1, 1])])));
      assert.equal(outs.length, 2);
      assert.deepEqual(outs[0].toArray(), [1]);  // valid_count, then the rows
      assert.deepEqual(outs[1].toArray(), [[[0, 5, 1, 1, 2, 2], [-1, -1, -1, -1, -1, -1]]]);

      const list = cvm.ops();
      assert.ok(list.length >= 50);
      assert.deepEqual(list.find((o) => o.name === 'conv2d'), { name: 'conv2d', numInputs: -1, numOutputs: 1, isCvm: true });
      assert.equal(list.find((o) => o.name === 'matmul').isCvm, false);
      const inf = cvm.inferOp('dense', [{ shape: [1, 4], precision: 8 }, { shape: [3, 4], precision: 8 }], { units: 3, use_bias: false });
      assert.deepEqual(inf.outputs, [{ shape: [1, 3], precision: 19 }]);
      assert.equal(inf.costBase, 12);
    });
    assert.equal(cvm.memory().liveArrays, 0);
  });

  test(`errors ${variant}: CvmLogicError / CvmRuntimeError with the native message`, async () => {
    const cvm = await runtime(variant);
    cvm.scope(() => {
      const a = cvm.array([[1, 2], [3, 4]]);
      const err = (() => { try { cvm.add(a, cvm.array([1, 2, 3])); } catch (e) { return e; } })();
      assert.ok(err instanceof CvmLogicError);
      assert.ok(err instanceof CvmError);
      assert.ok(err instanceof Error);
      assert.equal(err.status, 1);
      assert.equal(err.name, 'CvmLogicError');
      assert.match(err.message, /\(2, 2\)|2, 2/);
      assert.throws(() => cvm.op('no_such_op', [a]), (e) => e instanceof CvmLogicError && /no_such_op/.test(e.message));
      assert.throws(() => cvm.op('dense', [a, a], { units: 2, use_bias: false, bogus: 1 }), /bogus/);
      assert.throws(() => cvm.op('transpose', [a], { axes: { x: 1 } }), /axes/);
      assert.throws(() => cvm.op('clip', [a], { a_min: 1.5, a_max: 3 }), /a_min/);
      assert.throws(() => cvm.op('clip', [a], { a_min: NaN, a_max: 3 }), /finite/);
      assert.throws(() => cvm.op('relu', []), CvmLogicError);
      assert.throws(() => cvm.loadParams(new Uint8Array([1, 2, 3])), CvmLogicError);
      assert.throws(() => cvm.setBackend('no-such-backend'), CvmLogicError);
    });
    const d = cvm.zeros([2]);
    d.dispose();
    d.dispose();  // idempotent
    assert.throws(() => d.toArray(), (e) => e instanceof CvmLogicError && /disposed/.test(e.message));
    assert.throws(() => cvm.add(d, d), /disposed/);
    assert.equal(new CvmRuntimeError('x').status, 2);
    assert.equal(cvm.memory().liveArrays, 0);
  });

  test(`params ${variant}: save and load round trip in both formats`, async () => {
    const cvm = await runtime(variant);
    cvm.scope(() => {
      const w = cvm.array([[1, -2, 3], [-4, 5, -6]]);
      const dict = { conv0_weight: w, scale: cvm.array([1.5, -0.25], { dtype: 'float64' }), flags: [true, false] };
      const bytes = cvm.saveParams(dict);
      assert.ok(bytes instanceof Uint8Array && bytes.length > 0);
      const back = cvm.loadParams(bytes);
      assert.ok(back instanceof Map);
      assert.deepEqual([...back.keys()], ['conv0_weight', 'scale', 'flags']);
      assert.deepEqual(back.get('conv0_weight').toArray(), [[1, -2, 3], [-4, 5, -6]]);
      assert.deepEqual(back.get('scale').toArray(), [1.5, -0.25]);
      assert.deepEqual(back.get('flags').toArray(), [true, false]);
      const legacy = cvm.saveParams(new Map([['w', w]]), { format: 'cvm' });
      assert.deepEqual(cvm.loadParams(legacy.buffer).get('w').toArray(), w.toArray());
      // The same bytes again: deterministic.
      assert.deepEqual(cvm.saveParams(dict), bytes);
      // A flipped payload byte fails the checksum unless verification is off.
      const bad = bytes.slice();
      bad[bad.length - 1] ^= 1;
      assert.throws(() => cvm.loadParams(bad), CvmLogicError);
      assert.equal(cvm.loadParams(bad, { verify: false }).size, 3);
      assert.throws(() => cvm.saveParams(dict, { format: 'npz' }), /format/);
    });
    assert.equal(cvm.memory().liveArrays, 0);
  });
}
