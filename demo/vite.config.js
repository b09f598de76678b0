// Vite configuration of the demo: two pages, the prepared data as public files, module workers.
// (cvmrt loads its wasm through import.meta.url, which Vite follows in the worker bundle.)
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  publicDir: 'generated/public',
  // The dev server's pre-bundling would move cvmrt's code away from its wasm files.
  optimizeDeps: { exclude: ['cvmrt'] },
  worker: { format: 'es' },
  build: {
    rollupOptions: { input: { index: 'index.html', fashion: 'fashion.html', face: 'face.html' } },
  },
});
