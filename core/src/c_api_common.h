// The C ABI boundary: thread-local last error, exception-to-status mapping and handle helpers.
//
// Every extern "C" function of c_api.h runs its body through `guard`, so no exception ever
// crosses the ABI. Input handles are trusted to be Containers made by this library (as in CVM):
// passing any other DLTensor* where a CVMArrayHandle is expected is undefined behaviour. The one
// exception is CVMSaveParamsDict, which reads plain DLTensor fields only.
#pragma once

#include <exception>
#include <new>
#include <utility>

#include "container.h"
#include "cvm/c_api.h"
#include "cvm/error.h"
#include "cvm/ndarray.h"

namespace cvm {
namespace capi {

// Most dimensions accepted from C callers and DLPack producers (CVMArrayAlloc,
// CVMArrayFromDLPack, CVMSaveParamsDict). DLPack allows any int32; 32 is NumPy's limit and keeps
// a corrupted or hostile ndim from turning into a huge allocation of extents.
constexpr int kMaxDims = 32;

// Records `msg` as this thread's last error. Never throws: when the copy cannot be made, a
// static "out of memory" text is recorded instead.
void set_last_error(const char* msg) noexcept;
// This thread's last error, "" if none. Valid until the next set_last_error on this thread.
const char* last_error() noexcept;

// Runs `fn` and maps what it throws to a status code, recording the message:
// cvm::LogicError -> 1; cvm::RuntimeError, std::bad_alloc ("out of memory"), any other
// std::exception and anything else ("unknown error") -> 2. Returns 0 when `fn` returns.
template <typename F>
int guard(F&& fn) noexcept {
  try {
    std::forward<F>(fn)();
    return CVM_STATUS_OK;
  } catch (const LogicError& e) {
    set_last_error(e.what());
    return CVM_STATUS_LOGIC_ERROR;
  } catch (const RuntimeError& e) {
    set_last_error(e.what());
    return CVM_STATUS_RUNTIME_ERROR;
  } catch (const std::bad_alloc&) {
    set_last_error("out of memory");
    return CVM_STATUS_RUNTIME_ERROR;
  } catch (const std::exception& e) {
    set_last_error(e.what());
    return CVM_STATUS_RUNTIME_ERROR;
  } catch (...) {
    set_last_error("unknown error");
    return CVM_STATUS_RUNTIME_ERROR;
  }
}

// LogicError "<fn>: argument '<arg>' is NULL" when `p` is null.
void require_not_null(const void* p, const char* fn, const char* arg);

// A new NDArray reference to the Container behind a C handle (the handle keeps its own
// reference). LogicError when `handle` is null.
NDArray borrow(CVMArrayHandle handle, const char* fn, const char* arg);

// Hands one reference of `array` out as a C handle, with dl.data refreshed.
CVMArrayHandle to_handle(NDArray array) noexcept;

// Points a handle's dl.data at its current buffer again (after a write that may have given the
// array a private buffer).
inline void refresh(const NDArray& array) noexcept {
  if (array.defined()) array.container()->refresh();
}

}  // namespace capi
}  // namespace cvm
