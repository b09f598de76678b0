// ONNX import: turns an ONNX model (float32, static shapes) into a cvmrt float-graph Model.
//
// Native only (built on Debian's libonnx and protobuf); the public API does not expose any
// protobuf type. The importer validates the model with ONNX's checker, folds every node whose
// inputs are all constants, maps the remaining nodes onto cvmrt operators (docs/onnx-import.md
// lists them) and builds the model through cvm::ModelBuilder, which verifies it like any loaded
// model.
//
// Errors: anything about the model — unreadable or malformed bytes, a checker failure, an
// operator, attribute, dtype or shape the importer does not support, a dynamic dimension,
// external data, limits exceeded — is a cvm::LogicError whose message starts with "onnx: " and,
// for a node, names it: onnx: node 5 "conv_2" (Conv): .... cvm::RuntimeError (or
// std::bad_alloc) is reserved for the environment (I/O, memory). No input crashes the importer.
//
// Thread-safety: both functions may run concurrently on different models; the returned Model is
// immutable and shareable like any other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cvm/model.h"

namespace cvm {
namespace onnx {

struct ImportOptions {
  // Limits the built model must respect (also bound every constant the importer creates: a
  // constant of more than limits.max_elements elements is a LogicError).
  ModelLimits limits;
  // The extent given to a symbolic or unknown FIRST dimension of the graph input (the batch).
  // Any other symbolic dimension is a LogicError ("dynamic dimension").
  int64_t batch = 1;
};

// Imports the ONNX model file at `path`. LogicError when it cannot be opened or read.
std::shared_ptr<const Model> import_onnx_file(const std::string& path,
                                              const ImportOptions& options = {});

// Imports an ONNX model from `size` bytes at `data` (not retained; `data` may be null when
// `size` is 0, which is a LogicError like any other malformed model).
std::shared_ptr<const Model> import_onnx_bytes(const void* data, size_t size,
                                               const ImportOptions& options = {});

}  // namespace onnx
}  // namespace cvm
