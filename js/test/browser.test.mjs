// Runs the browser test (test/browser/run.mjs) when Debian's Chromium is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { JS_ROOT } from './helpers.mjs';

const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

test('browser: Vite page in headless Chromium gives the native bits', { timeout: 300000 }, (t) => {
  if (!existsSync(chromium)) {
    t.skip(`${chromium} not found (apt-get install -y chromium): browser test not run`);
    return;
  }
  const r = spawnSync(process.execPath, [join(JS_ROOT, 'test', 'browser', 'run.mjs')], { cwd: JS_ROOT, encoding: 'utf8' });
  t.diagnostic(r.stdout.trim().split('\n').filter((l) => /passed|FAIL|screenshot/.test(l)).join('\n'));
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});
