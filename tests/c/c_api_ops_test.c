/* Plain-C tests of the operator calls of the C ABI against the shared library: CVMOpRun with
 * typed JSON attributes, output ownership, CVMOpInfer, CVMOpList, CVMOpInfo, CVMOpHasKernel.
 * Usage: c_api_ops_test [ignored temp dir] */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cvm/c_api.h"
#include "expect.h"

static CVMArrayHandle int32_array(const int64_t* shape, int ndim, const int32_t* data) {
  CVMArrayHandle h = NULL;
  size_t n = 1;
  int i;
  for (i = 0; i < ndim; ++i) n *= (size_t)shape[i];
  EXPECT(CVMArrayAlloc(shape, ndim, kDLInt, 32, 1, kDLCPU, 0, &h) == CVM_STATUS_OK);
  EXPECT(CVMArrayCopyFromBytes(h, (void*)data, n * sizeof(int32_t)) == CVM_STATUS_OK);
  return h;
}

/* The spec's dense example (section 6): x (1,4), w (3,4), bias (3,), units 3. */
static void test_dense_run_and_infer(void) {
  const int64_t xs[2] = {1, 4}, ws[2] = {3, 4}, bs[1] = {3};
  const int32_t x[4] = {1, 2, 3, 4};
  const int32_t w[12] = {1, 0, 0, 0, 0, 1, 0, 1, -1, -1, -1, -1};
  const int32_t b[3] = {10, 20, 30};
  CVMArrayHandle in[3];
  CVMArrayHandle* outs = NULL;
  int n = -1, i;
  int32_t y[3] = {0, 0, 0};
  in[0] = int32_array(xs, 2, x);
  in[1] = int32_array(ws, 2, w);
  in[2] = int32_array(bs, 1, b);

  EXPECT(CVMOpRun("dense", in, 2, "{\"units\": 3, \"use_bias\": false}", &outs, &n) == 0);
  EXPECT(n == 1);
  if (n == 1) {
    EXPECT(outs[0]->ndim == 2 && outs[0]->shape[0] == 1 && outs[0]->shape[1] == 3);
    EXPECT(CVMArrayCopyToBytes(outs[0], y, sizeof(y)) == 0);
    EXPECT(y[0] == 1 && y[1] == 6 && y[2] == -10);
    EXPECT(CVMArrayFree(outs[0]) == 0);
  }
  EXPECT(CVMOpRun("dense", in, 3, "{\"units\": \"3\"}", &outs, &n) == 0);
  if (n == 1) {
    EXPECT(CVMArrayCopyToBytes(outs[0], y, sizeof(y)) == 0);
    EXPECT(y[0] == 11 && y[1] == 26 && y[2] == 20);
    EXPECT(CVMArrayFree(outs[0]) == 0);
  }
  EXPECT(CVMOpRun("dense", in, 3, "{\"units\": 3.5}", &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  EXPECT(strstr(CVMGetLastError(), "\"units\"") != NULL);
  EXPECT(outs == NULL && n == 0);
  EXPECT(CVMOpRun("dense", in, 3, "{\"units\": 0}", &outs, &n) == CVM_STATUS_LOGIC_ERROR);
  EXPECT(strstr(CVMGetLastError(), "dense") != NULL);

  {
    const int64_t* shapes[3] = {xs, ws, bs};
    const int ndims[3] = {2, 2, 1};
    const int precisions[3] = {8, 8, 8};
    const int64_t* const* out_shapes = NULL;
    const int* out_ndims = NULL;
    const int* out_precisions = NULL;
    int64_t cost = 0;
    EXPECT(CVMOpInfer("dense", shapes, ndims, precisions, 3, "{\"units\": 3}", &n, &out_shapes,
                      &out_ndims, &out_precisions, &cost) == 0);
    EXPECT(n == 1 && out_ndims[0] == 2 && out_shapes[0][1] == 3);
    EXPECT(out_precisions[0] == 20 && cost == 13); /* ops = 13 * 3 = 39 */
  }
  for (i = 0; i < 3; ++i) EXPECT(CVMArrayFree(in[i]) == 0);
}

static void test_list_info_kernels(void) {
  const char** names = NULL;
  int count = 0, i, found = 0, in = 0, out = 0, is_cvm = 0, available = -1;
  EXPECT(CVMOpList(&names, &count) == 0);
  EXPECT(count >= 37);
  for (i = 0; i < count; ++i) found += strcmp(names[i], "conv2d") == 0;
  EXPECT(found == 1);
  EXPECT(CVMOpInfo("get_valid_counts", &in, &out, &is_cvm) == 0);
  EXPECT(in == 1 && out == 2 && is_cvm == 1);
  EXPECT(CVMOpInfo("concatenate", &in, NULL, NULL) == 0);
  EXPECT(in == -1);
  EXPECT(CVMOpInfo("nope", NULL, NULL, NULL) == CVM_STATUS_LOGIC_ERROR);
  EXPECT(CVMOpHasKernel("add", "int32", "scalar", &available) == 0);
  EXPECT(available == 1);
  EXPECT(CVMOpHasKernel("add", "int32", "no_such_backend", &available) == 0);
  EXPECT(available == 0);
  EXPECT(CVMOpHasKernel("add", "int31", NULL, &available) == CVM_STATUS_LOGIC_ERROR);
}

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  test_dense_run_and_infer();
  test_list_info_kernels();
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
