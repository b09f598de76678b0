/* The stable C ABI of libcvmrt: arrays, param dicts, DLPack interop, errors and version.
 *
 * Every call returns 0 (ok), 1 (logic error: the caller's input was wrong) or 2 (runtime
 * error: out of memory, device failure, internal fault). On failure CVMGetLastError() returns
 * the message; it is thread-local and stays valid until the next failing call on that thread.
 * The CVM-compatible prototypes (spec/cvm-ops.md section 9) are kept exactly. */
#ifndef CVM_C_API_H_
#define CVM_C_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define CVM_DLL __declspec(dllexport)
#else
#define CVM_DLL __attribute__((visibility("default")))
#endif

/* Status codes. */
#define CVM_STATUS_OK 0
#define CVM_STATUS_LOGIC_ERROR 1
#define CVM_STATUS_RUNTIME_ERROR 2

/* A DLTensor* that is really a cvmrt Container*: only CVMArrayAlloc, CVMLoadParamsDict and
 * CVMArrayFromDLPack make them, and only CVMArrayFree destroys them. The DLTensor fields may be
 * read directly; `data` points at element [0, ...] (byte_offset is always 0) and `strides` is
 * NULL for compact row-major arrays. */
typedef DLTensor* CVMArrayHandle;
typedef void* CVMStreamHandle; /* NULL = default stream */
typedef struct {
  const char* data;
  size_t size;
} CVMByteArray;

/* ---- errors and version ---- */

/* The message of the last failing call on this thread ("" if none). Never NULL. */
CVM_DLL const char* CVMGetLastError(void);
/* "MAJOR.MINOR.PATCH" of the library; static storage. */
CVM_DLL const char* CVMGetLibraryVersion(void);
/* The version packed as MAJOR * 10000 + MINOR * 100 + PATCH. */
CVM_DLL int CVMGetLibraryVersionNumber(void);

/* ---- arrays ---- */

/* New uninitialised compact array. `shape` holds `ndim` extents (>= 0; may be NULL when ndim
 * is 0); the dtype must be one cvmrt supports (int/uint 8..64, float 16/32/64, bfloat16, bool
 * as code 6 bits 8) with lanes 1. device_type 1 = CPU. */
CVM_DLL int CVMArrayAlloc(const int64_t* shape, int ndim, int dtype_code, int dtype_bits,
                          int dtype_lanes, int device_type, int device_id, CVMArrayHandle* out);
/* Releases a handle. Freeing NULL is a no-op that succeeds. */
CVM_DLL int CVMArrayFree(CVMArrayHandle handle);
/* Copies `nbytes` host bytes (row-major; must equal the array's size) into the array. */
CVM_DLL int CVMArrayCopyFromBytes(CVMArrayHandle handle, void* data, size_t nbytes);
/* Copies the array out as `nbytes` host bytes (row-major; must equal the array's size). */
CVM_DLL int CVMArrayCopyToBytes(CVMArrayHandle handle, void* data, size_t nbytes);
/* Element-wise copy between arrays of the same shape and dtype; `stream` must be NULL on CPU. */
CVM_DLL int CVMArrayCopyFromTo(CVMArrayHandle from, CVMArrayHandle to, CVMStreamHandle stream);

/* ---- DLPack ---- */

/* A DLManagedTensor sharing the array's memory; the caller calls its deleter exactly once. The
 * array handle stays valid and independent. */
CVM_DLL int CVMArrayToDLPack(CVMArrayHandle handle, DLManagedTensor** out);
/* Takes ownership of `managed` (even on failure, where its deleter is called before return)
 * and returns a handle over its memory; the deleter runs exactly once, when the last user is
 * gone. Misaligned memory is copied; read-only memory (flagged by the producer through
 * CVMArrayFromDLPackEx) is copied before the first write. */
CVM_DLL int CVMArrayFromDLPack(DLManagedTensor* managed, CVMArrayHandle* out);
CVM_DLL int CVMArrayFromDLPackEx(DLManagedTensor* managed, int read_only, CVMArrayHandle* out);

/* ---- param dicts ---- */

/* params = [name0, tensor0, name1, tensor1, ...] (const char*, DLTensor*), params_size =
 * 2 x count. Writes the cvmrt format. *out points to bytes owned by the library, valid until
 * the next call on the same thread. The tensors may be any DLTensor on the CPU. */
CVM_DLL int CVMSaveParamsDict(const void** params, int params_size, CVMByteArray* out);
/* The same, choosing the format: 0 = cvmrt, 1 = legacy CVM. */
CVM_DLL int CVMSaveParamsDictFormat(const void** params, int params_size, int format,
                                    CVMByteArray* out);
/* names[i] (const char*) valid until the next call on the same thread; values[i] are
 * CVMArrayHandle the caller frees with CVMArrayFree. Accepts both the legacy and the
 * flatbuffers format. */
CVM_DLL int CVMLoadParamsDict(const char* data, int datalen, int* num, void*** names,
                              void*** values);
/* 64-bit length form of CVMLoadParamsDict; `verify` = 0 skips payload checksums only. */
CVM_DLL int CVMLoadParamsDictEx(const char* data, size_t datalen, int verify, int* num,
                                void*** names, void*** values);
/* Maps the file read-only and returns zero-copy arrays over it (the mapping lives while any
 * of them does). Names as for CVMLoadParamsDict. */
CVM_DLL int CVMLoadParamsFile(const char* path, int verify, int* num, void*** names,
                              void*** values);

/* ---- backends ---- */

/* Selects the preferred backend ("auto", "scalar", "simd", ...). */
CVM_DLL int CVMSetBackend(const char* name);
/* The preferred backend's name; static storage. */
CVM_DLL const char* CVMGetBackend(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CVM_C_API_H_ */
