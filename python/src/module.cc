// The _cvmrt extension module: error types, version and system facts, and every binding area.
#include <string>

#include "bindings.h"
#include "cvm/error.h"
#include "cvm/registry.h"
#include "cvm/system.h"
#include "cvm/threads.h"
#include "cvm/version.h"

namespace cvmpy {
namespace {

using namespace pybind11::literals;

py::dict system_info() {
  const cvm::SystemInfo s = cvm::system_info();
  return py::dict("cpu_model"_a = s.cpu_model, "cpu_features"_a = s.cpu_features,
                  "usable_features"_a = s.usable_features, "cpu_level"_a = s.cpu_level,
                  "isa_level"_a = s.isa_level, "isa_cap"_a = s.isa_cap, "amx"_a = s.amx,
                  "hardware_threads"_a = s.hardware_threads, "num_threads"_a = s.num_threads,
                  "compiled_backends"_a = s.compiled_backends, "backend"_a = s.backend,
                  "warnings"_a = s.warnings);
}

}  // namespace
}  // namespace cvmpy

PYBIND11_MODULE(_cvmrt, m) {
  namespace py = pybind11;
  m.doc() = "cvmrt's native core (use the cvmrt package, not this module)";
  // Logic errors are the caller's (bad input, model or file): ValueError. Runtime errors are the
  // environment's (memory, I/O, device): RuntimeError. Both carry the native message.
  py::register_exception<cvm::LogicError>(m, "LogicError", PyExc_ValueError);
  py::register_exception<cvm::RuntimeError>(m, "RuntimeError", PyExc_RuntimeError);
  m.attr("__version__") = CVMRT_VERSION_STRING;
  m.attr("build_hash") = CVMRT_BUILD_HASH;
  m.def("system_info", &cvmpy::system_info,
        "CPU model and features, the ISA level the kernels use (after CVMRT_ISA), threads and "
        "the compiled backends.");
  m.def("set_num_threads", &cvm::set_num_threads, py::arg("n"),
        "Threads one operator may use (1..1024; 0 restores the default). Results are "
        "bit-identical for every count.");
  m.def("num_threads", &cvm::num_threads);
  m.def("compiled_backends", &cvm::compiled_backends, "The CPU and device backends, best first.");
  cvmpy::bind_arrays(m);
  cvmpy::bind_params(m);
  cvmpy::bind_model(m);
  cvmpy::bind_ops(m);
  cvmpy::bind_onnx(m);
}
