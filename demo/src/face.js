// Face detection page: BlazeFace int8 on the bundled photos, a photo from disk and the webcam.
import { SIZE, detect, letterbox } from './blazeface.js';
import { fail, latency, showResult, start, verifyPanel } from './page.js';

const $ = (id) => document.getElementById(id);
const MAX_SIDE = 1024;   // larger pictures are scaled down by the browser first
const VIEW_SIDE = 480;

// Decodes without colour management, so a bundled PNG gives the bytes prepare.py gave the CLI.
async function decodeImage(blob) {
  const options = { colorSpaceConversion: 'none', premultiplyAlpha: 'none' };
  const bitmap = await createImageBitmap(blob, options);
  const k = MAX_SIDE / Math.max(bitmap.width, bitmap.height);
  if (k >= 1) return bitmap;
  bitmap.close();
  return createImageBitmap(blob, { ...options, resizeQuality: 'high', resizeWidth: Math.round(bitmap.width * k),
    resizeHeight: Math.round(bitmap.height * k) });
}

const scratch = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
function rgbaOf(image, w, h) {
  Object.assign(scratch.canvas, { width: w, height: h });
  scratch.drawImage(image, 0, 0);
  return scratch.getImageData(0, 0, w, h).data;
}

// The picture with each face's box, key points and score; detections are in the letterboxed
// input's [0, 1] coordinates, mapped back through the letterbox placement.
function draw(image, w, h, dets, { top, left, nh, nw }) {
  const view = $('view');
  const scale = Math.min(VIEW_SIDE / w, VIEW_SIDE / h);
  Object.assign(view, { width: Math.round(w * scale), height: Math.round(h * scale) });
  const ctx = view.getContext('2d');
  ctx.drawImage(image, 0, 0, view.width, view.height);
  const px = (x) => (x * SIZE - left) * (w / nw) * scale;
  const py = (y) => (y * SIZE - top) * (h / nh) * scale;
  ctx.lineWidth = 3;
  ctx.font = 'bold 15px system-ui, sans-serif';
  for (const d of dets) {
    const [x1, y1, x2, y2] = d.box;
    ctx.strokeStyle = ctx.fillStyle = '#19e07a';
    ctx.strokeRect(px(x1), py(y1), px(x2) - px(x1), py(y2) - py(y1));
    ctx.fillText(d.score.toFixed(3), px(x1), py(y1) - 6);
    ctx.fillStyle = '#ff3d71';
    for (const [x, y] of d.keypoints) ctx.fillRect(px(x) - 3, py(y) - 3, 6, 6);
  }
}

async function detectIn(inference, image, w, h, source, photo) {
  const placement = letterbox(rgbaOf(image, w, h), w, h);
  const r = await inference.run(placement.input);
  const dets = detect(r.floats);
  draw(image, w, h, dets, placement);
  $('faces').textContent = `${dets.length} face${dets.length === 1 ? '' : 's'}`;
  $('detections').innerHTML = dets.map((d) => `<li>score <b>${d.score.toFixed(4)}</b> · box ` +
    `(${d.box.map((v) => v.toFixed(3)).join(', ')})</li>`).join('');
  $('source').textContent = source;
  latency($('latency'), r.ms);
  showResult($('hash'), $('verified'), { source, input: placement.input, hash: r.hash,
    native: photo ? photo.hash : null, detections: dets });
  $('verify').disabled = false;
}

function webcam(run) {
  const button = $('webcam');
  let stream = null;
  button.hidden = !(navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
  button.onclick = async () => {
    if (stream) {
      stream.getTracks().forEach((t) => t.stop());
      stream = null;
      button.textContent = 'start the webcam';
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 480 } });
    } catch (e) {
      fail($('source'), e);
      return;
    }
    button.textContent = 'stop the webcam';
    const video = Object.assign(document.createElement('video'),
      { srcObject: stream, muted: true, playsInline: true });
    await video.play();
    while (stream) {  // one frame at a time: the next after the last result
      await run(video, video.videoWidth, video.videoHeight, 'webcam frame', null);
      await new Promise(requestAnimationFrame);
    }
  };
}

try {
  const native = await (await fetch('./native.json')).json();
  const { model, photos } = native.face;
  const { inference, info } = await start(model, $('runtime'));
  verifyPanel($('verify'), $('verified'), model, info.variant);
  const run = (...args) => detectIn(inference, ...args).catch((e) => fail($('runtime'), e));
  for (const photo of photos) {
    const img = Object.assign(new Image(), { src: photo.file, alt: photo.name, title: photo.name });
    img.onclick = async () => {
      const bitmap = await decodeImage(await (await fetch(photo.file)).blob());
      await run(bitmap, bitmap.width, bitmap.height, `bundled photo ${photo.name}`, photo);
    };
    $('photos').append(img);
  }
  $('file').onchange = async () => {
    const file = $('file').files[0];
    if (!file) return;
    const bitmap = await decodeImage(file);
    await run(bitmap, bitmap.width, bitmap.height, `your photo ${file.name}`, null);
  };
  webcam(run);
} catch (e) {
  fail($('runtime'), e);
}
