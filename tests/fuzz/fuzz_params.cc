// libFuzzer target: param dicts in both formats (cvmrt and legacy CVM), copied and zero-copy, via C++ and the C ABI.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "cvm/c_api.h"
#include "cvm/params.h"
#include "fuzz_util.h"

namespace {

// Every loaded tensor: its name, shape and every payload byte.
void touch_dict(const cvm::ParamDict& dict) {
  for (const auto& [name, array] : dict.entries()) {
    cvm_fuzz::touch(name.data(), name.size());
    if (!array.is_contiguous()) cvm_fuzz::fail("params", "tensor \"" + name + "\" not compact");
    cvm_fuzz::touch(array.data(), array.nbytes());
  }
  for (const auto& [key, value] : dict.metadata()) {
    cvm_fuzz::touch(key.data(), key.size());
    cvm_fuzz::touch(value.data(), value.size());
  }
}

void load_c_abi(const uint8_t* data, size_t size, int verify) {
  int num = 0;
  void** names = nullptr;
  void** values = nullptr;
  int rc = CVMLoadParamsDictEx(reinterpret_cast<const char*>(data), size, verify, &num, &names,
                               &values);
  if (rc == CVM_STATUS_LOGIC_ERROR) return;
  if (rc != CVM_STATUS_OK) cvm_fuzz::fail("CVMLoadParamsDictEx", CVMGetLastError());
  for (int i = 0; i < num; ++i) {
    const char* name = static_cast<const char*>(names[i]);
    cvm_fuzz::touch(name, std::strlen(name));
    cvm_fuzz::touch_handle(static_cast<CVMArrayHandle>(values[i]), "CVMLoadParamsDictEx");
  }
  for (int i = 0; i < num; ++i) CVMArrayFree(static_cast<CVMArrayHandle>(values[i]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cvm_fuzz::init();
  for (bool verify : {true, false}) {
    cvm::LoadOptions options;
    options.verify = verify;
    cvm_fuzz::accept_logic_errors([&] { touch_dict(cvm::ParamDict::load(data, size, options)); });
    // Zero-copy over the fuzzer's buffer (which libFuzzer does not align), and over a 64-byte
    // aligned copy kept alive by the arrays themselves.
    cvm_fuzz::accept_logic_errors([&] {
      touch_dict(cvm::ParamDict::load_borrowed(data, size, nullptr, options));
    });
    cvm_fuzz::accept_logic_errors([&] {
      std::shared_ptr<uint8_t> copy(static_cast<uint8_t*>(std::aligned_alloc(64, (size / 64 + 1) * 64)),
                                    std::free);
      if (size > 0) std::memcpy(copy.get(), data, size);
      const uint8_t* bytes = copy.get();
      cvm::ParamDict dict = cvm::ParamDict::load_borrowed(bytes, size, std::move(copy), options);
      touch_dict(dict);
      // Saving what loaded must give a dict that loads again, in both formats.
      for (cvm::ParamFormat format : {cvm::ParamFormat::kCvmrt, cvm::ParamFormat::kLegacy}) {
        std::vector<uint8_t> saved;
        try {
          saved = dict.save(format);
        } catch (const cvm::LogicError&) {
          continue;  // e.g. the legacy format cannot hold this dtype or the metadata
        }
        try {
          touch_dict(cvm::ParamDict::load(saved.data(), saved.size()));
        } catch (const cvm::LogicError& e) {
          cvm_fuzz::fail("params round trip", e.what());
        }
      }
    });
    load_c_abi(data, size, verify ? 1 : 0);
  }
  return 0;
}
