// Runs the browser test (test/browser/run.mjs) when Debian's Chromium is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { JS_ROOT } from './helpers.mjs';

const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

test('browser: the page bundled by Vite and by webpack 5 gives the native bits in headless Chromium', { timeout: 300000 }, (t) => {
  if (!existsSync(chromium)) {
    t.skip(`${chromium} not found (apt-get install -y chromium): browser test not run`);
    return;
  }
  const r = spawnSync(process.execPath, [join(JS_ROOT, 'test', 'browser', 'run.mjs')], { cwd: JS_ROOT, encoding: 'utf8' });
  for (const l of r.stdout.trim().split('\n')) if (/passed|FAIL|screenshot|built|bundlers:/.test(l)) t.diagnostic(l);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});
