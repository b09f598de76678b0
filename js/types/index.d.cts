// Types of the cvmrt npm package (hand-written; the ES module and the CommonJS entry share them).

/** Element types cvmrt supports. */
export type DType =
  | 'int8' | 'int16' | 'int32' | 'int64'
  | 'uint8' | 'uint16' | 'uint32' | 'uint64'
  | 'float16' | 'bfloat16' | 'float32' | 'float64'
  | 'bool';

/** The typed array holding each dtype's elements (float16/bfloat16 as raw bits, bool as 0/1). */
export interface DTypeArrayMap {
  int8: Int8Array; int16: Int16Array; int32: Int32Array; int64: BigInt64Array;
  uint8: Uint8Array; uint16: Uint16Array; uint32: Uint32Array; uint64: BigUint64Array;
  float16: Uint16Array; bfloat16: Uint16Array; float32: Float32Array; float64: Float64Array;
  bool: Uint8Array;
}

export type TypedArray =
  | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array
  | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/** A scalar element as JS gives or receives it. */
export type Scalar = number | bigint | boolean;
/** Nested JS arrays of scalars (rectangular). */
export type NestedArray = Scalar | readonly NestedArray[];
/** Anything cvm.array() accepts; operators accept these too (as temporaries). */
export type ArrayData = TypedArray | NestedArray;
/** An array or data converted to one for the duration of a call. */
export type ArrayLike = CvmArray | ArrayData;
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/** Attribute values of an operator, passed to it typed; a string is CVM attribute text. */
export type AttrValue = number | bigint | boolean | string | null | readonly (number | bigint)[];
export type Attrs = Record<string, AttrValue | undefined>;

/** Base of both error kinds: the native message and the C ABI status code. */
export declare class CvmError extends Error {
  /** 1 = logic error (bad input), 2 = runtime error (ours or the environment's). */
  readonly status: 1 | 2;
}
/** The caller's or the model author's fault: bad shapes, attributes, files or limits. */
export declare class CvmLogicError extends CvmError {
  readonly status: 1;
  constructor(message: string, options?: { cause?: unknown });
}
/** Ours or the environment's: out of memory, a failed wasm load, a broken invariant. */
export declare class CvmRuntimeError extends CvmError {
  readonly status: 2;
  constructor(message: string, options?: { cause?: unknown });
}

export interface InitOptions {
  /** 'auto' (default): 'simd' when the engine validates SIMD128, else 'plain'. Same bits. */
  variant?: 'auto' | 'simd' | 'plain';
  /** The .wasm bytes of the chosen variant (skips locating and fetching it). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to load `cvmrt-<variant>.wasm` from (Emscripten's locateFile). */
  locateFile?: (path: string, prefix: string) => string;
  /** Warn (with the creation stack) when an array or model is garbage-collected undisposed. */
  debug?: boolean;
  /** A backend name for CVMSetBackend ('scalar', ...). */
  backend?: string;
  /** Where debug warnings go (default console.warn). */
  warn?: (message: string) => void;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

export interface Info {
  variant: 'simd' | 'plain';
  /** "MAJOR.MINOR.PATCH" of the native library: the package's own version. */
  version: string;
  versionNumber: number;
  /** The kernel table in use: "wasm" (SIMD128 kernels), "portable" (the plain build) or "scalar". */
  backend: string;
  buildHash?: string;
}

export interface MemoryInfo {
  /** Arrays created and not yet disposed (or collected). */
  liveArrays: number;
  liveModels: number;
  /** Element bytes of the live arrays. */
  bytes: number;
  /** Size of the wasm memory (it only grows). */
  wasmHeapBytes: number;
  /** Objects the FinalizationRegistry freed because they were never disposed. */
  leaked: number;
}

export interface OpInfo {
  name: string;
  /** -1: any number >= 1. */
  numInputs: number;
  numOutputs: number;
  /** A CVM model operator (int32, precision and cost rules). */
  isCvm: boolean;
}

export interface InferResult {
  outputs: { shape: number[]; precision: number }[];
  /** ops = costBase × size of output 0. */
  costBase: number;
}

export interface ReduceOptions {
  /** An axis or a list of axes (negative from the end); default every axis. */
  axis?: number | readonly number[];
  keepdims?: boolean;
}

export interface Conv2dOptions {
  strides?: readonly number[];
  padding?: readonly number[];
  dilation?: readonly number[];
  groups?: number;
}

/** T, unless T is a promise (then never: scope() takes synchronous functions only). */
export type NotPromise<T> = T extends PromiseLike<unknown> ? never : T;

/** An explicit-lifetime handle on a native array in the wasm heap (made by a Cvm instance). */
export interface CvmArray extends Disposable {
  readonly shape: readonly number[];
  readonly dtype: DType;
  readonly ndim: number;
  readonly size: number;
  readonly nbytes: number;
  readonly disposed: boolean;
  /** A copy of the elements (BigInt64Array for int64; raw bits for float16/bfloat16). */
  toTypedArray(): DTypeArrayMap[DType];
  /** Nested JS arrays of the elements. */
  toArray(): NestedArray;
  /** A copy of the raw little-endian row-major bytes. */
  toBytes(): Uint8Array;
  /** The only element of a size-1 array. */
  item(): Scalar;
  /**
   * Zero-copy typed array over the wasm heap. Invalidated (detached, length 0) when wasm
   * memory grows, i.e. by any later cvmrt call that allocates: use it at once.
   */
  view(): DTypeArrayMap[DType];
  /** Overwrites every element from raw bytes or the dtype's own typed array. */
  write(data: Uint8Array | TypedArray): this;
  /** Whether the elements lie row-major without gaps (strided views may not; view() needs it). */
  readonly compact: boolean;
  /**
   * The same elements in `shape` (one extent may be -1): a view sharing memory when the
   * strides allow (always for a compact array), else a compact copy.
   */
  reshape(shape: readonly number[]): CvmArray;
  /** A view with permuted axes: result axis i is axis axes[i] (default all reversed). */
  transpose(axes?: readonly number[]): CvmArray;
  /**
   * NumPy basic slicing of the leading axes, as a view sharing memory (null/undefined
   * entries: omitted bounds; negative indices count from the end; steps may be negative).
   */
  slice(begin?: readonly (number | null | undefined)[] | number | null,
    end?: readonly (number | null | undefined)[] | number | null,
    step?: readonly (number | null | undefined)[] | number | null): CvmArray;
  /** NumPy broadcasting to `shape`, as a view (stride 0 along broadcast axes). */
  broadcastTo(shape: readonly number[]): CvmArray;
  /** A view without extent-1 axes (all of them, or those listed). */
  squeeze(axes?: number | readonly number[]): CvmArray;
  /** A view with an extent-1 axis inserted at `axis`. */
  expandDims(axis: number): CvmArray;
  /** reshape([-1]). */
  flatten(): CvmArray;
  cast(dtype: DType): CvmArray;
  /** A new compact array with a copy of the elements (shares nothing). */
  clone(): CvmArray;
  /** Frees the native array now (idempotent); views of it stay valid. */
  dispose(): void;
  /** dispose(), for `using` where the engine (or a polyfill loaded before init()) has Symbol.dispose. */
  [Symbol.dispose](): void;
  /** "CvmArray(int32, [2, 3])". */
  toString(): string;
}

export interface ModelIO {
  readonly name: string;
  /**
   * The key of this output in run()'s result: the name, with "#<index>" appended when an
   * earlier output has the same name (inputs: the name).
   */
  readonly key: string;
  readonly shape: readonly number[];
  /** Precision in bits (1..32). */
  readonly precision: number;
}

/** The float interface of a quantized model (the quantizer's metadata, CVMModelGetQuantization). */
export interface Quantization {
  /** A float x is fed as clamp(round(x * scale), +-(2^(precision-1)-1)), halves away from zero. */
  readonly inputs: readonly { readonly name: string; readonly scale: number; readonly precision: number }[];
  /** An integer q stands for q / scale, then `tail` ("", "softmax" along tailAxis, "sigmoid"). */
  readonly outputs: readonly { readonly name: string; readonly scale: number; readonly tail: string; readonly tailAxis: number }[];
}

/** One kernel call of a node: its chain of kernel-table entries (CvmModel.kernelPlan()). */
export interface KernelChain {
  /** The kernel op requested, e.g. "conv2d", "copy". */
  kernelOp: string;
  /** Its element type, e.g. "int32". */
  dtype: string;
  /** Entry names (what__how) in the order they are tried; the scalar reference is last. */
  entries: string[];
  /** Why entries of the backend are missing or moved, e.g. "...: CPU lacks ...". */
  notes: string[];
  /** The entry the node's constant weight was packed for ("" when none). */
  packedFor: string;
  /** The entry that took the last run's call ("" before a run). */
  lastRan: string;
}

/** The kernels of every operator node, in execution order. */
export interface KernelPlan {
  /** The backend heading the chains: "wasm", "portable" or "scalar". */
  backend: string;
  /**
   * fusedInto: the node whose one clamp pass computes this node (the int32 clamps after a
   * conv2d or dense: cvm_right_shift, cvm_clip, clip, relu); "" for a node that runs itself.
   */
  nodes: { node: string; op: string; chains: KernelChain[]; fusedInto: string }[];
}

/** A loaded, verified model (made by cvm.loadModel). */
export interface CvmModel extends Disposable {
  /** Spec section 6: total = ops + mem. */
  readonly cost: { readonly ops: number; readonly mem: number; readonly total: number };
  /** Bytes: params + one session's activations after reuse, and without reuse. */
  readonly memory: { readonly planned: number; readonly unplanned: number };
  /** Byte lengths of infer()'s input and output. */
  readonly byteLengths: { readonly input: number; readonly output: number };
  /** "", "argmax", "detection", ... */
  readonly postprocess: string;
  /** The graph's version, e.g. "cvm_1.0.0". */
  readonly version: string;
  /** The library that wrote the model file, e.g. "cvmrt 0.2.0"; "" when unknown. */
  readonly producer: string;
  readonly inputs: readonly ModelIO[];
  readonly outputs: readonly ModelIO[];
  /** A quantized model's float interface (the quantizer's metadata); null for other models. */
  readonly quantization: Quantization | null;
  readonly disposed: boolean;
  /**
   * Runs the model; returns new arrays (int32; float32 for float models) keyed by output
   * name (`outputs[i].key`), in the order of `outputs`. A quantized model also takes float32
   * input (a Float32Array or a float32 array), quantized by `quantization`.
   */
  run(inputs: { [name: string]: ArrayLike }): { [key: string]: CvmArray };
  /**
   * A quantized model's run() outputs as new float32 arrays: q / scale (in double, rounded once
   * to float32), then the output's tail; as the native output_float and `cvmrt run --dequantize`.
   */
  dequantize(outputs: { [key: string]: CvmArray }): { [key: string]: CvmArray };
  /** CVMAPIInference: input bytes in (int8, or int32 LE), spec section 7 output bytes out. */
  infer(input: Bytes): Uint8Array;
  /**
   * The kernels run() uses per node, as the native session bound them: the kernel-table
   * entries tried in order (the scalar reference last), why the backend's other entries are
   * missing or moved, and which entry took the last run's call.
   */
  kernelPlan(): KernelPlan;
  dispose(): void;
  [Symbol.dispose](): void;
  toString(): string;
}

export type ParamDict =
  | Map<string, ArrayLike>
  | { [name: string]: ArrayLike }
  | Iterable<readonly [string, ArrayLike]>;

/** A runtime instance: its own wasm heap, arrays, operators, params and models. */
export interface Cvm {
  info(): Info;
  readonly backend: string;
  setBackend(name: string): void;
  memory(): MemoryInfo;
  readonly dtypes: readonly DType[];

  /**
   * Runs fn and disposes every array and model it created except those in its result. fn must
   * be synchronous: an async function or a returned promise is a CvmLogicError.
   */
  scope<T>(fn: () => NotPromise<T>): T;
  /** Removes an array or model from the enclosing scope(s). */
  keep<T extends CvmArray | CvmModel>(x: T): T;

  array(data: ArrayLike, options?: { shape?: readonly number[]; dtype?: DType }): CvmArray;
  fromBytes(bytes: Bytes, options: { shape: readonly number[]; dtype?: DType }): CvmArray;
  zeros(shape: readonly number[], dtype?: DType): CvmArray;
  ones(shape: readonly number[], dtype?: DType): CvmArray;
  full(shape: readonly number[], value: Scalar, dtype?: DType): CvmArray;

  /** Every registered operator. */
  ops(): readonly OpInfo[];
  /**
   * Runs a single-output operator and returns its output. Operators with several outputs
   * (numOutputs !== 1 in ops(), e.g. get_valid_counts) are a CvmLogicError: use opMulti().
   */
  op(name: string, inputs: readonly ArrayLike[] | ArrayLike, attrs?: Attrs): CvmArray;
  /** Runs any operator and returns the list of its outputs. */
  opMulti(name: string, inputs: readonly ArrayLike[] | ArrayLike, attrs?: Attrs): CvmArray[];
  /** @deprecated The 0.1 name of opMulti(). */
  opAll(name: string, inputs: readonly ArrayLike[] | ArrayLike, attrs?: Attrs): CvmArray[];
  /** Shape, precision and cost inference of a CVM operator without running it. */
  inferOp(name: string, inputs: readonly { shape: readonly number[]; precision: number }[],
    attrs?: Attrs): InferResult;

  add(a: ArrayLike, b: ArrayLike): CvmArray;
  sub(a: ArrayLike, b: ArrayLike): CvmArray;
  mul(a: ArrayLike, b: ArrayLike): CvmArray;
  div(a: ArrayLike, b: ArrayLike): CvmArray;
  maximum(a: ArrayLike, b: ArrayLike): CvmArray;
  minimum(a: ArrayLike, b: ArrayLike): CvmArray;
  equal(a: ArrayLike, b: ArrayLike): CvmArray;
  notEqual(a: ArrayLike, b: ArrayLike): CvmArray;
  less(a: ArrayLike, b: ArrayLike): CvmArray;
  lessEqual(a: ArrayLike, b: ArrayLike): CvmArray;
  greater(a: ArrayLike, b: ArrayLike): CvmArray;
  greaterEqual(a: ArrayLike, b: ArrayLike): CvmArray;
  matmul(a: ArrayLike, b: ArrayLike): CvmArray;
  relu(x: ArrayLike): CvmArray;
  abs(x: ArrayLike): CvmArray;
  negative(x: ArrayLike): CvmArray;
  flatten(x: ArrayLike): CvmArray;
  sum(x: ArrayLike, options?: ReduceOptions): CvmArray;
  mean(x: ArrayLike, options?: ReduceOptions): CvmArray;
  max(x: ArrayLike, options?: ReduceOptions): CvmArray;
  min(x: ArrayLike, options?: ReduceOptions): CvmArray;
  argmax(x: ArrayLike, options?: ReduceOptions): CvmArray;
  cast(x: ArrayLike, dtype: DType): CvmArray;
  clip(x: ArrayLike, min: number, max: number): CvmArray;
  conv2d(x: ArrayLike, w: ArrayLike, bias?: ArrayLike | null, options?: Conv2dOptions): CvmArray;
  dense(x: ArrayLike, w: ArrayLike, bias?: ArrayLike | null): CvmArray;
  maxPool2d(x: ArrayLike, poolSize: readonly number[],
    options?: { strides?: readonly number[]; padding?: readonly number[]; ceilMode?: boolean }): CvmArray;
  concatenate(arrays: readonly ArrayLike[], axis?: number): CvmArray;
  where(cond: ArrayLike, x: ArrayLike, y: ArrayLike): CvmArray;

  /** Loads a param dict (cvmrt or legacy CVM format) into new arrays, in file order. */
  loadParams(bytes: Bytes, options?: { verify?: boolean }): Map<string, CvmArray>;
  /** Saves arrays as a param dict. */
  saveParams(dict: ParamDict, options?: { format?: 'cvmrt' | 'cvm' }): Uint8Array;
  /** A cvmrt model file's bytes, or a CVM graph JSON (+ params). */
  loadModel(source: Bytes | { json: string | Bytes | object; params?: Bytes | null }): CvmModel;
}

/** Loads a wasm build of cvmrt (each call: a new, independent instance). */
export declare function init(options?: InitOptions): Promise<Cvm>;
/** Whether this engine validates WebAssembly SIMD128 (a tiny probe module). */
export declare function simdSupported(): boolean;
