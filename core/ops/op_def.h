// OpDef: what the op layer knows about one operator — arity, attributes, shape, dtype,
// precision and cost inference, the kernels it calls, and how to compute it through them.
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
#include "params/elementwise.h"
#include "params/nn.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {

// Parsed, validated attributes of one operator instance. Each op family derives its own.
struct OpAttrs {
  virtual ~OpAttrs() = default;
};
struct NoAttrs : OpAttrs {};

// The kernels one node (or one run_op call) computes with, bound once (bind_kernels): a chain
// per key of OpDef::kernels(), in that order, and for conv2d/dense the weight packed for one
// entry of chains[0] (prepack.h), which only that entry is given.
struct NodeKernels {
  std::vector<KernelChain> chains;
  const kernel::KernelEntry* packed_for = nullptr;
  const void* packed = nullptr;
  // conv2d / dense, elemwise_add / elemwise_sub: the clamp its entries with
  // KernelEntry::applies_clamp apply to the output (Conv2dParams::clamp, DenseParams::clamp,
  // the add / sub kernels' params; a session's clamp fusion), or null.
  const kernel::CvmClampParams* clamp = nullptr;
  // conv2d: the per-channel multiply and clamp after it that entries with
  // KernelEntry::applies_channel_scale apply (Conv2dParams::scale), or null.
  const kernel::ChannelScale* scale = nullptr;
  // conv2d: rows / columns of zero padding a session's pad fusion added before its input (the
  // input is then the pad's own input, and the output extent takes the padding after it:
  // kernel::Conv2dParams), on top of the op's padding.
  int64_t fused_pad_h = 0, fused_pad_w = 0;

  const KernelChain& operator[](size_t i) const { return chains[i]; }
};

// How a CPU session may hold the activations an operator reads and writes as int8
// (SessionOptions::int8_activations; core/src/graph/int8_activations.h), for entries of
// precision <= 8. The session decides per entry; an op's kernels then see int8 views.
enum class Int8Activations {
  kNo,        // int32 views only
  kTogether,  // every entry int8 or every entry int32, when the first entry of its kernel chain
              // takes int8 views (KernelEntry::takes_int8_activations)
  kTogetherClamped,  // kTogether, only under a fused clamp within int8 (elemwise_add / sub:
                     // their kernels decline an unclamped int8 call, whose sum may not fit)
  kTogetherAnyKernel,  // kTogether whatever kernel runs (concatenate and the views copied out:
                       // the reference's copy takes any width)
  kGemm,  // conv2d, dense: the data either way; the output int8 when its clamp run (the
          // requantizing epilogue the kernel applies) ends within int8
};

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
  // May a session's memory plan put output 0 in input 0's storage when both have one shape and
  // input 0 is not read afterwards? The in-place ops, and the elementwise ops: their kernels
  // compute each output element from the input elements at its own position (or broadcast
  // ones), so they tolerate output == input 0 whatever the spec's storage-sharing list says.
  virtual bool reuses_input0() const { return inplace(); }

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
  // Every kernel op compute() may call, whatever the attributes and dtypes: which table
  // entries this operator dispatches (tested: every entry's op is some operator's). Default:
  // the operator's own name.
  virtual std::vector<const char*> kernel_ops() const { return {name()}; }
  // The kernels compute() calls for these attributes and validated dtypes, in the order it
  // indexes NodeKernels::chains. Default: the one kernel op of kernel_ops() for the dtype of
  // input 0 (an operator calling several overrides this).
  virtual std::vector<KernelKey> kernels(const OpAttrs& attrs, const std::vector<DataType>& inputs,
                                         const std::vector<DataType>& outputs) const;
  // Computes into `outputs`, already allocated with the inferred shapes and dtypes (and, for
  // in-place ops, possibly the same storage as inputs[0]), through `kernels` (bound by
  // bind_kernels for these attributes and operands). Inputs are validated.
  virtual void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                       const std::vector<NDArray>& outputs, const NodeKernels& kernels) const = 0;

  // conv2d and dense: the weight (inputs[1]) can be packed once for the entry of chains[0]
  // that will run it (ops::prepack_weight, prepack.h).
  virtual bool takes_prepacked_weight() const { return false; }

  // An int32 elementwise clamp that a session may fold with its neighbours into one pass after
  // a conv2d or dense (graph/output_stage.h): y = clamp(round_shift(x, shift), lo, hi), shift 0
  // for none. cvm_right_shift, cvm_clip, clip and relu say so; false for every other op.
  virtual bool as_clamp(const OpAttrs& attrs, kernel::CvmClampParams* clamp) const {
    return false;
  }

  // How a session may hold its activations as int8 (Int8Activations). Default: int32 only.
  virtual Int8Activations int8_activations() const { return Int8Activations::kNo; }
};

// The kernels of `op` for a call with `attrs` on `inputs` giving `output_dtypes`, under
// `policy`: one chain per kernels() key (the inputs' views inform shape preferences). Counts
// one registry lookup per chain.
NodeKernels bind_kernels(const OpDef& op, const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                         const std::vector<DataType>& output_dtypes, const ChainPolicy& policy);

// cvm::run_op of `op` with its kernels bound under `policy`: validates the call, allocates the
// outputs, binds, computes. `bound` (may be null) receives the chains, each with the entry
// that took its call (KernelChain::last_ran).
std::vector<NDArray> run_bound(const OpDef& op, const std::vector<NDArray>& inputs,
                               const AttrMap& attrs, const ChainPolicy& policy,
                               NodeKernels* bound = nullptr);

// op.compute() with kernels bound now under the thread's preferred backend (chain_policy()):
// for one-off calls on preallocated outputs (tests, in-place checks).
void compute_now(const OpDef& op, const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                 const std::vector<NDArray>& outputs);

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
