// Bundles the browser test page (main.js, index.html, public/fixtures.json and the installed cvmrt
// tarball in `site`) the way users would: Vite and webpack 5, each with a minimal configuration
// that says nothing about cvmrt or its wasm files. Each builder returns the folder to serve.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `vite build`, relative base; public/ is copied by Vite. Its warnings are collected. */
export async function buildVite(site) {
  const { build, createLogger } = await import('vite');
  const outDir = join(site, 'dist');
  const warnings = [];
  const customLogger = createLogger('warn');
  customLogger.warn = (msg) => warnings.push(msg);
  customLogger.warnOnce = customLogger.warn;
  await build({ root: site, base: './', customLogger, build: { outDir, emptyOutDir: true } });
  return { outDir, warnings };
}

/**
 * webpack 5 through its Node API: entry main.js, production mode, output in dist-webpack/; the
 * page's index.html is written there loading the bundle as webpack users do (a classic deferred
 * script), next to a copy of public/.
 */
export async function buildWebpack(site) {
  const { default: webpack } = await import('webpack');
  const outDir = join(site, 'dist-webpack');
  const compiler = webpack({
    context: site, entry: './main.js', mode: 'production',
    output: { path: outDir, filename: 'main.js', clean: true },
  });
  const stats = await new Promise((resolve, reject) => {
    compiler.run((err, s) => compiler.close((e) => (err || e ? reject(err || e) : resolve(s))));
  });
  const info = stats.toJson({ all: false, errors: true, warnings: true });
  if (stats.hasErrors()) {
    throw new Error(`webpack: ${info.errors.map((e) => e.message).join('\n')}`);
  }
  cpSync(join(site, 'public'), outDir, { recursive: true });
  const html = readFileSync(join(site, 'index.html'), 'utf8');
  const tag = '<script type="module" src="./main.js"></script>';
  if (!html.includes(tag)) throw new Error(`webpack: index.html has no ${tag}`);
  const page = html.replace(tag, '<script defer src="./main.js"></script>');
  writeFileSync(join(outDir, 'index.html'), page);
  // The wasm files (1.4-1.5 MiB) exceed webpack's 244 KiB performance hint: not a build problem.
  const warnings = info.warnings.map((w) => w.message).filter((m) => !/size limit/.test(m));
  return { outDir, warnings };
}

export const BUNDLERS = { vite: buildVite, webpack: buildWebpack };
