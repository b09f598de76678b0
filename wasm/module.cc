// The WebAssembly module's own translation unit: the C ABI itself comes from the core archive.
//
// JS (js/) reads and writes these structs in the wasm heap directly, so their wasm32 layout is
// part of the module contract: a change here is a breaking change for the npm package.
#include <cstddef>
#include <cstdint>

#include "cvm/c_api.h"

static_assert(sizeof(void*) == 4 && sizeof(size_t) == 4, "wasm32: pointers and size_t are i32");
static_assert(sizeof(long long) == 8 && sizeof(int64_t) == 8, "int64_t crosses as BigInt");
// DLTensor: data@0, device{type@4, id@8}, ndim@12, dtype{code@16, bits@17, lanes@18},
// shape@20 (int64_t*), strides@24 (int64_t*, NULL = compact), byte_offset@32 (uint64), size 40.
static_assert(offsetof(DLTensor, data) == 0, "DLTensor layout");
static_assert(offsetof(DLTensor, device) == 4, "DLTensor layout");
static_assert(offsetof(DLTensor, ndim) == 12, "DLTensor layout");
static_assert(offsetof(DLTensor, dtype) == 16, "DLTensor layout");
static_assert(offsetof(DLTensor, shape) == 20, "DLTensor layout");
static_assert(offsetof(DLTensor, strides) == 24, "DLTensor layout");
static_assert(offsetof(DLTensor, byte_offset) == 32, "DLTensor layout");
static_assert(sizeof(DLTensor) == 40, "DLTensor layout");
static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4, "DLDevice/DLDataType layout");
// DLManagedTensor: dl_tensor@0, manager_ctx@40, deleter@44 (a function-table index), size 48.
static_assert(offsetof(DLManagedTensor, manager_ctx) == 40, "DLManagedTensor layout");
static_assert(offsetof(DLManagedTensor, deleter) == 44, "DLManagedTensor layout");
static_assert(sizeof(DLManagedTensor) == 48, "DLManagedTensor layout");
// CVMByteArray: data@0, size@4 (size_t), size 8.
static_assert(offsetof(CVMByteArray, size) == 4 && sizeof(CVMByteArray) == 8, "CVMByteArray");
