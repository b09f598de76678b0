// The browser page: runs the README's browser example, then operators and a model through the
// installed cvmrt package (both variants), and compares every output with the native bits in
// fixtures.json.
import { init, simdSupported } from 'cvmrt';

const rows = document.querySelector('#results tbody');
const results = [];

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}
function b64(s) {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}
function same(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
function report(check, variant, ok, detail, backend = '') {
  results.push({ check, variant, backend, ok, detail });
  const tr = document.createElement('tr');
  tr.innerHTML = `<td>${check}</td><td>${variant}${backend ? ` (${backend})` : ''}</td><td class="${ok ? 'pass' : 'fail'}">${ok ? 'PASS' : 'FAIL'}</td><td>${detail}</td>`;
  rows.appendChild(tr);
}

// run.mjs writes README.md's browser example to readme-example.js; it fills #result.
async function readmeExample() {
  await import('./readme-example.js');
  const text = document.querySelector('#result').textContent;
  const variant = simdSupported() ? 'simd' : 'plain';
  // [[1, 2], [3, 4]] squared.
  report('README browser example', text.split(':')[0], text === `${variant}: [[7,10],[15,22]]`, text);
}

// The API's shapes: zero-copy views, op() vs opMulti(), scope() refusing async functions.
function apiChecks(cvm, v, backend) {
  cvm.scope(() => {
    const a = cvm.array(new Float32Array([0, 1, 2, 3, 4, 5]), { shape: [2, 3] });
    const t = a.transpose();
    const s = a.slice([null, 2], null, [1, -1]);
    a.write(new Float32Array([10, 11, 12, 13, 14, 15]));
    const ok = same(t.toArray().flat(), [10, 13, 11, 14, 12, 15]) && same(s.toArray().flat(), [12, 11, 10, 15, 14, 13]) &&
      !t.compact;
    report('views share memory', v, ok, `transpose ${JSON.stringify(t.toArray())}`, backend);
    const boxes = cvm.array([[[0, 5, 1, 1, 2, 2]]]);
    let refused = '';
    try { cvm.op('get_valid_counts', [boxes], { score_threshold: 1 }); } catch (e) { refused = e.name; }
    const outs = cvm.opMulti('get_valid_counts', [boxes], { score_threshold: 1 });
    report('op() vs opMulti()', v, refused === 'CvmLogicError' && outs.length === 2, `op(): ${refused}`, backend);
  });
  let asyncRefused = '';
  try { cvm.scope(async () => cvm.zeros([1])); } catch (e) { asyncRefused = e.message; }
  report('scope() refuses async', v, /must be synchronous/.test(asyncRefused), asyncRefused.slice(0, 60), backend);
}

async function main() {
  await readmeExample();
  const fx = await (await fetch('./fixtures.json')).json();
  document.querySelector('#info').innerHTML =
    `SIMD128: <code>${simdSupported()}</code> · ${navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] || ''}`;
  for (const variant of ['auto', 'plain']) {
    const cvm = await init({ variant });
    const v = cvm.info().variant;
    const backend = cvm.info().backend;
    for (const c of fx.ops) {
      cvm.scope(() => {
        const inputs = c.inputs.map((t) => cvm.fromBytes(hexBytes(t.hex), { shape: t.shape, dtype: t.dtype }));
        const outs = cvm.opMulti(c.op, inputs, c.attrs);
        const ok = outs.length === c.expected.length && outs.every((o, i) =>
          same([...o.toBytes()], [...hexBytes(c.expected[i].hex)]) && same(o.shape, c.expected[i].shape));
        report(`op ${c.op}: ${c.name}`, v, ok, `${outs[0].dtype}[${outs[0].shape.join(', ')}]`, backend);
      });
    }
    const m = fx.model;
    cvm.scope(() => {
      const model = cvm.loadModel({ json: m.json, params: b64(m.params) });
      const outs = model.run({ data: cvm.fromBytes(b64(m.input), { shape: m.inputShape, dtype: 'int8' }) });
      const got = [...outs[model.outputs[0].key].toTypedArray()];
      const ok = same(got, m.output) && model.cost.total === m.cost.total && model.cost.ops === m.cost.ops;
      const cls = new Int32Array(model.infer(b64(m.input)).buffer)[0];
      report(`model ${m.name}`, v, ok && cls === m.argmax,
        `class ${cls}, cost ${model.cost.total}, output [${got.join(', ')}]`, backend);
    });
    apiChecks(cvm, v, backend);
    const mem = cvm.memory();
    report('no live arrays', v, mem.liveArrays === 0 && mem.liveModels === 0, `heap ${(mem.wasmHeapBytes / 2 ** 20).toFixed(0)} MiB`, backend);
  }
}

main().catch((e) => report('exception', '-', false, String(e && e.stack || e))).finally(() => {
  const ok = results.length > 0 && results.every((r) => r.ok);
  const status = document.querySelector('#status');
  status.textContent = ok ? `OK — ${results.length} checks passed` : 'FAILED';
  status.className = ok ? 'pass' : 'fail';
  window.__cvmrtResults = results;
  document.body.dataset.status = ok ? 'pass' : 'fail';
});
