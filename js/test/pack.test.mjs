// npm pack the package, install the tarball into a fresh project (offline) and use it from an
// ES module, a CommonJS script and TypeScript there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { JS_ROOT } from './helpers.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let dir;
let project;
let packed;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'js_eng_pack_'));
  const out = execFileSync(npm, ['pack', '--json', '--pack-destination', dir], { cwd: JS_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  packed = JSON.parse(out.toString().slice(out.toString().indexOf('[')))[0];
  project = join(dir, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'js-eng-consumer', private: true, type: 'module' }));
  execFileSync(npm, ['install', '--offline', '--no-audit', '--no-fund', join(dir, packed.filename)],
    { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('pack: the tarball holds dist/ and types/ only (plus package.json and README)', () => {
  const paths = packed.files.map((f) => f.path);
  const stray = paths.filter((p) => !/^(dist\/|types\/|package\.json$|README\.md$|LICENSE)/.test(p));
  assert.deepEqual(stray, []);
  for (const f of ['dist/index.mjs', 'dist/index.cjs', 'types/index.d.ts', 'types/index.d.cts',
    'dist/wasm/cvmrt-simd.mjs', 'dist/wasm/cvmrt-simd.wasm', 'dist/wasm/cvmrt-plain.mjs', 'dist/wasm/cvmrt-plain.wasm']) {
    assert.ok(paths.includes(f), `${f} missing from the tarball`);
  }
});

const check = `
  const a = cvm.array([[1, 2], [3, 4]]);
  const sum = cvm.add(a, [10, 20]).toArray();
  let logic = false;
  try { cvm.add(a, [1, 2, 3]); } catch (e) { logic = e instanceof CvmLogicError && e.status === 1; }
  const back = cvm.loadParams(cvm.saveParams({ a })).get('a').toArray();
  console.log(JSON.stringify({ variant: cvm.info().variant, sum, logic, back }));`;

function runIn(file, code) {
  writeFileSync(join(project, file), code);
  return JSON.parse(execFileSync(process.execPath, [join(project, file)], { cwd: project }).toString().trim());
}

test('pack: ESM import in the installed project', () => {
  const r = runIn('esm.mjs', `import { init, CvmLogicError } from 'cvmrt';\nconst cvm = await init();\n${check}`);
  assert.deepEqual(r.sum, [[11, 22], [13, 24]]);
  assert.equal(r.logic, true);
  assert.deepEqual(r.back, [[1, 2], [3, 4]]);
});

test('pack: CJS require in the installed project (both variants)', () => {
  for (const variant of ['simd', 'plain']) {
    const r = runIn(`cjs-${variant}.cjs`, `const { init, CvmLogicError } = require('cvmrt');\n` +
      `init({ variant: '${variant}' }).then((cvm) => {${check}\n});`);
    assert.equal(r.variant, variant);
    assert.deepEqual(r.sum, [[11, 22], [13, 24]]);
    assert.equal(r.logic, true, 'CJS and ESM share the error classes');
  }
});

test('pack: the usage files type-check against the installed package', () => {
  for (const f of ['usage.ts', 'usage-cjs.cts', 'tsconfig.json']) {
    copyFileSync(join(JS_ROOT, 'test', 'types', f), join(project, f));
  }
  execFileSync(process.execPath, [join(JS_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(project, 'tsconfig.json')],
    { cwd: project, stdio: 'pipe' });
});
