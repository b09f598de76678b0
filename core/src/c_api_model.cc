// The C ABI of models and sessions: the CVM-compatible CVMAPI* calls and the modern CVMModel* /
// CVMSession* calls over cvm::Model and cvm::Session (spec/cvm-ops.md sections 6, 7 and 9).
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "c_api_common.h"
#include "cvm/c_api.h"
#include "cvm/check.h"
#include "cvm/model.h"
#include "cvm/registry.h"
#include "json_text.h"

namespace {

// Which kernels a model's sessions are bound to (SessionOptions::backend): "auto", the
// process's preferred backend when the session is made, "scalar", the reference
// (CVMAPILoadModel device_type 2), or "cuda" (device_type 1).
constexpr const char* kPreferred = "auto";
constexpr const char* kScalar = "scalar";
constexpr const char* kCuda = "cuda";

// Idle sessions kept per model handle for CVMAPIInference / CVMModelInferBytes; concurrent calls
// beyond this allocate a session for the call.
constexpr size_t kMaxIdleSessions = 8;

// The most characters CVMAPIGetVersion / CVMAPIGetPreprocessMethod write before the NUL.
constexpr size_t kMaxFixedString = 32;

}  // namespace

struct CVMModel {
  std::shared_ptr<const cvm::Model> model;
  const char* backend = kPreferred;
  int device_id = 0;  // of a device backend's sessions (CVMAPILoadModel's device_id)
  std::string quantization_json;  // CVMModelGetQuantization's answer, made at load
  cvm::SessionOptions session_options() const { return cvm::SessionOptions{backend, device_id}; }
  std::mutex mu;  // guards `idle`
  std::vector<std::unique_ptr<cvm::Session>> idle;
};

struct CVMSession {
  CVMSession(std::shared_ptr<const cvm::Model> m, const cvm::SessionOptions& options)
      : session(std::move(m), options) {}
  cvm::Session session;
};

namespace cvm {
namespace capi {
namespace {

const char* backend_for_device(int device_type, int device_id) {
  VERIFY(device_id >= 0) << "CVMAPILoadModel: device_id must be >= 0, found " << device_id;
  switch (device_type) {
    case CVM_MODEL_DEVICE_CPU:
      return kPreferred;
    case CVM_MODEL_DEVICE_REFERENCE:
      return kScalar;
    case CVM_MODEL_DEVICE_CUDA: {
      // The environment's answer, not the caller's fault: a runtime error either way.
      const std::string why = device_unavailable_reason(Device::cuda(device_id));
      CHECK(why.empty()) << "CVMAPILoadModel: device_type 1: no CUDA device cuda:" << device_id
                         << ": " << why;
      return kCuda;
    }
    default:
      CVM_LOGIC_ERROR() << "CVMAPILoadModel: device_type must be 0 (CPU), 1 (CUDA) or 2 "
                           "(scalar reference), found "
                        << device_type;
  }
}

CVMModel* as_model(const void* handle, const char* fn) {
  require_not_null(handle, fn, "model");
  return static_cast<CVMModel*>(const_cast<void*>(handle));
}

// CVMModelGetQuantization's answer: {"inputs": [{name, precision, scale}, ...], "outputs":
// [{name, scale, tail, tail_axis}, ...]}, keys in byte order, scales exact (shortest round trip).
std::string quantization_json(const Quantization& q) {
  cvm::json::Writer w;
  w.open('{').key("inputs").open('[');
  for (const QuantizedTensor& t : q.inputs) {
    w.open('{').key("name").string(t.name).key("precision").integer(t.precision);
    w.key("scale").number(t.scale).close('}');
  }
  w.close(']').key("outputs").open('[');
  for (const QuantizedTensor& t : q.outputs) {
    w.open('{').key("name").string(t.name).key("scale").number(t.scale);
    w.key("tail").string(t.tail).key("tail_axis").integer(t.tail_axis).close('}');
  }
  w.close(']').close('}');
  VERIFY(w.ok()) << "quantization metadata: a name that is not valid UTF-8, which JSON cannot "
                    "carry";
  return w.text();
}

CVMModelHandle new_model(std::shared_ptr<const Model> model, const char* backend,
                         int device_id = 0) {
  auto handle = std::make_unique<CVMModel>();
  handle->model = std::move(model);
  handle->backend = backend;
  handle->device_id = device_id;
  const Quantization& q = handle->model->metadata().quantization;
  if (!q.empty()) {
    handle->quantization_json = quantization_json(q);
  }
  return handle.release();
}

// A session of the model's pool for one call; returned to the pool afterwards (also after a failed
// run: infer_bytes sets the whole input again, so no state leaks into the next call).
class PooledSession {
 public:
  explicit PooledSession(CVMModel* m) : m_(m) {
    {
      std::lock_guard<std::mutex> lock(m_->mu);
      if (!m_->idle.empty()) {
        s_ = std::move(m_->idle.back());
        m_->idle.pop_back();
      }
    }
    // A session binds its kernels when made: one bound before a CVMSetBackend is not reused.
    if (s_ && m_->backend == kPreferred && s_->backend() != current_backend()) s_.reset();
    if (!s_) s_ = std::make_unique<Session>(m_->model, m_->session_options());
  }
  ~PooledSession() {
    try {
      std::lock_guard<std::mutex> lock(m_->mu);
      if (m_->idle.size() < kMaxIdleSessions) m_->idle.push_back(std::move(s_));
    } catch (...) {  // out of memory growing the pool: the session is simply freed
    }
  }
  PooledSession(const PooledSession&) = delete;
  PooledSession& operator=(const PooledSession&) = delete;
  Session& operator*() { return *s_; }

 private:
  CVMModel* m_;
  std::unique_ptr<Session> s_;
};

void infer(CVMModel* m, const void* in, size_t in_len, void* out, size_t out_capacity) {
  PooledSession s(m);
  (*s).infer_bytes(static_cast<const char*>(in), in_len, static_cast<char*>(out), out_capacity);
}

void put_u64(unsigned long long* dst, uint64_t value, const char* fn, const char* arg) {
  require_not_null(dst, fn, arg);
  *dst = value;
}

void put_fixed_string(char* dst, const std::string& s, const char* fn, const char* arg) {
  require_not_null(dst, fn, arg);
  const size_t n = std::min(s.size(), kMaxFixedString);
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

void tensor_info(const std::vector<TensorInfo>& infos, int index, const char* fn, const char** name,
                 int* ndim, const int64_t** shape, int* precision) {
  VERIFY(index >= 0 && static_cast<size_t>(index) < infos.size())
      << fn << ": index " << index << " is out of range (" << infos.size() << " tensors)";
  const TensorInfo& t = infos[static_cast<size_t>(index)];
  if (name != nullptr) *name = t.name.c_str();
  if (ndim != nullptr) *ndim = t.shape.ndim();
  if (shape != nullptr) *shape = t.shape.data();
  if (precision != nullptr) *precision = t.precision;
}

void check_length(int len, const char* fn, const char* arg) {
  VERIFY(len >= 0) << fn << ": " << arg << " must be >= 0, found " << len;
}

}  // namespace
}  // namespace capi
}  // namespace cvm

using cvm::capi::as_model;
using cvm::capi::guard;
using cvm::capi::require_not_null;

// ---- CVM-compatible calls ----

extern "C" int CVMAPILoadModel(const char* graph_json, int graph_strlen, const char* param_bytes,
                               int param_strlen, void** net, int device_type, int device_id) {
  static const char* const kFn = "CVMAPILoadModel";
  if (net != nullptr) *net = nullptr;
  return guard([&] {
    require_not_null(net, kFn, "net");
    require_not_null(graph_json, kFn, "graph_json");
    cvm::capi::check_length(graph_strlen, kFn, "graph_strlen");
    cvm::capi::check_length(param_strlen, kFn, "param_strlen");
    const char* backend = cvm::capi::backend_for_device(device_type, device_id);
    auto model = cvm::Model::from_cvm(std::string(graph_json, static_cast<size_t>(graph_strlen)),
                                      param_bytes, static_cast<size_t>(param_strlen));
    std::unique_ptr<CVMModel> handle(cvm::capi::new_model(std::move(model), backend, device_id));
    // As in CVM, a model that loads has its memory: the first session is made now (on the GPU
    // for device_type 1, with the params copied there).
    handle->idle.push_back(
        std::make_unique<cvm::Session>(handle->model, handle->session_options()));
    *net = handle.release();
  });
}

extern "C" int CVMAPIFreeModel(void* net) { return CVMModelFree(static_cast<CVMModelHandle>(net)); }

extern "C" int CVMAPIInference(void* net, char* input_data, int input_len, char* output_data) {
  static const char* const kFn = "CVMAPIInference";
  return guard([&] {
    CVMModel* m = as_model(net, kFn);
    cvm::capi::check_length(input_len, kFn, "input_len");
    require_not_null(output_data, kFn, "output_data");
    // The caller is trusted to provide output_length bytes, as in CVM.
    cvm::capi::infer(m, input_data, static_cast<size_t>(input_len), output_data,
                     m->model->output_length());
  });
}

extern "C" int CVMAPIGetVersion(void* net, char* version) {
  return guard([&] {
    CVMModel* m = as_model(net, "CVMAPIGetVersion");
    cvm::capi::put_fixed_string(version, m->model->version(), "CVMAPIGetVersion", "version");
  });
}

extern "C" int CVMAPIGetPreprocessMethod(void* net, char* method) {
  return guard([&] {
    CVMModel* m = as_model(net, "CVMAPIGetPreprocessMethod");
    cvm::capi::put_fixed_string(method, m->model->postprocess(), "CVMAPIGetPreprocessMethod",
                                "method");
  });
}

extern "C" int CVMAPIGetInputLength(void* net, unsigned long long* size) {
  return guard([&] {
    CVMModel* m = as_model(net, "CVMAPIGetInputLength");
    cvm::capi::put_u64(size, m->model->input_length(), "CVMAPIGetInputLength", "size");
  });
}

extern "C" int CVMAPIGetOutputLength(void* net, unsigned long long* size) {
  return guard([&] {
    CVMModel* m = as_model(net, "CVMAPIGetOutputLength");
    cvm::capi::put_u64(size, m->model->output_length(), "CVMAPIGetOutputLength", "size");
  });
}

extern "C" int CVMAPIGetInputTypeSize(void* net, unsigned long long* size) {
  return guard([&] {
    CVMModel* m = as_model(net, "CVMAPIGetInputTypeSize");
    cvm::capi::put_u64(size, m->model->input_type_size(), "CVMAPIGetInputTypeSize", "size");
  });
}

extern "C" int CVMAPIGetOutputTypeSize(void* net, unsigned long long* size) {
  return guard([&] {
    CVMModel* m = as_model(net, "CVMAPIGetOutputTypeSize");
    cvm::capi::put_u64(size, m->model->output_type_size(), "CVMAPIGetOutputTypeSize", "size");
  });
}

extern "C" int CVMAPIGetStorageSize(void* net, unsigned long long* size) {
  return guard([&] {
    CVMModel* m = as_model(net, "CVMAPIGetStorageSize");
    const uint64_t by_id = m->model->storage_id_bytes();
    cvm::capi::put_u64(size, by_id != 0 ? by_id : m->model->planned_bytes(), "CVMAPIGetStorageSize",
                       "size");
  });
}

extern "C" int CVMAPIGetGasFromModel(void* net, unsigned long long* gas) {
  return guard([&] {
    CVMModel* m = as_model(net, "CVMAPIGetGasFromModel");
    cvm::capi::put_u64(gas, m->model->cost().total, "CVMAPIGetGasFromModel", "gas");
  });
}

extern "C" int CVMAPIGetGasFromGraphFile(const char* graph_json, unsigned long long* gas) {
  return guard([&] {
    require_not_null(graph_json, "CVMAPIGetGasFromGraphFile", "graph_json");
    require_not_null(gas, "CVMAPIGetGasFromGraphFile", "gas");
    *gas = cvm::Model::estimate_cost(graph_json).total;
  });
}

// ---- modern calls: models ----

extern "C" int CVMModelLoadFile(const char* path, CVMModelHandle* out) {
  if (out != nullptr) *out = nullptr;
  return guard([&] {
    require_not_null(out, "CVMModelLoadFile", "out");
    require_not_null(path, "CVMModelLoadFile", "path");
    *out = cvm::capi::new_model(cvm::Model::load_file(path), kPreferred);
  });
}

extern "C" int CVMModelLoadBytes(const void* data, size_t size, CVMModelHandle* out) {
  if (out != nullptr) *out = nullptr;
  return guard([&] {
    require_not_null(out, "CVMModelLoadBytes", "out");
    *out = cvm::capi::new_model(cvm::Model::from_bytes(data, size), kPreferred);
  });
}

extern "C" int CVMModelLoadCVM(const char* graph_json, size_t graph_len, const void* params,
                               size_t params_len, CVMModelHandle* out) {
  if (out != nullptr) *out = nullptr;
  return guard([&] {
    require_not_null(out, "CVMModelLoadCVM", "out");
    require_not_null(graph_json, "CVMModelLoadCVM", "graph_json");
    *out = cvm::capi::new_model(
        cvm::Model::from_cvm(std::string(graph_json, graph_len), params, params_len),
        kPreferred);
  });
}

extern "C" int CVMModelFree(CVMModelHandle model) {
  return guard([&] { delete model; });
}

extern "C" int CVMModelGetCost(CVMModelHandle model, uint64_t* ops, uint64_t* mem,
                               uint64_t* total) {
  return guard([&] {
    const cvm::ModelCost c = as_model(model, "CVMModelGetCost")->model->cost();
    if (ops != nullptr) *ops = c.ops;
    if (mem != nullptr) *mem = c.mem;
    if (total != nullptr) *total = c.total;
  });
}

extern "C" int CVMModelGetMemory(CVMModelHandle model, uint64_t* planned, uint64_t* unplanned) {
  return guard([&] {
    const cvm::Model& m = *as_model(model, "CVMModelGetMemory")->model;
    if (planned != nullptr) *planned = m.planned_bytes();
    if (unplanned != nullptr) *unplanned = m.unplanned_bytes();
  });
}

extern "C" int CVMModelGetByteLengths(CVMModelHandle model, size_t* input_len, size_t* output_len) {
  return guard([&] {
    const cvm::Model& m = *as_model(model, "CVMModelGetByteLengths")->model;
    if (input_len != nullptr) *input_len = m.input_length();
    if (output_len != nullptr) *output_len = m.output_length();
  });
}

extern "C" int CVMModelGetPostprocess(CVMModelHandle model, const char** postprocess) {
  return guard([&] {
    const cvm::Model& m = *as_model(model, "CVMModelGetPostprocess")->model;
    require_not_null(postprocess, "CVMModelGetPostprocess", "postprocess");
    *postprocess = m.postprocess().c_str();
  });
}

extern "C" int CVMModelGetProducer(CVMModelHandle model, const char** producer) {
  return guard([&] {
    const cvm::Model& m = *as_model(model, "CVMModelGetProducer")->model;
    require_not_null(producer, "CVMModelGetProducer", "producer");
    *producer = m.producer().c_str();
  });
}

extern "C" int CVMModelGetQuantization(CVMModelHandle model, const char** json) {
  return guard([&] {
    const CVMModel* m = as_model(model, "CVMModelGetQuantization");
    require_not_null(json, "CVMModelGetQuantization", "json");
    *json = m->quantization_json.c_str();
  });
}

extern "C" int CVMModelNumInputs(CVMModelHandle model, int* num) {
  return guard([&] {
    const cvm::Model& m = *as_model(model, "CVMModelNumInputs")->model;
    require_not_null(num, "CVMModelNumInputs", "num");
    *num = static_cast<int>(m.inputs().size());
  });
}

extern "C" int CVMModelNumOutputs(CVMModelHandle model, int* num) {
  return guard([&] {
    const cvm::Model& m = *as_model(model, "CVMModelNumOutputs")->model;
    require_not_null(num, "CVMModelNumOutputs", "num");
    *num = static_cast<int>(m.outputs().size());
  });
}

extern "C" int CVMModelGetInputInfo(CVMModelHandle model, int index, const char** name, int* ndim,
                                    const int64_t** shape, int* precision) {
  return guard([&] {
    const cvm::Model& m = *as_model(model, "CVMModelGetInputInfo")->model;
    cvm::capi::tensor_info(m.inputs(), index, "CVMModelGetInputInfo", name, ndim, shape, precision);
  });
}

extern "C" int CVMModelGetOutputInfo(CVMModelHandle model, int index, const char** name, int* ndim,
                                     const int64_t** shape, int* precision) {
  return guard([&] {
    const cvm::Model& m = *as_model(model, "CVMModelGetOutputInfo")->model;
    cvm::capi::tensor_info(m.outputs(), index, "CVMModelGetOutputInfo", name, ndim, shape,
                           precision);
  });
}

extern "C" int CVMModelInferBytes(CVMModelHandle model, const void* in, size_t in_len, void* out,
                                  size_t out_capacity, size_t* written) {
  if (written != nullptr) *written = 0;
  return guard([&] {
    CVMModel* m = as_model(model, "CVMModelInferBytes");
    cvm::capi::infer(m, in, in_len, out, out_capacity);
    if (written != nullptr) *written = m->model->output_length();
  });
}

// ---- modern calls: sessions ----

namespace cvm {
namespace capi {
namespace {

// A session of `model` bound to `backend` (null or "": the model handle's choice).
int create_session(CVMModelHandle model, const char* backend, CVMSessionHandle* out,
                   const char* fn) {
  if (out != nullptr) *out = nullptr;
  return guard([&] {
    CVMModel* m = as_model(model, fn);
    require_not_null(out, fn, "out");
    const bool own = backend == nullptr || backend[0] == '\0';
    cvm::SessionOptions options = m->session_options();
    if (!own) options.backend = backend;
    *out = new CVMSession(m->model, options);
  });
}

}  // namespace
}  // namespace capi
}  // namespace cvm

extern "C" int CVMSessionCreate(CVMModelHandle model, CVMSessionHandle* out) {
  return cvm::capi::create_session(model, nullptr, out, "CVMSessionCreate");
}

extern "C" int CVMSessionCreateEx(CVMModelHandle model, const char* backend,
                                  CVMSessionHandle* out) {
  return cvm::capi::create_session(model, backend, out, "CVMSessionCreateEx");
}

extern "C" int CVMSessionGetKernelPlan(CVMSessionHandle session, const char** json) {
  if (json != nullptr) *json = nullptr;
  return guard([&] {
    require_not_null(session, "CVMSessionGetKernelPlan", "session");
    require_not_null(json, "CVMSessionGetKernelPlan", "json");
    // Keys in byte order within each object.
    cvm::json::Writer w;
    w.open('{').key("backend").string(session->session.backend()).key("nodes").open('[');
    for (const cvm::NodeKernelPlan& node : session->session.kernel_plan()) {
      w.open('{').key("chains").open('[');
      for (const cvm::NodeKernelPlan::Chain& c : node.chains) {
        w.open('{').key("dtype").string(c.dtype).key("entries").strings(c.entries);
        w.key("kernel_op").string(c.kernel_op).key("last_ran").string(c.last_ran);
        w.key("notes").strings(c.notes).key("packed_for").string(c.packed_for).close('}');
      }
      w.close(']').key("fused_into").string(node.fused_into);
      w.key("int8_output").boolean(node.int8_output).key("node").string(node.node);
      w.key("op").string(node.op).close('}');
    }
    w.close(']').close('}');
    VERIFY(w.ok()) << "CVMSessionGetKernelPlan: a node name that is not valid UTF-8, which JSON "
                      "cannot carry";
    thread_local std::string text;
    text = w.text();
    *json = text.c_str();
  });
}

extern "C" int CVMSessionFree(CVMSessionHandle session) {
  return guard([&] { delete session; });
}

extern "C" int CVMSessionSetInput(CVMSessionHandle session, const char* name,
                                  CVMArrayHandle value) {
  return guard([&] {
    require_not_null(session, "CVMSessionSetInput", "session");
    require_not_null(name, "CVMSessionSetInput", "name");
    session->session.set_input(name, cvm::capi::borrow(value, "CVMSessionSetInput", "value"));
  });
}

extern "C" int CVMSessionRun(CVMSessionHandle session) {
  return guard([&] {
    require_not_null(session, "CVMSessionRun", "session");
    session->session.run();
  });
}

extern "C" int CVMSessionGetOutput(CVMSessionHandle session, int index, CVMArrayHandle* out) {
  if (out != nullptr) *out = nullptr;
  return guard([&] {
    require_not_null(session, "CVMSessionGetOutput", "session");
    require_not_null(out, "CVMSessionGetOutput", "out");
    VERIFY(index >= 0) << "CVMSessionGetOutput: index must be >= 0, found " << index;
    *out = cvm::capi::to_handle(session->session.output(static_cast<size_t>(index)));
  });
}
