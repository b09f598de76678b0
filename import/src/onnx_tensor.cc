// ONNX TensorProto to NDArray conversion, with every count, size and dtype checked first.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "onnx_converter.h"

namespace cvm {
namespace onnx {
namespace detail {

namespace {

// Constants may have more dimensions than graph entries (they can be reshaped before use);
// this only keeps nonsense ranks out.
constexpr int kMaxConstantRank = 32;

DataType array_dtype(int elem_type, const std::string& what) {
  if (std::optional<DataType> t = supported_dtype(elem_type)) return *t;
  fail(what + ": dtype " + onnx_dtype_name(elem_type) +
       " is not supported (float32, int64 and int32 constants are)");
}

template <typename T, typename Field>
NDArray from_field(const Field& field, const Shape& shape, DataType dtype, int64_t numel,
                   const std::string& what, const char* field_name) {
  if (static_cast<int64_t>(field.size()) != numel) {
    fail(what + ": " + field_name + " holds " + std::to_string(field.size()) +
         " values, the shape " + shape.str() + " needs " + std::to_string(numel));
  }
  NDArray out = NDArray::empty(shape, dtype);
  T* dst = out.mutable_data_as<T>();
  for (int64_t i = 0; i < numel; ++i) dst[i] = static_cast<T>(field.Get(static_cast<int>(i)));
  return out;
}

}  // namespace

void fail(const std::string& message) { throw LogicError(message); }

std::optional<DataType> supported_dtype(int64_t elem_type) {
  switch (elem_type) {
    case ::onnx::TensorProto::FLOAT:
      return DataType::Float(32);
    case ::onnx::TensorProto::INT64:
      return DataType::Int(64);
    case ::onnx::TensorProto::INT32:
      return DataType::Int(32);
    default:
      return std::nullopt;
  }
}

std::string float_attr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::string tuple_attr(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ")";
  return os.str();
}

std::string onnx_dtype_name(int elem_type) {
  using T = ::onnx::TensorProto;
  const char* ours = nullptr;
  switch (elem_type) {
    case T::FLOAT:
      ours = "float32";
      break;
    case T::DOUBLE:
      ours = "float64";
      break;
    case T::FLOAT16:
      ours = "float16";
      break;
    case T::BFLOAT16:
      ours = "bfloat16";
      break;
    case T::INT8:
      ours = "int8";
      break;
    case T::INT16:
      ours = "int16";
      break;
    case T::INT32:
      ours = "int32";
      break;
    case T::INT64:
      ours = "int64";
      break;
    case T::UINT8:
      ours = "uint8";
      break;
    case T::UINT16:
      ours = "uint16";
      break;
    case T::UINT32:
      ours = "uint32";
      break;
    case T::UINT64:
      ours = "uint64";
      break;
    case T::BOOL:
      ours = "bool";
      break;
    default:
      break;
  }
  if (ours != nullptr) return ours;
  if (::onnx::TensorProto_DataType_IsValid(elem_type)) {
    return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(elem_type));
  }
  return "type " + std::to_string(elem_type);
}

bool has_external_data(const ::onnx::TensorProto& t) {
  return t.data_location() == ::onnx::TensorProto::EXTERNAL || t.external_data_size() > 0;
}

NDArray tensor_to_array(const ::onnx::TensorProto& t, const std::string& what,
                        int64_t max_elements) {
  if (has_external_data(t)) {
    fail(what + ": external data is not supported (save the model with its tensors inside)");
  }
  if (t.has_segment()) fail(what + ": segmented tensors are not supported");
  const DataType dtype = array_dtype(t.data_type(), what);
  if (t.dims_size() > kMaxConstantRank) {
    fail(what + ": " + std::to_string(t.dims_size()) + " dimensions (at most " +
         std::to_string(kMaxConstantRank) + " are supported)");
  }
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  int64_t numel = 1;
  for (int64_t d : dims) {
    if (d < 0) fail(what + ": negative dimension " + std::to_string(d));
    if (d != 0 && numel > max_elements / d) {
      fail(what + ": shape " + tuple_attr(dims) + " has more than " + std::to_string(max_elements) +
           " elements (the limit)");
    }
    numel *= d;
  }
  if (numel > max_elements) {
    fail(what + ": " + std::to_string(numel) + " elements exceed the limit of " +
         std::to_string(max_elements));
  }
  const Shape shape(dims);
  if (!t.raw_data().empty() || t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    const uint64_t want = static_cast<uint64_t>(numel) * dtype.bytes();
    if (raw.size() != want) {
      fail(what + ": raw_data holds " + std::to_string(raw.size()) + " bytes, the shape " +
           shape.str() + " of " + dtype.name() + " needs " + std::to_string(want));
    }
    NDArray out = NDArray::empty(shape, dtype);
    if (want > 0) std::memcpy(out.mutable_data(), raw.data(), raw.size());  // little-endian host
    return out;
  }
  switch (t.data_type()) {
    case ::onnx::TensorProto::FLOAT:
      return from_field<float>(t.float_data(), shape, dtype, numel, what, "float_data");
    case ::onnx::TensorProto::INT64:
      return from_field<int64_t>(t.int64_data(), shape, dtype, numel, what, "int64_data");
    default:  // INT32
      return from_field<int32_t>(t.int32_data(), shape, dtype, numel, what, "int32_data");
  }
}

}  // namespace detail
}  // namespace onnx
}  // namespace cvm
