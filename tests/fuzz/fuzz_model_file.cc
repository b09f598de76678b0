// libFuzzer target: cvmrt model files (schemas/model.fbs) loaded, run once, saved and reloaded.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cvm/model.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cvm_fuzz::init();
  std::shared_ptr<const cvm::Model> model;
  if (!cvm_fuzz::accept_logic_errors(
          [&] { model = cvm::Model::from_bytes(data, size, cvm_fuzz::model_options()); })) {
    return 0;
  }
  cvm_fuzz::accept_logic_errors([&] { cvm_fuzz::run_once(model); });
  // What loaded saves to bytes that load again (to the same bytes), and exports as CVM JSON
  // (integer models).
  std::vector<uint8_t> saved = model->save();
  try {
    auto again = cvm::Model::from_bytes(saved.data(), saved.size(), cvm_fuzz::model_options());
    if (again->save() != saved) cvm_fuzz::fail("model round trip", "saved bytes differ");
  } catch (const cvm::LogicError& e) {
    cvm_fuzz::fail("model round trip", e.what());
  }
  cvm_fuzz::accept_logic_errors([&] {
    std::string json = model->cvm_json();
    cvm_fuzz::touch(json.data(), json.size());
  });
  return 0;
}
