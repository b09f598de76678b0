// Shared page code: the inference worker client, latency figures and the "verify" panel.
// Also ?variant= and the runtime line; verify runs the other wasm build in a second worker.
import './style.css';

const wanted = new URLSearchParams(location.search).get('variant');
/** The build the page asks for: ?variant=plain (or simd) forces it; otherwise cvmrt picks. */
export const requestedVariant = wanted === 'plain' || wanted === 'simd' ? wanted : 'auto';

const fmt = (n) => Math.round(n).toLocaleString('en-US');
export const ms = (t) => `${t < 10 ? t.toFixed(2) : t.toFixed(1)} ms`;

/** A promise API over one Web Worker that holds its own cvmrt runtime and model. */
export class Inference {
  constructor(variant, modelUrl) {
    this.pending = new Map();
    this.nextId = 0;
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }) => {
      const p = this.pending.get(data.id);
      this.pending.delete(data.id);
      if (data.error) p.reject(new Error(data.error));
      else p.resolve(data.result);
    };
    this.worker.onerror = (e) => {
      for (const p of this.pending.values()) p.reject(new Error(e.message || 'the worker failed to start'));
      this.pending.clear();
    };
    /** { variant, version, backend, cost, modelBytes, loadMs } once the model is loaded. */
    this.info = this._call('load', { variant, modelUrl: new URL(modelUrl, document.baseURI).href });
  }

  _call(type, args) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, type, args });
    });
  }

  /** Float32 input -> { ms, hash, ints, floats } (one entry per model output). */
  async run(input) {
    await this.info;
    return this._call('run', { input });
  }
}

/** State the page shows, also read by the Playwright test (window.demo). */
export const state = { ready: false, variant: null, runs: [], last: null, verify: null, error: null };
window.demo = state;

/** Starts the page's worker and fills the runtime line; resolves to its info. */
export async function start(modelUrl, runtimeEl) {
  const inference = new Inference(requestedVariant, modelUrl);
  try {
    const info = await inference.info;
    const { ops, mem, total } = info.cost;
    runtimeEl.innerHTML = `cvmrt ${info.version} · wasm <b>${info.variant}</b> build (kernels: ${info.backend})` +
      `${requestedVariant === 'auto' ? '' : ' — forced by ?variant'} · ` +
      `model ${fmt(info.modelBytes / 1024)} KiB, ` +
      `cost ${fmt(ops)} ops + ${fmt(mem)} mem = <b>${fmt(total)}</b> · loaded in ${ms(info.loadMs)}`;
    Object.assign(state, { ready: true, variant: info.variant });
    document.body.dataset.ready = info.variant;
    return { inference, info };
  } catch (e) {
    fail(runtimeEl, e);
    throw e;
  }
}

export function fail(el, e) {
  state.error = String(e.message || e);
  el.innerHTML = `<span class="bad">error: ${state.error}</span>`;
}

/** Records one run's latency and shows the last, the first and the steady-state median. */
export function latency(el, t) {
  state.runs.push(t);
  const rest = state.runs.slice(1).sort((a, b) => a - b);
  const median = rest.length ? rest[Math.floor(rest.length / 2)] : null;
  el.textContent = `${ms(t)} (first ${ms(state.runs[0])}` +
    `${median === null ? '' : `, median of the next ${rest.length}: ${ms(median)}`})`;
}

/**
 * The verify button: recomputes the page's last input with the other wasm build in a second
 * worker and shows both output hashes beside the native CLI's for a bundled input.
 */
export function verifyPanel(button, out, modelUrl, variant) {
  const other = variant === 'simd' ? 'plain' : 'simd';
  let inference = null;
  button.textContent = `verify with the ${other} build`;
  button.onclick = async () => {
    const last = state.last;
    if (!last) return;
    button.disabled = true;
    out.textContent = `running on the ${other} build…`;
    try {
      inference ??= new Inference(other, modelUrl);
      const r = await inference.run(last.input);
      const hashes = [last.hash, r.hash, last.native].filter((h) => h);
      const equal = r.hash !== null && hashes.every((h) => h === hashes[0]);
      state.verify = { source: last.source, [variant]: last.hash, [other]: r.hash, native: last.native, equal };
      const row = (who, h) => `<tr><th>${who}</th><td><code>${h || '—'}</code></td></tr>`;
      out.innerHTML = `<table class="hashes">${row(`${variant} build (this page)`, last.hash)}` +
        `${row(`${other} build (verify worker, ${ms(r.ms)})`, r.hash)}` +
        `${row('native CLI (at build time)', last.native || (last.hash ? 'not a bundled input' : ''))}</table>` +
        `<p class="${equal ? 'good' : 'bad'}">${equal ? 'identical output bits' : 'the hashes differ'} ` +
        `for ${last.source} (SHA-256 of the int32 outputs)</p>`;
      out.dataset.verdict = equal ? 'equal' : 'different';
    } catch (e) {
      fail(out, e);
    } finally {
      button.disabled = false;
    }
  };
}

/** Shows the hash of a new result and clears the last verification. */
export function showResult(hashEl, verifyOut, last) {
  state.last = last;
  state.verify = null;
  delete verifyOut.dataset.verdict;
  verifyOut.textContent = '';
  const match = last.native ? (last.native === last.hash ? ' <span class="good">= native CLI</span>'
    : ' <span class="bad">≠ native CLI</span>') : '';
  hashEl.innerHTML = last.hash ? `<code>${last.hash.slice(0, 16)}…</code>${match}`
    : 'unavailable (WebCrypto needs https or localhost)';
}
