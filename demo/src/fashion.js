// Fashion-MNIST page: classifies the bundled t10k images and drawings with the int8 CNN.
import { fail, latency, showResult, start, verifyPanel } from './page.js';

const CLASSES = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag',
  'Ankle boot'];
const SIDE = 28;
const $ = (id) => document.getElementById(id);

const argmax = (a) => a.reduce((best, v, i) => (v > a[best] ? i : best), 0);

function greyImage(bytes) {
  const img = new ImageData(SIDE, SIDE);
  bytes.forEach((v, i) => img.data.set([v, v, v, 255], 4 * i));
  return img;
}

async function classify(inference, bytes, source, sample) {
  // byte / 255 as float32: the model's training normalisation (examples/fashion_mnist).
  const input = Float32Array.from(bytes, (b) => b / 255);
  const r = await inference.run(input);
  const cls = argmax(r.ints[0]);  // the first maximum of the int32 scores, as native argmax
  const probs = r.floats[0];      // the model's softmax tail over the dequantized scores
  $('bars').innerHTML = CLASSES.map((name, i) => `<div class="bar${i === cls ? ' top' : ''}">` +
    `<span>${name}</span><i style="width:${(100 * probs[i]).toFixed(1)}%"></i>` +
    `<b>${(100 * probs[i]).toFixed(1)}%</b></div>`).join('');
  const truth = sample ? ` <small>· label ${CLASSES[sample.label]} · native CLI: ${CLASSES[sample.class]}` +
    `${sample.class === cls ? ' ✓' : ' ✗'}</small>` : '';
  $('prediction').innerHTML = `${CLASSES[cls]}${truth}`;
  $('source').textContent = source;
  latency($('latency'), r.ms);
  showResult($('hash'), $('verified'), { source, input, hash: r.hash, native: sample ? sample.hash : null, cls });
  $('verify').disabled = false;
}

// The drawing pad: white strokes on black; each finished stroke is averaged down to 28 x 28.
function drawingPad(canvas, onStroke) {
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const clear = () => { ctx.fillStyle = '#000'; ctx.fillRect(0, 0, canvas.width, canvas.height); };
  clear();
  Object.assign(ctx, { strokeStyle: '#fff', lineWidth: 22, lineCap: 'round', lineJoin: 'round' });
  let drawing = false;
  const at = (e) => {
    const r = canvas.getBoundingClientRect();
    return [(e.clientX - r.left) * canvas.width / r.width, (e.clientY - r.top) * canvas.height / r.height];
  };
  canvas.onpointerdown = (e) => {
    drawing = true;
    canvas.setPointerCapture(e.pointerId);
    ctx.beginPath();
    ctx.moveTo(...at(e));
  };
  canvas.onpointermove = (e) => {
    if (!drawing) return;
    ctx.lineTo(...at(e));
    ctx.stroke();
  };
  canvas.onpointerup = () => {
    if (!drawing) return;
    drawing = false;
    const k = canvas.width / SIDE;
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const sums = new Float64Array(SIDE * SIDE);
    for (let y = 0; y < canvas.height; y++) {
      for (let x = 0; x < canvas.width; x++) {
        sums[Math.floor(y / k) * SIDE + Math.floor(x / k)] += data[4 * (y * canvas.width + x)];
      }
    }
    const small = Uint8Array.from(sums, (s) => Math.round(s / (k * k)));
    onStroke(small);
  };
  return clear;
}

try {
  const native = await (await fetch('./native.json')).json();
  const { model, images, samples } = native.fashion;
  const pixels = new Uint8Array(await (await fetch(images)).arrayBuffer());
  const { inference, info } = await start(model, $('runtime'));
  verifyPanel($('verify'), $('verified'), model, info.variant);
  const run = (bytes, source, sample) =>
    classify(inference, bytes, source, sample).catch((e) => fail($('runtime'), e));
  for (const [i, s] of samples.entries()) {
    const c = document.createElement('canvas');
    c.width = c.height = SIDE;
    c.title = `t10k #${s.index}: ${CLASSES[s.label]}`;
    c.dataset.index = i;
    const bytes = pixels.subarray(SIDE * SIDE * i, SIDE * SIDE * (i + 1));
    c.getContext('2d').putImageData(greyImage(bytes), 0, 0);
    c.onclick = () => run(bytes, `t10k test image #${s.index}`, s);
    $('grid').append(c);
  }
  const clear = drawingPad($('pad'), (small) => run(small, 'your drawing', null));
  $('clear').onclick = clear;
} catch (e) {
  fail($('runtime'), e);
}
