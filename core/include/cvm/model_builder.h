// ModelBuilder: builds a Model node by node in memory (importers, the quantizer, tests), with
// every operator's attributes, dtypes, shapes and precisions checked as the node is added.
//
// A model built here is verified exactly like a loaded one when build() is called. Two kinds
// of graph exist:
//   - a CVM graph: every entry int32, every operator a CVM operator; precision inference, the
//     CVM limits and cost apply (spec section 4), and it can be exported as CVM graph JSON;
//   - a float graph: the input and the tensors float32 (imported float models); operators that
//     accept float32 (conv2d, dense, max_pool2d, relu, the transforms, the array ops add, sub,
//     mul, div, reduce_mean, and the float operators avg_pool2d, leaky_relu, clamp, sigmoid,
//     softmax, pad). Precisions do not apply (reported as 0); cost is computed with the same
//     formula (base(op) x size(first output) + 5 x elements).
// A graph whose input is int32 is a CVM graph; one whose input is float32 is a float graph.
// Not thread-safe; one builder builds one model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cvm/export.h"
#include "cvm/model.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/shape.h"

namespace cvm {

class CVM_EXPORT ModelBuilder {
 public:
  // An entry: one output of one node (its id in the graph, in node order).
  using Entry = uint32_t;

  ModelBuilder();
  ~ModelBuilder();
  ModelBuilder(const ModelBuilder&) = delete;
  ModelBuilder& operator=(const ModelBuilder&) = delete;

  // The model's single input, the variable "data". dtype int32 (a CVM graph; `precision` in
  // 1..32 is required) or float32 (a float graph; `precision` is ignored). Must be called once,
  // before anything else is added. LogicError on a bad shape, dtype or precision.
  Entry input(const Shape& shape, DataType dtype, int precision = 0);

  // A constant (a param of the model) named `name` (unique among variables, not "data").
  // CVM graphs: int8 or int32 values; `precision` 0 means the smallest p in 1..32 whose bound
  // 2^(p-1)-1 holds every |value|, otherwise every value must lie within +-(2^(p-1)-1).
  // Float graphs: float32 (or int32, for index-like constants such as shapes). The array is
  // copied when needed; later changes to it do not reach the model.
  Entry constant(const std::string& name, const NDArray& value, int precision = 0);

  // An operator node named `name` (node names need not be unique, but outputs are named after
  // their node, so keep them unique) applying `op` to `inputs` (entries already added). Parses
  // the attributes and infers dtypes, shapes and (CVM graphs) precisions now: LogicError
  // "node 7 \"conv_3\" (conv2d): ..." on anything wrong. Returns its output entries.
  std::vector<Entry> add(const std::string& op, const std::string& name,
                         const std::vector<Entry>& inputs, const AttrMap& attrs = {});
  // add() for a single-output operator.
  Entry add1(const std::string& op, const std::string& name, const std::vector<Entry>& inputs,
             const AttrMap& attrs = {});

  // What is known of an entry (LogicError for an entry that does not exist).
  const Shape& shape(Entry e) const;
  DataType dtype(Entry e) const;
  int precision(Entry e) const;  // CVM graphs: 1..32; float graphs: 0
  // The constant behind `e`, or an undefined NDArray when `e` is not a constant.
  NDArray constant_value(Entry e) const;
  size_t num_entries() const;

  // The model outputs (the graph heads), in order; at least one.
  void set_outputs(const std::vector<Entry>& outputs);
  // CVM graphs: the postprocess string of spec section 7 ("", "argmax", "detection").
  void set_postprocess(const std::string& postprocess);

  // Verifies the whole graph (as a loader does), plans memory and returns the model. The
  // builder is left empty. Constants that no node uses are dropped.
  std::shared_ptr<const Model> build(const ModelOptions& options = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cvm
