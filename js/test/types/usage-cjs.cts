// The CommonJS entry's types: require('cvmrt') gives init and the error classes.
import cvmrt = require('cvmrt');

export async function run(): Promise<string> {
  const cvm = await cvmrt.init({ variant: 'plain' });
  try {
    cvm.relu([1, -1]).dispose();
  } catch (e) {
    if (e instanceof cvmrt.CvmLogicError) return e.message;
  }
  return cvm.info().version;
}
