// Builds the package: both wasm variants (../scripts/build-wasm.sh) and dist/ from src/.
//   node scripts/build.mjs                 wasm + JS
//   node scripts/build.mjs --js-only       JS only (dist/wasm/ is left as it is)
//   --wasm-tests                           also run the wasm Catch2 suites (build-wasm.sh's default)
//   --require-wasm                         fail unless dist/wasm/ holds both variants
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const args = new Set(process.argv.slice(2));

if (!args.has('--js-only')) {
  const script = join(root, '..', 'scripts', 'build-wasm.sh');
  if (!existsSync(script)) {
    console.error(`build: ${script} is missing (the WebAssembly build of the repository)`);
    process.exit(1);
  }
  // Build only: the wasm Catch2 suites are run by the repository's test command.
  const wasmArgs = args.has('--wasm-tests') ? [] : ['--no-test'];
  console.log(`build: bash ${script} ${wasmArgs.join(' ')}`);
  execFileSync('bash', [script, ...wasmArgs], { stdio: 'inherit', cwd: join(root, '..') });
}

mkdirSync(dist, { recursive: true });
for (const f of readdirSync(src)) {
  if (f.endsWith('.mjs')) copyFileSync(join(src, f), join(dist, f));
}
// The CommonJS entry inlines shared.mjs (errors, SIMD probe, Symbol.dispose) so that
// require('cvmrt') has them synchronously; `export` keywords are dropped.
const shared = readFileSync(join(src, 'shared.mjs'), 'utf8')
  .replace(/^\/\/.*\n/, '')
  .replace(/^export (const|function|class) /gm, '$1 ');
const cjs = readFileSync(join(src, 'index.cjs'), 'utf8').replace('/*@SHARED@*/', shared.trim());
if (/^\s*(export|import)\s/m.test(cjs)) throw new Error('build: dist/index.cjs still has ESM syntax');
writeFileSync(join(dist, 'index.cjs'), cjs);
// The CommonJS types are the ES module types (the same declarations, resolved as CJS).
copyFileSync(join(root, 'types', 'index.d.ts'), join(root, 'types', 'index.d.cts'));

if (args.has('--require-wasm')) {
  const missing = ['cvmrt-simd.mjs', 'cvmrt-simd.wasm', 'cvmrt-plain.mjs', 'cvmrt-plain.wasm']
    .filter((f) => !existsSync(join(dist, 'wasm', f)));
  if (missing.length) {
    console.error(`build: dist/wasm/ lacks ${missing.join(', ')}: run \`npm run build\` (needs emscripten)`);
    process.exit(1);
  }
}
console.log('build: dist/ ready');
