// Shared test helpers: both wasm variants, repository paths, .npy reading, the native CLI, the
// packed tarball and the README examples.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init } from 'cvmrt';

export const JS_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = join(JS_ROOT, '..');
// CVMRT_TEST_VARIANTS=plain limits the suites to one build (e.g. while the other is missing).
export const VARIANTS = (process.env.CVMRT_TEST_VARIANTS || 'simd,plain').split(',');

const instances = new Map();
/** One runtime per variant, shared by the tests of a file. */
export function runtime(variant) {
  if (!instances.has(variant)) instances.set(variant, init({ variant }));
  return instances.get(variant);
}

/** Bytes of a hex string. */
export function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

/** JSON.parse keeping integers beyond 2^53 exact (as strings, to be read as BigInt). */
export function parseJsonExact(text) {
  return JSON.parse(text.replace(/(?<=[[,:]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '"$1"'));
}

/** { shape, dtype, data } of a .npy file (format 1.0/2.0, little-endian, C order). */
export function readNpy(path) {
  const b = readFileSync(path);
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.subarray(start, start + hlen).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${path}: Fortran order`);
  const dtypes = { '|i1': 'int8', '<i4': 'int32', '<i8': 'int64', '|u1': 'uint8', '<f4': 'float32' };
  const dtype = dtypes[descr];
  if (!dtype) throw new Error(`${path}: unsupported dtype ${descr}`);
  const data = b.subarray(start + hlen);
  return { shape, dtype, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** The native CLI, or null (CVMRT_CLI overrides, "none" disables; else ../build/tools/cvmrt). */
export function nativeCli() {
  if (process.env.CVMRT_CLI === 'none') return null;
  const candidates = [process.env.CVMRT_CLI, join(REPO, 'build', 'tools', 'cvmrt')].filter(Boolean);
  return candidates.find((p) => existsSync(p)) || null;
}

/** Runs `cvmrt run ... --format json` and returns the parsed JSON report. */
export function nativeRun(cli, args) {
  const dir = mkdtempSync(join(tmpdir(), 'js_eng_cli_'));
  try {
    const out = join(dir, 'out.json');
    try {
      execFileSync(cli, ['run', ...args, '-o', out, '--format', 'json'], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      // A postprocess layout failure still writes the outputs (exit status 1).
      if (!existsSync(out)) throw e;
    }
    return parseJsonExact(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function bytesEqual(a, b) {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm pack` of the package into `dir` (prepack refreshes dist/): { tarball, files }. */
export function packPackage(dir) {
  const out = execFileSync(npm, ['pack', '--json', '--pack-destination', dir],
    { cwd: JS_ROOT, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const packed = JSON.parse(out.slice(out.indexOf('[')))[0];
  return { tarball: join(dir, packed.filename), files: packed.files.map((f) => f.path) };
}

/** Makes `project` an ES-module npm project that installed `tarball` (offline), as users do. */
export function installTarball(project, tarball) {
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'),
    JSON.stringify({ name: 'js-eng-consumer', private: true, type: 'module' }));
  execFileSync(npm, ['install', '--offline', '--no-audit', '--no-fund', tarball],
    { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  return project;
}

/**
 * The code of the README.md example marked `<!-- readme-test: NAME -->`: the fenced block right
 * after the marker (each marker appears once).
 */
export function readmeExample(name, readme = join(REPO, 'README.md')) {
  const text = readFileSync(readme, 'utf8');
  const marker = `<!-- readme-test: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0 || text.indexOf(marker, at + 1) >= 0) {
    throw new Error(`${readme}: expected one "${marker}", found ${at < 0 ? 'none' : 'several'}`);
  }
  const m = /^\s*```[\w-]*\n([\s\S]*?)^```\s*$/m.exec(text.slice(at + marker.length));
  if (!m || m.index > 4) throw new Error(`${readme}: no fenced code block right after "${marker}"`);
  return m[1];
}
