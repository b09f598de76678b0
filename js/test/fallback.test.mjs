// SIMD-less engines: init() falls back to the plain build (same bits); 'simd' is refused.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { VARIANTS, runtime } from './helpers.mjs';

// A child whose WebAssembly.validate rejects every module using the SIMD prefix (0xfd), as an
// engine without SIMD128 does, before cvmrt is imported.
const child = `
  const validate = WebAssembly.validate;
  WebAssembly.validate = (bytes) => !new Uint8Array(bytes.buffer || bytes).includes(0xfd) && validate(bytes);
  const { init, simdSupported, CvmRuntimeError } = await import('cvmrt');
  const cvm = await init();
  let refused = '';
  try { await init({ variant: 'simd' }); } catch (e) { refused = e instanceof CvmRuntimeError ? e.message : 'wrong class'; }
  const x = cvm.array(new Int32Array([1, -2, 3, -4, 5, -6, 7, -8]), { shape: [2, 4] });
  const w = cvm.array(new Int32Array([1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8]), { shape: [3, 4] });
  const y = cvm.dense(x, w);
  console.log(JSON.stringify({ simd: simdSupported(), variant: cvm.info().variant, refused, y: [...y.toTypedArray()] }));`;

test('fallback: without SIMD128 init() loads the plain build and gives the same bits', async () => {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', child],
    { cwd: fileURLToPath(new URL('.', import.meta.url)) });
  const r = JSON.parse(out.toString().trim());
  assert.equal(r.simd, false);
  assert.equal(r.variant, 'plain');
  assert.match(r.refused, /SIMD128/);
  const cvm = await runtime(VARIANTS[0]);
  const expected = cvm.scope(() => [...cvm.dense(
    cvm.array(new Int32Array([1, -2, 3, -4, 5, -6, 7, -8]), { shape: [2, 4] }),
    cvm.array(new Int32Array([1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8]), { shape: [3, 4] })).toTypedArray()]);
  assert.deepEqual(r.y, expected);
});

test('fallback: forcing the plain build on a SIMD engine gives the same bits as simd', async () => {
  if (VARIANTS.length < 2) return;
  const [a, b] = await Promise.all(VARIANTS.map((v) => runtime(v)));
  const run = (cvm) => cvm.scope(() => {
    const x = cvm.array(Int32Array.from({ length: 2 * 3 * 9 * 9 }, (_, i) => ((i * 37) % 255) - 127), { shape: [2, 3, 9, 9] });
    const w = cvm.array(Int32Array.from({ length: 5 * 3 * 3 * 3 }, (_, i) => ((i * 11) % 15) - 7), { shape: [5, 3, 3, 3] });
    return [...cvm.conv2d(x, w, null, { padding: [1, 1] }).toTypedArray()];
  });
  assert.equal(a.info().variant, VARIANTS[0]);
  assert.equal(b.info().variant, VARIANTS[1]);
  assert.deepEqual(run(a), run(b));
});
