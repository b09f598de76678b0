/* Plain-C tests of the model C ABI: the CVMAPI* calls and the modern CVMModel* / CVMSession* calls
 * on the spec's dense cost example (spec/cvm-ops.md section 6). Usage: c_api_model_test <writable
 * temp dir> */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cvm/c_api.h"
#include "expect.h"

/* The spec's worked example: data (1,4) p=8, w (3,4) p=8, dense units=3 without bias. */
static const char kDenseJson[] =
    "{\"nodes\":[{\"op\":\"null\",\"name\":\"data\",\"inputs\":[]},"
    "{\"op\":\"null\",\"name\":\"w\",\"inputs\":[]},"
    "{\"op\":\"cvm_op\",\"name\":\"dense_0\",\"inputs\":[[0,0,0],[1,0,0]],"
    "\"attrs\":{\"func_name\":\"dense\",\"num_inputs\":\"2\",\"num_outputs\":\"1\","
    "\"flatten_data\":\"0\"}}],"
    "\"arg_nodes\":[0,1],\"node_row_ptr\":[0,1,2,3],\"heads\":[[2,0,0]],"
    "\"attrs\":{\"shape\":[\"list_shape\",[[1,4],[3,4],[1,3]]],"
    "\"precision\":[\"list_int\",[8,8,-1]],"
    "\"storage_id\":[\"list_int\",[0,1,2]],"
    "\"dltype\":[\"list_str\",[\"int32\",\"int32\",\"int32\"]],"
    "\"op_attrs\":[\"list_str\",[\"{}\",\"{}\","
    "\"{\\\"units\\\": \\\"3\\\", \\\"use_bias\\\": \\\"False\\\"}\"]]},"
    "\"version\":\"cvm_1.0.0\"}";

/* The same with a bias b (3,). */
static const char kDenseBiasJson[] =
    "{\"nodes\":[{\"op\":\"null\",\"name\":\"data\",\"inputs\":[]},"
    "{\"op\":\"null\",\"name\":\"w\",\"inputs\":[]},"
    "{\"op\":\"null\",\"name\":\"b\",\"inputs\":[]},"
    "{\"op\":\"cvm_op\",\"name\":\"dense_0\",\"inputs\":[[0,0,0],[1,0,0],[2,0,0]],"
    "\"attrs\":{\"func_name\":\"dense\",\"num_inputs\":\"3\",\"num_outputs\":\"1\","
    "\"flatten_data\":\"0\"}}],"
    "\"arg_nodes\":[0,1,2],\"node_row_ptr\":[0,1,2,3,4],\"heads\":[[3,0,0]],"
    "\"attrs\":{\"shape\":[\"list_shape\",[[1,4],[3,4],[3],[1,3]]],"
    "\"precision\":[\"list_int\",[8,8,8,-1]],"
    "\"storage_id\":[\"list_int\",[0,1,2,3]],"
    "\"dltype\":[\"list_str\",[\"int32\",\"int32\",\"int32\",\"int32\"]],"
    "\"op_attrs\":[\"list_str\",[\"{}\",\"{}\",\"{}\","
    "\"{\\\"units\\\": \\\"3\\\", \\\"use_bias\\\": \\\"True\\\"}\"]]},"
    "\"version\":\"cvm_1.0.0\"}";

static const int8_t kWeights[12] = {1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1};
static const int8_t kBias[3] = {10, 20, 30};
static const int8_t kInput[4] = {1, 2, 3, 4};
/* Y = X * W^T: (1, 2, 1+2+3+4); with the bias (11, 22, 40). */
static const int32_t kExpected[3] = {1, 2, 10};
static const int32_t kExpectedBias[3] = {11, 22, 40};

static CVMArrayHandle int8_array(const int64_t* shape, int ndim, const int8_t* data, size_t n) {
  CVMArrayHandle h = NULL;
  EXPECT(CVMArrayAlloc(shape, ndim, kDLInt, 8, 1, kDLCPU, 0, &h) == 0);
  EXPECT(CVMArrayCopyFromBytes(h, (void*)data, n) == 0);
  return h;
}

/* The legacy CVM param bytes of w (and b), copied into `buf` (the library's buffer is thread-local
 * and overwritten by the next save). Returns the byte count. */
static size_t legacy_params(int with_bias, char* buf, size_t cap) {
  const int64_t wshape[2] = {3, 4};
  const int64_t bshape[1] = {3};
  CVMArrayHandle w = int8_array(wshape, 2, kWeights, sizeof kWeights);
  CVMArrayHandle b = int8_array(bshape, 1, kBias, sizeof kBias);
  const void* dict[4] = {"w", w, "b", b};
  CVMByteArray bytes = {NULL, 0};
  EXPECT(CVMSaveParamsDictFormat(dict, with_bias ? 4 : 2, 1, &bytes) == 0);
  EXPECT(bytes.size <= cap);
  if (bytes.size > cap) bytes.size = 0;
  if (bytes.size > 0) memcpy(buf, bytes.data, bytes.size);
  CVMArrayFree(w);
  CVMArrayFree(b);
  return bytes.size;
}

static void decode_i32(const unsigned char* src, int32_t* dst, int n) {
  int i;
  for (i = 0; i < n; ++i) {
    dst[i] = (int32_t)((uint32_t)src[4 * i] | ((uint32_t)src[4 * i + 1] << 8) |
                       ((uint32_t)src[4 * i + 2] << 16) | ((uint32_t)src[4 * i + 3] << 24));
  }
}

static void test_gas_from_graph_file(void) {
  unsigned long long gas = 0;
  EXPECT(CVMAPIGetGasFromGraphFile(kDenseJson, &gas) == 0);
  EXPECT(gas == 131);
  EXPECT(CVMAPIGetGasFromGraphFile(kDenseBiasJson, &gas) == 0);
  EXPECT(gas == 149);
  EXPECT_ERROR(CVMAPIGetGasFromGraphFile("{\"nodes\": [", &gas), 1, "");
  EXPECT(CVMGetLastError()[0] != '\0');
  EXPECT_ERROR(CVMAPIGetGasFromGraphFile(NULL, &gas), 1, "graph_json");
  EXPECT_ERROR(CVMAPIGetGasFromGraphFile(kDenseJson, NULL), 1, "gas");
}

static void test_cvmapi(int with_bias, int device_type) {
  char params[1024];
  const size_t params_len = legacy_params(with_bias, params, sizeof params);
  const char* json = with_bias ? kDenseBiasJson : kDenseJson;
  const int32_t* expected = with_bias ? kExpectedBias : kExpected;
  void* net = NULL;
  unsigned long long v = 0;
  char text[33];
  unsigned char out[12];
  int32_t y[3];

  EXPECT(CVMAPILoadModel(json, (int)strlen(json), params, (int)params_len, &net, device_type, 0) ==
         0);
  EXPECT(net != NULL);
  if (net == NULL) return;
  EXPECT(CVMAPIGetInputLength(net, &v) == 0 && v == 4);
  EXPECT(CVMAPIGetInputTypeSize(net, &v) == 0 && v == 1);
  EXPECT(CVMAPIGetOutputTypeSize(net, &v) == 0 && v == 4); /* precision 8+8+NB(4) = 19 */
  EXPECT(CVMAPIGetOutputLength(net, &v) == 0 && v == 12);
  EXPECT(CVMAPIGetGasFromModel(net, &v) == 0 && v == (with_bias ? 149u : 131u));
  /* One storage id per entry, int32: (4 + 12 + 3) * 4 bytes, + 3 * 4 for the bias. */
  EXPECT(CVMAPIGetStorageSize(net, &v) == 0 && v == (with_bias ? 88u : 76u));
  memset(text, 'x', sizeof text);
  EXPECT(CVMAPIGetVersion(net, text) == 0 && strcmp(text, "cvm_1.0.0") == 0);
  memset(text, 'x', sizeof text);
  EXPECT(CVMAPIGetPreprocessMethod(net, text) == 0 && text[0] == '\0');

  memset(out, 0xAB, sizeof out);
  EXPECT(CVMAPIInference(net, (char*)kInput, 4, (char*)out) == 0);
  decode_i32(out, y, 3);
  EXPECT(memcmp(y, expected, sizeof y) == 0);
  /* the input length is checked: a logic error naming the expected length */
  EXPECT_ERROR(CVMAPIInference(net, (char*)kInput, 3, (char*)out), 1, "expected 4");
  EXPECT_ERROR(CVMAPIInference(net, (char*)kInput, -1, (char*)out), 1, "input_len");
  EXPECT_ERROR(CVMAPIInference(net, (char*)kInput, 4, NULL), 1, "output_data");
  /* a second run on the same net gives the same bytes */
  memset(out, 0, sizeof out);
  EXPECT(CVMAPIInference(net, (char*)kInput, 4, (char*)out) == 0);
  decode_i32(out, y, 3);
  EXPECT(memcmp(y, expected, sizeof y) == 0);
  EXPECT(CVMAPIFreeModel(net) == 0);
  /* a length that counts the NUL is accepted */
  net = NULL;
  EXPECT(CVMAPILoadModel(json, (int)strlen(json) + 1, params, (int)params_len, &net, device_type,
                         0) == 0);
  EXPECT(CVMAPIFreeModel(net) == 0);
}

static void test_load_errors(void) {
  char params[1024];
  const size_t params_len = legacy_params(0, params, sizeof params);
  void* net = (void*)&net;
  const char* truncated = "{\"nodes\":[{\"op\":\"null\"";
  /* malformed JSON: status 1, a message, *net NULL */
  EXPECT_ERROR(
      CVMAPILoadModel(truncated, (int)strlen(truncated), params, (int)params_len, &net, 0, 0), 1,
      "");
  EXPECT(CVMGetLastError()[0] != '\0');
  EXPECT(net == NULL);
  /* a JSON cut short through graph_strlen */
  EXPECT(CVMAPILoadModel(kDenseJson, 20, params, (int)params_len, &net, 0, 0) == 1);
  /* params missing the weight */
  EXPECT_ERROR(CVMAPILoadModel(kDenseJson, (int)strlen(kDenseJson), NULL, 0, &net, 0, 0), 1, "w");
  /* truncated params */
  EXPECT(CVMAPILoadModel(kDenseJson, (int)strlen(kDenseJson), params, (int)params_len - 3, &net, 0,
                         0) == 1);
  EXPECT(CVMGetLastError()[0] != '\0');
  /* devices */
  /* CUDA: a runtime error naming the device where there is no GPU (or no CUDA backend) */
  {
    int status =
        CVMAPILoadModel(kDenseJson, (int)strlen(kDenseJson), params, (int)params_len, &net, 1, 0);
    if (status == 0) {
      EXPECT(CVMAPIFreeModel(net) == 0); /* a machine with a GPU */
    } else {
      EXPECT(status == 2);
      EXPECT(strstr(CVMGetLastError(), "no CUDA device cuda:0") != NULL);
      EXPECT(net == NULL);
    }
  }
  EXPECT_ERROR(
      CVMAPILoadModel(kDenseJson, (int)strlen(kDenseJson), params, (int)params_len, &net, 1, 999),
      2, "cuda:999");
  EXPECT_ERROR(
      CVMAPILoadModel(kDenseJson, (int)strlen(kDenseJson), params, (int)params_len, &net, 5, 0), 1,
      "device_type");
  EXPECT_ERROR(
      CVMAPILoadModel(kDenseJson, (int)strlen(kDenseJson), params, (int)params_len, &net, 0, -1), 1,
      "device_id");
  EXPECT_ERROR(CVMAPILoadModel(kDenseJson, -5, params, (int)params_len, &net, 0, 0), 1,
               "graph_strlen");
  EXPECT_ERROR(CVMAPILoadModel(NULL, 0, params, (int)params_len, &net, 0, 0), 1, "graph_json");
  EXPECT_ERROR(
      CVMAPILoadModel(kDenseJson, (int)strlen(kDenseJson), params, (int)params_len, NULL, 0, 0), 1,
      "net");
  /* NULL handles */
  EXPECT(CVMAPIFreeModel(NULL) == 0);
  EXPECT(CVMModelFree(NULL) == 0);
  EXPECT(CVMSessionFree(NULL) == 0);
  {
    unsigned long long v = 0;
    char out[16];
    EXPECT_ERROR(CVMAPIGetInputLength(NULL, &v), 1, "model");
    EXPECT_ERROR(CVMAPIInference(NULL, (char*)kInput, 4, out), 1, "model");
  }
}

static void test_modern(void) {
  char params[1024];
  const size_t params_len = legacy_params(1, params, sizeof params);
  CVMModelHandle model = NULL;
  CVMSessionHandle session = NULL;
  uint64_t ops = 0, mem = 0, total = 0, planned = 0, unplanned = 0;
  size_t in_len = 0, out_len = 0, written = 99;
  int n = 0, ndim = 0, precision = 0;
  const char* name = NULL;
  const int64_t* shape = NULL;
  unsigned char out[16];
  int32_t y[3];
  int i;

  EXPECT(CVMModelLoadCVM(kDenseBiasJson, strlen(kDenseBiasJson), params, params_len, &model) == 0);
  EXPECT(model != NULL);
  if (model == NULL) return;
  EXPECT(CVMModelGetCost(model, &ops, &mem, &total) == 0);
  EXPECT(ops == 39 && mem == 110 && total == 149);
  EXPECT(CVMModelGetCost(model, NULL, NULL, &total) == 0 && total == 149);
  EXPECT(CVMModelGetMemory(model, &planned, &unplanned) == 0);
  /* unplanned: every int32 entry, 4 + 12 + 3 + 3 elements; planned: the params (60 bytes) and the
   * input and output blocks, which the planner aligns to 64 bytes */
  EXPECT(unplanned == 88 && planned >= 60 + 16 + 12);
  EXPECT(CVMModelGetByteLengths(model, &in_len, &out_len) == 0 && in_len == 4 && out_len == 12);
  EXPECT(CVMModelGetPostprocess(model, &name) == 0 && name != NULL && name[0] == '\0');
  /* imported from CVM JSON: no producer */
  EXPECT(CVMModelGetProducer(model, &name) == 0 && name != NULL && name[0] == '\0');
  EXPECT(CVMModelNumInputs(model, &n) == 0 && n == 1);
  EXPECT(CVMModelNumOutputs(model, &n) == 0 && n == 1);
  EXPECT(CVMModelGetInputInfo(model, 0, &name, &ndim, &shape, &precision) == 0);
  EXPECT(strcmp(name, "data") == 0 && ndim == 2 && shape[0] == 1 && shape[1] == 4 &&
         precision == 8);
  EXPECT(CVMModelGetOutputInfo(model, 0, &name, &ndim, &shape, &precision) == 0);
  /* bias rule: max(8 + 8 + NB(4), 8) + 1 = 20 */
  EXPECT(strcmp(name, "dense_0") == 0 && ndim == 2 && shape[0] == 1 && shape[1] == 3 &&
         precision == 20);
  EXPECT(CVMModelGetOutputInfo(model, 0, NULL, NULL, NULL, &precision) == 0 && precision == 20);
  EXPECT_ERROR(CVMModelGetOutputInfo(model, 1, &name, &ndim, &shape, &precision), 1,
               "out of range");
  EXPECT_ERROR(CVMModelGetInputInfo(model, -1, &name, &ndim, &shape, &precision), 1,
               "out of range");
  /* the modern handle is a CVMAPI net too */
  {
    unsigned long long gas = 0;
    EXPECT(CVMAPIGetGasFromModel((void*)model, &gas) == 0 && gas == 149);
  }

  /* bytes in, bytes out, with an explicit capacity */
  memset(out, 0xAB, sizeof out);
  EXPECT(CVMModelInferBytes(model, kInput, 4, out, sizeof out, &written) == 0);
  EXPECT(written == 12);
  decode_i32(out, y, 3);
  EXPECT(memcmp(y, kExpectedBias, sizeof y) == 0);
  for (i = 12; i < 16; ++i) EXPECT(out[i] == 0xAB);
  /* too small: status 1, nothing written (the canary bytes stay), *written 0 */
  memset(out, 0xAB, sizeof out);
  written = 99;
  EXPECT_ERROR(CVMModelInferBytes(model, kInput, 4, out, 11, &written), 1, "output buffer");
  EXPECT(written == 0);
  for (i = 0; i < 16; ++i) EXPECT(out[i] == 0xAB);
  EXPECT_ERROR(CVMModelInferBytes(model, kInput, 4, NULL, 0, &written), 1, "output buffer");
  EXPECT_ERROR(CVMModelInferBytes(model, kInput, 5, out, sizeof out, NULL), 1, "input");

  /* a session: array in, array out */
  EXPECT(CVMSessionCreate(model, &session) == 0 && session != NULL);
  {
    const int64_t in_shape[2] = {1, 4};
    const int64_t bad_shape[2] = {4, 1};
    CVMArrayHandle input = int8_array(in_shape, 2, kInput, 4);
    CVMArrayHandle bad = int8_array(bad_shape, 2, kInput, 4);
    CVMArrayHandle output = NULL;
    EXPECT_ERROR(CVMSessionRun(session), 1, "set_input");
    EXPECT_ERROR(CVMSessionGetOutput(session, 0, &output), 1, "run");
    EXPECT(output == NULL);
    EXPECT_ERROR(CVMSessionSetInput(session, "x", input), 1, "data");
    EXPECT_ERROR(CVMSessionSetInput(session, "data", bad), 1, "shape");
    EXPECT_ERROR(CVMSessionSetInput(session, "data", NULL), 1, "value");
    EXPECT(CVMSessionSetInput(session, "data", input) == 0);
    /* the model handle may go first: the session keeps the model alive */
    EXPECT(CVMModelFree(model) == 0);
    model = NULL;
    EXPECT(CVMSessionRun(session) == 0);
    EXPECT(CVMSessionGetOutput(session, 0, &output) == 0 && output != NULL);
    if (output != NULL) {
      EXPECT(output->ndim == 2 && output->shape[0] == 1 && output->shape[1] == 3);
      EXPECT(output->dtype.code == kDLInt && output->dtype.bits == 32);
      EXPECT(CVMArrayCopyToBytes(output, y, sizeof y) == 0);
      EXPECT(memcmp(y, kExpectedBias, sizeof y) == 0);
    }
    CVMArrayFree(output);
    EXPECT_ERROR(CVMSessionGetOutput(session, 1, &output), 1, "does not exist");
    EXPECT(output == NULL);
    EXPECT_ERROR(CVMSessionGetOutput(session, -1, &output), 1, "index");
    EXPECT(output == NULL);
    CVMArrayFree(input);
    CVMArrayFree(bad);
  }
  EXPECT(CVMSessionFree(session) == 0);
}

static void test_model_files(const char* tmpdir) {
  char path[512];
  CVMModelHandle model = (CVMModelHandle)&model;
  snprintf(path, sizeof path, "%s/no_such_model.cvmrt", tmpdir);
  EXPECT(CVMModelLoadFile(path, &model) != 0);
  EXPECT(strstr(CVMGetLastError(), "no_such_model.cvmrt") != NULL);
  EXPECT(model == NULL);
  EXPECT_ERROR(CVMModelLoadBytes("not a model", 11, &model), 1, "");
  EXPECT(CVMGetLastError()[0] != '\0');
  EXPECT(model == NULL);
  EXPECT_ERROR(CVMModelLoadFile(NULL, &model), 1, "path");
}

int main(int argc, char** argv) {
  const char* tmpdir = argc > 1 ? argv[1] : ".";
  test_gas_from_graph_file();
  test_cvmapi(0, CVM_MODEL_DEVICE_CPU);
  test_cvmapi(1, CVM_MODEL_DEVICE_CPU);
  test_cvmapi(0, CVM_MODEL_DEVICE_REFERENCE);
  test_cvmapi(1, CVM_MODEL_DEVICE_REFERENCE);
  test_load_errors();
  test_modern();
  test_model_files(tmpdir);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
