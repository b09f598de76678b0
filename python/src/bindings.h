// The _cvmrt extension module's shared parts: one bind function per area, and the conversions
// between Python objects and cvm::NDArray that every area uses.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "cvm/ndarray.h"

namespace py = pybind11;

namespace cvmpy {

void bind_arrays(py::module_& m);  // Array, asarray, from_dlpack, empty, zeros
void bind_params(py::module_& m);  // load_params, save_params' serializer
void bind_model(py::module_& m);   // the model core under cvmrt.Model
void bind_ops(py::module_& m);     // op, ops
void bind_onnx(py::module_& m);    // import_onnx, quantize (when the ONNX importer is built)

// A keepalive for memory a Python object owns: holds one reference to `owner` and drops it, with
// the GIL taken, when the last array over the memory is gone (from any thread).
std::shared_ptr<const void> keep_alive(py::object owner);

// The array `obj` stands for, without copying where the memory allows: a cvmrt Array as it is;
// a NumPy array (or any object NumPy turns into one: lists, scalars, buffers) wrapped in place
// when its dtype is a cvmrt type, its strides are whole elements and it is aligned, else copied.
// Read-only NumPy arrays give read-only arrays (copied on the first write). An object with
// __dlpack__ that NumPy cannot view is taken through DLPack. LogicError for a dtype cvmrt has
// no type for (complex, object, strings, dates).
cvm::NDArray to_ndarray(py::handle obj);

// "cpu", "cuda" or "cuda:N"; LogicError for anything else.
cvm::Device parse_device(const std::string& name);

// The cvmrt type of a NumPy dtype; LogicError naming it when there is none.
cvm::DataType dtype_from_numpy(const py::dtype& dt);
// The NumPy dtype of a cvmrt type; LogicError for bfloat16 (NumPy has none).
py::dtype numpy_dtype(cvm::DataType t);

}  // namespace cvmpy
