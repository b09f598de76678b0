// ElementwiseOp: the one OpDef behind every elementwise and broadcast operator (CVM and array).
#pragma once

#include <vector>

#include "op_def.h"

namespace cvm {
namespace ops {

// Which input dtypes an op accepts, and the dtype of its output.
enum class DtypeRule {
  kInt32,           // CVM: int32 in, int32 out
  kInt32OrFloat32,  // CVM int32, or float32 in and out for imported float models (relu)
  kFloat32,         // float32 in, float32 out (the float model ops of float_nn.cc)
  kSignedOrFloat,   // one signed integer or float input, same dtype out (negative, abs)
  kNumeric,         // inputs of one numeric (not bool) dtype, same dtype out
  kAnyToBool,       // inputs of one dtype, bool included; bool out (comparisons)
};

// How the input shapes combine into the output shape (unary ops: the input's shape).
enum class ShapeRule {
  kSame,       // every input has the same shape (elemwise_add)
  kBroadcast,  // NumPy right-aligned broadcasting (broadcast_*, array ops)
};

// Output precision from input precisions (spec section 5), for CVM ops.
using PrecisionRule = int (*)(const std::vector<int>& p);
int precision_p0(const std::vector<int>& p);            // p0
int precision_max(const std::vector<int>& p);           // max(p0, p1)
int precision_max_plus_one(const std::vector<int>& p);  // max(p0, p1) + 1
int precision_sum(const std::vector<int>& p);           // p0 + p1

struct ElementwiseSpec {
  const char* name;
  const char* kernel;  // op name of the kernel in the backend tables, keyed by input 0's dtype
  int num_inputs;      // 1 or 2
  bool cvm;
  bool inplace;  // spec section 3 in-place list
  ShapeRule shapes;
  DtypeRule dtypes;
  PrecisionRule precision;  // null for non-CVM ops
  Int8Activations int8 = Int8Activations::kNo;  // OpDef::int8_activations
};

// An op that computes output[i] from the inputs' element i (after broadcasting) with one kernel.
// Without attributes unless a subclass overrides parse() and kernel_params().
class ElementwiseOp : public OpDef {
 public:
  explicit ElementwiseOp(const ElementwiseSpec& spec) : spec_(spec) {}

  const char* name() const override { return spec_.name; }
  int num_inputs() const override { return spec_.num_inputs; }
  bool is_cvm() const override { return spec_.cvm; }
  bool inplace() const override { return spec_.inplace; }
  bool reuses_input0() const override { return true; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override;
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& inputs) const override;
  std::vector<DataType> infer_dtypes(const OpAttrs& attrs,
                                     const std::vector<DataType>& inputs) const override;
  std::vector<int> infer_precisions(const OpAttrs& attrs, const std::vector<Shape>& shapes,
                                    const std::vector<int>& precisions) const override;
  std::vector<const char*> kernel_ops() const override { return {spec_.kernel}; }
  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override;
  // relu on int32: clamp to [0, INT32_MAX].
  bool as_clamp(const OpAttrs& attrs, kernel::CvmClampParams* clamp) const override;
  Int8Activations int8_activations() const override { return spec_.int8; }

 protected:
  // The kernel's POD parameter struct for these attributes (null: none). It must live as long
  // as `attrs`.
  virtual const void* kernel_params(const OpAttrs& attrs) const { return nullptr; }

 private:
  ElementwiseSpec spec_;
};

}  // namespace ops
}  // namespace cvm
