// Emitted by test/types.test.mjs and run: `using` (downlevelled by tsc) frees the array.
import { init } from 'cvmrt';

const cvm = await init({ variant: 'plain' });
let inner = -1;
{
  using a = cvm.array([1, 2, 3]);
  using b = cvm.add(a, a);
  inner = cvm.memory().liveArrays;
  if (b.toArray().toString() !== '2,4,6') throw new Error('wrong sum');
}
console.log(JSON.stringify({ inner, after: cvm.memory().liveArrays }));
