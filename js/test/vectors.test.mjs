// Every conformance vector of ../tests/vectors through both wasm variants, bit for bit.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { CvmLogicError, CvmRuntimeError } from 'cvmrt';
import { REPO, VARIANTS, bytesEqual, hexBytes, parseJsonExact, runtime } from './helpers.mjs';

const VECTORS = join(REPO, 'tests', 'vectors');
const ARRAYS = {
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  float32: Float32Array, float64: Float64Array, bool: Uint8Array,
};

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : []);
}

/** The little-endian bytes of a vector tensor. */
function tensorBytes(t) {
  if (t.data_hex !== undefined) return hexBytes(t.data_hex);
  const A = ARRAYS[t.dtype];
  if (!A) throw new Error(`dtype ${t.dtype} needs data_hex`);
  const big = A === BigInt64Array || A === BigUint64Array;
  const ta = new A(t.data.map((v) => (big ? BigInt(v) : Number(v))));
  return new Uint8Array(ta.buffer);
}

function messageOk(err, spec) {
  const want = spec.kind === 'logic' ? CvmLogicError : CvmRuntimeError;
  if (!(err instanceof want)) return `expected a ${want.name}, got ${err && err.name}: ${err && err.message}`;
  if (err.status !== (spec.kind === 'logic' ? 1 : 2)) return `status ${err.status}`;
  const parts = spec.contains === undefined ? [] : [].concat(spec.contains);
  const miss = parts.filter((p) => !err.message.includes(p));
  return miss.length ? `message ${JSON.stringify(err.message)} lacks ${JSON.stringify(miss)}` : null;
}

/** Runs one case; returns a failure description or null. */
function runCase(cvm, c) {
  return cvm.scope(() => {
    const where = c.error ? (c.error.in || 'both') : null;
    // Running.
    if (!c.error || where !== 'infer') {
      const inputs = c.inputs.map((t) => cvm.fromBytes(tensorBytes(t), { shape: t.shape, dtype: t.dtype }));
      let outs;
      try {
        outs = cvm.opMulti(c.op, inputs, c.attrs);
      } catch (e) {
        if (!c.error) return `run threw ${e.name}: ${e.message}`;
        const bad = messageOk(e, c.error);
        if (bad) return `run: ${bad}`;
      }
      if (outs && c.error) return 'run succeeded, expected an error';
      if (outs) {
        const exp = c.expected.outputs;
        if (outs.length !== exp.length) return `${outs.length} outputs, expected ${exp.length}`;
        for (let i = 0; i < exp.length; i++) {
          const o = outs[i];
          if (o.dtype !== exp[i].dtype) return `output ${i} dtype ${o.dtype}, expected ${exp[i].dtype}`;
          if (JSON.stringify(o.shape) !== JSON.stringify(exp[i].shape)) {
            return `output ${i} shape (${o.shape}), expected (${exp[i].shape})`;
          }
          if (!bytesEqual(o.toBytes(), tensorBytes(exp[i]))) return `output ${i} bytes differ`;
        }
      }
    }
    // Inference (CVM operators, when the case gives input precisions).
    if (c.input_precisions && (!c.error || where !== 'run')) {
      const ins = c.inputs.map((t, i) => ({ shape: t.shape, precision: c.input_precisions[i] }));
      let r;
      try {
        r = cvm.inferOp(c.op, ins, c.attrs);
      } catch (e) {
        if (!c.error) return `inferOp threw ${e.name}: ${e.message}`;
        const bad = messageOk(e, c.error);
        return bad ? `inferOp: ${bad}` : null;
      }
      if (c.error) return 'inferOp succeeded, expected an error';
      const exp = c.expected;
      if (JSON.stringify(r.outputs.map((o) => o.precision)) !== JSON.stringify(exp.precisions)) {
        return `precisions ${JSON.stringify(r.outputs.map((o) => o.precision))}, expected ${JSON.stringify(exp.precisions)}`;
      }
      if (r.costBase !== Number(exp.cost_base)) return `cost_base ${r.costBase}, expected ${exp.cost_base}`;
      for (let i = 0; i < exp.outputs.length; i++) {
        if (JSON.stringify(r.outputs[i].shape) !== JSON.stringify(exp.outputs[i].shape)) {
          return `inferred shape ${i} (${r.outputs[i].shape}), expected (${exp.outputs[i].shape})`;
        }
      }
    }
    return null;
  });
}

const all = files(VECTORS).sort();
assert.ok(all.length > 0, `no vector files under ${VECTORS}`);
let total = 0;

for (const variant of VARIANTS) {
  for (const file of all) {
    const name = relative(VECTORS, file);
    test(`vectors ${variant} ${name}`, async () => {
      const cvm = await runtime(variant);
      const cases = parseJsonExact(readFileSync(file, 'utf8'));
      const failures = [];
      for (const c of cases) {
        const bad = runCase(cvm, c);
        if (bad) failures.push(`${c.op} "${c.name}": ${bad}`);
      }
      total += cases.length;
      assert.equal(cvm.memory().liveArrays, 0, 'arrays left alive');
      assert.deepEqual(failures.slice(0, 20), [], `${failures.length} of ${cases.length} cases failed`);
    });
  }
}

test('vectors: every registered operator has cases', async (t) => {
  const cvm = await runtime(VARIANTS[0]);
  const seen = new Set();
  for (const f of all) for (const c of parseJsonExact(readFileSync(f, 'utf8'))) seen.add(c.op);
  const missing = cvm.ops().map((o) => o.name).filter((n) => !seen.has(n));
  assert.deepEqual(missing, []);
  t.diagnostic(`ran ${total} vector cases (both variants)`);
});
