// Reduction planning shared by the CVM and array reductions: axes, output shapes, kernel views.
#include "reduce_shape.h"

#include <string>

#include "cvm/check.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {
namespace {

std::string tuple_text(const std::vector<int64_t>& v) {
  detail::MessageStream os;  // ostream formatting without iostreams
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ")";
  return os.str();
}

// One dimension of a reduce kernel view: extent, input stride and (kept dims) output stride.
struct Dim {
  int64_t extent;
  int64_t in_stride;
  int64_t out_stride;
};

// Appends `d`, merging it into the previous dimension when a row-major walk of both is one
// arithmetic progression in the input (and in the output, for kept dimensions).
void push_dim(std::vector<Dim>& dims, const Dim& d, bool check_out) {
  if (!dims.empty()) {
    Dim& p = dims.back();
    bool merge = p.extent != 0 && d.extent != 0 && p.in_stride == d.in_stride * d.extent &&
                 (!check_out || p.out_stride == d.out_stride * d.extent);
    if (merge) {
      p.extent *= d.extent;
      p.in_stride = d.in_stride;
      p.out_stride = d.out_stride;
      return;
    }
  }
  dims.push_back(d);
}

}  // namespace

ReducePlan plan_reduce(const OpDef& op, ReduceFlavor flavor, const Shape& in,
                       const std::optional<std::vector<int64_t>>& axes, bool keepdims,
                       bool exclude) {
  CHECK(flavor == ReduceFlavor::kCvm || !exclude) << op_prefix(op) << "exclude is CVM-only";
  const int n = in.ndim();
  ReducePlan plan;
  const bool all = !axes || (flavor == ReduceFlavor::kCvm && axes->empty());
  if (all) {
    // TVM's rule: an empty axis tuple reduces every axis, with or without exclude.
    plan.reduced.assign(n, true);
  } else {
    std::vector<bool> named(n, false);
    for (int64_t a : *axes) {
      VERIFY(n > 0) << op_prefix(op)
                    << "attribute \"axis\": expected no axes for a 0-d input, found "
                    << tuple_text(*axes);
      VERIFY(a >= -n && a < n) << op_prefix(op) << "attribute \"axis\": expected each axis in ["
                               << -n << ", " << n - 1 << "] for input shape " << in << ", found "
                               << tuple_text(*axes);
      const int64_t d = a < 0 ? a + n : a;
      VERIFY(!named[d]) << op_prefix(op) << "attribute \"axis\": expected distinct axes, found "
                        << tuple_text(*axes) << " (dimension " << d
                        << " named twice) for input shape " << in;
      named[d] = true;
    }
    plan.reduced.resize(n);
    for (int d = 0; d < n; ++d) plan.reduced[d] = named[d] != exclude;
  }
  plan.out_dim.assign(n, -1);
  for (int d = 0; d < n; ++d) {
    if (plan.reduced[d]) {
      plan.reduce_size *= in[d];
      if (keepdims) plan.out_shape.push_back(1);
    } else {
      plan.out_dim[d] = plan.out_shape.ndim();
      plan.out_shape.push_back(in[d]);
    }
  }
  if (plan.out_shape.ndim() == 0 && flavor == ReduceFlavor::kCvm) plan.out_shape.push_back(1);
  return plan;
}

void verify_nonempty_reduction(const OpDef& op, const ReducePlan& plan, const Shape& in) {
  VERIFY(plan.reduce_size != 0 || plan.out_shape.numel() == 0)
      << op_prefix(op) << "input shape " << in << ": expected at least one element per output "
      << "along the reduced axes, found 0 (this reduction has no value for an empty set)";
}

ReduceViews reduce_views(const ReducePlan& plan, const NDArray& in, const void* in_data,
                         const NDArray& out, void* out_data) {
  const Shape& shape = in.shape();
  std::vector<Dim> kept, reduced;
  for (int d = 0; d < shape.ndim(); ++d) {
    if (shape[d] == 1) continue;
    if (plan.reduced[d]) {
      push_dim(reduced, {shape[d], in.strides()[d], 0}, false);
    } else {
      push_dim(kept, {shape[d], in.strides()[d], out.strides()[plan.out_dim[d]]}, true);
    }
  }
  const size_t total = kept.size() + reduced.size();
  VERIFY(total <= static_cast<size_t>(kernel::kMaxKernelDims))
      << "reduction of input shape " << shape << " needs " << total
      << " non-mergeable dimensions; kernels support at most " << kernel::kMaxKernelDims;
  ReduceViews v;
  v.in.data = const_cast<void*>(in_data);
  v.in.type = elem_type_of(in.dtype());
  v.in.ndim = static_cast<int32_t>(total);
  v.out.data = out_data;
  v.out.type = elem_type_of(out.dtype());
  v.out.ndim = static_cast<int32_t>(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    v.in.shape[i] = v.out.shape[i] = kept[i].extent;
    v.in.strides[i] = kept[i].in_stride;
    v.out.strides[i] = kept[i].out_stride;
  }
  for (size_t i = 0; i < reduced.size(); ++i) {
    v.in.shape[kept.size() + i] = reduced[i].extent;
    v.in.strides[kept.size() + i] = reduced[i].in_stride;
  }
  return v;
}

}  // namespace ops
}  // namespace cvm
