// Model::Impl: the verified graph, its int32 params, the memory plan and the derived
// descriptions; built once by the loaders (make_model), read-only afterwards.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cvm/model.h"
#include "cvm/params.h"
#include "graph.h"
#include "pad_fusion.h"
#include "planner.h"
#include "prepack.h"

namespace cvm {

namespace graph {

// Constant conv2d/dense weights packed for the chain entries that run their nodes (once per
// node and entry, by the first session bound to it), shared by the model's sessions and kept
// while it lives.
class PrepackCache {
 public:
  // The weight of node `nid` (takes_prepacked_weight, its weight a param) packed for `entry`,
  // packed now when it is not yet; data null when that entry declines or takes none.
  // Thread-safe.
  std::shared_ptr<const ops::PrepackedWeight> get(const Node& node, uint32_t nid,
                                                  const std::vector<NDArray>& inputs,
                                                  const kernel::KernelEntry& entry);
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  std::mutex mu_;
  std::vector<std::vector<std::shared_ptr<const ops::PrepackedWeight>>> by_node_;
  std::atomic<uint64_t> bytes_{0};
};

// Whether prepacking is on: CVMRT_PREPACK unset or not "0" (read once per process).
bool prepack_enabled();
// Whether clamp fusion is on: CVMRT_FUSE unset or not "0" (read once per process).
bool fusion_enabled();
// Whether int8 activation buffers are on: CVMRT_INT8_ACTIVATIONS unset or not "0" (read once).
bool int8_activations_enabled();
// Whether sessions measure their per-node thread choice: CVMRT_MEASURE_THREADS unset or not
// "0" (read once).
bool measure_threads_enabled();

// The params copied to a device (once per device, by the first session made there), shared by
// the model's sessions on that device and kept while the model lives.
class DeviceParamCache {
 public:
  // Entry `eid`'s param on `device` (read-only), copied now when it is not yet. Thread-safe.
  NDArray get(Device device, uint32_t eid, const NDArray& host);

 private:
  std::mutex mu_;
  std::vector<std::pair<Device, std::vector<NDArray>>> by_device_;
};

}  // namespace graph

struct Model::Impl {
  graph::Graph graph;
  ModelCost cost;
  uint64_t storage_id_bytes = 0;
  // Per entry: the contiguous param (int32; float32 or int32 in float graphs, as the entry's
  // dtype) for variables other than data, else undefined. Only read (through raw pointers
  // taken here, before any sharing) once the model is built.
  std::vector<NDArray> params;
  std::vector<const void*> param_data;
  // The chains of constant-padding concatenations a session may run as one pad pass; the plan
  // keeps each chain's input live until its last node.
  std::vector<graph::PadFusion> pad_chains;
  graph::MemoryPlan plan;
  uint64_t params_bytes = 0;
  uint64_t unplanned_bytes = 0;

  std::vector<TensorInfo> inputs, outputs;
  std::vector<NodeInfo> nodes;
  ModelMetadata metadata;
  std::string producer;  // the model file's writer ("cvmrt 0.2.0"); "" when unknown
  size_t input_type_size = 4, output_type_size = 4, input_length = 0, output_length = 0;
  // Mutable behind the const model: packs only ever added, under its own lock.
  std::unique_ptr<graph::PrepackCache> prepacked = std::make_unique<graph::PrepackCache>();
  std::unique_ptr<graph::DeviceParamCache> device_params =
      std::make_unique<graph::DeviceParamCache>();
};

namespace graph {

// Binds the params to a verified graph (spec section 2: every variable but data present, int8
// or int32, the graph's shape, values within +-alpha(p); no param that is not a variable;
// a param named "data" is ignored), plans memory, checks the planned-memory limit and fills in
// the descriptions. LogicError naming the param and the rule.
std::shared_ptr<const Model> make_model(Graph graph, const ModelCost& cost,
                                        uint64_t storage_id_bytes, const ParamDict& params,
                                        const ModelMetadata& metadata, const ModelLimits& limits,
                                        std::string producer = std::string());

// The params, int8 where the variable's precision is <= 8, else int32. `share`: the int32 ones
// are read-only views of the model's memory (valid while the model lives), else copies.
ParamDict model_params(const Model::Impl& m, bool share);

// The cvmrt model file reader and writer (model_file.cc).
std::shared_ptr<const Model> read_model_file(const uint8_t* data, size_t size,
                                             const ModelOptions& options);
std::vector<uint8_t> write_model_file(const Model& model, const SaveOptions& options);

}  // namespace graph
}  // namespace cvm
