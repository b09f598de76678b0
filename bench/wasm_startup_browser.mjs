// Startup of the npm package in headless Chromium: a fresh browser profile per run, then the time
// from the page's import of js/dist/index.mjs to init() and to the first result of a small model.
//
//   node bench/wasm_startup_browser.mjs [--runs N] [--json]
//
// Serves js/dist and examples/models on 127.0.0.1 (no bundler: the package's own ES modules and
// wasm files, over HTTP as a browser gets them, so compilation is streaming) and prints the
// median per build (simd, plain) of: import of the package, init({ variant }), fetching and
// loading lenet.json + lenet.params and the first run. Needs /usr/bin/chromium (or
// CHROMIUM_PATH), playwright-core in js/node_modules (`cd js && npm ci`) and js/dist.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 5;
const asJson = argv.includes('--json');
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: node bench/wasm_startup_browser.mjs [--runs N] [--json]');
  process.exit(2);
}
for (const [path, fix] of [[chromiumPath, 'apt-get install -y chromium'],
  [join(repo, 'js', 'dist', 'index.mjs'), 'cd js && npm run build'],
  [join(repo, 'js', 'node_modules', 'playwright-core'), 'cd js && npm ci']]) {
  if (!existsSync(path)) {
    console.error(`wasm_startup_browser: ${path} is missing (${fix})`);
    process.exit(2);
  }
}
const { chromium } = createRequire(join(repo, 'js', 'package.json'))('playwright-core');

const MIME = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json' };
const PAGE = `<!doctype html><meta charset="utf-8"><title>cvmrt startup</title>
<script type="module">
  const variant = new URLSearchParams(location.search).get('variant');
  const t0 = performance.now();
  const { init } = await import('/js/dist/index.mjs');
  const t1 = performance.now();
  const cvm = await init({ variant });
  const t2 = performance.now();
  const [json, params] = await Promise.all([
    fetch('/examples/models/lenet.json').then((r) => r.text()),
    fetch('/examples/models/lenet.params').then((r) => r.arrayBuffer())]);
  const model = cvm.loadModel({ json, params: new Uint8Array(params) });
  const out = Object.values(model.run({ data: new Int8Array(784) }))[0].toTypedArray();
  const t3 = performance.now();
  window.startup = { variant: cvm.variant ?? variant, outputs: out.length, import_ms: t1 - t0,
                     init_ms: t2 - t1, first_result_ms: t3 - t2, total_ms: t3 - t1 };
</script>`;

function serve() {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (path === '/startup.html') {
      res.writeHead(200, { 'content-type': MIME['.html'] }).end(PAGE);
      return;
    }
    const file = join(repo, path);
    const allowed = ['js/dist/', 'examples/models/'].some((p) => file.startsWith(join(repo, p)));
    if (!allowed || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': MIME[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function once(port, variant) {
  const profile = mkdtempSync(join(tmpdir(), 'cvmrt_startup_'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${port}/startup.html?variant=${variant}`);
    await page.waitForFunction(() => window.startup !== undefined || null, null, { timeout: 60000 })
      .catch(() => { throw new Error(`no result from the page: ${errors.join('; ')}`); });
    return await page.evaluate(() => window.startup);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const server = await serve();
const { port } = server.address();
const results = [];
try {
  for (const variant of ['simd', 'plain']) {
    const r = [];
    for (let i = 0; i < runs; i++) r.push(await once(port, variant));
    const med = (k) => r.map((x) => x[k]).sort((a, b) => a - b)[r.length >> 1];
    results.push({ variant, runs, import_ms: med('import_ms'), init_ms: med('init_ms'),
                   first_result_ms: med('first_result_ms'), total_ms: med('total_ms') });
  }
} finally {
  server.close();
}
if (asJson) {
  results.forEach((r) => console.log(JSON.stringify({ startup_chromium: r })));
} else {
  console.log(`== startup in headless Chromium (median of ${runs} fresh profiles, ms): ` +
    'import of the package, init(), then fetching, loading and running lenet');
  const f = (x) => x.toFixed(1);
  console.log('build  import  init()  load + first run  init() to first result');
  for (const r of results) {
    console.log(`${r.variant.padEnd(5)}  ${f(r.import_ms).padStart(6)}  ${f(r.init_ms).padStart(6)}  ` +
      `${f(r.first_result_ms).padStart(16)}  ${f(r.total_ms).padStart(22)}`);
  }
}
