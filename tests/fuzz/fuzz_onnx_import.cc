// libFuzzer target: the ONNX importer (cvm::onnx::import_onnx_bytes), then the model saved, reloaded and run once.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cvm/onnx_import.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cvm_fuzz::init();
  cvm::onnx::ImportOptions options;
  options.limits = cvm_fuzz::limits();
  std::shared_ptr<const cvm::Model> model;
  if (!cvm_fuzz::accept_logic_errors(
          [&] { model = cvm::onnx::import_onnx_bytes(data, size, options); })) {
    return 0;
  }
  // An imported model is a verified model: its file loads back under the same limits.
  std::vector<uint8_t> saved = model->save();
  try {
    cvm::ModelOptions reload = cvm_fuzz::model_options();
    model = cvm::Model::from_bytes(saved.data(), saved.size(), reload);
  } catch (const cvm::LogicError& e) {
    cvm_fuzz::fail("onnx import: saved model does not reload", e.what());
  }
  cvm_fuzz::accept_logic_errors([&] { cvm_fuzz::run_once(model); });
  return 0;
}
