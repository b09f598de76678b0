// CvmModel: a loaded, verified model (the CVMModel* / CVMSession* calls of c_api.h).
import { asBytes } from './params.mjs';
import { parseQuantization, quantizeValues } from './quant.mjs';
import { CvmLogicError, CvmRuntimeError } from './shared.mjs';

const encoder = new TextEncoder();
const inspect = Symbol.for('nodejs.util.inspect.custom');

/**
 * Loads a model: `source` is the bytes of a cvmrt model file, or { json, params } for a CVM
 * model (graph JSON as a string, bytes or an object; params as bytes in the legacy CVM or the
 * cvmrt format, or omitted).
 */
export function loadModel(source) {
  const n = this.native;
  if (!n.hasModels) throw new CvmRuntimeError('this cvmrt wasm build has no model support (CVMModel* calls)');
  const out = n.scratch;
  n.setU32(out, 0);
  const blocks = [];
  try {
    if (source && typeof source === 'object' && !ArrayBuffer.isView(source) &&
        !(source instanceof ArrayBuffer) && 'json' in source) {
      const { json, params } = source;
      const graph = typeof json === 'string' ? encoder.encode(json)
        : json instanceof ArrayBuffer || ArrayBuffer.isView(json) ? asBytes(json, 'loadModel()')
          : encoder.encode(JSON.stringify(json));
      const g = n.copyIn(graph, 8);
      blocks.push(g.base);
      let pp = 0;
      let plen = 0;
      if (params !== undefined && params !== null) {
        const pb = asBytes(params, 'loadModel(): params');
        const c = n.copyIn(pb, 64);
        blocks.push(c.base);
        pp = c.p;
        plen = pb.byteLength;
      }
      n.call('CVMModelLoadCVM', g.p, graph.byteLength, pp, plen, out);
    } else {
      const bytes = asBytes(source, 'loadModel()');
      const c = n.copyIn(bytes, 64);
      blocks.push(c.base);
      n.call('CVMModelLoadBytes', c.p, bytes.byteLength, out);
    }
  } finally {
    for (const b of blocks) n.free(b);
  }
  return new CvmModel(this, n.u32(out));
}

// run()'s result keys: each output's name, with "#i" (its index) appended when an earlier
// output has the same name (CVM graphs may list one node twice, or name two nodes alike).
function withKeys(list) {
  const seen = new Set();
  return Object.freeze(list.map((o, i) => {
    const key = seen.has(o.name) ? `${o.name}#${i}` : o.name;
    seen.add(key);
    return Object.freeze({ ...o, key });
  }));
}

export class CvmModel {
  /** @internal Use cvm.loadModel(). */
  constructor(cvm, handle) {
    const n = cvm.native;
    this._cvm = cvm;
    this._h = handle;
    this._session = 0;
    const rec = {
      kind: 'model',
      bytes: 0,
      free: () => {
        // The session holds its own reference to the model; free both.
        if (rec.session) n.call('CVMSessionFree', rec.session);
        n.call('CVMModelFree', handle);
      },
      describe: () => 'a model',
      session: 0,
    };
    this._rec = rec;
    try {
      this._readInfo();
    } catch (e) {
      n.call('CVMModelFree', handle);
      throw e;
    }
    cvm.lifetimes.adopt(this, rec);
  }

  _readInfo() {
    const n = this._cvm.native;
    const s = n.scratch;
    n.call('CVMModelGetCost', this._h, s, s + 8, s + 16);
    this.cost = Object.freeze({ ops: n.u64(s), mem: n.u64(s + 8), total: n.u64(s + 16) });
    n.call('CVMModelGetMemory', this._h, s, s + 8);
    this.memory = Object.freeze({ planned: n.u64(s), unplanned: n.u64(s + 8) });
    n.call('CVMModelGetByteLengths', this._h, s, s + 4);
    this.byteLengths = Object.freeze({ input: n.u32(s), output: n.u32(s + 4) });
    n.call('CVMModelGetPostprocess', this._h, s);
    this.postprocess = n.string(n.u32(s));
    const ver = n.malloc(64);
    try {
      n.call('CVMAPIGetVersion', this._h, ver);
      this.version = n.string(ver);
    } finally {
      n.free(ver);
    }
    const io = (numFn, infoFn) => {
      n.call(numFn, this._h, s);
      const count = n.i32(s);
      const list = [];
      for (let i = 0; i < count; i++) {
        n.call(infoFn, this._h, i, s, s + 4, s + 8, s + 12);
        const nd = n.i32(s + 4);
        const sp = n.u32(s + 8);
        const shape = [];
        for (let d = 0; d < nd; d++) shape.push(n.i64(sp + 8 * d));
        list.push(Object.freeze({ name: n.string(n.u32(s)), shape: Object.freeze(shape), precision: n.i32(s + 12) }));
      }
      return Object.freeze(list);
    };
    this.inputs = io('CVMModelNumInputs', 'CVMModelGetInputInfo');
    this.outputs = withKeys(io('CVMModelNumOutputs', 'CVMModelGetOutputInfo'));
    n.call('CVMModelGetProducer', this._h, s);
    /** The library that wrote the model file ("cvmrt 0.2.0"); "" when unknown. */
    this.producer = n.string(n.u32(s));
    n.call('CVMModelGetQuantization', this._h, s);
    /**
     * A quantized model's float interface (the quantizer's metadata), or null:
     * { inputs: [{ name, scale, precision }], outputs: [{ name, scale, tail, tailAxis }] }.
     */
    this.quantization = parseQuantization(n.string(n.u32(s)));
  }

  get handle() {
    if (this._rec.freed) throw new CvmLogicError('this model has been disposed');
    return this._h;
  }

  get disposed() { return this._rec.freed; }

  /**
   * Runs the model. `inputs`: { [input name]: array } (an int8 or int32 array of the input's
   * shape, or data array() accepts, e.g. an Int8Array of the right size, which takes the
   * input's shape). A quantized model also takes float32 (a Float32Array or a float32 array),
   * quantized by its metadata as the native set_input_float does. Returns
   * { [output name]: array } — new arrays (int32 for integer models, float32 for float ones)
   * in the order of `model.outputs`, keyed as `model.outputs[i].key`.
   */
  run(inputs) {
    const n = this._cvm.native;
    if (!inputs || typeof inputs !== 'object' || Array.isArray(inputs) || ArrayBuffer.isView(inputs) ||
        (inputs._rec && inputs._rec.kind === 'array')) {
      throw new CvmLogicError(`run(): expected an object keyed by input name, e.g. { ${this.inputs[0].name}: array }`);
    }
    const rec = this._rec;
    this._bindSession();
    const temps = [];
    try {
      for (const [name, value] of Object.entries(inputs)) {
        const info = this.inputs.find((i) => i.name === name);
        if (!info) {
          throw new CvmLogicError(`run(): the model has no input "${name}" (inputs: ${this.inputs.map((i) => i.name).join(', ')})`);
        }
        let arr = value;
        const isArray = value && value._rec && value._rec.kind === 'array';
        const q = this.quantization && this.quantization.inputs.find((i) => i.name === name);
        if (q && (value instanceof Float32Array || (isArray && value.dtype === 'float32'))) {
          arr = this._cvm.array(this._quantize(value, info, q), { shape: info.shape });
          temps.push(arr);
        } else if (!isArray) {
          const dtype = value instanceof Int8Array ? 'int8' : value instanceof Float32Array ? 'float32' : 'int32';
          // A flat typed or JS array takes the input's shape; nested arrays keep their own.
          const flat = ArrayBuffer.isView(value) || (Array.isArray(value) && !Array.isArray(value[0]));
          arr = this._cvm.array(value, { dtype, shape: flat ? info.shape : undefined });
          temps.push(arr);
        }
        this._cvm._withName(name, (np) => n.call('CVMSessionSetInput', rec.session, np, arr.handle));
      }
      n.call('CVMSessionRun', rec.session);
      const outs = {};
      try {
        this.outputs.forEach((o, i) => {
          const s = n.scratch;
          n.call('CVMSessionGetOutput', rec.session, i, s);
          outs[o.key] = this._cvm._wrap(n.u32(s));
        });
      } catch (e) {
        for (const o of Object.values(outs)) o.dispose();
        throw e;
      }
      return outs;
    } finally {
      for (const t of temps) t.dispose();
    }
  }

  /** @internal The integers a float32 input stands for (Model::quantize_input). */
  _quantize(value, info, q) {
    const what = `run(): input "${info.name}"`;
    const values = value instanceof Float32Array ? value : value.toTypedArray();
    const want = info.shape.reduce((a, b) => a * b, 1);
    if (values.length !== want || (!(value instanceof Float32Array) && value.shape.join() !== info.shape.join())) {
      const got = value instanceof Float32Array ? `${values.length} values` : `shape (${value.shape.join(', ')})`;
      throw new CvmLogicError(`${what}: expected shape (${info.shape.join(', ')}), found ${got}`);
    }
    return quantizeValues(values, q, what);
  }

  /**
   * A quantized model's outputs as floats (Session::output_float): each int32 q of run()'s
   * `outputs` becomes q / scale (in double, rounded once to float32), then the output's tail
   * ("softmax" along tailAxis or "sigmoid") runs as the float32 operator. Returns new float32
   * arrays keyed as run()'s result; `outputs` stay as they are.
   */
  dequantize(outputs) {
    const q = this.quantization;
    if (!q) throw new CvmLogicError('dequantize(): this model is not quantized (it has no quantization metadata)');
    const cvm = this._cvm;
    const result = {};
    try {
      this.outputs.forEach((o, i) => {
        const ints = outputs && outputs[o.key];
        if (!(ints && ints._rec && ints._rec.kind === 'array' && ints.dtype === 'int32')) {
          throw new CvmLogicError(`dequantize(): expected run()'s int32 output "${o.key}"`);
        }
        const t = q.outputs[i];
        const src = ints.toTypedArray();
        const f = new Float32Array(src.length);
        for (let k = 0; k < src.length; k++) f[k] = src[k] / t.scale;
        let out = cvm.array(f, { shape: [...ints.shape] });
        if (t.tail) {
          const tail = t.tail === 'softmax' ? cvm.op('softmax', [out], { axis: t.tailAxis }) : cvm.op(t.tail, [out]);
          out.dispose();
          out = tail;
        }
        result[o.key] = out;
      });
    } catch (e) {
      for (const a of Object.values(result)) a.dispose();
      throw e;
    }
    return result;
  }

  /**
   * The kernels run() uses for each node, as the native session bound them: per node its
   * chains of kernel-table entries (what__how names, tried in order; the scalar reference last),
   * why other entries of the backend are missing or moved, the entry its weight was packed for
   * and the entry that took the last run's call. So "no silent fallback" is checkable.
   * fusedInto names the node whose one clamp pass computes a node (the int32 clamps after a
   * conv2d or dense, as cvm_right_shift, cvm_clip, relu), "" for a node that runs itself.
   */
  kernelPlan() {
    const n = this._cvm.native;
    this._bindSession();
    const s = n.scratch;
    n.call('CVMSessionGetKernelPlan', this._rec.session, s);
    const plan = JSON.parse(n.string(n.u32(s)));
    return {
      backend: plan.backend,
      nodes: plan.nodes.map((node) => ({
        node: node.node,
        op: node.op,
        chains: node.chains.map((c) => ({
          kernelOp: c.kernel_op,
          dtype: c.dtype,
          entries: c.entries,
          notes: c.notes,
          packedFor: c.packed_for,
          lastRan: c.last_ran,
        })),
        fusedInto: node.fused_into,
      })),
    };
  }

  /** @internal The model's session, made (or remade after setBackend()) on demand. */
  _bindSession() {
    const n = this._cvm.native;
    const h = this.handle;  // throws once disposed
    const rec = this._rec;
    // A session is bound to the backend preferred when it was made: remade after setBackend().
    const switches = this._cvm._backendSwitches || 0;
    if (rec.session && rec.sessionSwitches !== switches) {
      n.call('CVMSessionFree', rec.session);
      rec.session = 0;
    }
    if (!rec.session) {
      const s = n.scratch;
      n.call('CVMSessionCreate', h, s);
      rec.session = n.u32(s);
      rec.sessionSwitches = switches;
    }
  }

  /**
   * The CVMAPIInference call: input bytes (int8, or little-endian int32 when the input
   * precision is above 8) in, the spec section 7 output bytes (argmax, detection, ...) out.
   */
  infer(input) {
    const n = this._cvm.native;
    const h = this.handle;
    const bytes = asBytes(input, 'infer()');
    const cap = this.byteLengths.output;
    const inC = n.copyIn(bytes, 8);
    let outP = 0;
    try {
      outP = n.malloc(cap);
      const s = n.scratch;
      n.call('CVMModelInferBytes', h, inC.p, bytes.byteLength, outP, cap, s);
      return n.u8.slice(outP, outP + n.u32(s));
    } finally {
      n.free(inC.base);
      n.free(outP);
    }
  }

  dispose() {
    this._cvm.lifetimes.release(this, this._rec);
  }

  toString() {
    return `CvmModel(${this.version}, ${this.inputs.length} input, ${this.outputs.length} outputs${this._rec.freed ? ', disposed' : ''})`;
  }

  [inspect]() {
    return this.toString();
  }
}
