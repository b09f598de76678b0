// OpDef: what the op layer knows about one operator — arity, attributes, shape, dtype,
// precision and cost inference, and how to compute it through the kernel registry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cvm/check.h"
#include "cvm/dtype.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/shape.h"
#include "kernel_abi.h"

namespace cvm {
namespace ops {

// Parsed, validated attributes of one operator instance. Each op family derives its own.
struct OpAttrs {
  virtual ~OpAttrs() = default;
};
struct NoAttrs : OpAttrs {};

class OpDef {
 public:
  virtual ~OpDef() = default;

  virtual const char* name() const = 0;
  // Inputs it takes, or -1 for any number >= 1.
  virtual int num_inputs() const = 0;
  virtual int num_outputs() const { return 1; }
  // A CVM model operator: int32 tensors, precision and cost inference apply.
  virtual bool is_cvm() const { return true; }
  // May its output share storage with its input (the spec section 3 in-place list)? The
  // kernel then tolerates output == input.
  virtual bool inplace() const { return false; }

  // Parses `attrs` (unknown or missing required ones, bad values and ranges are LogicErrors).
  virtual std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const = 0;
  // Output shapes from input shapes; validates them (LogicError).
  virtual std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                          const std::vector<Shape>& inputs) const = 0;
  // Output dtypes from input dtypes; validates them. Default: CVM ops take and give int32.
  virtual std::vector<DataType> infer_dtypes(const OpAttrs& attrs,
                                             const std::vector<DataType>& inputs) const;
  // Output precisions (spec section 5) from input shapes and precisions; validates them
  // (e.g. conv2d inputs <= 8). Only for CVM ops.
  virtual std::vector<int> infer_precisions(const OpAttrs& attrs, const std::vector<Shape>& shapes,
                                            const std::vector<int>& precisions) const;
  // Cost base (spec section 6): ops = base * size(first output). Default 1.
  virtual int64_t cost_base(const OpAttrs& attrs, const std::vector<Shape>& inputs) const {
    return 1;
  }
  // Computes into `outputs`, already allocated with the inferred shapes and dtypes (and, for
  // in-place ops, possibly the same storage as inputs[0]). Inputs are validated.
  virtual void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                       const std::vector<NDArray>& outputs) const = 0;

  // conv2d and dense: the weight (inputs[1]) can be packed once for the kernel that runs it
  // (ops::prepack_weight, prepack.h) and handed back through compute_prepacked().
  virtual bool takes_prepacked_weight() const { return false; }
  // compute(), with `packed` as the kernel's KernelCall::prepacked when the kernel it runs is
  // `packed_for` (a pack is only ever given to the kernel that made it). Default: compute().
  virtual void compute_prepacked(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                                 const std::vector<NDArray>& outputs, kernel::KernelFn packed_for,
                                 const void* packed) const {
    (void)packed_for;
    (void)packed;
    compute(attrs, inputs, outputs);
  }
};

// The operator named `name`, or null.
const OpDef* find_op(const std::string& name);
// Every operator in registration order.
const std::vector<const OpDef*>& all_ops();

// Helpers for op implementations.
// "op \"name\": " prefix used by every message.
std::string op_prefix(const OpDef& op);
// LogicError unless every input is int32 (CVM ops).
void verify_int32_inputs(const OpDef& op, const std::vector<DataType>& inputs);
// The dtype of input 0, after checking that every input has it: a LogicError names the first
// that differs, `op "conv2d": expected every input float32 like data, found weight int32`.
// names[i] names input i ("input i" past the end of `names`).
DataType verify_same_dtype(const OpDef& op, const std::vector<DataType>& inputs,
                           const std::vector<const char*>& names = {});

}  // namespace ops
}  // namespace cvm

namespace cvm {
namespace ops {

// Each op family file defines one of these, appending its operators (static OpDef objects)
// in a fixed order. op_registry.cc calls them all, once: no static constructors.
using OpList = std::vector<const OpDef*>;
void add_cvm_elementwise_ops(OpList& ops);  // cvm_elementwise.cc
void add_cvm_broadcast_ops(OpList& ops);    // cvm_broadcast.cc
void add_cvm_reduce_ops(OpList& ops);       // cvm_reduce.cc
void add_cvm_nn_ops(OpList& ops);           // cvm_nn.cc
void add_cvm_vision_ops(OpList& ops);       // cvm_vision.cc
void add_cvm_transform_ops(OpList& ops);    // cvm_transform.cc
void add_array_elementwise_ops(OpList& ops);  // array_elementwise.cc
void add_array_reduce_ops(OpList& ops);       // array_reduce.cc
void add_array_linalg_ops(OpList& ops);       // array_linalg.cc (matmul, cast)
void add_float_nn_ops(OpList& ops);           // float_nn.cc (float32 ops of imported models)

}  // namespace ops
}  // namespace cvm
