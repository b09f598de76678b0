// Constant-array helpers for the ONNX importer's constant folding (shape manipulation, gathers,
// casts): plain copies through NDArray views, every index checked.
#include <cstring>

#include "cvm/array_ops.h"
#include "onnx_converter.h"

namespace cvm {
namespace onnx {
namespace detail {

namespace {

bool is_index_dtype(DataType t) { return t == DataType::Int(64) || t == DataType::Int(32); }

int64_t int_at(const NDArray& a, int64_t i) {
  return a.dtype() == DataType::Int(64) ? a.data_as<int64_t>()[i] : a.data_as<int32_t>()[i];
}

}  // namespace

void check_elements(const Shape& shape, int64_t max_elements, const std::string& what) {
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) fail(what + ": negative extent in shape " + shape.str());
    if (d != 0 && numel > max_elements / d) {
      fail(what + ": shape " + shape.str() + " has more than " + std::to_string(max_elements) +
           " elements (the limit)");
    }
    numel *= d;
  }
}

int normalize_axis(int64_t axis, int rank, const char* what, bool inclusive) {
  const int64_t hi = inclusive ? rank + 1 : rank;
  if (axis < -hi || axis >= hi) {
    fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
         std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + hi : axis);
}

std::vector<int64_t> int_values(const NDArray& a, const std::string& what) {
  if (!is_index_dtype(a.dtype())) {
    fail(what + " must be int64 or int32, found " + a.dtype().name());
  }
  if (a.ndim() > 1) fail(what + " must be 1-D, found shape " + a.shape().str());
  const NDArray c = a.contiguous();
  std::vector<int64_t> out(static_cast<size_t>(c.numel()));
  for (int64_t i = 0; i < c.numel(); ++i) out[static_cast<size_t>(i)] = int_at(c, i);
  return out;
}

std::vector<double> double_values(const NDArray& a) {
  const NDArray c = a.contiguous();
  std::vector<double> out(static_cast<size_t>(c.numel()));
  for (int64_t i = 0; i < c.numel(); ++i) {
    if (c.dtype() == DataType::Float(32)) {
      out[static_cast<size_t>(i)] = c.data_as<float>()[i];
    } else if (is_index_dtype(c.dtype())) {
      out[static_cast<size_t>(i)] = static_cast<double>(int_at(c, i));
    } else {
      fail("a constant of dtype " + c.dtype().name() + " where a number was expected");
    }
  }
  return out;
}

NDArray float_array(const Shape& shape, const std::vector<float>& values) {
  NDArray out = NDArray::empty(shape, DataType::Float(32));
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * 4);
  return out;
}

NDArray int64_array(const Shape& shape, const std::vector<int64_t>& values) {
  NDArray out = NDArray::empty(shape, DataType::Int(64));
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * 8);
  return out;
}

NDArray concat_arrays(const std::vector<NDArray>& parts, int axis) {
  const NDArray& first = parts.at(0);
  Shape shape = first.shape();
  if (axis < 0 || axis >= shape.ndim()) fail("concat axis out of range");
  for (size_t i = 1; i < parts.size(); ++i) {
    const NDArray& p = parts[i];
    if (p.dtype() != first.dtype()) {
      fail("inputs of different dtypes (" + first.dtype().name() + ", " + p.dtype().name() + ")");
    }
    bool match = p.ndim() == shape.ndim();
    for (int d = 0; match && d < shape.ndim(); ++d) match = d == axis || p.shape()[d] == shape[d];
    if (!match) {
      fail("input " + std::to_string(i) + " shape " + p.shape().str() +
           " does not match input 0 shape " + first.shape().str() + " outside axis " +
           std::to_string(axis));
    }
    if (__builtin_add_overflow(shape[axis], p.shape()[axis], &shape[axis])) {
      fail("the concatenated extent overflows");
    }
  }
  NDArray out = NDArray::empty(shape, first.dtype());
  int64_t offset = 0;
  for (const NDArray& p : parts) {
    const int64_t extent = p.shape()[axis];
    if (extent > 0) {
      NDArray dst = out.slice(axis, offset, offset + extent);
      dst.copy_from(p);
    }
    offset += extent;
  }
  return out;
}

NDArray permute_array(const NDArray& a, const std::vector<int>& perm) {
  NDArray view = a.permute(perm);
  NDArray out = NDArray::empty(view.shape(), a.dtype());
  if (out.numel() > 0) out.copy_from(view);
  return out;
}

NDArray pad_array(const NDArray& a, const std::vector<int64_t>& pads, double value,
                  int64_t max_elements) {
  const int n = a.ndim();
  if (static_cast<int>(pads.size()) != 2 * n) fail("pads do not match the rank");
  Shape shape = a.shape();
  for (int d = 0; d < n; ++d) {
    const int64_t b = pads[static_cast<size_t>(d)], e = pads[static_cast<size_t>(d + n)];
    if (b < 0 || e < 0) fail("negative pads are not supported");
    if (b > (int64_t{1} << 40) || e > (int64_t{1} << 40)) fail("pads are too large");
    shape[d] = shape[d] + b + e;
  }
  check_elements(shape, max_elements, "the padded constant");
  NDArray out = NDArray::empty(shape, a.dtype());
  if (out.numel() == 0) return out;
  if (a.dtype().is_float()) {
    fill(out, value);
  } else {
    fill(out, static_cast<long long>(value));
  }
  NDArray dst = out;
  for (int d = 0; d < n; ++d) {
    const int64_t b = pads[static_cast<size_t>(d)];
    dst = dst.slice(d, b, b + a.shape()[d]);
  }
  if (a.numel() > 0) dst.copy_from(a);
  return out;
}

NDArray gather_array(const NDArray& data, const NDArray& indices, int axis, int64_t max_elements) {
  if (!is_index_dtype(indices.dtype())) {
    fail("indices must be int64 or int32, found " + indices.dtype().name());
  }
  if (data.ndim() < 1) fail("data must have at least 1 dimension");
  if (axis < 0 || axis >= data.ndim()) fail("axis out of range");
  const NDArray src = data.contiguous();
  const NDArray idx = indices.contiguous();
  const int64_t extent = src.shape()[axis];
  Shape shape;
  for (int d = 0; d < axis; ++d) shape.push_back(src.shape()[d]);
  for (int d = 0; d < idx.ndim(); ++d) shape.push_back(idx.shape()[d]);
  for (int d = axis + 1; d < src.ndim(); ++d) shape.push_back(src.shape()[d]);
  check_elements(shape, max_elements, "the gathered constant");
  NDArray out = NDArray::empty(shape, src.dtype());
  if (out.numel() == 0) return out;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= src.shape()[d];
  for (int d = axis + 1; d < src.ndim(); ++d) inner *= src.shape()[d];
  const size_t esize = src.dtype().bytes();
  const size_t row = static_cast<size_t>(inner) * esize;
  const auto* in = static_cast<const uint8_t*>(src.data());
  auto* dst = static_cast<uint8_t*>(out.mutable_data());
  const int64_t count = idx.numel();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < count; ++k) {
      int64_t i = int_at(idx, k);
      if (i < -extent || i >= extent) {
        fail("index " + std::to_string(i) + " is out of range for extent " +
             std::to_string(extent));
      }
      if (i < 0) i += extent;
      std::memcpy(dst, in + (static_cast<size_t>(o * extent + i) * row), row);
      dst += row;
    }
  }
  return out;
}

NDArray fill_array(const Shape& shape, const NDArray& value, int64_t max_elements) {
  if (value.numel() != 1) fail("the fill value must have one element");
  check_elements(shape, max_elements, "the filled constant");
  NDArray out = NDArray::empty(shape, value.dtype());
  Shape ones;
  ones.resize(shape.ndim(), 1);
  if (out.numel() > 0) copy_into(out, value.contiguous().reshape(ones));
  return out;
}

NDArray cast_array(const NDArray& a, DataType to) { return cast(a, to); }

}  // namespace detail
}  // namespace onnx
}  // namespace cvm
