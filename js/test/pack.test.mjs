// npm pack the package, install the tarball into a fresh project (offline) and use it from an
// ES module, a CommonJS script and TypeScript there, and run the README's Node examples there.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { JS_ROOT, REPO, installTarball, packPackage, readmeExample } from './helpers.mjs';

let dir;
let project;
let packed;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'js_eng_pack_'));
  packed = packPackage(dir);
  project = installTarball(join(dir, 'consumer'), packed.tarball);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('pack: the tarball holds dist/ and types/ only (plus package.json and README)', () => {
  const paths = packed.files;
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

/** Runs `code` as `file` in the installed project: { status, stdout, stderr }. */
function runNode(file, code) {
  writeFileSync(join(project, file), code);
  return spawnSync(process.execPath, [join(project, file)], { cwd: project, encoding: 'utf8' });
}

/** Runs `code` as `file` in the installed project; its stdout (it must exit with 0). */
function runScript(file, code) {
  const r = runNode(file, code);
  assert.equal(r.status, 0, `${file} failed: ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

function runIn(file, code) {
  return JSON.parse(runScript(file, code).trim());
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

/** The lines a README example printed, by their first word ("add:", "lenet:", ...). */
function printed(out) {
  return new Map(out.trim().split('\n').map((l) => {
    const space = l.indexOf(' ');
    return [l.slice(0, space), l.slice(space + 1)];
  }));
}

test('pack: the README Node ES module example runs in the installed project', () => {
  // It reads the example LeNet model by paths relative to the repository root.
  const models = join(project, 'examples', 'models');
  mkdirSync(models, { recursive: true });
  for (const f of ['lenet.json', 'lenet.params', 'lenet_input.bin']) {
    copyFileSync(join(REPO, 'examples', 'models', f), join(models, f));
  }
  const out = printed(runScript('readme-esm.mjs', readmeExample('node-esm')));
  const version = JSON.parse(readFileSync(join(JS_ROOT, 'package.json'), 'utf8')).version;
  assert.equal(out.get('cvmrt'), `${version}, simd build, backend wasm`);
  assert.equal(out.get('add:'), '[[11,22,33],[14,25,36]]');
  assert.equal(out.get('views:'), '[[1,4],[2,5],[3,6]] [[3,2,1],[6,5,4]]');
  // Each output is x[i][j] - x[i+1][j+1] of the 3x3 ramp.
  assert.equal(out.get('conv2d:'), '[[[[-4,-4],[-4,-4]]]]');
  const graph = JSON.parse(readFileSync(join(models, 'lenet.json'), 'utf8'));
  const paramNames = graph.nodes.filter((nd) => nd.op === 'null' && nd.name !== 'data').map((nd) => nd.name);
  assert.deepEqual(out.get('params:').split(' ').sort(), paramNames.sort());
  const want = JSON.parse(readFileSync(join(REPO, 'examples', 'models', 'expected.json'), 'utf8')).lenet;
  assert.equal(out.get('lenet:'), `${JSON.stringify([want.output])} class ${want.argmax} cost ${want.cost.total}`);
  assert.match(out.get('error:'), /^op "add": shapes \(2, 3\) and \(2\) cannot be broadcast/);
  assert.equal(out.get('live'), 'arrays: 0');
});

test('pack: the quick start of js/README.md runs in the installed project', () => {
  const out = runScript('quickstart.mjs', readmeExample('quickstart', join(JS_ROOT, 'README.md')));
  assert.equal(out.trim(), '[[11,22,33],[14,25,36]]');
});

test('pack: the README CommonJS example runs in the installed project', () => {
  const out = printed(runScript('readme-cjs.cjs', readmeExample('node-cjs')));
  assert.equal(out.get('relu:'), '[3,0,4,0,5] plain');
});

test('pack: init() leaves the process error handlers to the application', () => {
  // An application's unhandledRejection handler keeps the process alive.
  const handled = runScript('rejection.mjs', `import { init } from 'cvmrt';\nawait init();
process.on('unhandledRejection', (r) => console.log('handled', r.message));
Promise.reject(new Error('rejected'));
setTimeout(() => console.log('alive'), 20);`);
  assert.equal(handled.trim(), 'handled rejected\nalive');
  // An uncaught exception is reported at its own line, not at the wasm glue's minified one.
  const r = runNode('uncaught.mjs', `import { init } from 'cvmrt';\nawait init();
setTimeout(() => { throw new Error('app bug'); }, 0);`);
  assert.equal(r.status, 1);
  assert.ok(r.stderr.length < 4000, `stderr is ${r.stderr.length} characters: ${r.stderr.slice(0, 300)}`);
  assert.match(r.stderr, /uncaught\.mjs:3\n.*throw new Error\('app bug'\)/);
});
