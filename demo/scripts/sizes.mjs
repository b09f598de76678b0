// Prints each page's transfer size after `vite build` against its budget; exit 1 when over.
// Counts every file the page can fetch, gzip -9 as a compressing server sends it (images as
// they are).
//   node scripts/sizes.mjs [DIST]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

export const BUDGETS = { 'fashion.html': 1_000_000, 'face.html': 1_500_000 };
const IMAGE = /\.(png|jpe?g|webp|gif)$/;

/** Bytes a server sends for `body`: gzip -9, except for images (already compressed). */
export function transferBytes(name, body) {
  return IMAGE.test(name) ? body.length : gzipSync(body, { level: 9 }).length;
}

/** The files `page` loads: its scripts, styles, worker and wasm, and the data it fetches. */
export function pageFiles(dist, page) {
  const assets = readdirSync(join(dist, 'assets')).map((f) => `assets/${f}`);
  const native = JSON.parse(readFileSync(join(dist, 'native.json'), 'utf8'));
  const data = page === 'fashion.html' ? [native.fashion.model, native.fashion.images]
    : [native.face.model, ...native.face.photos.map((p) => p.file)];
  const files = new Set([page, 'native.json', ...data]);
  const visit = (file) => {
    const text = readFileSync(join(dist, file), 'latin1');
    for (const a of assets) {
      if (!files.has(a) && text.includes(a.slice('assets/'.length))) {
        files.add(a);
        if (/\.(js|css)$/.test(a)) visit(a);
      }
    }
  };
  visit(page);
  return [...files];
}

function main(dist) {
  const kb = (n) => `${(n / 1000).toFixed(1)} kB`.padStart(10);
  let over = false;
  for (const [page, budget] of Object.entries(BUDGETS)) {
    const rows = pageFiles(dist, page).map((f) => {
      const body = readFileSync(join(dist, f));
      return { f, raw: body.length, sent: transferBytes(f, body), verify: /cvmrt-plain/.test(f) };
    });
    const sum = (list, k) => list.reduce((n, r) => n + r[k], 0);
    const first = rows.filter((r) => !r.verify);
    const total = sum(rows, 'sent');
    console.log(`\n${page}: ${rows.length} files          raw     transfer`);
    for (const r of rows) {
      console.log(`  ${r.f.padEnd(38)}${kb(r.raw)} ${kb(r.sent)}${r.verify ? '  (verify only)' : ''}`);
    }
    console.log(`  ${'first load (simd build)'.padEnd(38)}${kb(sum(first, 'raw'))} ${kb(sum(first, 'sent'))}`);
    console.log(`  ${'with verify (+ plain build)'.padEnd(38)}${kb(sum(rows, 'raw'))} ${kb(total)}` +
      `  budget ${kb(budget).trim()}: ${total <= budget ? 'OK' : 'OVER'}`);
    over ||= total > budget;
  }
  if (over) {
    console.error('\nsizes: a page is over its budget');
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv[2] || 'dist');
