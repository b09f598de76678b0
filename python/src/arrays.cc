// cvmrt.Array (cvm::NDArray for Python): the buffer protocol, DLPack both ways, views, and the
// zero-copy conversion from NumPy arrays.
#include <dlpack/dlpack.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "cvm/error.h"

namespace cvmpy {

using cvm::DataType;
using cvm::NDArray;
using cvm::Shape;

std::shared_ptr<const void> keep_alive(py::object owner) {
  PyObject* held = owner.release().ptr();
  return std::shared_ptr<const void>(held, [](const void* p) {
    // After the interpreter has finalized, dropping the reference is neither possible nor needed.
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(const_cast<void*>(p)));
  });
}

namespace {

// The struct-module format NumPy gives each type in native byte order; null for bfloat16.
const char* buffer_format(DataType t) {
  struct Entry {
    DataType type;
    const char* format;
  };
  static const Entry kFormats[] = {
      {DataType::Int(8), "b"},     {DataType::Int(16), "h"},    {DataType::Int(32), "i"},
      {DataType::Int(64), "q"},    {DataType::UInt(8), "B"},    {DataType::UInt(16), "H"},
      {DataType::UInt(32), "I"},   {DataType::UInt(64), "Q"},   {DataType::Float(16), "e"},
      {DataType::Float(32), "f"},  {DataType::Float(64), "d"},  {DataType::Bool(), "?"},
  };
  for (const Entry& e : kFormats) {
    if (e.type == t) return e.format;
  }
  return nullptr;
}

py::tuple int_tuple(const Shape& s) {
  py::tuple t(s.ndim());
  for (int i = 0; i < s.ndim(); ++i) t[i] = py::int_(s[i]);
  return t;
}

// The buffer NumPy (or memoryview) reads: the array's own memory, strides in bytes. Writable
// unless the array is read-only; a writable buffer first gives a lazily copied array its own
// memory, so writes through NumPy never reach the copy's other side.
py::buffer_info array_buffer(NDArray& a) {
  CVM_VERIFY(a.device().is_cpu()) << "an array on " << a.device().name()
                                  << " has no host buffer: copy it with .to(\"cpu\") first";
  const char* format = buffer_format(a.dtype());
  CVM_VERIFY(format != nullptr) << "NumPy has no " << a.dtype().name()
                                << " type: view its bits with .view(\"uint16\") first";
  const bool read_only = a.is_read_only();
  void* data = read_only ? const_cast<void*>(a.data()) : a.mutable_data();
  const auto item = static_cast<py::ssize_t>(a.dtype().bytes());
  std::vector<py::ssize_t> shape, strides;
  for (int i = 0; i < a.ndim(); ++i) {
    shape.push_back(a.shape()[i]);
    strides.push_back(a.strides()[i] * item);
  }
  return py::buffer_info(data, item, format, a.ndim(), shape, strides, read_only);
}

// The buffer protocol's getbuffer, in place of pybind11's, which cannot report an error: a
// bfloat16 or device array, or a contiguity the consumer needs and the array lacks, is a
// BufferError with the reason, never a crash.
int array_getbuffer(PyObject* obj, Py_buffer* view, int flags) {
  view->obj = nullptr;
  try {
    NDArray& a = py::handle(obj).cast<NDArray&>();
    auto info = std::make_unique<py::buffer_info>(array_buffer(a));
    const char* refuse = nullptr;
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && info->readonly) {
      refuse = "the array is read-only";
    } else if (!a.is_contiguous() && ((flags & PyBUF_STRIDES) != PyBUF_STRIDES ||
                                      (flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS ||
                                      (flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS ||
                                      (flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS)) {
      refuse = "the array is not contiguous: use .contiguous() first";
    }
    if (refuse != nullptr) {
      PyErr_SetString(PyExc_BufferError, refuse);
      return -1;
    }
    view->buf = info->ptr;
    view->itemsize = info->itemsize;
    view->len = info->itemsize;
    for (py::ssize_t d : info->shape) view->len *= d;
    view->readonly = info->readonly ? 1 : 0;
    view->ndim = static_cast<int>(info->ndim);
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? const_cast<char*>(info->format.c_str())
                                                          : nullptr;
    const bool strided = (flags & PyBUF_STRIDES) == PyBUF_STRIDES;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? info->shape.data() : nullptr;
    view->strides = strided ? info->strides.data() : nullptr;
    view->suboffsets = nullptr;
    if ((flags & PyBUF_ND) != PyBUF_ND) view->ndim = 1;  // a flat run of bytes
    view->internal = info.release();
    Py_INCREF(obj);
    view->obj = obj;
    return 0;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_BufferError, "cvmrt: the array's buffer is unavailable");
  }
  return -1;
}

void array_releasebuffer(PyObject*, Py_buffer* view) {
  delete static_cast<py::buffer_info*>(view->internal);
}

const char* const kDltensorName = "dltensor";
const char* const kUsedDltensorName = "used_dltensor";

// A DLPack capsule not consumed by anyone still owns its tensor.
void delete_unconsumed_capsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kDltensorName)) return;  // consumed (renamed) or invalid
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kDltensorName));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

py::object to_dlpack_capsule(const NDArray& a) {
  DLManagedTensor* managed = a.to_dlpack();
  PyObject* capsule = PyCapsule_New(managed, kDltensorName, delete_unconsumed_capsule);
  if (capsule == nullptr) {
    managed->deleter(managed);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(capsule);
}

// Takes the tensor of a "dltensor" capsule (the producer's __dlpack__ result) and marks the
// capsule used, as the DLPack protocol asks of a consumer.
NDArray from_dlpack_capsule(py::handle capsule) {
  CVM_VERIFY(PyCapsule_CheckExact(capsule.ptr()))
      << "from_dlpack: expected an object with __dlpack__ or a DLPack capsule, found "
      << std::string(py::str(py::type::of(capsule).attr("__name__")));
  CVM_VERIFY(PyCapsule_IsValid(capsule.ptr(), kDltensorName))
      << "from_dlpack: the capsule is not an unused \"dltensor\" (each one may be consumed once)";
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kDltensorName));
  if (PyCapsule_SetName(capsule.ptr(), kUsedDltensorName) != 0) throw py::error_already_set();
  return NDArray::from_dlpack(managed);
}

NDArray from_dlpack_object(py::handle obj) {
  if (PyCapsule_CheckExact(obj.ptr())) return from_dlpack_capsule(obj);
  CVM_VERIFY(py::hasattr(obj, "__dlpack__"))
      << "from_dlpack: " << std::string(py::str(py::type::of(obj).attr("__name__")))
      << " has no __dlpack__ method";
  return from_dlpack_capsule(obj.attr("__dlpack__")());
}

std::vector<int> axes_of(const py::args& args) {
  std::vector<int> axes;
  if (args.size() == 1 && !py::isinstance<py::int_>(args[0])) {
    for (py::handle h : args[0]) axes.push_back(h.cast<int>());
  } else {
    for (py::handle h : args) axes.push_back(h.cast<int>());
  }
  return axes;
}

Shape shape_of(py::handle shape) {
  if (py::isinstance<py::int_>(shape)) return Shape{shape.cast<int64_t>()};
  std::vector<int64_t> dims;
  for (py::handle h : shape) dims.push_back(h.cast<int64_t>());
  return Shape(dims);
}

DataType dtype_of(py::handle dtype) {
  if (py::isinstance<py::str>(dtype)) return DataType::parse(dtype.cast<std::string>());
  return dtype_from_numpy(py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype)));
}

// The same bytes read as another type of the same element size (bfloat16 <-> uint16 and the
// like): a view. LogicError when the sizes differ.
NDArray view_as(const NDArray& a, DataType t) {
  CVM_VERIFY(t.bytes() == a.dtype().bytes())
      << "view: " << a.dtype().name() << " and " << t.name() << " differ in size";
  CVM_VERIFY(a.device().is_cpu()) << "view: the array is on " << a.device().name();
  NDArray keep = a;
  void* data = a.is_read_only() ? const_cast<void*>(a.data()) : keep.mutable_data();
  auto owner = std::make_shared<NDArray>(keep);
  const Shape strides = a.strides();
  return NDArray::from_external(data, a.shape(), t, a.device(), owner, a.is_read_only(), &strides);
}

// np.asarray(a) without the buffer protocol: the same memory, `self` as its base.
py::object numpy_view(py::object self, py::object dtype) {
  NDArray& a = self.cast<NDArray&>();
  const py::buffer_info info = array_buffer(a);
  py::array arr(numpy_dtype(a.dtype()), info.shape, info.strides, info.ptr, self);
  if (info.readonly) arr.attr("flags").attr("writeable") = false;
  if (dtype.is_none()) return std::move(arr);
  return arr.attr("astype")(dtype);
}

std::string array_repr(const NDArray& a) {
  std::string s = "cvmrt.Array(shape=" + a.shape().str() + ", dtype=" + a.dtype().name();
  if (!a.device().is_cpu()) s += ", device=" + a.device().name();
  return s + ")";
}

}  // namespace

cvm::Device parse_device(const std::string& name) {
  if (name == "cpu") return cvm::Device::cpu();
  if (name == "cuda") return cvm::Device::cuda(0);
  const std::string prefix = "cuda:";
  if (name.compare(0, prefix.size(), prefix) == 0 && name.size() > prefix.size() &&
      name.size() <= prefix.size() + 4 &&
      name.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
    return cvm::Device::cuda(std::stoi(name.substr(prefix.size())));
  }
  CVM_LOGIC_ERROR() << "unknown device \"" << name << "\" (expected \"cpu\", \"cuda\" or \"cuda:N\")";
}

cvm::DataType dtype_from_numpy(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto bits = static_cast<int>(dt.itemsize() * 8);
  DataType t;
  switch (kind) {
    case 'b': t = DataType::Bool(); break;
    case 'i': t = DataType::Int(bits); break;
    case 'u': t = DataType::UInt(bits); break;
    case 'f': t = DataType::Float(bits); break;
    default: t = DataType(0, 0); break;
  }
  CVM_VERIFY(t.is_supported() && (kind != 'b' || bits == 8))
      << "NumPy dtype " << py::str(static_cast<py::handle>(dt)).cast<std::string>()
      << " has no cvmrt type (cvmrt has bool, int8..int64, uint8..uint64, float16, bfloat16, "
         "float32 and float64)";
  return t;
}

py::dtype numpy_dtype(DataType t) {
  CVM_VERIFY(buffer_format(t) != nullptr) << "NumPy has no " << t.name() << " type";
  return py::dtype(t.name());
}

NDArray to_ndarray(py::handle obj) {
  if (py::isinstance<NDArray>(obj)) return obj.cast<NDArray>();
  if (!py::isinstance<py::array>(obj) && py::hasattr(obj, "__dlpack__")) {
    return from_dlpack_object(obj);
  }
  py::object numpy = py::module_::import("numpy");
  py::array arr = numpy.attr("asarray")(obj);
  py::dtype dt = arr.dtype();
  if (!dt.attr("isnative").cast<bool>()) {
    arr = arr.attr("astype")(dt.attr("newbyteorder")("="));
    dt = arr.dtype();
  }
  const DataType t = dtype_from_numpy(dt);
  const auto item = static_cast<py::ssize_t>(t.bytes());
  for (py::ssize_t i = 0; i < arr.ndim(); ++i) {
    if (arr.strides(i) % item != 0) {  // a field of a record, a byte-offset view
      arr = numpy.attr("ascontiguousarray")(arr);
      break;
    }
  }
  Shape shape, strides;
  for (py::ssize_t i = 0; i < arr.ndim(); ++i) {
    shape.push_back(arr.shape(i));
    strides.push_back(arr.strides(i) / item);
  }
  void* data = const_cast<void*>(arr.data());
  const bool read_only = !arr.writeable();
  return NDArray::from_external(data, shape, t, cvm::Device::cpu(), keep_alive(arr), read_only,
                                &strides);
}

void bind_arrays(py::module_& m) {
  py::class_<NDArray> cls(m, "Array", py::buffer_protocol(), R"doc(
An n-dimensional array in cvmrt's memory (or in NumPy's, for one made by asarray without a copy).

np.asarray(a) and memoryview(a) read it without copying (the buffer protocol); __dlpack__ and
__dlpack_device__ hand it to np.from_dlpack and other DLPack consumers without copying. Views
(reshape, transpose, slice, view) share its memory.)doc");
  // py::buffer_protocol() gives the type a buffer slot; it is filled with our own functions.
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  type->tp_as_buffer->bf_getbuffer = array_getbuffer;
  type->tp_as_buffer->bf_releasebuffer = array_releasebuffer;
  cls.def_property_readonly("shape", [](const NDArray& a) { return int_tuple(a.shape()); },
                             "The extents, a tuple of ints.")
      .def_property_readonly("strides", [](const NDArray& a) { return int_tuple(a.strides()); },
                             "The strides in elements (NumPy's are in bytes).")
      .def_property_readonly("dtype", [](const NDArray& a) { return a.dtype().name(); },
                             "The element type's name: \"int8\", \"float32\", \"bfloat16\", ...")
      .def_property_readonly("ndim", &NDArray::ndim)
      .def_property_readonly("size", &NDArray::numel, "The number of elements.")
      .def_property_readonly("nbytes", &NDArray::nbytes)
      .def_property_readonly("device", [](const NDArray& a) { return a.device().name(); },
                             "\"cpu\" or \"cuda:N\".")
      .def_property_readonly("readonly", &NDArray::is_read_only,
                             "True for arrays over read-only memory (a read-only NumPy array, a "
                             "params file mapped from disk): the first write copies.")
      .def_property_readonly("is_contiguous", &NDArray::is_contiguous)
      .def_property_readonly(
          "data_ptr", [](const NDArray& a) { return reinterpret_cast<uintptr_t>(a.data()); },
          "The address of element [0, ...], for checking that memory is shared.")
      .def("__len__",
           [](const NDArray& a) {
             CVM_VERIFY(a.ndim() > 0) << "len() of a 0-d array";
             return a.shape()[0];
           })
      .def("__repr__", &array_repr)
      .def("__dlpack__", [](const NDArray& a, py::object stream) { return to_dlpack_capsule(a); },
           py::arg("stream") = py::none(),
           "A DLPack capsule sharing this array's memory (the DLPack protocol; stream is unused "
           "on the CPU).")
      .def("__dlpack_device__",
           [](const NDArray& a) {
             return py::make_tuple(static_cast<int>(a.device().type), a.device().id);
           })
      .def("__array__", &numpy_view, py::arg("dtype") = py::none(),
           "A NumPy array sharing this array's memory (np.asarray uses the buffer protocol first; "
           "this reports why an array has no NumPy form).")
      .def("numpy", [](py::object self) { return numpy_view(self, py::none()); },
           "np.asarray(self): a NumPy array sharing this array's memory.")
      .def("tobytes",
           [](const NDArray& a) {
             std::string bytes(a.nbytes(), '\0');
             a.copy_to_bytes(bytes.data(), bytes.size());
             return py::bytes(bytes);
           },
           "The elements in row-major order, as bytes.")
      .def("reshape", [](const NDArray& a, py::args shape) {
             return a.reshape(shape.size() == 1 ? shape_of(shape[0]) : shape_of(shape));
           }, "The same elements in a new shape (a view where the strides allow); one extent may be -1.")
      .def("transpose", [](const NDArray& a, py::args axes) {
             return axes.size() == 0 ? a.transpose() : a.permute(axes_of(axes));
           }, "Dimensions reordered (all reversed without arguments): a view.")
      .def_property_readonly("T", &NDArray::transpose)
      .def("slice", [](const NDArray& a, int axis, py::object start, py::object stop, int64_t step) {
             const bool up = step > 0;
             const int64_t lo = start.is_none() ? (up ? 0 : INT64_MAX) : start.cast<int64_t>();
             const int64_t hi = stop.is_none() ? (up ? INT64_MAX : INT64_MIN) : stop.cast<int64_t>();
             return a.slice(axis, lo, hi, step);
           }, py::arg("axis"), py::arg("start") = py::none(), py::arg("stop") = py::none(),
           py::arg("step") = 1, "Python's slice(start, stop, step) of one axis: a view.")
      .def("view", [](const NDArray& a, py::object dtype) { return view_as(a, dtype_of(dtype)); },
           "The same memory read as another type of the same size (e.g. bfloat16 as uint16).")
      .def("copy", [](const NDArray& a) { return a.copy(); },
           "A copy (shares memory until either side is written).")
      .def("contiguous", &NDArray::contiguous, "This array if row-major contiguous, else a copy.")
      .def(py::pickle(  // (shape, dtype, bytes): a contiguous copy of the elements
          [](const NDArray& a) {
            std::string bytes(a.nbytes(), '\0');
            a.copy_to_bytes(bytes.data(), bytes.size());
            return py::make_tuple(int_tuple(a.shape()), a.dtype().name(), py::bytes(bytes));
          },
          [](const py::tuple& state) {
            CVM_VERIFY(state.size() == 3) << "Array: bad pickled state";
            const std::string bytes = state[2].cast<std::string>();
            const Shape shape = shape_of(state[0]);
            const DataType t = DataType::parse(state[1].cast<std::string>());
            CVM_VERIFY(static_cast<size_t>(shape.numel()) * t.bytes() == bytes.size())
                << "Array: bad pickled state (" << bytes.size() << " bytes for " << shape << " "
                << t.name() << ")";
            return NDArray::from_bytes(bytes.data(), bytes.size(), shape, t);
          }))
      .def("to", [](const NDArray& a, const std::string& device) { return a.to(parse_device(device)); },
           py::arg("device"), "The same elements on \"cpu\" or \"cuda:N\" (this array when already there).");

  m.def("asarray", [](py::object obj, py::object dtype) {
          NDArray a = to_ndarray(obj);
          if (dtype.is_none()) return a;
          const DataType t = dtype_of(dtype);
          if (t == a.dtype()) return a;
          if (t.bytes() == a.dtype().bytes() && (t == DataType::BFloat16() || a.dtype() == DataType::BFloat16())) {
            return view_as(a, t);  // bfloat16 bits from uint16 / int16, or back
          }
          CVM_LOGIC_ERROR() << "asarray: the data is " << a.dtype().name() << ", not " << t.name()
                            << " (convert it with NumPy's astype first)";
        }, py::arg("obj"), py::arg("dtype") = py::none(), R"doc(
The cvmrt Array `obj` stands for, without copying where the memory allows: a NumPy array is
wrapped in place (read-only stays read-only) when its strides are whole elements and its memory is
aligned; lists and scalars go through np.asarray; objects with __dlpack__ (other than NumPy's) go
through DLPack. dtype="bfloat16" reads 16-bit integer data as bfloat16 bits.)doc");
  m.def("from_dlpack", [](py::object obj) { return from_dlpack_object(obj); }, py::arg("x"),
        "An Array sharing the memory of `x` (an object with __dlpack__, or a DLPack capsule).");
  m.def("empty", [](py::object shape, py::object dtype) {
          return NDArray::empty(shape_of(shape), dtype_of(dtype));
        }, py::arg("shape"), py::arg("dtype") = "int32", "A new uninitialised array.");
  m.def("zeros", [](py::object shape, py::object dtype) {
          return NDArray::zeros(shape_of(shape), dtype_of(dtype));
        }, py::arg("shape"), py::arg("dtype") = "int32", "A new array of zeros.");
}

}  // namespace cvmpy
