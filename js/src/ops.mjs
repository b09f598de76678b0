// Operators through CVMOpRun / CVMOpInfer / CVMOpList, plus named conveniences (no per-op glue).
import { CvmLogicError } from './shared.mjs';
import { attrsToJson } from './util.mjs';

// Elementwise array operators (any numeric dtype, NumPy broadcasting) and their JS names.
const BINARY = {
  add: 'add', sub: 'sub', mul: 'mul', div: 'div', maximum: 'maximum', minimum: 'minimum',
  equal: 'equal', notEqual: 'not_equal', less: 'less', lessEqual: 'less_equal',
  greater: 'greater', greaterEqual: 'greater_equal', matmul: 'matmul',
};
const UNARY = { relu: 'relu', abs: 'abs', negative: 'negative', flatten: 'flatten' };
const REDUCE = { sum: 'reduce_sum', mean: 'reduce_mean', max: 'reduce_max', min: 'reduce_min', argmax: 'argmax' };

const methods = {
  /**
   * Runs operator `name` on `inputs` (arrays, or data array() accepts: converted and disposed
   * after the call) with `attrs` (numbers, booleans, null, strings, arrays of integers) and
   * returns its output array. Operators with more than one output (get_valid_counts, see
   * cvm.ops()'s numOutputs) are refused with a CvmLogicError: run them with opMulti().
   */
  op(name, inputs = [], attrs) {
    const info = this._opInfo(name);
    if (info && info.numOutputs !== 1) {
      throw new CvmLogicError(`op(): operator "${name}" has ${info.numOutputs} outputs; ` +
        'use cvm.opMulti(), which returns the list of outputs');
    }
    return this.opMulti(name, inputs, attrs)[0];
  },

  /** Runs any operator like op(), returning the list of its outputs (for every operator). */
  opMulti(name, inputs = [], attrs) {
    if (typeof name !== 'string') throw new CvmLogicError('op(): the operator name must be a string');
    if (!Array.isArray(inputs)) inputs = [inputs];
    const n = this.native;
    const temps = [];
    const json = attrsToJson(attrs);
    let argBlock = 0;
    let attrPtr = 0;
    try {
      const handles = inputs.map((x) => this._asArray(x, temps).handle);
      argBlock = n.malloc(4 * handles.length + 8);
      handles.forEach((h, i) => n.setU32(argBlock + 4 * i, h));
      attrPtr = json ? n.cstring(json) : 0;
      const outPP = n.scratch;
      const countP = n.scratch + 8;
      this._withName(name, (np) => n.call('CVMOpRun', np, argBlock, handles.length, attrPtr, outPP, countP));
      const count = n.i32(countP);
      const list = n.u32(outPP);
      const handlesOut = [];
      for (let i = 0; i < count; i++) handlesOut.push(n.u32(list + 4 * i));
      return handlesOut.map((h) => this._wrap(h));
    } finally {
      n.free(argBlock);
      n.free(attrPtr);
      for (const t of temps) t.dispose();
    }
  },

  /** @deprecated The 0.1 name of opMulti(). */
  opAll(name, inputs = [], attrs) {
    return this.opMulti(name, inputs, attrs);
  },

  /** @internal cvm.ops()'s entry for `name` (undefined when unknown: CVMOpRun names it). */
  _opInfo(name) {
    if (!this._opIndex) this._opIndex = new Map(this.ops().map((o) => [o.name, o]));
    return this._opIndex.get(name);
  },

  /** @internal An array for x: itself, or a temporary created from data (pushed to temps). */
  _asArray(x, temps) {
    if (x && x._rec && x._rec.kind === 'array') return x;
    const a = this.array(x);
    temps.push(a);
    return a;
  },

  /** Every registered operator: name, inputs (-1 = any number >= 1), outputs, isCvm. */
  ops() {
    if (!this._opList) {
      const n = this.native;
      const namesP = n.scratch;
      const countP = n.scratch + 8;
      n.call('CVMOpList', namesP, countP);
      const count = n.i32(countP);
      const names = [];
      const arr = n.u32(namesP);
      for (let i = 0; i < count; i++) names.push(n.string(n.u32(arr + 4 * i)));
      this._opList = Object.freeze(names.map((name) => {
        const s = n.scratch + 16;
        this._withName(name, (np) => n.call('CVMOpInfo', np, s, s + 4, s + 8));
        return Object.freeze({ name, numInputs: n.i32(s), numOutputs: n.i32(s + 4), isCvm: n.i32(s + 8) === 1 });
      }));
    }
    return this._opList;
  },

  /**
   * Shape, precision and cost inference of CVM operator `name` without running it. inputs:
   * [{ shape, precision }]. Returns { outputs: [{ shape, precision }], costBase }.
   */
  inferOp(name, inputs, attrs) {
    const n = this.native;
    const json = attrsToJson(attrs);
    const k = inputs.length;
    let dims = 0;
    for (const x of inputs) dims += x.shape.length;
    // Layout: [shape data (int64) | shape pointers | ndims | precisions].
    const block = n.malloc(8 * dims + 12 * k + 16);
    const attrPtr = json ? n.cstring(json) : 0;
    try {
      let p = (block + 7) & ~7;
      const ptrs = p + 8 * dims;
      const ndims = ptrs + 4 * k;
      const precs = ndims + 4 * k;
      inputs.forEach((x, i) => {
        n.setU32(ptrs + 4 * i, p);
        x.shape.forEach((d, j) => n.setI64(p + 8 * j, d));
        p += 8 * x.shape.length;
        n.dv.setInt32(ndims + 4 * i, x.shape.length, true);
        n.dv.setInt32(precs + 4 * i, x.precision, true);
      });
      const s = n.scratch;
      this._withName(name, (np) => n.call('CVMOpInfer', np, k ? ptrs : 0, k ? ndims : 0,
        k ? precs : 0, k, attrPtr, s, s + 4, s + 8, s + 12, s + 16));
      const count = n.i32(s);
      const shapesP = n.u32(s + 4);
      const ndimP = n.u32(s + 8);
      const precP = n.u32(s + 12);
      const outputs = [];
      for (let j = 0; j < count; j++) {
        const nd = n.i32(ndimP + 4 * j);
        const sp = n.u32(shapesP + 4 * j);
        const shape = [];
        for (let d = 0; d < nd; d++) shape.push(n.i64(sp + 8 * d));
        outputs.push({ shape, precision: n.i32(precP + 4 * j) });
      }
      return { outputs, costBase: n.i64(s + 16) };
    } finally {
      n.free(block);
      n.free(attrPtr);
    }
  },

  /** A new array of `dtype` (native conversion rules: wrap, truncate, saturate, RNE). */
  cast(x, dtype) {
    return this.op('cast', [x], { dtype });
  },

  /** CVM clip to [min, max] (int32). */
  clip(x, min, max) {
    return this.op('clip', [x], { a_min: min, a_max: max });
  },

  /**
   * CVM conv2d (NCHW, OIHW): channels, kernel_size and use_bias come from w and bias.
   * options: strides, padding, dilation, groups.
   */
  conv2d(x, w, bias, { strides, padding, dilation, groups } = {}) {
    const temps = [];
    try {
      const wa = this._asArray(w, temps);
      if (wa.ndim !== 4) throw new CvmLogicError(`conv2d: weight must be 4-D (OIHW), found ${wa.ndim}-D`);
      const inputs = [x, wa];
      if (bias != null) inputs.push(bias);
      return this.op('conv2d', inputs, {
        channels: wa.shape[0], kernel_size: [wa.shape[2], wa.shape[3]], strides, padding,
        dilation, groups, use_bias: bias != null,
      });
    } finally {
      for (const t of temps) t.dispose();
    }
  },

  /** CVM dense: x (M, K) · wᵀ (units, K) (+ bias); units and use_bias come from w and bias. */
  dense(x, w, bias) {
    const temps = [];
    try {
      const wa = this._asArray(w, temps);
      if (wa.ndim !== 2) throw new CvmLogicError(`dense: weight must be 2-D, found ${wa.ndim}-D`);
      const inputs = [x, wa];
      if (bias != null) inputs.push(bias);
      return this.op('dense', inputs, { units: wa.shape[0], use_bias: bias != null });
    } finally {
      for (const t of temps) t.dispose();
    }
  },

  /** CVM max_pool2d (NCHW). options: strides, padding, ceilMode. */
  maxPool2d(x, poolSize, { strides, padding, ceilMode } = {}) {
    return this.op('max_pool2d', [x], { pool_size: poolSize, strides, padding, ceil_mode: ceilMode });
  },

  /** CVM concatenate along `axis` (default 1, as in CVM). */
  concatenate(arrays, axis = 1) {
    return this.op('concatenate', arrays, { axis });
  },

  /** CVM where: cond ≠ 0 ? x : y. */
  where(cond, x, y) {
    return this.op('where', [cond, x, y]);
  },
};

for (const [js, op] of Object.entries(BINARY)) {
  methods[js] = function binary(a, b) { return this.op(op, [a, b]); };
}
for (const [js, op] of Object.entries(UNARY)) {
  methods[js] = function unary(x) { return this.op(op, [x]); };
}
for (const [js, op] of Object.entries(REDUCE)) {
  // options: axis (a number or a list; default all axes), keepdims.
  methods[js] = function reduce(x, { axis, keepdims } = {}) {
    const ax = axis === undefined || axis === null ? undefined : typeof axis === 'number' ? [axis] : axis;
    return this.op(op, [x], { axis: ax, keepdims: keepdims || undefined });
  };
}

export function installOps(Cvm) {
  for (const [k, f] of Object.entries(methods)) {
    Object.defineProperty(Cvm.prototype, k, { value: f, writable: true, configurable: true });
  }
}
