// The C ABI boundary: the thread-local last error and the handle helpers shared by c_api_*.cc.
#include "c_api_common.h"

#include <string>

#include "cvm/check.h"

namespace cvm {
namespace capi {
namespace {

// The message lives in `message`; `current` points either at its characters or at a static
// fallback text, so CVMGetLastError never returns a dangling or null pointer.
thread_local std::string message;
thread_local const char* current = "";

}  // namespace

void set_last_error(const char* msg) noexcept {
  try {
    message.assign(msg != nullptr ? msg : "unknown error");
    current = message.c_str();
  } catch (...) {
    current = "out of memory (while recording an error message)";
  }
}

const char* last_error() noexcept { return current; }

void require_not_null(const void* p, const char* fn, const char* arg) {
  VERIFY(p != nullptr) << fn << ": argument '" << arg << "' is NULL";
}

NDArray borrow(CVMArrayHandle handle, const char* fn, const char* arg) {
  require_not_null(handle, fn, arg);
  auto* c = reinterpret_cast<detail::Container*>(handle);
  c->retain();
  return NDArray::adopt(c);
}

CVMArrayHandle to_handle(NDArray array) noexcept {
  detail::Container* c = array.release();
  if (c == nullptr) return nullptr;
  c->refresh();
  return reinterpret_cast<CVMArrayHandle>(c);
}

}  // namespace capi
}  // namespace cvm

extern "C" const char* CVMGetLastError(void) { return cvm::capi::last_error(); }
