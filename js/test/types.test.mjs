// The hand-written types: tsc --noEmit over usage files (ESM and CJS), and `using` compiled by
// tsc and run against the package.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { JS_ROOT } from './helpers.mjs';

const tsc = join(JS_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

test('types: tsc --noEmit accepts the usage files (ESM and CJS entry)', () => {
  execFileSync(process.execPath, [tsc, '-p', join(JS_ROOT, 'test', 'types', 'tsconfig.json')], { stdio: 'pipe' });
});

test('types: the CJS declarations equal the ESM ones', () => {
  assert.equal(readFileSync(join(JS_ROOT, 'types', 'index.d.cts'), 'utf8'),
    readFileSync(join(JS_ROOT, 'types', 'index.d.ts'), 'utf8'));
});

test('types: a misuse is a compile error (the types are not any)', () => {
  const dir = mkdtempSync(join(JS_ROOT, 'test', 'types', '.js_eng_bad_'));
  try {
    writeFileSync(join(dir, 'bad.ts'), "import { init } from 'cvmrt';\n" +
      'export async function f() { const c = await init(); const s: string = c.zeros([1]).size; return s; }\n' +
      // scope() takes synchronous functions only.
      'export async function g() { const c = await init(); return c.scope(async () => c.zeros([1])); }\n');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, lib: ['ES2022', 'ESNext.Disposable', 'DOM'], types: [] },
      files: ['bad.ts'],
    }));
    let out = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { stdio: 'pipe' });
    } catch (e) {
      out = e.stdout.toString();
    }
    assert.match(out, /bad\.ts\(2,.*TS2322/);
    assert.match(out, /bad\.ts\(3,.*TS2322/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('types: `using` (compiled by tsc) disposes at block end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'js_eng_using_'));
  try {
    execFileSync(process.execPath, [tsc, '--target', 'ES2022', '--module', 'ES2022', '--moduleResolution', 'bundler',
      '--lib', 'ES2022,ESNext.Disposable,DOM', '--skipLibCheck', '--rootDir', join(JS_ROOT, 'test', 'types'), '--outDir', dir,
      join(JS_ROOT, 'test', 'types', 'using.ts')], { stdio: 'pipe', cwd: JS_ROOT });
    const file = join(dir, 'using.js');
    const entry = pathToFileURL(join(JS_ROOT, 'dist', 'index.mjs')).href;
    writeFileSync(join(dir, 'using.mjs'), readFileSync(file, 'utf8').replace(/from 'cvmrt'/, `from '${entry}'`));
    const out = JSON.parse(execFileSync(process.execPath, [join(dir, 'using.mjs')]).toString());
    assert.deepEqual(out, { inner: 2, after: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('types: every public member of the runtime, arrays and models is declared', async () => {
  const { runtime, VARIANTS } = await import('./helpers.mjs');
  const cvm = await runtime(VARIANTS[VARIANTS.length - 1]);
  const dts = readFileSync(join(JS_ROOT, 'types', 'index.d.ts'), 'utf8');
  const body = (name) => {
    const start = dts.indexOf(`export interface ${name} `);
    assert.ok(start >= 0, `interface ${name} missing`);
    return dts.slice(start, dts.indexOf('\n}\n', start));
  };
  const publicNames = (obj) => Object.getOwnPropertyNames(Object.getPrototypeOf(obj))
    .filter((k) => k !== 'constructor' && !k.startsWith('_') && k !== 'handle');
  const a = cvm.zeros([1]);
  const models = join(JS_ROOT, '..', 'examples', 'models');
  const m = cvm.loadModel({ json: readFileSync(join(models, 'reduce.json'), 'utf8'), params: readFileSync(join(models, 'reduce.params')) });
  const missing = [];
  for (const [iface, obj] of [['Cvm', cvm], ['CvmArray', a], ['CvmModel', m]]) {
    const text = body(iface);
    for (const k of publicNames(obj)) if (!new RegExp(`\\b${k}\\b[(?:<]|readonly ${k}\\b`).test(text)) missing.push(`${iface}.${k}`);
  }
  a.dispose();
  m.dispose();
  assert.deepEqual(missing, []);
});
