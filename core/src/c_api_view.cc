// C ABI: views of an array (reshape, permute, slice, broadcast_to, squeeze, expand_dims).
//
// Each call validates the caller's arguments, builds the view through NDArray (the shape logic
// lives there, once) and hands it out as a new handle sharing the source's storage.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "c_api_common.h"
#include "cvm/c_api.h"
#include "cvm/check.h"
#include "cvm/ndarray.h"

using cvm::NDArray;
using cvm::Shape;
using cvm::capi::borrow;
using cvm::capi::guard;
using cvm::capi::kMaxDims;
using cvm::capi::require_not_null;

namespace {

// Runs `make` (an NDArray view method), naming `fn` in the message of a LogicError it raises.
NDArray named(const char* fn, const std::function<NDArray()>& make) {
  try {
    return make();
  } catch (const cvm::LogicError& e) {
    throw cvm::LogicError(std::string(fn) + ": " + e.what());
  }
}

// `view` as a new handle. NDArray may return the source itself for an identity view
// (broadcast_to to the same shape): the caller still gets a handle of its own.
CVMArrayHandle new_handle(NDArray view, const NDArray& source) {
  if (view.container() == source.container()) {
    std::vector<int> identity(static_cast<size_t>(source.ndim()));
    for (int i = 0; i < source.ndim(); ++i) identity[static_cast<size_t>(i)] = i;
    view = source.permute(identity);
  }
  return cvm::capi::to_handle(std::move(view));
}

// `ndim` extents from a C caller: ndim in [0, kMaxDims], `shape` NULL only when ndim is 0.
Shape read_shape(const int64_t* shape, int ndim, const char* fn) {
  VERIFY(ndim >= 0 && ndim <= kMaxDims)
      << fn << ": ndim must be in 0.." << kMaxDims << ", got " << ndim;
  VERIFY(ndim == 0 || shape != nullptr) << fn << ": argument 'shape' is NULL with ndim " << ndim;
  return ndim == 0 ? Shape() : Shape(shape, ndim);
}

// Starts a call: *out cleared (when given), then the source borrowed.
NDArray begin_call(CVMArrayHandle handle, CVMArrayHandle* out, const char* fn) {
  require_not_null(out, fn, "out");
  *out = nullptr;
  return borrow(handle, fn, "handle");
}

}  // namespace

extern "C" {

int CVMArrayReshape(CVMArrayHandle handle, const int64_t* shape, int ndim, CVMArrayHandle* out) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayReshape";
    NDArray a = begin_call(handle, out, fn);
    const Shape requested = read_shape(shape, ndim, fn);
    *out = new_handle(named(fn, [&] { return a.reshape(requested); }), a);
  });
}

int CVMArrayPermute(CVMArrayHandle handle, const int* axes, int naxes, CVMArrayHandle* out) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayPermute";
    NDArray a = begin_call(handle, out, fn);
    if (naxes == 0) {
      *out = new_handle(a.transpose(), a);
      return;
    }
    VERIFY(naxes == a.ndim()) << fn << ": " << naxes << " axes given for an array of "
                              << a.ndim() << " dims (a permutation of all of them, or 0)";
    require_not_null(axes, fn, "axes");
    const std::vector<int> order(axes, axes + naxes);
    *out = new_handle(named(fn, [&] { return a.permute(order); }), a);
  });
}

int CVMArraySlice(CVMArrayHandle handle, const int64_t* begin, const int64_t* end,
                  const int64_t* step, int naxes, CVMArrayHandle* out) {
  return guard([&] {
    constexpr const char* fn = "CVMArraySlice";
    NDArray a = begin_call(handle, out, fn);
    VERIFY(naxes >= 0 && naxes <= a.ndim())
        << fn << ": naxes must be in 0.." << a.ndim() << " (the array's dims), got " << naxes;
    NDArray view = a;
    for (int i = 0; i < naxes; ++i) {
      int64_t s = step != nullptr ? step[i] : 1;
      if (s == CVM_SLICE_DEFAULT) s = 1;
      VERIFY(s != 0) << fn << ": step 0 for axis " << i;
      int64_t b = begin != nullptr ? begin[i] : CVM_SLICE_DEFAULT;
      int64_t e = end != nullptr ? end[i] : CVM_SLICE_DEFAULT;
      // Omitted bounds are the far ends in the step's direction, which NDArray::slice clamps
      // exactly as Python's slice.indices treats None.
      if (b == CVM_SLICE_DEFAULT) b = s > 0 ? 0 : INT64_MAX;
      if (e == CVM_SLICE_DEFAULT) e = s > 0 ? INT64_MAX : INT64_MIN;
      view = named(fn, [&] { return view.slice(i, b, e, s); });
    }
    *out = new_handle(std::move(view), a);
  });
}

int CVMArrayBroadcastTo(CVMArrayHandle handle, const int64_t* shape, int ndim,
                        CVMArrayHandle* out) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayBroadcastTo";
    NDArray a = begin_call(handle, out, fn);
    const Shape target = read_shape(shape, ndim, fn);
    *out = new_handle(named(fn, [&] { return a.broadcast_to(target); }), a);
  });
}

int CVMArraySqueeze(CVMArrayHandle handle, const int* axes, int naxes, CVMArrayHandle* out) {
  return guard([&] {
    constexpr const char* fn = "CVMArraySqueeze";
    NDArray a = begin_call(handle, out, fn);
    if (naxes == 0) {
      *out = new_handle(a.squeeze(), a);
      return;
    }
    const int n = a.ndim();
    VERIFY(naxes > 0 && naxes <= n)
        << fn << ": naxes must be in 0.." << n << " (the array's dims), got " << naxes;
    require_not_null(axes, fn, "axes");
    std::vector<int> picked;
    for (int i = 0; i < naxes; ++i) {
      const int axis = axes[i];
      VERIFY(axis >= -n && axis < n)
          << fn << ": axis " << axis << " out of range [" << -n << ", " << n - 1 << "]";
      const int norm = axis < 0 ? axis + n : axis;
      VERIFY(std::find(picked.begin(), picked.end(), norm) == picked.end())
          << fn << ": axis " << axis << " repeated";
      VERIFY(a.shape()[norm] == 1) << fn << ": axis " << axis << " of shape " << a.shape()
                                   << " has extent " << a.shape()[norm] << ", not 1";
      picked.push_back(norm);
    }
    // Highest axis first, so the lower axes keep their numbers.
    std::sort(picked.rbegin(), picked.rend());
    NDArray view = a;
    for (int axis : picked) view = view.squeeze(axis);
    *out = new_handle(std::move(view), a);
  });
}

int CVMArrayExpandDims(CVMArrayHandle handle, int axis, CVMArrayHandle* out) {
  return guard([&] {
    constexpr const char* fn = "CVMArrayExpandDims";
    NDArray a = begin_call(handle, out, fn);
    VERIFY(a.ndim() < kMaxDims) << fn << ": the array already has " << a.ndim()
                                << " dims, the most a C caller may use";
    *out = new_handle(named(fn, [&] { return a.expand_dims(axis); }), a);
  });
}

}  // extern "C"
