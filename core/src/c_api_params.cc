// C ABI: saving and loading param dicts (cvmrt and legacy CVM formats).
//
// Results live in thread-local storage, valid until the next call of the same kind on the same
// thread: the saved bytes until the next save, the name strings and handle arrays until the next
// load. A failing call leaves the previous results untouched. The loaded handles themselves
// belong to the caller (CVMArrayFree each).
#include <climits>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "c_api_common.h"
#include "cvm/c_api.h"
#include "cvm/check.h"
#include "cvm/ndarray.h"
#include "cvm/params.h"
#include "dlpack_internal.h"

namespace {

using cvm::NDArray;
using cvm::ParamDict;
using cvm::capi::guard;
using cvm::capi::require_not_null;

thread_local std::vector<uint8_t> saved_bytes;

struct LoadedNames {
  std::vector<std::string> names;
  std::vector<void*> name_ptrs;  // into `names`, as the void** the CVM prototype hands out
  std::vector<void*> handles;    // owned by the caller once returned
};
thread_local LoadedNames loaded;

int save(const char* fn, const void** params, int params_size, int format, CVMByteArray* out) {
  return guard([&] {
    require_not_null(out, fn, "out");
    VERIFY(params_size >= 0 && params_size % 2 == 0)
        << fn << ": params_size must be an even number >= 0 (name, tensor pairs), got "
        << params_size;
    if (params_size > 0) require_not_null(params, fn, "params");
    VERIFY(format == 0 || format == 1)
        << fn << ": format must be 0 (cvmrt) or 1 (legacy CVM), got " << format;
    ParamDict dict;
    std::unordered_set<std::string> seen;
    for (int i = 0; i < params_size / 2; ++i) {
      const char* name = static_cast<const char*>(params[2 * i]);
      VERIFY(name != nullptr) << fn << ": the name of tensor #" << i << " is NULL";
      const auto* t = static_cast<const DLTensor*>(params[2 * i + 1]);
      VERIFY(t != nullptr) << fn << ": tensor \"" << name << "\" (#" << i << ") is NULL";
      VERIFY(seen.insert(name).second) << fn << ": duplicate name \"" << name << "\"";
      std::string what = std::string(fn) + ": tensor \"" + name + "\"";
      // Any DLTensor is accepted here, ours or foreign: read its fields, borrow its memory for
      // the duration of the save only (read-only, no keepalive).
      NDArray a = cvm::detail::wrap_dltensor(*t, nullptr, true, what.c_str());
      dict.set(name, a);
    }
    std::vector<uint8_t> bytes =
        dict.save(format == 0 ? cvm::ParamFormat::kCvmrt : cvm::ParamFormat::kLegacy);
    saved_bytes.swap(bytes);
    out->data = reinterpret_cast<const char*>(saved_bytes.data());
    out->size = saved_bytes.size();
  });
}

// Runs `load` (returning a ParamDict) and hands its arrays out as C handles.
template <typename Load>
int load(const char* fn, int* num, void*** names, void*** values, Load&& load_dict) {
  return guard([&] {
    require_not_null(num, fn, "num");
    require_not_null(names, fn, "names");
    require_not_null(values, fn, "values");
    *num = 0;
    *names = nullptr;
    *values = nullptr;
    ParamDict dict = load_dict();
    const auto& entries = dict.entries();
    VERIFY(entries.size() <= static_cast<size_t>(INT_MAX))
        << fn << ": " << entries.size() << " tensors do not fit in an int count";
    // Build everything that may throw before handing out any reference.
    LoadedNames next;
    next.names.reserve(entries.size());
    next.name_ptrs.reserve(entries.size());
    next.handles.reserve(entries.size());
    for (const auto& entry : entries) next.names.push_back(entry.first);
    for (std::string& n : next.names) next.name_ptrs.push_back(&n[0]);
    for (const auto& entry : entries) {
      next.handles.push_back(cvm::capi::to_handle(entry.second));  // one new reference each
    }
    // Moving the vectors keeps the string buffers (and so name_ptrs) where they are.
    loaded = std::move(next);
    *num = static_cast<int>(entries.size());
    *names = loaded.name_ptrs.data();
    *values = loaded.handles.data();
  });
}

}  // namespace

extern "C" {

int CVMSaveParamsDict(const void** params, int params_size, CVMByteArray* out) {
  return save("CVMSaveParamsDict", params, params_size, 0, out);
}

int CVMSaveParamsDictFormat(const void** params, int params_size, int format, CVMByteArray* out) {
  return save("CVMSaveParamsDictFormat", params, params_size, format, out);
}

int CVMLoadParamsDict(const char* data, int datalen, int* num, void*** names, void*** values) {
  constexpr const char* fn = "CVMLoadParamsDict";
  return load(fn, num, names, values, [&] {
    require_not_null(data, fn, "data");
    VERIFY(datalen >= 0) << fn << ": datalen must be >= 0, got " << datalen;
    return ParamDict::load(data, static_cast<size_t>(datalen));
  });
}

int CVMLoadParamsDictEx(const char* data, size_t datalen, int verify, int* num, void*** names,
                        void*** values) {
  constexpr const char* fn = "CVMLoadParamsDictEx";
  return load(fn, num, names, values, [&] {
    require_not_null(data, fn, "data");
    cvm::LoadOptions options;
    options.verify = verify != 0;
    return ParamDict::load(data, datalen, options);
  });
}

int CVMLoadParamsFile(const char* path, int verify, int* num, void*** names, void*** values) {
  constexpr const char* fn = "CVMLoadParamsFile";
  return load(fn, num, names, values, [&] {
    require_not_null(path, fn, "path");
    cvm::LoadOptions options;
    options.verify = verify != 0;
    return ParamDict::load_file(path, options);
  });
}

}  // extern "C"
