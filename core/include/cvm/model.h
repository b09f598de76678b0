// Model and Session: load a verified quantized CVM model (graph JSON + params, or a cvmrt model
// file), know its cost before running, and run it from any number of threads.
//
// A Model is immutable once loaded and is shared as std::shared_ptr<const Model>: every method
// is const and safe to call from several threads at once. A Session owns the activation memory
// of one run and is used from one thread at a time; N threads run N Sessions of one Model.
// Every fault of the model, its params or the caller is a cvm::LogicError whose message names
// the node and the rule that failed; cvm::RuntimeError is reserved for the environment (out of
// memory, I/O) and broken invariants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cvm/dtype.h"
#include "cvm/error.h"
#include "cvm/export.h"
#include "cvm/ndarray.h"
#include "cvm/op.h"
#include "cvm/params.h"
#include "cvm/shape.h"

namespace cvm {

// Load-time limits (spec/cvm-ops.md sections 3 and 4). The defaults are CVM's; a model beyond
// any of them is rejected with a LogicError at load time (the graph limits before the params
// are read, the planned-storage limit before any session allocates).
struct ModelLimits {
  int max_ndim = 6;                                // every entry has 1..max_ndim dimensions
  int64_t max_dim = int64_t{1} << 24;              // every extent is in 1..max_dim
  int64_t max_elements = int64_t{1} << 30;         // elements of one entry
  uint64_t max_storage_bytes = uint64_t{1} << 32;  // planned bytes (params + activations), and
                                                   // the pool the JSON's storage_id describe
  int64_t max_cost_base = int64_t{1} << 30;        // cost base of one operator (section 6)
  uint64_t max_ops = uint64_t{1} << 40;            // running "ops" sum
  uint64_t max_mem = uint64_t{1} << 40;            // running "mem" sum
};

// The float interface of one input or output of a quantized CVM model (docs/quantization.md).
struct QuantizedTensor {
  std::string name;   // the model input or output it describes
  double scale = 0;   // input: a float x is fed as clamp(round_half_away_from_zero(x * scale),
                      // +-(2^(precision-1)-1)); output: an integer q means q / scale
  int precision = 0;  // inputs: the input's precision; outputs: 0
  std::string tail;   // outputs: a float operator applied after dequantization ("", "softmax",
                      // "sigmoid"), for operators with no exact CVM form at the model's end
  int tail_axis = -1;  // the softmax axis
};

struct Quantization {
  std::vector<QuantizedTensor> inputs, outputs;
  bool empty() const { return inputs.empty() && outputs.empty(); }
};

// Free-form description carried by the cvmrt model file (the CVM JSON has none).
struct ModelMetadata {
  std::string name;
  std::string description;
  std::vector<std::string> labels;  // e.g. class names, index = class id
  // Set on models written by the quantizer: how float inputs and outputs map to the integers.
  Quantization quantization;
};

struct ModelOptions {
  ModelLimits limits;
  // Params loading (cvmrt params format: whether to verify the per-tensor checksums).
  LoadOptions params;
  // Attached to a model imported with from_cvm (the model file carries its own).
  ModelMetadata metadata;
  // Folder in which a model file's by-reference params file is looked up. Empty: the current
  // directory for from_bytes, the model file's folder for load_file.
  std::string base_dir;
};

struct SaveOptions {
  // Empty: the params are stored inside the model file (cvmrt params format). Otherwise the
  // model file only names this params file (relative to the model file's folder when loaded),
  // which the caller writes with params().save_file(...).
  std::string params_file;
};

// Cost ("ops", the basis of gas) per spec section 6, known at load time.
struct ModelCost {
  uint64_t ops = 0;    // sum over ops of base(op) * size(first output)
  uint64_t mem = 0;    // 5 * (elements of every variable + elements of every op output)
  uint64_t total = 0;  // ops + mem
};

// One model input or output.
struct TensorInfo {
  std::string name;  // inputs: the variable name; outputs: the node name (":k" for output k>0)
  Shape shape;
  int precision = 0;  // bit width, 1..32; values lie in [-(2^(p-1)-1), 2^(p-1)-1]; 0 in float
                      // models
  DataType dtype;     // what Session uses and returns: int32 (CVM models) or float32 (float
                      // models)
  DataType io_dtype;  // the section 7 byte layout of this tensor alone: int8 when p <= 8;
                      // float models: float32
};

// One graph node, for inspection (tools, the CLI's "inspect").
struct NodeInfo {
  std::string name;
  std::string op;                       // "null" for a variable, else the operator name
  AttrMap attrs;                        // operator attributes in CVM string form
  std::vector<uint32_t> input_entries;  // entry ids (node outputs in node order)
  uint32_t first_entry = 0;             // entry id of output 0
  std::vector<Shape> output_shapes;
  std::vector<int> output_precisions;
  int64_t cost_base = 0;  // 0 for variables
};

class Session;

class CVM_EXPORT Model {
 public:
  // Imports a CVM model: graph JSON (spec section 3; trailing NUL bytes ignored) and params in
  // the legacy CVM or the cvmrt params format (detected). Verifies everything of spec sections 3 and 4 and plans memory.
  // `params` may be null when params_size is 0 (then the graph must have no variable but data).
  static std::shared_ptr<const Model> from_cvm(const std::string& graph_json, const void* params,
                                               size_t params_size,
                                               const ModelOptions& options = {});
  // Loads a cvmrt model file (schemas/model.fbs, docs/model-format.md) from memory or a file;
  // the bytes are not retained. Verified exactly like an import.
  static std::shared_ptr<const Model> from_bytes(const void* data, size_t size,
                                                 const ModelOptions& options = {});
  static std::shared_ptr<const Model> load_file(const std::string& path,
                                                const ModelOptions& options = {});
  // The cost of a CVM graph JSON alone, without params (CVMAPIGetGasFromGraphFile): the graph
  // is verified as by from_cvm, except for the params.
  static ModelCost estimate_cost(const std::string& graph_json, const ModelLimits& limits = {});

  // The cvmrt model file; the same model always gives the same bytes.
  std::vector<uint8_t> save(const SaveOptions& options = {}) const;
  // Writes save()'s bytes to `path` through a temporary file of its own next to it and a rename
  // (concurrent saves of one path each succeed; the last one's file stays). RuntimeError on I/O
  // failure.
  void save_file(const std::string& path, const SaveOptions& options = {}) const;
  // The params, int8 where the variable's precision is <= 8, else int32 (what save() stores);
  // float models: float32 (or int32) as built.
  ParamDict params() const;
  // Quantized models (metadata().quantization): the int32 input a float32 array `value` of the
  // input's shape stands for, each x as clamp(round_half_away_from_zero(x * scale),
  // +-(2^(p-1)-1)) computed in double (what Session::set_input_float feeds). LogicError for a
  // model that is not quantized, a bad dtype or shape, or a NaN.
  NDArray quantize_input(const NDArray& value) const;
  // The CVM graph JSON of this model (spec section 3, version cvm_1.0.0): with params() saved
  // in the legacy CVM format (ParamFormat::kLegacy), any CVM runtime loads and runs it with the
  // same outputs and cost. Every entry gets its own storage_id. LogicError for a float model.
  std::string cvm_json() const;

  // ---- description ----
  const std::vector<TensorInfo>& inputs() const;   // the single input "data"
  const std::vector<TensorInfo>& outputs() const;  // the graph heads, in order
  const std::vector<NodeInfo>& nodes() const;      // every node in execution order
  const std::string& version() const;              // "cvm_1.0.0" or "cvm_1.1.0"
  const std::string& postprocess() const;          // "", "argmax", "detection", ...
  // Who wrote the model file it was loaded from, e.g. "cvmrt 0.2.0" (schemas/model.fbs
  // `producer`); "" for files written before cvmrt 0.2.0, CVM JSON imports and built models.
  const std::string& producer() const;
  const ModelMetadata& metadata() const;
  ModelCost cost() const;

  // ---- memory, in bytes ----
  // What a model and one session need: params (int32, held once by the model) + one
  // session's activation arena after liveness-based reuse.
  uint64_t planned_bytes() const;
  // The same without any reuse: the sum of every entry's int32 size.
  uint64_t unplanned_bytes() const;
  uint64_t params_bytes() const;      // int32 params held by the model
  // Constant conv2d/dense weights packed so far for the kernels that run them (not in
  // planned_bytes): when a Session is made, each such weight is packed for the first entry of
  // its node's chain that packs it (none on the scalar reference), once per model and entry:
  // sessions of other backends add their own packs. The environment variable CVMRT_PREPACK=0
  // (read once per process) turns prepacking off, for comparison: results are identical
  // either way.
  uint64_t prepacked_bytes() const;
  uint64_t activation_bytes() const;  // one session's arena (the input data and op outputs)
  // The pool the CVM JSON's storage_id attribute describes (what CVM reports as its storage
  // size: per storage id, the largest entry, rounded up to 4 bytes). 0 when the model came
  // from a file saved without storage ids.
  uint64_t storage_id_bytes() const;

  // ---- spec section 7 byte layout (CVMAPIInference) ----
  size_t input_type_size() const;   // 1 when the input precision is <= 8, else 4
  size_t output_type_size() const;  // 1 when every head precision is <= 8, else 4; argmax and
                                    // detection: 4
  size_t input_length() const;      // bytes of the input: elements * input_type_size()
  size_t output_length() const;     // bytes infer_bytes writes

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  struct Impl;
  // Internal (used by the loaders); not part of the API.
  explicit Model(std::unique_ptr<Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Per-node timing of the last run (enable_profiling).
struct OpProfile {
  std::string name;         // node name
  std::string op;           // operator name
  double microseconds = 0;  // wall time of compute()
  uint64_t output_bytes = 0;
};

struct SessionOptions {
  // The backend whose kernels head every node's chain ("simd", "wasm", "scalar", ...; the
  // scalar reference always ends it). "auto": the one preferred when the session is made on
  // the making thread (ScopedThreadBackend, else set_backend / CVMRT_BACKEND). LogicError for
  // a backend that is not compiled in.
  std::string backend = "auto";
  // For a device backend ("cuda"): which device of its kind runs the session. The session then
  // keeps its activations and the model's params on that device (the same memory plan as on
  // the CPU), runs on a stream of its own, and copies inputs in and outputs out. RuntimeError
  // when the device does not exist or cannot be used (no driver, no GPU).
  int device_id = 0;
  // Runs the int32 clamps after a conv2d or dense (cvm_right_shift, cvm_clip, clip, relu) as
  // one pass where they compose, or inside the conv2d kernel's stores where it can apply them
  // (bit-identical; the nodes that compute nothing report NodeKernelPlan::fused_into). The
  // environment variable CVMRT_FUSE=0 turns it off for every session.
  bool fuse_clamps = true;
  // Runs a chain of concatenations of constant blocks of one value around an activation, one
  // padded axis a node (how the quantizer writes an ONNX Pad, which CVM lacks), as one pad
  // kernel call from the activation (bit-identical; the chain's other nodes report
  // NodeKernelPlan::fused_into). CVMRT_FUSE=0 turns it off too.
  bool fuse_pads = true;
  // Holds an activation as int8 instead of int32 where that is exact and its kernels take it:
  // the output of a conv2d / dense whose kernel applies its fused clamp (fuse_clamps) within
  // [-128, 127], when every node reading it is a conv2d / dense taking it as data and the
  // kernels heading the chains of all of them take int8 activations
  // (NodeKernelPlan::int8_output); the model's input too when its readers are such nodes. A
  // quarter of the bytes to write and read; the same bits. CPU sessions only. CVMRT_INT8_ACTIVATIONS=0 turns it off for every session.
  bool int8_activations = true;
  // With more than one thread (set_num_threads), the session's first runs (at least 10, more
  // for a fast model) measure which of its nodes run faster split over the pool than on the
  // calling thread alone: each node's time both ways, then whole runs with every node serial,
  // every node split, and the nodes that were faster split split; the fastest of those ways
  // runs from then on (NodeKernelPlan::threads). Splitting a small kernel call costs more than
  // it saves on many machines. Measured again when the thread count changes, and when the
  // runs' speed drifts by 25 % (a shared machine's load changed); the same bits every way. CPU
  // sessions only. CVMRT_MEASURE_THREADS=0 turns it off for every session (every node then
  // splits what its kernels find large enough).
  bool measure_threads = true;
};

// The kernels a session runs one node with (Session::kernel_plan()), for "no silent
// fallback" checks and `cvmrt inspect`.
struct NodeKernelPlan {
  std::string node;  // node name
  std::string op;    // operator name
  // One per kernel the operator calls (most call one).
  struct Chain {
    std::string kernel_op;  // the kernel op requested, e.g. "conv2d", "copy"
    std::string dtype;      // its element type, e.g. "int32"
    // Table entries in the order they are tried (what__how names, e.g.
    // "conv2d_i16i32__avx2"): the first takes every call it does not decline; the scalar
    // reference, last, takes every call.
    std::vector<std::string> entries;
    // Why entries of the backend are missing or moved: "conv2d_i8i32__amx: CPU lacks amx-tile
    // amx-int8", "dense_i8i32__amx: moved behind ..., it does not suit these shapes".
    std::vector<std::string> notes;
    std::string packed_for;  // the entry its constant weight was packed for ("": none)
    std::string last_ran;    // the entry that took the last run's call ("": not run yet)
  };
  std::vector<Chain> chains;
  // The node whose one pass computes this one (SessionOptions::fuse_clamps, fuse_pads): its
  // chains are bound but never run. "" for a node that runs itself.
  std::string fused_into;
  // Whether the node writes its output as int8 (SessionOptions::int8_activations): the output
  // of its fused clamp run, which the nodes reading it read as int8.
  bool int8_output = false;
  // Threads its kernels may split over: 1 when SessionOptions::measure_threads found it faster
  // on one thread, else the thread count of the last run; 0 while the choice is still being
  // measured (or before the first run).
  int threads = 0;
};

class CVM_EXPORT Session {
 public:
  // Allocates the activation arena (zero-filled) and binds every node to its kernel chain
  // (options.backend), packing constant conv2d/dense weights for the entries that will run
  // them. Runs then do no kernel lookups. Not copyable.
  explicit Session(std::shared_ptr<const Model> model, const SessionOptions& options = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Model& model() const;

  // Sets the input (only "data" exists): an int8 or int32 CPU array of exactly the input's
  // shape, any strides; int8 is sign-extended, values are clipped to +-(2^(p-1)-1).
  void set_input(const std::string& name, const NDArray& value);
  // Quantized models (metadata().quantization, written by the quantizer): sets the input from
  // a float32 array of the input's shape, each value fed as
  // clamp(round_half_away_from_zero(x * scale), +-(2^(p-1)-1)). LogicError for a model that is
  // not quantized, or a bad dtype or shape.
  void set_input_float(const std::string& name, const NDArray& value);
  // Runs every operator. LogicError when the input was never set.
  void run();

  size_t num_outputs() const;
  // A fresh int32 copy of output i (a head) of the last run; LogicError before the first run
  // or for a bad index / unknown name.
  NDArray output(size_t i) const;
  NDArray output(const std::string& name) const;
  // Quantized models: output i of the last run as float32, q / scale, then the output's float
  // tail ("softmax" along tail_axis, or "sigmoid") through the float32 operators. LogicError
  // for a model that is not quantized, before the first run, or for a bad index.
  NDArray output_float(size_t i) const;

  // Records per-node timings in every following run (off by default).
  void enable_profiling(bool on = true);
  // The last run's timings, one per operator node in execution order (empty when disabled).
  const std::vector<OpProfile>& profile() const;

  // The backend the session's chains are headed by ("simd", "scalar", "cuda", ...).
  const std::string& backend() const;
  // Where its activations live and its kernels run: the CPU, or the device of a device backend.
  Device device() const;
  // Per operator node in execution order: the kernel chains it is bound to, and which entry
  // took each chain's call in the last run.
  std::vector<NodeKernelPlan> kernel_plan() const;

  // ---- spec section 7 (CVMAPIInference) ----
  size_t input_type_size() const { return model().input_type_size(); }
  size_t output_type_size() const { return model().output_type_size(); }
  size_t input_length() const { return model().input_length(); }
  size_t output_length() const { return model().output_length(); }
  // Sets the input from `in` (input_length() bytes: int8, or little-endian int32, row-major),
  // runs, and writes output_length() bytes to `out`: the heads in order (int8 truncated or
  // little-endian int32); for postprocess "argmax" one int32 per row of each head (argmax of
  // the last dimension, values compared after truncation to int8, first maximum wins); for
  // "detection" or more than one head, heads interleaved row by row. LogicError when in_len
  // differs from input_length(), out_capacity is below output_length(), or the heads cannot
  // be interleaved (different row counts; a single-head "detection" model).
  void infer_bytes(const char* in, size_t in_len, char* out, size_t out_capacity);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace cvm
