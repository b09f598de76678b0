// Browser test of the production build: both pages in Chromium against the native CLI's results.
// Debian's Chromium (headless, playwright-core) clicks every bundled input of both pages, with
// the simd build and with ?variant=plain, and compares with generated/public/native.json:
// Fashion classes and output hashes, BlazeFace output hashes and boxes; also a drawing, a photo
// from disk, the (fake) webcam and "verify". Saves dist/screenshots/<page>-<variant>.png and
// prints latencies and the bytes sent.
//   node scripts/test.mjs        (after npm run build; CHROMIUM_PATH overrides /usr/bin/chromium)
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { BUDGETS, transferBytes } from './sizes.mjs';

const demo = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(demo, 'dist');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const native = JSON.parse(readFileSync(join(dist, 'native.json'), 'utf8'));
const BOX_TOLERANCE = 1e-12;  // JavaScript's Math.exp and numpy's exp may differ in the last bit
const TIMEOUT = 120000;

const failures = [];
function check(ok, what) {
  console.log(`${ok ? 'PASS' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

// dist/ on 127.0.0.1, compressed as sizes.mjs counts it (gzip except images); counts bytes sent.
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.wasm': 'application/wasm', '.png': 'image/png' };
let bytesSent = 0;
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(dist, path.endsWith('/') ? `${path}index.html` : path);
  if (!file.startsWith(dist) || !existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  const raw = readFileSync(file);
  const gzip = transferBytes(file, raw) !== raw.length && /gzip/.test(req.headers['accept-encoding'] || '');
  const body = gzip ? gzipSync(raw, { level: 9 }) : raw;
  bytesSent += body.length;
  res.writeHead(200, { 'content-type': MIME[extname(file)] || 'application/octet-stream',
    'cache-control': 'max-age=600', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
  res.end(body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/`;

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const kb = (n) => `${(n / 1000).toFixed(1)} kB`;
const msText = (t) => (t === undefined ? '-' : `${t.toFixed(1)} ms`);

// One page visit in a fresh context (empty cache): `body` drives it; returns the figures.
async function visit(browser, file, variant, body) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.grantPermissions(['camera']);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`); });
  const label = `${file.replace('.html', '')}/${variant}`;
  bytesSent = 0;
  try {
    await page.goto(`${base}${file}${variant === 'plain' ? '?variant=plain' : ''}`);
    await page.waitForSelector('body[data-ready]', { timeout: TIMEOUT });
    check(await page.evaluate(() => window.demo.variant) === variant, `${label}: runs the ${variant} build`);
    // Runs an action and waits for its result (window.demo.runs grows by one).
    const result = async (action) => {
      const n = await page.evaluate(() => window.demo.runs.length);
      await action();
      await page.waitForFunction((k) => window.demo.runs.length > k || window.demo.error, n, { timeout: TIMEOUT });
      return page.evaluate(() => {
        const { source, hash, native: nat, cls, detections } = window.demo.last;
        return { source, hash, native: nat, cls, detections, error: window.demo.error };
      });
    };
    const verify = async () => {
      await page.click('#verify');
      await page.waitForSelector('#verified[data-verdict]', { timeout: TIMEOUT });
      return page.evaluate(() => window.demo.verify);
    };
    const figures = { label, firstLoad: 0 };
    await body({ page, label, result, verify, figures, firstResult: () => { figures.firstLoad ||= bytesSent; } });
    figures.withVerify = bytesSent;
    check(bytesSent <= BUDGETS[file],
      `${label}: ${kb(bytesSent)} sent in all, within the page's budget of ${kb(BUDGETS[file])}`);
    const runs = await page.evaluate(() => window.demo.runs);
    Object.assign(figures, { first: runs[0], steady: median(runs.slice(1)), runs: runs.length });
    mkdirSync(join(dist, 'screenshots'), { recursive: true });
    figures.screenshot = join(dist, 'screenshots', `${label.replace('/', '-')}.png`);
    await page.screenshot({ path: figures.screenshot, fullPage: true });
    check(!errors.length, `${label}: no console errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
    return figures;
  } finally {
    await context.close();
  }
}

async function fashion({ page, label, result, verify, firstResult }) {
  let right = 0;
  for (const [i, s] of native.fashion.samples.entries()) {
    const r = await result(() => page.click(`#grid canvas[data-index="${i}"]`));
    firstResult();
    const ok = r.cls === s.class && r.hash === s.hash && r.native === s.hash;
    if (!ok) console.log(`  image #${s.index}: class ${r.cls} vs native ${s.class}, hash ${r.hash} vs ${s.hash}`);
    right += ok;
  }
  check(right === native.fashion.samples.length,
    `${label}: ${right}/${native.fashion.samples.length} t10k images: the native CLI's class and output hash`);
  // A drawing (no native result): the other build must give the same bits.
  const box = await page.locator('#pad').boundingBox();
  const drawn = await result(async () => {
    await page.mouse.move(box.x + 60, box.y + 40);
    await page.mouse.down();
    for (const [x, y] of [[140, 40], [140, 160], [60, 160], [60, 40]]) {
      await page.mouse.move(box.x + x, box.y + y, { steps: 8 });
    }
    await page.mouse.up();
  });
  const v1 = await verify();
  check(drawn.source === 'your drawing' && v1.equal && v1.native === null && !!drawn.hash,
    `${label}: a drawing, verify: simd ${v1.simd?.slice(0, 12)} = plain ${v1.plain?.slice(0, 12)}`);
  const s = native.fashion.samples[0];
  await result(() => page.click('#grid canvas[data-index="0"]'));
  const v2 = await verify();
  check(v2.equal && v2.simd === s.hash && v2.plain === s.hash && v2.native === s.hash,
    `${label}: verify on t10k #${s.index}: simd, plain and native CLI hashes equal (${s.hash.slice(0, 12)}…)`);
}

// Detections equal to the native ones: the same count, every value within BOX_TOLERANCE.
function sameDetections(got, want) {
  const flat = (dets) => dets.flatMap((d) => [d.score, ...d.box, ...d.keypoints.flat()]);
  const a = flat(got);
  const b = flat(want);
  const identical = a.filter((v, i) => v === b[i]).length;
  const maxDiff = a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
  const ok = got.length === want.length && a.length === b.length && maxDiff <= BOX_TOLERANCE;
  return { ok, identical, of: b.length };
}

async function face({ page, label, result, verify, firstResult }) {
  for (const p of native.face.photos) {
    const r = await result(() => page.click(`#photos img[alt="${p.name}"]`));
    firstResult();
    const d = sameDetections(r.detections, p.detections);
    check(r.hash === p.hash && d.ok,
      `${label}: ${p.name}: output hash = native CLI's (${p.hash.slice(0, 12)}…), ` +
      `${r.detections.length} face(s) = native decode.py's (${d.identical}/${d.of} values bit-identical)`);
  }
  // The same photo picked from disk: the same pixels, so the same bits (no native hash shown).
  const astro = native.face.photos[0];
  const picked = await result(() => page.setInputFiles('#file', join(dist, astro.file)));
  check(picked.hash === astro.hash && picked.native === null,
    `${label}: ${astro.name} picked from disk: the same output hash`);
  // The webcam (Chromium's fake camera): three frames, then stop.
  const n = await page.evaluate(() => window.demo.runs.length);
  await page.click('#webcam');
  await page.waitForFunction((k) => window.demo.runs.length >= k + 3 || window.demo.error, n,
    { timeout: TIMEOUT });
  await page.click('#webcam');
  const cam = await page.evaluate(() => ({ source: window.demo.last.source, error: window.demo.error }));
  check(cam.source === 'webcam frame' && !cam.error,
    `${label}: webcam frames run${cam.error ? `: ${cam.error}` : ''}`);
  await page.waitForTimeout(500);  // the frame in flight
  // Steady state: each photo twice more, the one with a face last; then verify it.
  const last = native.face.photos[0];
  for (const p of [...native.face.photos, ...native.face.photos, last]) {
    await result(() => page.click(`#photos img[alt="${p.name}"]`));
  }
  const v = await verify();
  check(v.equal && v.simd === last.hash && v.plain === last.hash && v.native === last.hash,
    `${label}: verify on ${last.name}: simd, plain and native CLI hashes equal (${last.hash.slice(0, 12)}…)`);
}

if (!existsSync(chromiumPath)) {
  console.error(`test: ${chromiumPath} not found (apt-get install -y chromium)`);
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: chromiumPath, headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
});
const figures = [];
try {
  for (const variant of ['simd', 'plain']) {
    figures.push(await visit(browser, 'fashion.html', variant, fashion));
    figures.push(await visit(browser, 'face.html', variant, face));
  }
} catch (e) {
  check(false, `test: ${e.stack || e}`);
} finally {
  await browser.close();
  server.close();
}

console.log('\npage/variant      first inference  steady state (median)  sent: first result  with verify');
for (const f of figures) {
  const steady = `${msText(f.steady)} of ${f.runs - 1}`;
  console.log(`${f.label.padEnd(18)}${msText(f.first).padStart(15)}  ${steady.padStart(21)}` +
    `  ${kb(f.firstLoad).padStart(18)}  ${kb(f.withVerify).padStart(11)}`);
}
for (const f of figures) console.log(`screenshot: ${f.screenshot}`);
console.log(failures.length ? `\nFAIL: ${failures.length} check(s) failed` : '\nPASS: every check');
process.exit(failures.length ? 1 : 0);
