// Generated operator calls for the table-driven kernel parity suite: for an operator and an
// input dtype, the calls (attributes and seeded random inputs) that reach its kernels on shapes
// that matter to them — tile edges, odd and empty sizes, strided and broadcast views, groups,
// values at the precision bounds, and inputs that make a SIMD kernel decline.
#pragma once

#include <string>
#include <vector>

#include "cvm/dtype.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"

namespace cvm {
namespace test {

struct OpCase {
  std::string op;               // operator name, as run_op takes it
  AttrMap attrs;
  std::vector<NDArray> inputs;  // any strides: views of bigger arrays test strided kernels
  std::string what;             // a short description for failure messages
};

// The cases of operator `op` with inputs of dtype `t` (the dtype of input 0; others as the
// operator needs); empty when `op` does not take `t` or is not handled by this family.
// nn family (kernel_cases_nn.cc; conv2d and dense in kernel_cases_gemm.cc): conv2d, dense,
// max_pool2d, upsampling, avg_pool2d, pad, softmax, leaky_relu, clamp, sigmoid.
std::vector<OpCase> nn_cases(const std::string& op, DataType t);
// Everything else (kernel_cases.cc): elementwise, broadcast, comparisons, reductions, matmul,
// cast, transforms (copy), take, where, vision.
std::vector<OpCase> other_cases(const std::string& op, DataType t);

// Both families.
inline std::vector<OpCase> op_cases(const std::string& op, DataType t) {
  std::vector<OpCase> out = nn_cases(op, t);
  for (OpCase& c : other_cases(op, t)) out.push_back(std::move(c));
  return out;
}

}  // namespace test
}  // namespace cvm
