// C ABI: array allocation, byte transfer, copies, DLPack, version and backend selection.
//
// Input handles must be CVMArrayHandles made by this library (CVMArrayAlloc, CVMLoadParamsDict,
// CVMLoadParamsDictEx, CVMLoadParamsFile, CVMArrayFromDLPack[Ex]); passing any other DLTensor*
// is undefined behaviour, as in CVM. Output handles always have dl.data refreshed.
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "c_api_common.h"
#include "cvm/c_api.h"
#include "cvm/check.h"
#include "cvm/ndarray.h"
#include "cvm/registry.h"
#include "cvm/version.h"
#include "dlpack_internal.h"

using cvm::NDArray;
using cvm::capi::borrow;
using cvm::capi::guard;
using cvm::capi::require_not_null;

extern "C" {

const char* CVMGetLibraryVersion(void) { return CVMRT_VERSION_STRING; }

int CVMGetLibraryVersionNumber(void) {
  return CVMRT_VERSION_MAJOR * 10000 + CVMRT_VERSION_MINOR * 100 + CVMRT_VERSION_PATCH;
}

int CVMArrayAlloc(const int64_t* shape, int ndim, int dtype_code, int dtype_bits, int dtype_lanes,
                  int device_type, int device_id, CVMArrayHandle* out) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayAlloc";
    require_not_null(out, fn, "out");
    *out = nullptr;
    VERIFY(ndim >= 0 && ndim <= cvm::capi::kMaxDims)
        << fn << ": ndim must be in 0.." << cvm::capi::kMaxDims << ", got " << ndim;
    VERIFY(ndim == 0 || shape != nullptr) << fn << ": argument 'shape' is NULL with ndim " << ndim;
    for (int i = 0; i < ndim; ++i) {
      VERIFY(shape[i] >= 0) << fn << ": negative extent " << shape[i] << " in dim " << i;
    }
    VERIFY(dtype_lanes == 1) << fn << ": dtype_lanes must be 1, got " << dtype_lanes;
    // Range-check before narrowing to DLDataType's 8-bit fields, so 264 bits is not 8 bits.
    cvm::DataType dtype(static_cast<uint8_t>(dtype_code), static_cast<uint8_t>(dtype_bits));
    VERIFY(dtype_code >= 0 && dtype_code <= 255 && dtype_bits >= 0 && dtype_bits <= 255 &&
           dtype.is_supported())
        << fn << ": unsupported dtype (code " << dtype_code << ", bits " << dtype_bits
        << "); expected int/uint 8..64, float 16/32/64, bfloat16 or bool (code 6, bits 8)";
    VERIFY(device_type == kDLCPU || device_type == kDLCUDA)
        << fn << ": device_type must be " << int(kDLCPU) << " (CPU) or " << int(kDLCUDA)
        << " (CUDA), got " << device_type;
    VERIFY(device_type != kDLCPU || device_id == 0)
        << fn << ": device_id must be 0 for the CPU, got " << device_id;
    VERIFY(device_id >= 0) << fn << ": device_id must be >= 0, got " << device_id;
    // The contract says "uninitialised", but handing out recycled allocator memory would make
    // results depend on history: zeroed (cheap next to any real use of the array). On a GPU
    // through the fill kernel, on the default stream.
    NDArray a = NDArray::zeros(cvm::Shape(shape, ndim), dtype,
                               cvm::Device{static_cast<DLDeviceType>(device_type), device_id});
    *out = cvm::capi::to_handle(std::move(a));
  });
}

int CVMArrayFree(CVMArrayHandle handle) {
  return guard([&] {
    if (handle == nullptr) return;
    reinterpret_cast<cvm::detail::Container*>(handle)->release();
  });
}

int CVMArrayCopyFromBytes(CVMArrayHandle handle, void* data, size_t nbytes) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayCopyFromBytes";
    NDArray a = borrow(handle, fn, "handle");
    if (nbytes > 0) require_not_null(data, fn, "data");
    a.copy_from_bytes(data, nbytes);
    cvm::capi::refresh(a);
  });
}

int CVMArrayCopyToBytes(CVMArrayHandle handle, void* data, size_t nbytes) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayCopyToBytes";
    NDArray a = borrow(handle, fn, "handle");
    if (nbytes > 0) require_not_null(data, fn, "data");
    a.copy_to_bytes(data, nbytes);
  });
}

int CVMArrayCopyFromTo(CVMArrayHandle from, CVMArrayHandle to, CVMStreamHandle stream) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayCopyFromTo";
    NDArray src = borrow(from, fn, "from");
    NDArray dst = borrow(to, fn, "to");
    VERIFY(stream == nullptr) << fn << ": stream must be NULL (copies run on the default stream, "
                                 "and complete before the call returns when a side is the CPU)";
    dst.copy_from(src);
    cvm::capi::refresh(dst);
  });
}

int CVMArrayToDLPack(CVMArrayHandle handle, DLManagedTensor** out) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayToDLPack";
    require_not_null(out, fn, "out");
    *out = nullptr;
    NDArray a = borrow(handle, fn, "handle");
    *out = a.to_dlpack();
    cvm::capi::refresh(a);  // to_dlpack may have given the array a private buffer
  });
}

int CVMArrayFromDLPackEx(DLManagedTensor* managed, int read_only, CVMArrayHandle* out) {
  return guard([&] {
    if (out != nullptr) *out = nullptr;
    // Import first: ownership of `managed` is taken even when `out` is NULL, and the deleter
    // then runs when `a` goes out of scope.
    NDArray a = cvm::detail::from_dlpack(managed, read_only != 0);
    require_not_null(out, "CVMArrayFromDLPack", "out");
    *out = cvm::capi::to_handle(std::move(a));
  });
}

int CVMArrayFromDLPack(DLManagedTensor* managed, CVMArrayHandle* out) {
  return CVMArrayFromDLPackEx(managed, 0, out);
}

int CVMSetBackend(const char* name) {
  return guard([&] {
    require_not_null(name, "CVMSetBackend", "name");
    cvm::set_backend(name);
  });
}

const char* CVMGetBackend(void) {
  // Interned names: a handful of distinct backend names ever exist, each kept for the life of
  // the process so the returned pointer is static storage.
  static std::mutex mu;
  static std::set<std::string>* names = new std::set<std::string>();
  try {
    std::string current = cvm::current_backend();
    std::lock_guard<std::mutex> lock(mu);
    return names->insert(current).first->c_str();
  } catch (const std::exception& e) {
    cvm::capi::set_last_error(e.what());
  } catch (...) {
    cvm::capi::set_last_error("unknown error");
  }
  return "";
}

}  // extern "C"
