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

/* A DLTensor* that is really a cvmrt Container*: CVMArrayAlloc, the CVMLoadParams* calls,
 * CVMArrayFromDLPack(Ex) and CVMOpRun make them, and only CVMArrayFree destroys them. Passing
 * any other DLTensor* where a CVMArrayHandle is expected is undefined, as in CVM. The DLTensor
 * fields may be read directly; `data` points at element [0, ...] (byte_offset is always 0) and
 * `strides` is NULL for compact row-major arrays. Handles from CVMLoadParamsFile point into a
 * read-only file mapping: never write through `data` — CVMArrayCopyFromBytes copies first. */
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

/* New zero-filled compact array. `shape` holds `ndim` extents (>= 0; may be NULL when ndim
 * is 0); the dtype must be one cvmrt supports (int/uint 8..64, float 16/32/64, bfloat16, bool
 * as code 6 bits 8) with lanes 1. device_type 1 = CPU (device_id 0), 2 = CUDA GPU device_id
 * (a runtime error when it is unavailable; a logic error in a build without CUDA). */
CVM_DLL int CVMArrayAlloc(const int64_t* shape, int ndim, int dtype_code, int dtype_bits,
                          int dtype_lanes, int device_type, int device_id, CVMArrayHandle* out);
/* Releases a handle. Freeing NULL is a no-op that succeeds. */
CVM_DLL int CVMArrayFree(CVMArrayHandle handle);
/* Copies `nbytes` host bytes (row-major; must equal the array's size) into the array. */
CVM_DLL int CVMArrayCopyFromBytes(CVMArrayHandle handle, void* data, size_t nbytes);
/* Copies the array out as `nbytes` host bytes (row-major; must equal the array's size). */
CVM_DLL int CVMArrayCopyToBytes(CVMArrayHandle handle, void* data, size_t nbytes);
/* Element-wise copy between arrays of the same shape and dtype, on the same or different devices
 * (CPU and CUDA; complete on return when a side is the CPU). `stream` must be NULL. */
CVM_DLL int CVMArrayCopyFromTo(CVMArrayHandle from, CVMArrayHandle to, CVMStreamHandle stream);

/* -- views --
 * Each call below makes *out a NEW handle (never `handle` itself) that the caller frees with
 * CVMArrayFree; on failure *out is NULL. Views share the source's memory without copying: a
 * write through either handle (CVMArrayCopyFromBytes, CVMArrayCopyFromTo) is seen through the
 * other, and the view keeps the memory alive after the source handle is freed. A view of
 * read-only memory (CVMLoadParamsFile) is read-only too: the first write through any handle
 * over it copies the memory once, for all of them. In the view's DLTensor, `data` points at its
 * element [0, ...] (byte_offset is 0) and `strides` (in elements; 0 on broadcast dims, negative
 * for reversed slices) is NULL when the view is compact row-major (dims of extent 1 and empty
 * arrays do not count), else non-NULL. A handle's `data` field is brought up to date by each
 * call taking that handle: after a write through one handle made the shared memory private (the
 * read-only case), read the others through the calls (CVMArrayCopyToBytes) or pass them to one
 * first. */

/* The same elements in the shape `shape` (`ndim` in 0..32 extents; NULL when ndim is 0), one of
 * which may be -1 (inferred). A view when the source's strides allow it, else a new compact copy
 * (not sharing memory). Logic error when the element counts differ, for more than one -1, or for
 * another negative extent. */
CVM_DLL int CVMArrayReshape(CVMArrayHandle handle, const int64_t* shape, int ndim,
                            CVMArrayHandle* out);
/* Dims reordered: result dim i is source dim axes[i] (negative axes count from the end). `naxes`
 * must be the source's ndim, or 0 (then `axes` may be NULL) for all dims reversed; a 0-d array
 * with naxes 0 gives an identical view. Logic error unless axes is a permutation. */
CVM_DLL int CVMArrayPermute(CVMArrayHandle handle, const int* axes, int naxes,
                            CVMArrayHandle* out);
/* A begin/end value meaning "omitted" (Python's None) in CVMArraySlice; as a step, it means 1. */
#define CVM_SLICE_DEFAULT INT64_MIN
/* NumPy basic slicing of the leading `naxes` axes (0 <= naxes <= ndim; the others are taken
 * whole): axis i becomes begin[i]:end[i]:step[i]. Negative begin/end count from the end and
 * out-of-range values are clamped, exactly as Python's slice(begin, end, step).indices(extent);
 * CVM_SLICE_DEFAULT omits a bound (begin: 0, or the last index for a negative step; end: past
 * the end in the step's direction). `begin`, `end` and `step` may each be NULL: all omitted
 * (steps 1). Extents of 0 result from empty ranges. Logic error for a step of 0. */
CVM_DLL int CVMArraySlice(CVMArrayHandle handle, const int64_t* begin, const int64_t* end,
                          const int64_t* step, int naxes, CVMArrayHandle* out);
/* NumPy broadcasting to `shape` (`ndim` in 0..32 extents, at least the source's ndim; NULL
 * when ndim is 0): new leading dims and source dims of extent 1 get stride 0. Logic error when
 * the shapes are incompatible. A view with a stride-0 dim of extent above 1 cannot be written
 * (CVMArrayCopyFromBytes and CVMArrayCopyFromTo into it are logic errors). */
CVM_DLL int CVMArrayBroadcastTo(CVMArrayHandle handle, const int64_t* shape, int ndim,
                                CVMArrayHandle* out);
/* Dims of extent 1 removed: with naxes 0 (axes may then be NULL) every one of them, else the
 * `naxes` listed (negative axes count from the end). Logic error for an axis out of range, a
 * repeated axis or an axis whose extent is not 1. */
CVM_DLL int CVMArraySqueeze(CVMArrayHandle handle, const int* axes, int naxes,
                            CVMArrayHandle* out);
/* A dim of extent 1 inserted at `axis`, in [-(ndim + 1), ndim] (negative counts from the end of
 * the result). Logic error for an axis out of range or a source of 32 or more dims. */
CVM_DLL int CVMArrayExpandDims(CVMArrayHandle handle, int axis, CVMArrayHandle* out);

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

/* Selects the preferred backend ("auto", "scalar", "simd", ...) for operators (CVMOpRun) and for
 * the sessions made from now on; a session keeps the kernels it was bound to when made. */
CVM_DLL int CVMSetBackend(const char* name);
/* The preferred backend's name; static storage. */
CVM_DLL const char* CVMGetBackend(void);

/* ---- threads ---- */

/* Sets how many threads one kernel may use, the caller's included: n in [1, 1024], or 0 for the
 * default (CVMRT_THREADS read at first use, else the hardware concurrency). Results are
 * bit-identical for every count. Process-wide; waits for a parallel region in flight. */
CVM_DLL int CVMSetNumThreads(int n);
/* Writes the thread count in force to *n. Logic error when CVMRT_THREADS is malformed. */
CVM_DLL int CVMGetNumThreads(int* n);

/* ---- operators ---- */

/* Runs operator `op_name` (one of CVMOpList's names) on `num_inputs` input handles and returns
 * its outputs. The inputs are read, never modified, and must be CPU arrays; CVM operators
 * (spec/cvm-ops.md section 5) take int32 arrays. `inputs` may be NULL when num_inputs is 0.
 *
 * `attrs_json` is NULL, "" or a JSON object of at most 1 MiB. Its values reach the operator
 * typed, with no text round trip: an integer (or an integral float such as 3.0) is an integer,
 * true/false a bool, null None and an array of integers a tuple; a string is CVM attribute text,
 * passed through unchanged and parsed by the operator ("(3, 3)", "True", "NEAREST_NEIGHBOR").
 * An operator accepts a typed value wherever it accepts that value's CVM text ("10", "True",
 * "None", "(a, b)"): an integer where a tuple is expected is a 1-tuple, 0 and 1 are bools; a
 * value of the wrong kind is a logic error showing that text. Other values (objects, nested
 * arrays, non-integral floats, integers beyond int64) are a logic error naming the key; so is
 * malformed JSON (RFC 8259, strings valid UTF-8, at most 64 levels of nesting). If a key
 * repeats, the last value wins.
 *
 * On success *outputs points to *num_outputs new handles; the caller owns each and frees it with
 * CVMArrayFree. The array of handles itself is thread-local storage owned by the library, valid
 * until the next CVMOpRun on the same thread. On failure *outputs is NULL and *num_outputs 0.
 * Thread-safe: distinct threads may run operators concurrently, also on shared inputs. The
 * kernels come from the backend selected by CVMSetBackend (a process-wide setting). */
CVM_DLL int CVMOpRun(const char* op_name, const CVMArrayHandle* inputs, int num_inputs,
                     const char* attrs_json, CVMArrayHandle** outputs, int* num_outputs);

/* The names of every registered operator, in a fixed order. *names points to *count
 * NUL-terminated strings in thread-local storage owned by the library, valid until the next
 * CVMOpList on the same thread. Safe to call from any thread. */
CVM_DLL int CVMOpList(const char*** names, int* count);

/* Arity and kind of operator `name` (logic error when unknown). *num_inputs is -1 for operators
 * taking any number >= 1 of inputs; *is_cvm is 1 for CVM model operators (int32, precision and
 * cost rules), else 0. Any output pointer may be NULL to skip it. Safe to call from any thread. */
CVM_DLL int CVMOpInfo(const char* name, int* num_inputs, int* num_outputs, int* is_cvm);

/* Whether a compiled backend has a kernel named `op_kernel_name` (a kernel-table name such as
 * "add" or "conv2d"; not always an operator name) for element type `dtype_name` ("int32",
 * "float32", ...; a logic error when unknown) that is usable on this CPU. `backend` NULL or ""
 * asks about every compiled backend; a backend that is not compiled in has no kernels.
 * *available is set to 1 or 0. Kernels registered for "any" element type match every dtype.
 * Safe to call from any thread. */
CVM_DLL int CVMOpHasKernel(const char* op_kernel_name, const char* dtype_name, const char* backend,
                           int* available);

/* The same question asked of an operator (an operator name, as CVMOpRun takes it; a logic error
 * when unknown): whether `backend` (NULL or "": any compiled backend, the scalar reference
 * included) has a kernel usable on this CPU for every kernel the operator calls with inputs of
 * `dtype_name` — e.g. "sum" calls "reduce_sum", "reshape" calls "copy". The successor of
 * CVMOpHasKernel, whose kernel-table names are not always operator names. *available is set to
 * 1 or 0. Safe to call from any thread. */
CVM_DLL int CVMOperatorHasKernel(const char* op_name, const char* dtype_name, const char* backend,
                                 int* available);

/* Shape, precision and cost inference of a CVM operator without running it (spec sections 5
 * and 6). Input i has rank input_ndims[i] (0..32), extents input_shapes[i][0 .. input_ndims[i])
 * in elements and precision input_precisions[i] in bits; the three arrays may be NULL when
 * num_inputs is 0. `attrs_json` as for CVMOpRun. On success *num_outputs is set,
 * (*output_shapes)[j] points to (*output_ndims)[j] extents of output j, (*output_precisions)[j]
 * is its precision and *cost_base the op's cost base (ops = cost_base x size of output 0). All
 * returned arrays are thread-local storage owned by the library, valid until the next
 * CVMOpInfer on the same thread. Non-CVM operators are a logic error. Safe to call from any
 * thread. */
CVM_DLL int CVMOpInfer(const char* op_name, const int64_t* const* input_shapes,
                       const int* input_ndims, const int* input_precisions, int num_inputs,
                       const char* attrs_json, int* num_outputs,
                       const int64_t* const** output_shapes, const int** output_ndims,
                       const int** output_precisions, int64_t* cost_base);

/* ---- models (CVMAPI, spec section 7) ---- */

/* A loaded, verified model (spec sections 3, 4 and 6). The model itself is immutable: every call
 * taking only a model handle is thread-safe, CVMAPIInference and CVMModelInferBytes included
 * (each concurrent call runs its own session, taken from a small per-model pool). A `void* net`
 * of the CVM calls below IS a CVMModelHandle: either kind of handle may be passed to either set
 * of calls, and CVMAPIFreeModel and CVMModelFree are the same call. */
typedef struct CVMModel* CVMModelHandle;
/* One run's activation memory over a model: used from one thread at a time (distinct sessions
 * may run concurrently). A session keeps its model alive: the model handle may be freed first. */
typedef struct CVMSession* CVMSessionHandle;

/* The backend a model runs with (the CVMAPILoadModel device_type). */
#define CVM_MODEL_DEVICE_CPU 0       /* the process's preferred CPU backend (CVMSetBackend) */
#define CVM_MODEL_DEVICE_CUDA 1      /* the CUDA backend on GPU device_id (a runtime error without one) */
#define CVM_MODEL_DEVICE_REFERENCE 2 /* the scalar reference backend, whatever CVMSetBackend says */

/* -- CVM-compatible calls (spec section 9; prototypes kept exactly) -- */

/* Imports a CVM model: `graph_strlen` bytes of graph JSON (no NUL needed; trailing NULs are
 * ignored) and `param_strlen` bytes of params in the legacy CVM or the cvmrt format
 * (`param_bytes` may be NULL when param_strlen is 0). Verifies it completely, plans memory and
 * allocates one session, so a model that loads can run. device_type: 0 = best CPU backend (the
 * one CVMSetBackend prefers when each of the model's sessions is made), 1 = CUDA: the model's
 * sessions run on GPU `device_id` with the CUDA kernels (the params are copied there once;
 * inputs and outputs stay host memory), a runtime error (CVM_STATUS_RUNTIME_ERROR) naming the
 * device and why when there is no such GPU, driver or CUDA backend in this build, 2 = scalar
 * reference: every session of this model is bound to the scalar kernels, whatever other models
 * and threads use. device_id must be >= 0 (ignored on the CPU). On success
 * *net is a CVMModelHandle to free with CVMAPIFreeModel; on failure *net is NULL. */
CVM_DLL int CVMAPILoadModel(const char* graph_json, int graph_strlen, const char* param_bytes,
                            int param_strlen, void** net, int device_type, int device_id);
/* Frees a model (NULL is a no-op that succeeds); sessions made from it stay usable. */
CVM_DLL int CVMAPIFreeModel(void* net);
/* Runs the model on `input_len` bytes (must equal CVMAPIGetInputLength: int8, or little-endian
 * int32, row-major) and writes exactly CVMAPIGetOutputLength bytes to `output_data` (spec
 * section 7 layout: argmax, detection interleaving). As in CVM the output buffer's size is
 * trusted, not checked: the caller must provide CVMAPIGetOutputLength bytes. Use
 * CVMModelInferBytes to pass an explicit capacity. Thread-safe. */
CVM_DLL int CVMAPIInference(void* net, char* input_data, int input_len, char* output_data);
/* The graph's version ("cvm_1.0.0" or "cvm_1.1.0"): at most 32 characters and a NUL are
 * written to `version`. */
CVM_DLL int CVMAPIGetVersion(void* net, char* version);
/* The postprocess string ("", "argmax", "detection", ...): at most 32 characters and a NUL
 * are written to `method` (longer strings are truncated; CVMModelGetPostprocess gives all). */
CVM_DLL int CVMAPIGetPreprocessMethod(void* net, char* method);
/* Bytes of the input CVMAPIInference takes: elements x CVMAPIGetInputTypeSize. */
CVM_DLL int CVMAPIGetInputLength(void* net, unsigned long long* size);
/* Bytes CVMAPIInference writes. */
CVM_DLL int CVMAPIGetOutputLength(void* net, unsigned long long* size);
/* 1 when the input precision is <= 8 (int8 bytes), else 4 (int32). */
CVM_DLL int CVMAPIGetInputTypeSize(void* net, unsigned long long* size);
/* 1 when every output precision is <= 8, else 4; always 4 for argmax and detection. */
CVM_DLL int CVMAPIGetOutputTypeSize(void* net, unsigned long long* size);
/* The storage CVM reports: per storage_id of the graph JSON, its largest entry in bytes. For a
 * model loaded from a cvmrt model file without storage ids: CVMModelGetMemory's planned bytes. */
CVM_DLL int CVMAPIGetStorageSize(void* net, unsigned long long* size);
/* The model's total cost, ops + mem (spec section 6: the dense example gives 131). The chain
 * divides it by its own gas factor (20000); that is not done here. */
CVM_DLL int CVMAPIGetGasFromModel(void* net, unsigned long long* gas);
/* The total cost of a NUL-terminated CVM graph JSON alone: verified as by CVMAPILoadModel, but
 * without params and without allocating the model's memory. */
CVM_DLL int CVMAPIGetGasFromGraphFile(const char* graph_json, unsigned long long* gas);

/* -- modern calls -- */

/* Loads a cvmrt model file (docs/model-format.md); params stored by reference are looked up
 * next to it. *out is NULL on failure. */
CVM_DLL int CVMModelLoadFile(const char* path, CVMModelHandle* out);
/* The same from `size` bytes in memory (not retained); by-reference params are looked up in
 * the current directory. */
CVM_DLL int CVMModelLoadBytes(const void* data, size_t size, CVMModelHandle* out);
/* Imports a CVM model (graph JSON of `graph_len` bytes, trailing NULs ignored, + params of
 * `params_len` bytes, legacy or cvmrt format; `params` may be NULL when params_len is 0) with the
 * 64-bit sizes that CVMAPILoadModel lacks. Runs with the preferred CPU backend. */
CVM_DLL int CVMModelLoadCVM(const char* graph_json, size_t graph_len, const void* params,
                            size_t params_len, CVMModelHandle* out);
/* Frees a model (NULL is a no-op that succeeds). Same as CVMAPIFreeModel. */
CVM_DLL int CVMModelFree(CVMModelHandle model);
/* The cost of spec section 6: total = ops + mem. Any output pointer may be NULL. */
CVM_DLL int CVMModelGetCost(CVMModelHandle model, uint64_t* ops, uint64_t* mem, uint64_t* total);
/* Memory in bytes: `planned` = params + one session's activations after liveness-based reuse,
 * `unplanned` = every entry's int32 size without reuse. Any output pointer may be NULL. */
CVM_DLL int CVMModelGetMemory(CVMModelHandle model, uint64_t* planned, uint64_t* unplanned);
/* The section 7 byte lengths (those of CVMAPIGetInputLength / CVMAPIGetOutputLength). Any
 * output pointer may be NULL. */
CVM_DLL int CVMModelGetByteLengths(CVMModelHandle model, size_t* input_len, size_t* output_len);
/* The postprocess string, NUL-terminated, owned by the model (valid while the handle lives). */
CVM_DLL int CVMModelGetPostprocess(CVMModelHandle model, const char** postprocess);
/* Who wrote the model file the model was loaded from, e.g. "cvmrt 0.2.0"; "" when unknown (files
 * written before cvmrt 0.2.0, models imported from CVM JSON). NUL-terminated, owned by the model
 * (valid while the handle lives). */
CVM_DLL int CVMModelGetProducer(CVMModelHandle model, const char** producer);
/* A quantized model's float interface (the quantizer's metadata, Model::metadata().quantization)
 * as JSON text in *json, NUL-terminated, owned by the model (valid while the handle lives):
 * {"inputs":[{"name":..,"scale":..,"precision":..}],
 *  "outputs":[{"name":..,"scale":..,"tail":"softmax"|"sigmoid"|"","tail_axis":..}]}
 * with every scale printed exactly (it parses back to the same double); "" for a model that is
 * not quantized. */
CVM_DLL int CVMModelGetQuantization(CVMModelHandle model, const char** json);
CVM_DLL int CVMModelNumInputs(CVMModelHandle model, int* num);   /* always 1: "data" */
CVM_DLL int CVMModelNumOutputs(CVMModelHandle model, int* num);  /* the graph heads */
/* Input or output `index`: its name, rank, extents (*ndim int64 values) and precision (bits,
 * 1..32). The strings and extents are owned by the model and valid while the model handle
 * lives. Logic error for an index out of range. Any output pointer may be NULL. */
CVM_DLL int CVMModelGetInputInfo(CVMModelHandle model, int index, const char** name, int* ndim,
                                 const int64_t** shape, int* precision);
CVM_DLL int CVMModelGetOutputInfo(CVMModelHandle model, int index, const char** name, int* ndim,
                                  const int64_t** shape, int* precision);
/* Runs the model on `in_len` bytes (the CVMAPIInference input layout) and writes the section 7
 * output to `out`. `out_capacity` is the size of `out` in bytes: when it is below the output
 * length the call fails with a logic error and writes nothing to `out`. *written (may be NULL)
 * receives the bytes written, 0 on failure. Thread-safe. */
CVM_DLL int CVMModelInferBytes(CVMModelHandle model, const void* in, size_t in_len, void* out,
                               size_t out_capacity, size_t* written);

/* A new session (zero-filled activation memory) over `model`. Free with CVMSessionFree. Its
 * kernels are bound now, from the model handle's backend (CVMAPILoadModel device 2: the scalar
 * reference; otherwise the one CVMSetBackend prefers now); a later CVMSetBackend does not
 * change them. */
CVM_DLL int CVMSessionCreate(CVMModelHandle model, CVMSessionHandle* out);
/* CVMSessionCreate with its kernels bound to `backend` ("auto", "scalar", "simd", "wasm", "cuda"
 * (on the model handle's device_id when it was loaded for CUDA, else GPU 0); NULL
 * or "": the model handle's choice, as CVMSessionCreate): e.g. a reference session beside a
 * fast one in the same process. A logic error for a backend that is not compiled in. */
CVM_DLL int CVMSessionCreateEx(CVMModelHandle model, const char* backend, CVMSessionHandle* out);
/* The kernels `session` runs each node with, as JSON text in *json (NUL-terminated, owned by the
 * library, valid until the next CVMSessionGetKernelPlan on the same thread):
 *   {"backend": "simd", "nodes": [{"node": "conv1", "op": "conv2d", "chains": [{"kernel_op":
 *    "conv2d", "dtype": "int32", "entries": ["conv2d_i16i32__avx2", "conv2d_i32__scalar"],
 *    "notes": ["conv2d_i8i32__amx: CPU lacks amx-tile amx-int8"], "packed_for":
 *    "conv2d_i16i32__avx2", "last_ran": "conv2d_i16i32__avx2"}], "fused_into": "",
 *    "int8_output": false}, ...]}
 * per operator node in execution order: the table entries tried in order (the first that
 * takes a call runs; the scalar reference, last, takes every call), why the backend's other
 * entries are missing or moved, the entry its constant weight was packed for ("" none) and the
 * entry that took the last run's call ("" before a run). So "no silent fallback" is checkable.
 * "fused_into" names the node whose one clamp pass computes this node (the int32 clamps after a
 * conv2d or dense, e.g. cvm_right_shift, cvm_clip, relu: that first node's chain is then the
 * pass's kernel), "" for a node that runs itself; CVMRT_FUSE=0 turns the fusion off.
 * "int8_output": the node writes its output as int8, which the conv2d / dense nodes reading it
 * read as int8 (SessionOptions::int8_activations in cvm/model.h; CVMRT_INT8_ACTIVATIONS=0
 * turns it off). */
CVM_DLL int CVMSessionGetKernelPlan(CVMSessionHandle session, const char** json);
/* Frees a session (NULL is a no-op that succeeds). */
CVM_DLL int CVMSessionFree(CVMSessionHandle session);
/* Sets input `name` ("data") from an int8 or int32 CPU array of exactly the input's shape (any
 * strides): int8 is sign-extended and values are clipped to the input's precision. The array is
 * copied; the caller keeps its handle. */
CVM_DLL int CVMSessionSetInput(CVMSessionHandle session, const char* name, CVMArrayHandle value);
/* Runs every operator (logic error when no input was set). */
CVM_DLL int CVMSessionRun(CVMSessionHandle session);
/* *out = a new int32 array holding output `index` of the last run; the caller frees it with
 * CVMArrayFree. Logic error before a successful run or for an index out of range. */
CVM_DLL int CVMSessionGetOutput(CVMSessionHandle session, int index, CVMArrayHandle* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CVM_C_API_H_ */
