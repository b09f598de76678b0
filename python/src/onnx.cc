// cvmrt.import_onnx and cvmrt.quantize: the ONNX importer and the quantizer (the code behind
// `cvmrt import` and `cvmrt quantize`), where the module is built with them.
#include <string>

#include "bindings.h"
#include "cvm/error.h"
#include "model_core.h"

#ifdef CVMRT_HAVE_ONNX_IMPORT
#include "cvm/onnx_import.h"
#include "cvm/quantize.h"
#endif

namespace cvmpy {

using namespace pybind11::literals;

void bind_onnx(py::module_& m) {
#ifdef CVMRT_HAVE_ONNX_IMPORT
  m.attr("_has_onnx") = true;
  m.def("_import_onnx", [](const std::string& path, int64_t batch, const std::string& device,
                           const std::string& backend) {
          cvm::onnx::ImportOptions options;
          options.batch = batch;
          std::shared_ptr<const cvm::Model> model;
          {
            py::gil_scoped_release nogil;
            model = cvm::onnx::import_onnx_file(path, options);
          }
          return std::make_shared<ModelCore>(model, device, backend);
        }, py::arg("path"), py::arg("batch") = 1, py::arg("device") = "cpu",
        py::arg("backend") = "auto");
  m.def("_quantize", [](const std::string& path, py::object calibration, bool per_channel,
                        int output_precision, double percentile, bool split,
                        int max_channel_spread, const std::string& device,
                        const std::string& backend) {
          const cvm::NDArray calib = to_ndarray(calibration);
          cvm::quant::QuantizeOptions options;
          options.per_channel = per_channel;
          options.output_precision = output_precision;
          options.percentile = percentile;
          options.split = split;
          options.max_channel_spread = max_channel_spread;
          cvm::quant::QuantizeReport report;
          std::shared_ptr<const cvm::Model> model;
          {
            py::gil_scoped_release nogil;
            const std::shared_ptr<const cvm::Model> float_model = cvm::onnx::import_onnx_file(path);
            model = cvm::quant::quantize(*float_model, calib, options, &report);
          }
          py::list tensors;
          for (const cvm::quant::TensorScale& t : report.tensors) {
            tensors.append(py::dict("node"_a = t.node, "op"_a = t.op, "max_abs"_a = t.max_abs,
                                    "exponent"_a = t.exponent, "precision"_a = t.precision));
          }
          return py::make_tuple(std::make_shared<ModelCore>(model, device, backend),
                                py::dict("calibration_samples"_a = report.calibration_samples,
                                         "tensors"_a = tensors));
        }, py::arg("path"), py::arg("calibration"), py::arg("per_channel"),
        py::arg("output_precision"), py::arg("percentile"), py::arg("split"),
        py::arg("max_channel_spread"), py::arg("device"), py::arg("backend"));
#else
  m.attr("_has_onnx") = false;
#endif
}

}  // namespace cvmpy
