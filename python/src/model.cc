// The model core under cvmrt.Model: loading (model file, CVM graph JSON + params), description,
// and batch runs over a pool of sessions with the GIL released.
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "bindings.h"
#include "cvm/error.h"
#include "cvm/model.h"
#include "model_core.h"

namespace cvmpy {

using namespace pybind11::literals;

using cvm::DataType;
using cvm::Model;
using cvm::NDArray;
using cvm::Session;

ModelCore::ModelCore(std::shared_ptr<const Model> m, const std::string& device,
                     const std::string& backend)
    : model(std::move(m)) {
  const cvm::Device dev = parse_device(device);
  if (!dev.is_cpu()) {
    CVM_VERIFY(backend == "auto") << "backend=\"" << backend << "\" applies to the CPU; device=\""
                                  << device << "\" runs the device's own backend";
    options.backend = "cuda";
    options.device_id = dev.id;
  } else {
    options.backend = backend;
  }
  // One session now, so a bad backend or an unusable device fails the load, not the first run.
  idle.push_back(std::make_unique<Session>(model, options));
}

std::unique_ptr<Session> ModelCore::acquire() {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!idle.empty()) {
      std::unique_ptr<Session> s = std::move(idle.back());
      idle.pop_back();
      return s;
    }
  }
  return std::make_unique<Session>(model, options);
}

void ModelCore::release(std::unique_ptr<Session> s) {
  std::lock_guard<std::mutex> lock(mu);
  idle.push_back(std::move(s));
}

std::string ModelCore::backend() {
  std::unique_ptr<Session> s = acquire();
  const std::string name = s->backend();
  release(std::move(s));
  return name;
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  CVM_VERIFY(in.good()) << path << ": cannot open the file";
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CVM_CHECK(!in.bad()) << path << ": read failed";
  return bytes;
}

bool looks_like_json(const std::string& bytes) {
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  return first != std::string::npos && bytes[first] == '{';
}

std::string fspath(py::handle p) {
  return py::module_::import("os").attr("fspath")(p).cast<std::string>();
}

// The params given with a CVM graph JSON, as bytes: a path, bytes, or a dict of arrays.
std::string params_bytes(py::handle params) {
  if (py::isinstance<py::bytes>(params)) return params.cast<std::string>();
  if (py::hasattr(params, "items")) {
    py::object save = py::module_::import("cvmrt._cvmrt").attr("_save_params_bytes");
    return save(params, "cvmrt").cast<std::string>();
  }
  return read_file(fspath(params));
}

std::shared_ptr<const Model> load(py::handle source, py::handle params) {
  if (py::isinstance<py::bytes>(source)) {  // the bytes of a cvmrt model file
    CVM_VERIFY(params.is_none()) << "params= applies to a CVM graph JSON; a cvmrt model file "
                                    "carries its own";
    const std::string bytes = source.cast<std::string>();
    py::gil_scoped_release nogil;
    return Model::from_bytes(bytes.data(), bytes.size());
  }
  const std::string path = fspath(source);
  const std::string bytes = read_file(path);
  if (!looks_like_json(bytes)) {
    CVM_VERIFY(params.is_none()) << path << ": params= applies to a CVM graph JSON; a cvmrt "
                                            "model file carries its own";
    py::gil_scoped_release nogil;
    return Model::load_file(path);
  }
  const std::string weights = params.is_none() ? std::string() : params_bytes(params);
  py::gil_scoped_release nogil;
  try {
    return Model::from_cvm(bytes, weights.empty() ? nullptr : weights.data(), weights.size());
  } catch (const cvm::LogicError& e) {
    throw cvm::LogicError(path + ": " + e.what() + (params.is_none() ? " (no params given)" : ""));
  }
}

py::tuple tensor_info(const cvm::TensorInfo& t) {
  py::tuple shape(t.shape.ndim());
  for (int i = 0; i < t.shape.ndim(); ++i) shape[i] = py::int_(t.shape[i]);
  return py::make_tuple(t.name, shape, t.dtype.name(), t.precision, t.io_dtype.name());
}

py::list tensor_infos(const std::vector<cvm::TensorInfo>& ts) {
  py::list out;
  for (const cvm::TensorInfo& t : ts) out.append(tensor_info(t));
  return out;
}

py::dict metadata(const cvm::ModelMetadata& md) {
  py::list qin, qout;
  for (const cvm::QuantizedTensor& q : md.quantization.inputs) {
    py::dict d;
    d["name"] = q.name;
    d["scale"] = q.scale;
    d["precision"] = q.precision;
    qin.append(d);
  }
  for (const cvm::QuantizedTensor& q : md.quantization.outputs) {
    py::dict d;
    d["name"] = q.name;
    d["scale"] = q.scale;
    d["tail"] = q.tail;
    d["tail_axis"] = q.tail_axis;
    qout.append(d);
  }
  py::dict out;
  out["name"] = md.name;
  out["description"] = md.description;
  out["labels"] = md.labels;
  out["quantization"] = md.quantization.empty() ? py::object(py::none())
                                                : py::object(py::dict("inputs"_a = qin,
                                                                      "outputs"_a = qout));
  return out;
}

// The buffer of one preallocated output: a writable C-contiguous array of `bytes` bytes.
char* output_buffer(py::handle out, DataType dtype, size_t bytes, size_t index) {
  py::array arr = py::reinterpret_borrow<py::array>(out);
  CVM_CHECK(arr.writeable() && (arr.flags() & py::array::c_style) &&
            dtype_from_numpy(arr.dtype()) == dtype && static_cast<size_t>(arr.nbytes()) == bytes)
      << "run: output buffer " << index << " is not a writable contiguous " << dtype.name()
      << " array of " << bytes << " bytes";
  return static_cast<char*>(arr.mutable_data());
}

// Runs n inferences: input k is x's k-th block of the input's shape; output i of inference k
// goes to outs[i] at k times the output's size. dequantize: the float outputs of a quantized
// model. The GIL is released while the model runs.
void run_batch(ModelCore& core, const NDArray& x, int64_t n, bool float_in, bool dequantize,
               const py::list& outs) {
  const Model& model = *core.model;
  const cvm::TensorInfo& in = model.inputs().at(0);
  const int64_t per = in.shape.numel();
  CVM_CHECK(n >= 0 && x.is_contiguous() && x.device().is_cpu() && x.numel() == n * per)
      << "run: the batch is not " << n << " contiguous inputs of " << in.shape;
  const size_t heads = model.outputs().size();
  CVM_CHECK(outs.size() == heads) << "run: " << outs.size() << " output buffers for " << heads
                                  << " outputs";
  std::vector<char*> dst(heads);
  std::vector<size_t> bytes(heads);
  for (size_t i = 0; i < heads; ++i) {
    const DataType t = dequantize ? DataType::Float(32) : model.outputs()[i].dtype;
    bytes[i] = static_cast<size_t>(model.outputs()[i].shape.numel()) * t.bytes();
    dst[i] = output_buffer(outs[i], t, bytes[i] * static_cast<size_t>(n), i);
  }
  const size_t in_bytes = static_cast<size_t>(per) * x.dtype().bytes();
  const char* src = static_cast<const char*>(x.data());

  py::gil_scoped_release nogil;
  struct Lease {  // the session goes back to the pool however the run ends
    ModelCore& core;
    std::unique_ptr<Session> s;
    ~Lease() { core.release(std::move(s)); }
  } lease{core, core.acquire()};
  Session& session = *lease.s;
  for (int64_t k = 0; k < n; ++k) {
    const NDArray xk = NDArray::from_external(const_cast<char*>(src) + k * in_bytes, in.shape,
                                              x.dtype(), cvm::Device::cpu(), nullptr, true);
    if (float_in) {
      session.set_input_float(in.name, xk);
    } else {
      session.set_input(in.name, xk);
    }
    session.run();
    for (size_t i = 0; i < heads; ++i) {
      const NDArray out = dequantize ? session.output_float(i) : session.output(i);
      CVM_CHECK(out.nbytes() == bytes[i] && out.is_contiguous())
          << "run: output " << i << " has " << out.nbytes() << " bytes, expected " << bytes[i];
      std::memcpy(dst[i] + static_cast<size_t>(k) * bytes[i], out.data(), bytes[i]);
    }
  }
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<ModelCore, std::shared_ptr<ModelCore>>(m, "_Model",
                                                     "The native model under cvmrt.Model.")
      .def_static("load", [](py::object source, py::object params, const std::string& device,
                             const std::string& backend) {
            return std::make_shared<ModelCore>(load(source, params), device, backend);
          }, py::arg("source"), py::arg("params") = py::none(), py::arg("device") = "cpu",
          py::arg("backend") = "auto")
      .def_property_readonly("inputs", [](const ModelCore& c) { return tensor_infos(c.model->inputs()); })
      .def_property_readonly("outputs", [](const ModelCore& c) { return tensor_infos(c.model->outputs()); })
      .def_property_readonly("cost", [](const ModelCore& c) {
            const cvm::ModelCost cost = c.model->cost();
            return py::make_tuple(cost.ops, cost.mem, cost.total);
          })
      .def_property_readonly("metadata", [](const ModelCore& c) { return metadata(c.model->metadata()); })
      .def_property_readonly("version", [](const ModelCore& c) { return c.model->version(); })
      .def_property_readonly("postprocess", [](const ModelCore& c) { return c.model->postprocess(); })
      .def_property_readonly("producer", [](const ModelCore& c) { return c.model->producer(); })
      .def_property_readonly("backend", &ModelCore::backend)
      .def_property_readonly("device", [](const ModelCore& c) {
            return c.options.backend == "cuda" ? cvm::Device::cuda(c.options.device_id).name()
                                               : std::string("cpu");
          })
      .def_property_readonly("memory", [](const ModelCore& c) {
            const Model& md = *c.model;
            return py::dict("planned"_a = md.planned_bytes(), "params"_a = md.params_bytes(),
                            "activations"_a = md.activation_bytes(),
                            "prepacked"_a = md.prepacked_bytes());
          })
      .def("params", [](const ModelCore& c) {
            const cvm::ParamDict params = c.model->params();  // a copy: it outlives the loop
            py::dict out;
            for (const auto& [name, array] : params.entries()) out[py::str(name)] = array;
            return out;
          })
      .def("save", [](const ModelCore& c) {
            const std::vector<uint8_t> bytes = c.model->save();
            return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
          })
      .def("cvm_json", [](const ModelCore& c) { return c.model->cvm_json(); })
      .def("run_batch", &run_batch, py::arg("x"), py::arg("n"), py::arg("float_in"),
           py::arg("dequantize"), py::arg("outs"));
}

}  // namespace cvmpy
