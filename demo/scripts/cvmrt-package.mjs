// Keeps node_modules/cvmrt equal to the tarball that package.json names.
// npm keeps an older copy when the tarball is rebuilt under the same name: this reinstalls it
// when the integrity differs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const demo = join(dirname(fileURLToPath(import.meta.url)), '..');
const spec = JSON.parse(readFileSync(join(demo, 'package.json'), 'utf8')).dependencies.cvmrt;
const tarball = resolve(demo, spec.replace(/^file:/, ''));
const version = JSON.parse(readFileSync(join(demo, '..', 'js', 'package.json'), 'utf8')).version;
if (!tarball.endsWith(`cvmrt-${version}.tgz`)) {
  console.error(`cvmrt-package: package.json depends on ${spec}, but js/ is version ${version}: update it`);
  process.exit(1);
}
if (!existsSync(tarball)) {
  console.error(`cvmrt-package: ${relative(demo, tarball)} is missing: ` +
    '(cd ../js && npm pack --pack-destination ../build)');
  process.exit(1);
}
const want = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
const lock = join(demo, 'node_modules', '.package-lock.json');
const have = existsSync(lock) && JSON.parse(readFileSync(lock, 'utf8')).packages['node_modules/cvmrt']?.integrity;
if (have !== want) {
  console.log(`cvmrt-package: node_modules/cvmrt is not ${relative(demo, tarball)}: reinstalling it`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', tarball],
    { cwd: demo, stdio: 'inherit' });
}
