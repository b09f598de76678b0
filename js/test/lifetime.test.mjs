// Lifetimes: dispose, Symbol.dispose, scope (and its refusal of async functions), keep, views,
// no global side effects, the FinalizationRegistry
// safety net with its debug warning, and a 100,000-cycle leak test with a flat wasm heap.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CvmLogicError, init } from 'cvmrt';
import { JS_ROOT, VARIANTS, runtime } from './helpers.mjs';

test('dispose and Symbol.dispose free the native array', async () => {
  const cvm = await runtime(VARIANTS[0]);
  const before = cvm.memory();
  const a = cvm.zeros([4, 4]);
  assert.equal(cvm.memory().liveArrays, before.liveArrays + 1);
  assert.equal(cvm.memory().bytes, before.bytes + 64);
  a[Symbol.dispose]();
  assert.equal(a.disposed, true);
  assert.equal(cvm.memory().liveArrays, before.liveArrays);
  assert.equal(cvm.memory().bytes, before.bytes);
  assert.equal(typeof Symbol.dispose, 'symbol');
});

test('loading the package changes no global ("sideEffects": false holds)', () => {
  // A fresh realm has no Symbol.dispose in Node 20: the CommonJS entry must leave it so, and
  // add nothing to the global object, yet its errors work and match the ES module's.
  const ctx = vm.createContext({ module: { exports: {} } });
  const keys = (expr) => vm.runInContext(`Reflect.ownKeys(${expr}).map(String).sort().join()`, ctx);
  const before = { global: keys('globalThis'), symbol: keys('Symbol') };
  // As Node's CommonJS loader runs it: inside a function, so its declarations stay local.
  const source = readFileSync(join(JS_ROOT, 'dist', 'index.cjs'), 'utf8');
  vm.runInContext(`(function (exports, module) {\n${source}\n})(module.exports, module);`, ctx);
  assert.equal(keys('Symbol'), before.symbol);
  assert.equal(keys('globalThis'), before.global);
  assert.equal(vm.runInContext('typeof Symbol.dispose', ctx), 'undefined');
  assert.equal(vm.runInContext('new module.exports.CvmLogicError("x").status', ctx), 1);

  // The ES module entry, in a child process, against the globals of a bare node.
  const code = `
    const snap = () => [Reflect.ownKeys(globalThis), Reflect.ownKeys(Symbol)].map((k) => k.map(String).sort().join());
    const before = snap();
    const esm = await import(${JSON.stringify(new URL('../dist/index.mjs', import.meta.url).href)});
    const { createRequire } = await import('node:module');
    const cjs = createRequire(${JSON.stringify(join(JS_ROOT, 'dist', 'x.js'))})('./index.cjs');
    const after = snap();
    const e = new cjs.CvmLogicError('from the CommonJS copy');
    console.log(JSON.stringify({ same: before[0] === after[0] && before[1] === after[1],
      cross: e instanceof esm.CvmLogicError && e instanceof esm.CvmError && !(e instanceof esm.CvmRuntimeError),
      plain: new Error('x') instanceof esm.CvmError }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code]);
  assert.deepEqual(JSON.parse(out.toString().trim().split('\n').pop()), { same: true, cross: true, plain: false });
});

test('scope disposes what it created except the result (nested, objects, Maps)', async () => {
  const cvm = await runtime(VARIANTS[0]);
  const base = cvm.memory().liveArrays;
  let inner;
  const out = cvm.scope(() => {
    const a = cvm.array([1, 2, 3]);
    const b = cvm.add(a, a);
    inner = cvm.scope(() => {
      const c = cvm.mul(b, b);
      cvm.zeros([9]);
      return { c, list: [cvm.ones([1])], map: new Map([['k', cvm.ones([2])]]) };
    });
    assert.equal(cvm.memory().liveArrays, base + 5);  // a, b, c, ones([1]), ones([2])
    return [b, inner.c];
  });
  assert.equal(cvm.memory().liveArrays, base + 2);
  assert.deepEqual(out[0].toArray(), [2, 4, 6]);
  assert.deepEqual(out[1].toArray(), [4, 16, 36]);
  assert.equal(inner.list[0].disposed, true);  // returned by the inner scope only
  out.forEach((x) => x.dispose());
  assert.equal(cvm.memory().liveArrays, base);
});

test('scope disposes on throw, refuses async functions and promises, and keep()', async () => {
  const cvm = await runtime(VARIANTS[0]);
  const base = cvm.memory().liveArrays;
  assert.throws(() => cvm.scope(() => { cvm.zeros([3]); throw new Error('boom'); }), /boom/);
  assert.equal(cvm.memory().liveArrays, base);

  // An async function is refused before it runs: nothing is created.
  let ran = false;
  assert.throws(() => cvm.scope(async () => { ran = true; return cvm.zeros([1]); }),
    (e) => e instanceof CvmLogicError && /must be synchronous/.test(e.message));
  assert.equal(ran, false);
  // A plain function returning a promise: what it created before returning is freed, and the
  // promise's later rejection is not left unhandled.
  let early;
  assert.throws(() => cvm.scope(() => {
    early = cvm.zeros([2]);
    return tick().then(() => { throw new Error('late'); });
  }), /must be synchronous/);
  assert.equal(early.disposed, true);
  assert.equal(cvm.memory().liveArrays, base);
  await tick();
  await tick();

  let kept;
  cvm.scope(() => { kept = cvm.keep(cvm.zeros([2])); cvm.zeros([2]); });
  assert.equal(kept.disposed, false);
  assert.equal(cvm.memory().liveArrays, base + 1);
  kept.dispose();
  assert.equal(cvm.memory().liveArrays, base);
});

test('FinalizationRegistry frees leaked arrays and warns in debug mode', { timeout: 60000 }, async () => {
  {
    // In a child with --expose-gc, whose garbage collection the test controls.
    const code = `
      import { CvmLogicError, init } from 'cvmrt';
      const warnings = [];
      const cvm = await init({ variant: 'plain', debug: true, warn: (m) => warnings.push(m) });
      (() => { for (let i = 0; i < 100; i++) cvm.zeros([1000]); })();
      for (let i = 0; i < 50 && cvm.memory().liveArrays > 0; i++) {
        globalThis.gc();
        await new Promise((r) => setTimeout(r, 10));
      }
      console.log(JSON.stringify({ live: cvm.memory().liveArrays, leaked: cvm.memory().leaked,
        warned: warnings.length, sample: warnings[0] || '' }));`;
    const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', code], { cwd: fileURLToPath(new URL('.', import.meta.url)) });
    const r = JSON.parse(out.toString().trim().split('\n').pop());
    assert.equal(r.live, 0);
    assert.equal(r.leaked, 100);
    assert.equal(r.warned, 100);
    assert.match(r.sample, /garbage-collected without dispose\(\)/);
    assert.match(r.sample, /created here/);
  }
});

for (const variant of VARIANTS) {
  test(`leak test ${variant}: 100,000 create/dispose cycles, flat heap, zero live arrays`, { timeout: 300000 }, async () => {
    const cvm = await init({ variant });
    // Each array is >= 1 KiB, so a leak of any one of them over 100,000 cycles (>= 100 MB)
    // would have to grow the heap.
    const src = new Int32Array(256);
    const cycle = (i) => {
      src[0] = i;
      const a = cvm.array(src, { shape: [16, 16] });
      const b = cvm.zeros([64, 64], 'float32');
      const c = cvm.add(a, a);
      c.toTypedArray();
      a.dispose();
      b.dispose();
      c.dispose();
    };
    for (let i = 0; i < 1000; i++) cycle(i);  // warm up the allocator
    const heap = cvm.memory().wasmHeapBytes;
    for (let i = 0; i < 100000; i++) cycle(i);
    cvm.scope(() => { for (let i = 0; i < 1000; i++) cvm.relu(cvm.array([i, -i])); });
    const m = cvm.memory();
    assert.equal(m.liveArrays, 0);
    assert.equal(m.bytes, 0);
    assert.equal(m.wasmHeapBytes, heap, 'the wasm heap grew');
  });
}
