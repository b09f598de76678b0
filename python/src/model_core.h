// ModelCore: a loaded model and the pool of sessions its runs take turns with (one per thread
// running at once), shared by the model bindings and the ONNX ones that make models.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cvm/model.h"

namespace cvmpy {

struct ModelCore {
  // device: "cpu", "cuda" or "cuda:N"; backend: a CPU backend name or "auto". Makes one session
  // at once, so a bad backend or an unusable device is an error here.
  ModelCore(std::shared_ptr<const cvm::Model> model, const std::string& device,
            const std::string& backend);

  // A session of its own for one run (an idle one, else a new one), given back by release().
  std::unique_ptr<cvm::Session> acquire();
  void release(std::unique_ptr<cvm::Session> session);
  std::string backend();  // the backend heading the sessions' kernel chains

  std::shared_ptr<const cvm::Model> model;
  cvm::SessionOptions options;
  std::mutex mu;  // guards idle
  std::vector<std::unique_ptr<cvm::Session>> idle;
};

}  // namespace cvmpy
