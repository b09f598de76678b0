// Browser test: packs cvmrt, installs the tarball into a tiny page, bundles that page with Vite
// and with webpack 5 (no configuration for cvmrt or its wasm files: bundlers.mjs), serves each
// build on 127.0.0.1, drives Debian's Chromium (headless, playwright-core) and checks that
// README.md's browser example works and that operators and a model give the native bits; saves
// out/screenshot-<bundler>.png next to this file (ignored by git).
//   node test/browser/run.mjs [--keep] [--only=vite|webpack]
//   (from js/; needs /usr/bin/chromium and the wasm builds)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installTarball, packPackage, readmeExample } from '../helpers.mjs';
import { BUNDLERS } from './bundlers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const jsRoot = join(here, '..', '..');
const repo = join(jsRoot, '..');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const keep = process.argv.includes('--keep');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const bundlers = Object.keys(BUNDLERS).filter((b) => !only || only.split(',').includes(b));

if (!existsSync(chromiumPath)) {
  console.error(`browser test: ${chromiumPath} not found (apt-get install -y chromium)`);
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'js_eng_browser_'));
const log = (s, label = '') => console.log(`browser${label ? `[${label}]` : ''}: ${s}`);

function hex(u8) {
  return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('hex');
}

// Vector tensors as hex bytes (the page decodes them); the expectations are native bits.
function tensorHex(t) {
  if (t.data_hex !== undefined) return t.data_hex;
  const A = { int8: Int8Array, int32: Int32Array, uint8: Uint8Array, bool: Uint8Array, int16: Int16Array }[t.dtype];
  return hex(new Uint8Array(new A(t.data.map(Number)).buffer));
}

function pickCases() {
  const picks = [['generated/conv2d.json', 3], ['generated/dense.json', 2], ['generated/max_pool2d.json', 1],
    ['generated/broadcast_add.json', 1], ['generated/cvm_right_shift.json', 1], ['hand/array.json', 4]];
  const out = [];
  for (const [file, n] of picks) {
    const cases = JSON.parse(readFileSync(join(repo, 'tests', 'vectors', file), 'utf8'))
      .filter((c) => c.expected && c.inputs.every((t) => t.data_hex !== undefined || !/64|float/.test(t.dtype)));
    for (const c of cases.slice(0, n)) {
      out.push({
        op: c.op, name: c.name, attrs: c.attrs || {},
        inputs: c.inputs.map((t) => ({ shape: t.shape, dtype: t.dtype, hex: tensorHex(t) })),
        expected: c.expected.outputs.map((t) => ({ shape: t.shape, hex: tensorHex(t) })),
      });
    }
  }
  return out;
}

function modelFixture() {
  const dir = join(repo, 'examples', 'models');
  const npy = readFileSync(join(dir, 'lenet_input.npy'));
  const hlen = npy.readUInt16LE(8);
  const input = npy.subarray(10 + hlen);
  const fx = {
    name: 'lenet', json: readFileSync(join(dir, 'lenet.json'), 'utf8'),
    params: readFileSync(join(dir, 'lenet.params')).toString('base64'),
    input: input.toString('base64'), inputShape: [1, 1, 28, 28],
  };
  const cli = process.env.CVMRT_CLI === 'none' ? null
    : [process.env.CVMRT_CLI, join(repo, 'build', 'tools', 'cvmrt')].find((p) => p && existsSync(p));
  if (cli) {
    const out = join(work, 'native.json');
    execFileSync(cli, ['run', join(dir, 'lenet.json'), '--params', join(dir, 'lenet.params'),
      '--input', `data=${join(dir, 'lenet_input.npy')}`, '-o', out, '--format', 'json'], { stdio: 'ignore' });
    const ref = JSON.parse(readFileSync(out, 'utf8'));
    Object.assign(fx, { output: ref.outputs[0].data, cost: ref.cost, argmax: ref.result.values[0], source: 'native CLI' });
  } else {
    const ref = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')).lenet;
    Object.assign(fx, { output: ref.output, cost: ref.cost, argmax: ref.argmax, source: 'expected.json (no native CLI)' });
  }
  return fx;
}

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
  '.json': 'application/json', '.css': 'text/css' };

function serve(root) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': MIME[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// Loads `url` in a new tab of the shared Chromium, waits for the page's verdict, saves a
// screenshot and logs every check; true when all pass, both variants ran and nothing was logged
// as an error.
async function checkPage(context, url, label) {
  const page = await context.newPage();
  const consoleErrors = [];
  // Failed loads are reported by URL (the browser's own favicon request excepted).
  page.on('console', (m) => { if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) consoleErrors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400 && !/\/favicon\.ico$/.test(r.url())) consoleErrors.push(`HTTP ${r.status()} ${r.url()}`); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  try {
    await page.goto(url);
    await page.waitForSelector('body[data-status]', { timeout: 120000 });
    const results = await page.evaluate(() => window.__cvmrtResults);
    const shot = join(here, 'out', `screenshot-${label}.png`);
    mkdirSync(dirname(shot), { recursive: true });
    await page.screenshot({ path: shot, fullPage: true });
    for (const r of results) {
      log(`${r.ok ? 'PASS' : 'FAIL'} ${r.check} [${r.variant}/${r.backend}] ${r.detail}`, label);
    }
    if (consoleErrors.length) log(`FAIL console errors: ${consoleErrors.join(' | ')}`, label);
    const passed = results.filter((r) => r.ok).length;
    const variants = new Set(results.map((r) => r.variant));
    const missing = ['simd', 'plain'].filter((v) => !variants.has(v));
    if (missing.length) log(`FAIL variant(s) not run: ${missing.join(', ')}`, label);
    const ok = passed === results.length && passed > 0 && !missing.length && !consoleErrors.length;
    log(`${ok ? 'PASS' : 'FAIL'} ${passed} passed, ${results.length - passed} failed ` +
      `(variants ${[...variants].join(', ')})`, label);
    log(`screenshot: ${shot}`, label);
    return ok;
  } finally {
    await page.close();
  }
}

let context;
let profile;
const servers = [];
let status = 1;
try {
  // 1. The package as users get it: npm pack, then npm install of the tarball (offline).
  const site = join(work, 'site');
  cpSync(join(here, 'page'), site, { recursive: true });
  installTarball(site, packPackage(work).tarball);
  writeFileSync(join(site, 'readme-example.js'), readmeExample('browser'));
  mkdirSync(join(site, 'public'));
  const model = modelFixture();
  writeFileSync(join(site, 'public', 'fixtures.json'), JSON.stringify({ ops: pickCases(), model }));
  log(`model expectations from ${model.source}`);

  // 2. Debian's Chromium, headless, with a fresh profile (one tab per bundler).
  const { chromium } = await import('playwright-core');
  profile = mkdtempSync(join(tmpdir(), 'js_eng_profile_'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath, headless: true, viewport: { width: 1100, height: 760 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

  // 3. Each bundler builds the same page with no configuration for the wasm files; each build is
  // served on its own port and checked (a failed build fails that bundler, the others still run).
  const verdicts = {};
  for (const label of bundlers) {
    const t0 = performance.now();
    let ok = false;
    try {
      const { outDir, warnings } = await BUNDLERS[label](site);
      const secs = ((performance.now() - t0) / 1000).toFixed(1);
      log(`built in ${secs} s`, label);
      if (warnings.length) log(`FAIL build warnings: ${warnings.join(' | ')}`, label);
      const server = await serve(outDir);
      servers.push(server);
      const url = `http://127.0.0.1:${server.address().port}/`;
      ok = await checkPage(context, url, label) && !warnings.length;
    } catch (e) {
      log(`FAIL ${e && e.stack || e}`, label);
    }
    verdicts[label] = ok;
  }
  const failed = bundlers.filter((b) => !verdicts[b]);
  const summary = bundlers.map((b) => `${b} ${verdicts[b] ? 'PASS' : 'FAIL'}`);
  console.log(`bundlers: ${summary.join(', ')}`);
  status = bundlers.length && !failed.length ? 0 : 1;
} catch (e) {
  console.error(e);
} finally {
  if (context) await context.close();
  for (const server of servers) server.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (!keep) rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}
process.exit(status);
