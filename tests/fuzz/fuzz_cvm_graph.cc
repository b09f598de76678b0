// libFuzzer target: a CVM graph JSON + params (u32 LE JSON length, JSON, params) imported, then one inference.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cvm/model.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cvm_fuzz::init();
  std::string json, params;
  cvm_fuzz::split2(data, size, &json, &params);
  cvm_fuzz::accept_logic_errors([&] {
    cvm::ModelCost cost = cvm::Model::estimate_cost(json, cvm_fuzz::limits());
    (void)cost;
  });
  cvm_fuzz::accept_logic_errors([&] {
    auto model = cvm::Model::from_cvm(json, params.data(), params.size(),
                                      cvm_fuzz::model_options());
    cvm_fuzz::run_once(model);
  });
  return 0;
}
