// Compiled by test/types.test.mjs (tsc --noEmit): the hand-written types must accept this.
import { init, simdSupported, CvmLogicError, CvmRuntimeError } from 'cvmrt';
import type { Cvm, CvmArray, CvmModel, DType, InitOptions, KernelPlan, MemoryInfo, Quantization } from 'cvmrt';

export async function main(bytes: Uint8Array, graph: string, params: Uint8Array): Promise<number> {
  const options: InitOptions = { variant: simdSupported() ? 'simd' : 'plain', debug: true };
  const cvm: Cvm = await init(options);
  const info = cvm.info();
  const variant: 'simd' | 'plain' = info.variant;
  const version: string = info.version;

  const a: CvmArray = cvm.array([[1, 2], [3, 4]], { dtype: 'int32' });
  const b = cvm.array(new Float32Array([1, 2]), { shape: [2, 1] });
  const c = cvm.zeros([2, 2], 'int64');
  const shape: readonly number[] = a.shape;
  const dtype: DType = b.dtype;
  const copy = a.toTypedArray();
  const view = a.view();
  const bytesOut: Uint8Array = a.toBytes();
  const t = a.transpose().reshape([-1]).slice([1], [3]);
  const v2: CvmArray = a.slice([null, -1], null, [1, -1]).broadcastTo([3, 2, 2]).squeeze().expandDims(0);
  const compact: boolean = v2.compact;
  const s: CvmArray = cvm.add(a, 1);
  const conv = cvm.conv2d(cvm.zeros([1, 1, 4, 4]), cvm.ones([2, 1, 3, 3]), null, { padding: [1, 1] });
  const outs: CvmArray[] = cvm.opMulti('get_valid_counts', [cvm.zeros([1, 2, 6])], { score_threshold: 0 });
  const one: CvmArray = cvm.op('transpose', [a], { axes: [1, 0] });
  const all: CvmArray[] = cvm.opAll('relu', a);
  const summed = cvm.sum(a, { axis: [0], keepdims: true });
  const inferred = cvm.inferOp('relu', [{ shape: [2], precision: 8 }]);
  const cost: number = inferred.costBase;

  const kept = cvm.scope(() => {
    const tmp = cvm.mul(a, a);
    return cvm.add(tmp, tmp);
  });
  {
    using scoped = cvm.zeros([3]);
    scoped.toArray();
  }

  const dict: Map<string, CvmArray> = cvm.loadParams(cvm.saveParams({ w: a, x: [1, 2] }, { format: 'cvm' }));
  const model: CvmModel = cvm.loadModel({ json: graph, params });
  const fromFile: CvmModel = cvm.loadModel(bytes);
  const result: { [key: string]: CvmArray } = model.run({ data: new Int8Array(model.byteLengths.input) });
  const head: CvmArray | undefined = result[model.outputs[0].key];
  const producer: string = fromFile.producer;
  const quant: Quantization | null = fromFile.quantization;
  const inScale: number | undefined = quant?.inputs[0].scale;
  const floats: { [key: string]: CvmArray } = fromFile.dequantize(fromFile.run({ data: new Float32Array(784) }));
  const raw: Uint8Array = model.infer(new Int8Array(784));
  const plan: KernelPlan = model.kernelPlan();
  const firstRan: string = plan.nodes[0].chains[0].lastRan;
  const total: number = model.cost.total + model.cost.ops + model.cost.mem;
  const mem: MemoryInfo = cvm.memory();

  try {
    cvm.add(a, c);
  } catch (e) {
    if (e instanceof CvmLogicError) {
      const status: 1 = e.status;
      console.log(e.message, status);
    } else if (e instanceof CvmRuntimeError) {
      console.log(e.status);
    }
  }
  for (const x of [a, b, c, t, v2, s, conv, one, summed, kept, ...outs, ...all, ...Object.values(result)]) x.dispose();
  dict.forEach((v) => v.dispose());
  model.dispose();
  fromFile[Symbol.dispose]();
  void [variant, version, shape, dtype, copy, view, bytesOut, cost, raw, mem, compact, head, producer, inScale, floats];
  return total;
}
