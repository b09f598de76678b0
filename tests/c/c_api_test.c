/* Plain-C tests of the C ABI against the shared library: arrays, bytes, DLPack, params, errors.
 * Usage: c_api_test <writable temp dir> */
#include "cvm/c_api.h"
#include "expect.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int code;
  int bits;
  const char* name;
} DType;

static const DType kDTypes[] = {
    {kDLInt, 8, "int8"},
    {kDLInt, 16, "int16"},
    {kDLInt, 32, "int32"},
    {kDLInt, 64, "int64"},
    {kDLUInt, 8, "uint8"},
    {kDLUInt, 16, "uint16"},
    {kDLUInt, 32, "uint32"},
    {kDLUInt, 64, "uint64"},
    {kDLFloat, 16, "float16"},
    {kDLFloat, 32, "float32"},
    {kDLFloat, 64, "float64"},
    {kDLBfloat, 16, "bfloat16"},
    {6, 8, "bool"},
};
#define NUM_DTYPES ((int)(sizeof(kDTypes) / sizeof(kDTypes[0])))

static CVMArrayHandle alloc_i32(const int64_t* shape, int ndim) {
  CVMArrayHandle h = NULL;
  int rc = CVMArrayAlloc(shape, ndim, kDLInt, 32, 1, kDLCPU, 0, &h);
  EXPECT(rc == 0);
  EXPECT(h != NULL);
  return h;
}

static void test_version(void) {
  const char* v = CVMGetLibraryVersion();
  int major = -1, minor = -1, patch = -1;
  EXPECT(v != NULL && v[0] != '\0');
  EXPECT(sscanf(v, "%d.%d.%d", &major, &minor, &patch) == 3);
  EXPECT(CVMGetLibraryVersionNumber() == major * 10000 + minor * 100 + patch);
}

static void test_alloc_every_dtype(void) {
  const int64_t shape[2] = {2, 3};
  int i, j;
  for (i = 0; i < NUM_DTYPES; ++i) {
    CVMArrayHandle h = NULL;
    size_t nbytes = (size_t)(6 * (kDTypes[i].bits / 8));
    unsigned char in[48], out[48];
    EXPECT(CVMArrayAlloc(shape, 2, kDTypes[i].code, kDTypes[i].bits, 1, kDLCPU, 0, &h) == 0);
    if (h == NULL) {
      fprintf(stderr, "  dtype %s\n", kDTypes[i].name);
      continue;
    }
    EXPECT(h->ndim == 2);
    EXPECT(h->shape != NULL && h->shape[0] == 2 && h->shape[1] == 3);
    EXPECT(h->strides == NULL);
    EXPECT(h->byte_offset == 0);
    EXPECT(h->dtype.code == kDTypes[i].code && h->dtype.bits == kDTypes[i].bits);
    EXPECT(h->dtype.lanes == 1);
    EXPECT(h->device.device_type == kDLCPU && h->device.device_id == 0);
    EXPECT(h->data != NULL);
    for (j = 0; j < (int)nbytes; ++j) {
      in[j] = kDTypes[i].code == 6 ? (unsigned char)(j & 1) : (unsigned char)(j * 7 + i);
    }
    EXPECT(CVMArrayCopyFromBytes(h, in, nbytes) == 0);
    memset(out, 0xEE, sizeof(out));
    EXPECT(CVMArrayCopyToBytes(h, out, nbytes) == 0);
    EXPECT(memcmp(in, out, nbytes) == 0);
    EXPECT(memcmp(in, h->data, nbytes) == 0); /* dl.data is readable directly */
    EXPECT(CVMArrayFree(h) == 0);
  }
}

static void test_alloc_shapes(void) {
  const int64_t empty_shape[2] = {0, 3};
  CVMArrayHandle h = NULL;
  int32_t scalar = 42, back = 0;
  /* 0-d scalar: shape may be NULL */
  EXPECT(CVMArrayAlloc(NULL, 0, kDLInt, 32, 1, kDLCPU, 0, &h) == 0);
  EXPECT(h != NULL && h->ndim == 0);
  EXPECT(CVMArrayCopyFromBytes(h, &scalar, sizeof(scalar)) == 0);
  EXPECT(CVMArrayCopyToBytes(h, &back, sizeof(back)) == 0);
  EXPECT(back == 42);
  EXPECT(CVMArrayFree(h) == 0);
  /* empty: zero bytes in and out, NULL data pointer allowed for zero bytes */
  h = alloc_i32(empty_shape, 2);
  EXPECT(CVMArrayCopyFromBytes(h, NULL, 0) == 0);
  EXPECT(CVMArrayCopyToBytes(h, NULL, 0) == 0);
  EXPECT_ERROR(CVMArrayCopyToBytes(h, &back, 4), 1, "bytes");
  EXPECT(CVMArrayFree(h) == 0);
  /* fresh arrays are zeroed (deterministic) */
  {
    const int64_t shape[1] = {16};
    int32_t vals[16];
    int k, zero = 1;
    h = alloc_i32(shape, 1);
    EXPECT(CVMArrayCopyToBytes(h, vals, sizeof(vals)) == 0);
    for (k = 0; k < 16; ++k) zero = zero && vals[k] == 0;
    EXPECT(zero);
    EXPECT(CVMArrayFree(h) == 0);
  }
}

static void test_alloc_errors(void) {
  const int64_t shape[2] = {2, 3};
  const int64_t negative[2] = {2, -3};
  int64_t big[40];
  CVMArrayHandle h = (CVMArrayHandle)1;
  int i;
  for (i = 0; i < 40; ++i) big[i] = 1;
  EXPECT_ERROR(CVMArrayAlloc(negative, 2, kDLInt, 32, 1, kDLCPU, 0, &h), 1, "negative");
  EXPECT(h == NULL); /* *out is cleared on failure */
  EXPECT_ERROR(CVMArrayAlloc(NULL, 2, kDLInt, 32, 1, kDLCPU, 0, &h), 1, "shape");
  EXPECT_ERROR(CVMArrayAlloc(shape, -1, kDLInt, 32, 1, kDLCPU, 0, &h), 1, "ndim");
  EXPECT_ERROR(CVMArrayAlloc(big, 33, kDLInt, 32, 1, kDLCPU, 0, &h), 1, "ndim");
  EXPECT(CVMArrayAlloc(big, 32, kDLInt, 32, 1, kDLCPU, 0, &h) == 0);
  EXPECT(CVMArrayFree(h) == 0);
  EXPECT_ERROR(CVMArrayAlloc(shape, 2, kDLInt, 32, 4, kDLCPU, 0, &h), 1, "lanes");
  EXPECT_ERROR(CVMArrayAlloc(shape, 2, kDLFloat, 8, 1, kDLCPU, 0, &h), 1, "unsupported dtype");
  EXPECT_ERROR(CVMArrayAlloc(shape, 2, kDLInt, 32 + 256, 1, kDLCPU, 0, &h), 1, "dtype");
  EXPECT_ERROR(CVMArrayAlloc(shape, 2, 77, 32, 1, kDLCPU, 0, &h), 1, "dtype");
  EXPECT_ERROR(CVMArrayAlloc(shape, 2, 6, 1, 1, kDLCPU, 0, &h), 1, "dtype");
  EXPECT_ERROR(CVMArrayAlloc(shape, 2, kDLInt, 32, 1, kDLOpenCL, 0, &h), 1, "device_type");
  EXPECT_ERROR(CVMArrayAlloc(shape, 2, kDLInt, 32, 1, kDLCPU, 3, &h), 1, "device_id");
  EXPECT_ERROR(CVMArrayAlloc(shape, 2, kDLInt, 32, 1, kDLCPU, 0, NULL), 1, "out");
  {
    /* far too large: an overflow of the byte count is the caller's fault */
    const int64_t huge[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 16};
    EXPECT_ERROR(CVMArrayAlloc(huge, 3, kDLInt, 32, 1, kDLCPU, 0, &h), 1, "overflow");
  }
}

static void test_bytes_errors(void) {
  const int64_t shape[2] = {2, 3};
  int32_t buf[6] = {1, 2, 3, 4, 5, 6};
  CVMArrayHandle h = alloc_i32(shape, 2);
  EXPECT(CVMArrayFree(NULL) == 0);
  EXPECT_ERROR(CVMArrayCopyFromBytes(h, buf, 20), 1, "20");
  EXPECT_ERROR(CVMArrayCopyFromBytes(h, buf, 28), 1, "24");
  EXPECT_ERROR(CVMArrayCopyToBytes(h, buf, 4), 1, "bytes");
  EXPECT_ERROR(CVMArrayCopyFromBytes(NULL, buf, 24), 1, "handle");
  EXPECT_ERROR(CVMArrayCopyToBytes(NULL, buf, 24), 1, "handle");
  EXPECT_ERROR(CVMArrayCopyFromBytes(h, NULL, 24), 1, "data");
  EXPECT_ERROR(CVMArrayCopyToBytes(h, NULL, 24), 1, "data");
  /* the last error stays until the next failure, successes leave it alone */
  EXPECT(CVMArrayCopyFromBytes(h, buf, 24) == 0);
  EXPECT(strstr(CVMGetLastError(), "data") != NULL);
  EXPECT(CVMArrayFree(h) == 0);
}

static void test_copy_from_to(void) {
  const int64_t shape[2] = {2, 3};
  const int64_t other_shape[2] = {3, 2};
  int32_t in[6] = {1, -2, 3, -4, 5, -6}, out[6] = {0};
  CVMArrayHandle a = alloc_i32(shape, 2);
  CVMArrayHandle b = alloc_i32(shape, 2);
  CVMArrayHandle c = alloc_i32(other_shape, 2);
  CVMArrayHandle d = NULL;
  EXPECT(CVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCPU, 0, &d) == 0);
  EXPECT(CVMArrayCopyFromBytes(a, in, sizeof(in)) == 0);
  EXPECT(CVMArrayCopyFromTo(a, b, NULL) == 0);
  EXPECT(CVMArrayCopyToBytes(b, out, sizeof(out)) == 0);
  EXPECT(memcmp(in, out, sizeof(in)) == 0);
  EXPECT(a->data != b->data);
  EXPECT_ERROR(CVMArrayCopyFromTo(a, c, NULL), 1, "shape");
  EXPECT_ERROR(CVMArrayCopyFromTo(a, d, NULL), 1, "dtype");
  EXPECT_ERROR(CVMArrayCopyFromTo(a, b, (CVMStreamHandle)a), 1, "stream");
  EXPECT_ERROR(CVMArrayCopyFromTo(NULL, b, NULL), 1, "from");
  EXPECT_ERROR(CVMArrayCopyFromTo(a, NULL, NULL), 1, "to");
  EXPECT(CVMArrayFree(a) == 0);
  EXPECT(CVMArrayFree(b) == 0);
  EXPECT(CVMArrayFree(c) == 0);
  EXPECT(CVMArrayFree(d) == 0);
}

/* ---- DLPack ---- */

static int g_deleter_calls = 0;

/* A producer in C: a malloc'd tensor whose deleter counts its calls and frees everything. */
typedef struct {
  DLManagedTensor managed;
  int64_t shape[2];
  int64_t strides[2];
  unsigned char storage[64];
  int keep; /* 1: the test frees it after the deleter ran, to look at the memory first */
} CTensor;

static void ctensor_deleter(DLManagedTensor* self) {
  CTensor* t = (CTensor*)self->manager_ctx;
  ++g_deleter_calls;
  if (!t->keep) free(t);
}

static CTensor* make_ctensor(int rows, int cols) {
  CTensor* t = (CTensor*)calloc(1, sizeof(CTensor));
  int32_t* v;
  int i;
  t->shape[0] = rows;
  t->shape[1] = cols;
  t->managed.dl_tensor.data = t->storage;
  t->managed.dl_tensor.device.device_type = kDLCPU;
  t->managed.dl_tensor.device.device_id = 0;
  t->managed.dl_tensor.ndim = 2;
  t->managed.dl_tensor.dtype.code = kDLInt;
  t->managed.dl_tensor.dtype.bits = 32;
  t->managed.dl_tensor.dtype.lanes = 1;
  t->managed.dl_tensor.shape = t->shape;
  t->managed.dl_tensor.strides = NULL;
  t->managed.dl_tensor.byte_offset = 0;
  t->managed.manager_ctx = t;
  t->managed.deleter = ctensor_deleter;
  v = (int32_t*)(void*)t->storage;
  for (i = 0; i < rows * cols; ++i) v[i] = i + 1;
  return t;
}

/* Wraps an exported tensor so the C side can count the deleter calls. */
typedef struct {
  DLManagedTensor managed;
  DLManagedTensor* inner;
} Wrapper;

static void wrapper_deleter(DLManagedTensor* self) {
  Wrapper* w = (Wrapper*)self->manager_ctx;
  ++g_deleter_calls;
  w->inner->deleter(w->inner);
  free(w);
}

static void test_dlpack(void) {
  const int64_t shape[2] = {2, 3};
  int32_t in[6] = {10, 20, 30, 40, 50, 60}, out[6] = {0};
  CVMArrayHandle a = alloc_i32(shape, 2), b = NULL;
  DLManagedTensor* m = NULL;
  Wrapper* w;
  CTensor* t;

  /* export, then import through a counting wrapper */
  EXPECT(CVMArrayCopyFromBytes(a, in, sizeof(in)) == 0);
  EXPECT(CVMArrayToDLPack(a, &m) == 0);
  EXPECT(m != NULL && m->deleter != NULL);
  EXPECT(m->dl_tensor.ndim == 2 && m->dl_tensor.shape[0] == 2 && m->dl_tensor.shape[1] == 3);
  EXPECT(m->dl_tensor.data == a->data);
  EXPECT(memcmp(m->dl_tensor.data, in, sizeof(in)) == 0);
  w = (Wrapper*)calloc(1, sizeof(Wrapper));
  w->inner = m;
  w->managed.dl_tensor = m->dl_tensor;
  w->managed.manager_ctx = w;
  w->managed.deleter = wrapper_deleter;
  g_deleter_calls = 0;
  EXPECT(CVMArrayFromDLPack(&w->managed, &b) == 0);
  EXPECT(b != NULL && b->data == a->data); /* zero-copy */
  EXPECT(CVMArrayCopyToBytes(b, out, sizeof(out)) == 0);
  EXPECT(memcmp(in, out, sizeof(in)) == 0);
  EXPECT(CVMArrayFree(a) == 0); /* the import keeps the memory alive */
  EXPECT(g_deleter_calls == 0);
  EXPECT(CVMArrayCopyToBytes(b, out, sizeof(out)) == 0);
  EXPECT(memcmp(in, out, sizeof(in)) == 0);
  EXPECT(CVMArrayFree(b) == 0);
  EXPECT(g_deleter_calls == 1);

  /* a C producer: writes go to its memory (not read-only) */
  g_deleter_calls = 0;
  t = make_ctensor(2, 3);
  EXPECT(CVMArrayFromDLPack(&t->managed, &b) == 0);
  EXPECT(b != NULL && b->data == (void*)t->storage);
  EXPECT(CVMArrayCopyToBytes(b, out, sizeof(out)) == 0);
  EXPECT(out[0] == 1 && out[5] == 6);
  EXPECT(CVMArrayCopyFromBytes(b, in, sizeof(in)) == 0);
  EXPECT(memcmp(t->storage, in, sizeof(in)) == 0);
  EXPECT(g_deleter_calls == 0);
  EXPECT(CVMArrayFree(b) == 0);
  EXPECT(g_deleter_calls == 1);

  /* read-only import: a write copies, the producer's memory is unchanged */
  g_deleter_calls = 0;
  t = make_ctensor(2, 3);
  t->keep = 1;
  EXPECT(CVMArrayFromDLPackEx(&t->managed, 1, &b) == 0);
  EXPECT(b->data == (void*)t->storage); /* zero-copy while only read */
  EXPECT(CVMArrayCopyFromBytes(b, in, sizeof(in)) == 0);
  EXPECT(b->data != (void*)t->storage);
  EXPECT(((int32_t*)(void*)t->storage)[0] == 1);
  EXPECT(memcmp(b->data, in, sizeof(in)) == 0);
  EXPECT(g_deleter_calls == 1); /* the private copy no longer needs the producer */
  EXPECT(CVMArrayFree(b) == 0);
  EXPECT(g_deleter_calls == 1);
  free(t);

  /* byte_offset and strides: column 1 of a 2x3 tensor as a (2,) view */
  g_deleter_calls = 0;
  t = make_ctensor(2, 3);
  t->managed.dl_tensor.ndim = 1;
  t->shape[0] = 2;
  t->strides[0] = 3;
  t->managed.dl_tensor.strides = t->strides;
  t->managed.dl_tensor.byte_offset = 4;
  EXPECT(CVMArrayFromDLPack(&t->managed, &b) == 0);
  EXPECT(CVMArrayCopyToBytes(b, out, 8) == 0);
  EXPECT(out[0] == 2 && out[1] == 5);
  EXPECT(CVMArrayFree(b) == 0);
  EXPECT(g_deleter_calls == 1);

  /* invalid: status 1 and the deleter still runs exactly once */
  g_deleter_calls = 0;
  t = make_ctensor(2, 3);
  t->managed.dl_tensor.dtype.bits = 7;
  b = (CVMArrayHandle)1;
  EXPECT_ERROR(CVMArrayFromDLPack(&t->managed, &b), 1, "dtype");
  EXPECT(b == NULL);
  EXPECT(g_deleter_calls == 1);

  g_deleter_calls = 0;
  t = make_ctensor(2, 3);
  t->managed.dl_tensor.device.device_type = kDLOpenCL;
  EXPECT_ERROR(CVMArrayFromDLPack(&t->managed, &b), 1, "device_type");
  EXPECT(g_deleter_calls == 1);

  g_deleter_calls = 0;
  t = make_ctensor(2, 3);
  t->shape[1] = -3;
  EXPECT_ERROR(CVMArrayFromDLPack(&t->managed, &b), 1, "negative");
  EXPECT(g_deleter_calls == 1);

  g_deleter_calls = 0;
  t = make_ctensor(2, 3);
  EXPECT_ERROR(CVMArrayFromDLPack(&t->managed, NULL), 1, "out");
  EXPECT(g_deleter_calls == 1);

  EXPECT_ERROR(CVMArrayFromDLPack(NULL, &b), 1, "NULL");
  EXPECT_ERROR(CVMArrayToDLPack(NULL, &m), 1, "handle");
}

/* ---- params ---- */

static int handles_equal(CVMArrayHandle x, CVMArrayHandle y) {
  unsigned char bx[256], by[256];
  size_t n = 1;
  int i;
  if (x->ndim != y->ndim || x->dtype.code != y->dtype.code || x->dtype.bits != y->dtype.bits) {
    return 0;
  }
  for (i = 0; i < x->ndim; ++i) {
    if (x->shape[i] != y->shape[i]) return 0;
    n *= (size_t)x->shape[i];
  }
  n *= (size_t)(x->dtype.bits / 8);
  if (n > sizeof(bx)) return 0;
  if (CVMArrayCopyToBytes(x, bx, n) != 0 || CVMArrayCopyToBytes(y, by, n) != 0) return 0;
  return memcmp(bx, by, n) == 0;
}

static void check_loaded(int num, void** names, void** values, CVMArrayHandle w,
                         CVMArrayHandle bias) {
  int i;
  EXPECT(num == 2);
  if (num != 2) return;
  EXPECT(strcmp((const char*)names[0], "w") == 0);
  EXPECT(strcmp((const char*)names[1], "bias") == 0);
  EXPECT(handles_equal((CVMArrayHandle)values[0], w));
  EXPECT(handles_equal((CVMArrayHandle)values[1], bias));
  for (i = 0; i < num; ++i) EXPECT(CVMArrayFree((CVMArrayHandle)values[i]) == 0);
}

static void test_params(const char* tmpdir) {
  const int64_t wshape[2] = {3, 4};
  const int64_t bshape[1] = {3};
  int8_t wv[12];
  float bv[3] = {0.5f, -1.25f, 3.0f};
  CVMArrayHandle w = NULL, bias = NULL;
  const void* params[4];
  CVMByteArray bytes = {NULL, 0};
  int num = -1, i, format;
  void** names = NULL;
  void** values = NULL;
  char path[1024];

  for (i = 0; i < 12; ++i) wv[i] = (int8_t)(i * 11 - 60);
  EXPECT(CVMArrayAlloc(wshape, 2, kDLInt, 8, 1, kDLCPU, 0, &w) == 0);
  EXPECT(CVMArrayAlloc(bshape, 1, kDLFloat, 32, 1, kDLCPU, 0, &bias) == 0);
  EXPECT(CVMArrayCopyFromBytes(w, wv, sizeof(wv)) == 0);
  EXPECT(CVMArrayCopyFromBytes(bias, bv, sizeof(bv)) == 0);
  params[0] = "w";
  params[1] = w;
  params[2] = "bias";
  params[3] = bias;

  for (format = 0; format <= 1; ++format) {
    EXPECT(CVMSaveParamsDictFormat(params, 4, format, &bytes) == 0);
    EXPECT(bytes.data != NULL && bytes.size > 0);
    EXPECT(CVMLoadParamsDict(bytes.data, (int)bytes.size, &num, &names, &values) == 0);
    check_loaded(num, names, values, w, bias);
    EXPECT(CVMLoadParamsDictEx(bytes.data, bytes.size, 0, &num, &names, &values) == 0);
    check_loaded(num, names, values, w, bias);
  }
  /* CVMSaveParamsDict is the cvmrt format */
  EXPECT(CVMSaveParamsDict(params, 4, &bytes) == 0);
  {
    CVMByteArray again = {NULL, 0};
    char* copy = (char*)malloc(bytes.size);
    size_t size = bytes.size;
    memcpy(copy, bytes.data, size);
    EXPECT(CVMSaveParamsDictFormat(params, 4, 0, &again) == 0);
    EXPECT(again.size == size && memcmp(copy, again.data, size) == 0); /* deterministic */
    free(copy);
  }

  /* a foreign DLTensor (not made by cvmrt) is accepted by the save */
  {
    int16_t raw[3] = {-1, 2, -3};
    int64_t rshape[1] = {3};
    DLTensor foreign;
    const void* fparams[2];
    memset(&foreign, 0, sizeof(foreign));
    foreign.data = raw;
    foreign.device.device_type = kDLCPU;
    foreign.ndim = 1;
    foreign.dtype.code = kDLInt;
    foreign.dtype.bits = 16;
    foreign.dtype.lanes = 1;
    foreign.shape = rshape;
    fparams[0] = "raw";
    fparams[1] = &foreign;
    EXPECT(CVMSaveParamsDict(fparams, 2, &bytes) == 0);
    EXPECT(CVMLoadParamsDict(bytes.data, (int)bytes.size, &num, &names, &values) == 0);
    EXPECT(num == 1);
    if (num == 1) {
      int16_t back[3] = {0};
      EXPECT(strcmp((const char*)names[0], "raw") == 0);
      EXPECT(CVMArrayCopyToBytes((CVMArrayHandle)values[0], back, sizeof(back)) == 0);
      EXPECT(memcmp(back, raw, sizeof(raw)) == 0);
      EXPECT(CVMArrayFree((CVMArrayHandle)values[0]) == 0);
    }
  }

  /* from a file */
  EXPECT(CVMSaveParamsDict(params, 4, &bytes) == 0);
  snprintf(path, sizeof(path), "%s/c_api_test.params", tmpdir);
  {
    FILE* f = fopen(path, "wb");
    EXPECT(f != NULL);
    if (f != NULL) {
      EXPECT(fwrite(bytes.data, 1, bytes.size, f) == bytes.size);
      fclose(f);
      EXPECT(CVMLoadParamsFile(path, 1, &num, &names, &values) == 0);
      check_loaded(num, names, values, w, bias);
      remove(path);
    }
  }
  snprintf(path, sizeof(path), "%s/c_api_test_missing.params", tmpdir);
  EXPECT(CVMLoadParamsFile(path, 1, &num, &names, &values) != 0);
  EXPECT(CVMGetLastError()[0] != '\0');

  /* errors */
  {
    const char garbage[32] = "this is not a param dict at all";
    const void* dup[4];
    const void* null_name[2];
    dup[0] = "w";
    dup[1] = w;
    dup[2] = "w";
    dup[3] = bias;
    null_name[0] = NULL;
    null_name[1] = w;
    num = 7;
    EXPECT_ERROR(CVMLoadParamsDict(garbage, (int)sizeof(garbage), &num, &names, &values), 1,
                 "format");
    EXPECT(num == 0);
    EXPECT_ERROR(CVMLoadParamsDict(bytes.data, -1, &num, &names, &values), 1, "datalen");
    EXPECT_ERROR(CVMLoadParamsDict(NULL, 10, &num, &names, &values), 1, "data");
    EXPECT_ERROR(CVMLoadParamsDict(garbage, 32, NULL, &names, &values), 1, "num");
    EXPECT_ERROR(CVMLoadParamsDict(garbage, 32, &num, NULL, &values), 1, "names");
    EXPECT_ERROR(CVMLoadParamsDict(garbage, 32, &num, &names, NULL), 1, "values");
    /* a truncated dict is rejected, not read past its end */
    EXPECT(CVMSaveParamsDict(params, 4, &bytes) == 0);
    EXPECT(CVMLoadParamsDict(bytes.data, (int)bytes.size - 5, &num, &names, &values) == 1);
    EXPECT_ERROR(CVMSaveParamsDict(params, 3, &bytes), 1, "even");
    EXPECT_ERROR(CVMSaveParamsDict(params, -2, &bytes), 1, "even");
    EXPECT_ERROR(CVMSaveParamsDict(NULL, 2, &bytes), 1, "params");
    EXPECT_ERROR(CVMSaveParamsDict(params, 4, NULL), 1, "out");
    EXPECT_ERROR(CVMSaveParamsDict(dup, 4, &bytes), 1, "duplicate");
    EXPECT_ERROR(CVMSaveParamsDict(null_name, 2, &bytes), 1, "name");
    EXPECT_ERROR(CVMSaveParamsDictFormat(params, 4, 2, &bytes), 1, "format");
  }
  /* an empty dict saves and loads */
  EXPECT(CVMSaveParamsDict(NULL, 0, &bytes) == 0);
  EXPECT(CVMLoadParamsDict(bytes.data, (int)bytes.size, &num, &names, &values) == 0);
  EXPECT(num == 0);

  EXPECT(CVMArrayFree(w) == 0);
  EXPECT(CVMArrayFree(bias) == 0);
}

static void test_backend(void) {
  const char* b = CVMGetBackend();
  EXPECT(b != NULL && b[0] != '\0');
  EXPECT(CVMSetBackend("scalar") == 0);
  EXPECT(strcmp(CVMGetBackend(), "scalar") == 0);
  EXPECT_ERROR(CVMSetBackend("no-such-backend"), 1, "no-such-backend");
  EXPECT_ERROR(CVMSetBackend(NULL), 1, "name");
  EXPECT(CVMSetBackend("auto") == 0);
  EXPECT(CVMGetBackend()[0] != '\0');
}

int main(int argc, char** argv) {
  const char* tmpdir = argc > 1 ? argv[1] : ".";
  /* before any failure the last error is the empty string, never NULL */
  EXPECT(CVMGetLastError() != NULL && CVMGetLastError()[0] == '\0');
  test_version();
  test_alloc_every_dtype();
  test_alloc_shapes();
  test_alloc_errors();
  test_bytes_errors();
  test_copy_from_to();
  test_dlpack();
  test_params(tmpdir);
  test_backend();
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
