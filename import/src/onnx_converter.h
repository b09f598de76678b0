// The ONNX-to-cvmrt converter's shared state: tensor values, node context, attribute readers,
// constant folding and emission through ModelBuilder (used by the per-operator handlers).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cvm/error.h"
#include "cvm/model_builder.h"
#include "cvm/ndarray.h"
#include "cvm/onnx_import.h"

namespace cvm {
namespace onnx {
namespace detail {

// What an ONNX tensor name stands for: a constant known at import (folded), or an entry of the
// graph being built.
struct Value {
  NDArray constant;  // defined for a constant
  ModelBuilder::Entry entry = 0;
  std::string name;  // the ONNX tensor name (names a constant if it enters the graph)
  bool is_constant() const { return constant.defined(); }
};

// A LogicError raised while converting a node; the converter prefixes the node's description.
[[noreturn]] void fail(const std::string& message);

// Float text for CVM attributes: "%.9g" (round-trips a float), "inf", "-inf", "nan".
std::string float_attr(double v);
// "(a, b, c)".
std::string tuple_attr(const std::vector<int64_t>& v);

// Tensor conversion (onnx_tensor.cc).
// A TensorProto (float32, int64 or int32; raw_data or the typed field) as a contiguous CPU
// array. `what` names it in messages. LogicError for other dtypes, external data, bad dims or
// sizes, or more than max_elements elements.
NDArray tensor_to_array(const ::onnx::TensorProto& t, const std::string& what,
                        int64_t max_elements);
// True when the tensor keeps its data outside the model.
bool has_external_data(const ::onnx::TensorProto& t);
// The element type's name in cvmrt terms ("float32", "float64", "int64", ...), else ONNX's.
std::string onnx_dtype_name(int elem_type);
// The cvmrt dtype of an ONNX element type that constants and Cast support (float32, int64,
// int32), else nullopt.
std::optional<DataType> supported_dtype(int64_t elem_type);

// Constant-array helpers (onnx_fold.cc); all LogicError on bad arguments, never UB.
// The values of a 1-D (or 0-d) int64/int32 constant.
std::vector<int64_t> int_values(const NDArray& a, const std::string& what);
// Every value of a float32/int64/int32 constant as double, row-major.
std::vector<double> double_values(const NDArray& a);
// A contiguous float32 array from values.
NDArray float_array(const Shape& shape, const std::vector<float>& values);
NDArray int64_array(const Shape& shape, const std::vector<int64_t>& values);
// Concatenation of constants (same dtype and rank) along `axis` (non-negative).
NDArray concat_arrays(const std::vector<NDArray>& parts, int axis);
// A contiguous copy of a transposed/permuted constant.
NDArray permute_array(const NDArray& a, const std::vector<int>& perm);
// LogicError unless `shape` has non-negative extents and at most max_elements elements.
void check_elements(const Shape& shape, int64_t max_elements, const std::string& what);
// `a` padded with `value` (pads: begins of each axis, then ends; non-negative).
NDArray pad_array(const NDArray& a, const std::vector<int64_t>& pads, double value,
                  int64_t max_elements);
// numpy.take(data, indices, axis) for constants.
NDArray gather_array(const NDArray& data, const NDArray& indices, int axis, int64_t max_elements);
// A constant of `shape` filled with the single element of `value`.
NDArray fill_array(const Shape& shape, const NDArray& value, int64_t max_elements);
// The constant converted to float32, int64 or int32.
NDArray cast_array(const NDArray& a, DataType to);

// Normalises an ONNX axis in [-rank, rank) (or [-rank, rank] with `inclusive`).
int normalize_axis(int64_t axis, int rank, const char* what, bool inclusive = false);

class Converter {
 public:
  Converter(const ::onnx::ModelProto& model, const ImportOptions& options);
  std::shared_ptr<const Model> run();

  // ---- the node being converted ----
  const ::onnx::NodeProto& node() const { return *node_; }
  int node_index() const { return node_index_; }
  const std::string& node_name() const { return node_name_; }
  int opset() const { return opset_; }
  const ImportOptions& options() const { return options_; }

  // Input k is given (exists and has a non-empty name).
  bool has_input(int k) const;
  // Input k's value; LogicError when missing or unknown.
  const Value& input(int k) const;
  // The shape of a value (constant or entry).
  Shape shape_of(const Value& v) const;
  // Sets output k of the node (ignored when the node has no such output or its name is empty).
  void set_output(int k, const Value& v);
  // LogicError when output k (k >= 1) exists with a name that anything uses.
  void require_unused_output(int k, const char* what) const;

  // ---- attributes of the node ----
  const ::onnx::AttributeProto* attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;

  // ---- building ----
  // Applies cvmrt operator `op`: evaluated with cvm::run_op when every input is a constant
  // (the result is a constant), else added to the graph as a node named after the ONNX node
  // (plus `suffix`, made unique).
  Value emit(const std::string& op, const std::vector<Value>& inputs, const AttrMap& attrs,
             const std::string& suffix = "");
  // A new constant value named after the node (plus `suffix`).
  Value constant(const NDArray& array, const std::string& suffix) const;
  // The graph entry of a value (a constant enters the graph as a param, once).
  ModelBuilder::Entry entry_of(const Value& v);

  // ---- look-ahead for folding ----
  // The index of the node that is the only user of `tensor` (which must not be a graph output),
  // or -1.
  int sole_consumer(const std::string& tensor) const;
  const ::onnx::NodeProto& graph_node(int index) const;
  // The value of a tensor already defined, or null.
  const Value* find_value(const std::string& tensor) const;
  // Marks node `index` (a later node) as folded into the current one: its output 0 becomes the
  // value the current node gives as its output 0.
  void fold_into_current(int index);

 private:
  void define_graph_input();
  void define_initializers();
  void convert_node(int index);
  std::string unique_name(const std::string& base);

  const ::onnx::ModelProto& model_;
  const ::onnx::GraphProto& graph_;
  ImportOptions options_;
  int opset_ = 0;
  ModelBuilder builder_;
  std::unordered_map<std::string, Value> values_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::set<std::string> graph_outputs_;
  std::set<std::string> used_names_;
  // Constants already in the graph, by container (the array is kept so the key stays unique).
  std::unordered_map<const void*, std::pair<NDArray, ModelBuilder::Entry>> constant_entries_;
  std::vector<int> folded_into_;  // per node: the node it was folded into, or -1

  const ::onnx::NodeProto* node_ = nullptr;
  int node_index_ = -1;
  std::string node_name_;
  std::vector<std::string> node_names_;
};

// `v` with a new shape (same element count): a reshaped constant, or a cvmrt reshape node
// (named after the node plus `suffix`); `v` itself when the shape is unchanged.
Value reshape_value(Converter& c, const Value& v, const Shape& shape, const std::string& suffix);

// One handler per ONNX operator type (onnx_ops_*.cc).
using OpHandler = void (*)(Converter& c);
// The handler for `op_type` (default domain), or null.
OpHandler find_handler(const std::string& op_type);

// Families, each adding its handlers to the table (called once by find_handler).
struct HandlerEntry {
  const char* op_type;
  OpHandler handler;
};
void add_nn_handlers(std::vector<HandlerEntry>& table);     // onnx_ops_nn.cc
void add_basic_handlers(std::vector<HandlerEntry>& table);  // onnx_ops_basic.cc
void add_shape_handlers(std::vector<HandlerEntry>& table);  // onnx_ops_shape.cc

}  // namespace detail
}  // namespace onnx
}  // namespace cvm
