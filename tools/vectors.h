// Conformance vectors (tests/vectors, format in tests/vectors/README.md): loading and checking one
// case against run_op / infer_op on the current backend. Used by `cvmrt verify` and the unit
// tests (tests/unit/vectors_test.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cvm/dtype.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"

namespace cvm {
namespace vectors {

struct Tensor {
  std::vector<int64_t> shape;
  DataType dtype;
  std::vector<uint8_t> bytes;  // row-major, little-endian
  NDArray to_array() const;
};

struct ExpectedError {
  std::string kind;                   // "logic" or "runtime"
  std::vector<std::string> contains;  // every one occurs in the message
  std::string in = "both";            // "run", "infer" or "both"
};

struct Case {
  std::string where;  // "hand/nn.json #3 (dense: name)"
  std::string file;   // relative to the vectors folder
  std::string name, op, source;
  AttrMap attrs;
  std::vector<Tensor> inputs;
  std::optional<std::vector<int>> input_precisions;
  std::vector<Tensor> outputs;
  std::optional<std::vector<int>> precisions;
  std::optional<int64_t> cost_base;
  std::optional<ExpectedError> error;
};

// Every case of every **/*.json under `dir`, files in sorted order. LogicError naming the file, the
// case and the problem for anything that does not follow the README's format.
std::vector<Case> load_dir(const std::string& dir);

// What must be checked for a case: running it (on each backend) and/or shape, precision and cost
// inference (backend-independent; CVM operators with input_precisions only).
bool needs_run(const Case& c);
bool needs_infer(const Case& c);

// "" when the outputs (shapes, dtypes, bytes) are the case's expected ones; else the first
// difference ("output 1: element 3 is 5, expected 6").
std::string compare_outputs(const Case& c, const std::vector<NDArray>& got);
// "" when an error of `kind` ("logic" or "runtime") saying `message` is the case's expected one.
std::string compare_error(const Case& c, const std::string& kind, const std::string& message);

// "" when run_op on the current backend, with the inputs on `device` (the outputs brought back),
// gives the expected outputs (or error); else what differs.
std::string check_run(const Case& c, Device device = Device::cpu());
// "" when infer_op gives the expected shapes, precisions and cost base (or error).
std::string check_infer(const Case& c);

}  // namespace vectors
}  // namespace cvm
