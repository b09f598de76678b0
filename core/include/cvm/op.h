// The generic operator entry point: run any registered operator by name, list operators.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cvm/export.h"
#include "cvm/ndarray.h"

namespace cvm {

// Operator attributes in CVM's string form: {"kernel_size": "(3, 3)", "use_bias": "True",
// "axis": "None", "units": "10"}. Tuples may be written "(a, b)", "[a, b]" or a bare number;
// bools true/false/1/0 in any case. Typed JSON values are converted to this form by the C ABI.
using AttrMap = std::map<std::string, std::string>;

// The most elements one output of run_op / CVMOpRun may have (a model entry's default limit,
// ModelLimits::max_elements): attributes such as tile's reps cannot make it allocate more.
constexpr int64_t kMaxOpOutputElements = int64_t{1} << 30;

// Runs operator `name` on `inputs`, allocating and returning its outputs. Validates arity,
// attributes, dtypes and shapes first: LogicError naming the op, the attribute or input, the
// expected and the found value. CVM operators (spec/cvm-ops.md section 5) take int32 arrays.
// An output over kMaxOpOutputElements is a LogicError before anything is allocated.
CVM_EXPORT std::vector<NDArray> run_op(const std::string& name, const std::vector<NDArray>& inputs,
                                       const AttrMap& attrs = {});

struct OpInfo {
  std::string name;
  int num_inputs;   // -1: any number >= 1
  int num_outputs;
  bool cvm;         // a CVM model operator (int32, precision and cost rules)
  bool inplace;     // its output may share storage with its first input (spec section 3)
};

// Every registered operator, in a fixed order.
CVM_EXPORT std::vector<OpInfo> list_ops();

// Shape, precision and cost of one CVM operator without running it (spec sections 5 and 6).
struct OpInference {
  std::vector<std::vector<int64_t>> output_shapes;
  std::vector<int> output_precisions;  // empty for non-CVM operators
  int64_t cost_base = 1;               // ops = cost_base * size(first output)
};
CVM_EXPORT OpInference infer_op(const std::string& name,
                                const std::vector<std::vector<int64_t>>& input_shapes,
                                const std::vector<int>& input_precisions, const AttrMap& attrs = {});

}  // namespace cvm
