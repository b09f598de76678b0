// Transform ops (spec 5) whose output is a view of the input copied out: reshapes, slices, tile.
//
// flatten, reshape, expand_dims, squeeze, transpose, strided_slice, concatenate, repeat, tile and
// slice_like build NDArray views and copy them with copy_into (the "copy" kernel); no kernel of
// their own. take, cvm_lut and where live in cvm_transform_index.cc. The first seven take any
// one dtype (float models use them); the others stay int32.
#include "cvm_transform.h"

#include <algorithm>

#include "attrs.h"
#include "cvm/array_ops.h"
#include "cvm/check.h"
#include "kernel_abi.h"
#include "kernel_views.h"

namespace cvm {
namespace ops {
namespace transform {

std::string tuple_str(const std::vector<int64_t>& v) {
  detail::MessageStream os;  // ostream formatting without iostreams
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ")";
  return os.str();
}

NDArray output_as(const NDArray& out, const Shape& shape) {
  CHECK(out.is_contiguous()) << "transform op: output " << out.shape() << " is not contiguous";
  return out.reshape(shape);
}

namespace {

// Number of dims longer than 1: what a kernel view keeps of a shape before merging.
int non_unit_dims(const Shape& s) {
  return static_cast<int>(std::count_if(s.begin(), s.end(), [](int64_t d) { return d != 1; }));
}

// copy_into through the bound "copy" chain for a same-shaped view, slicing off leading dims
// while the view may still have more dims than a kernel view takes (tile and repeat views
// interleave up to twice the input's dims).
void copy_view(const KernelChain& copy, NDArray dst, const NDArray& src) {
  if (non_unit_dims(dst.shape()) <= kernel::kMaxKernelDims) {
    copy_into(dst, src, copy, nullptr);
    return;
  }
  int d = 0;
  while (dst.shape()[d] == 1) ++d;
  for (int64_t i = 0; i < dst.shape()[d]; ++i) {
    copy_view(copy, dst.slice(d, i, i + 1), src.slice(d, i, i + 1));
  }
}

// Whether views a and b of one shape are the same elements: the same data and the same strides
// along every axis of extent above 1.
bool same_elements(const NDArray& a, const NDArray& b) {
  if (a.data() != b.data()) return false;
  for (int d = 0; d < a.ndim(); ++d) {
    if (a.shape()[d] > 1 && a.strides()[d] != b.strides()[d]) return false;
  }
  return true;
}

// Writes `src`, a view of an input with the output's shape, into `out`. An in-place op's output
// may be that input itself: then nothing moves.
void write_output(const KernelChain& copy, const NDArray& out, const NDArray& src) {
  NDArray dst = out;
  void* data = dst.mutable_data();  // first: may give a shared storage its private buffer
  if (dst.numel() == 0 || (data == src.data() && same_elements(dst, src))) return;
  copy_view(copy, dst, src);
}

// An op whose output is a view of input 0, copied out.
class ViewOp : public TransformOp {
 public:
  // Copied by kernels of any element width (the reference's copy, and entries taking int8).
  Int8Activations int8_activations() const override {
    return Int8Activations::kTogetherAnyKernel;
  }
  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    write_output(kernels[0], outputs[0], view(attrs, inputs, outputs[0].shape()));
  }

 protected:
  virtual NDArray view(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
                       const Shape& out_shape) const = 0;
};

// The in-place ops (spec section 3): the output is input 0 in another shape. Any dtype.
class ReshapeLikeOp : public ViewOp {
 public:
  bool inplace() const override { return true; }

 protected:
  bool any_dtype() const override { return true; }
  NDArray view(const OpAttrs&, const std::vector<NDArray>& inputs,
               const Shape& out_shape) const override {
    return inputs[0].reshape(out_shape);
  }
};

// ---- flatten ----

class FlattenOp : public ReshapeLikeOp {
 public:
  const char* name() const override { return "flatten"; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader(name(), attrs).finish();
    return std::make_unique<NoAttrs>();
  }
  std::vector<Shape> infer_shapes(const OpAttrs&, const std::vector<Shape>& in) const override {
    VERIFY(in[0].ndim() >= 1) << op_prefix(*this)
                              << "input 0 must have at least 1 dimension, found shape " << in[0];
    int64_t rest = 1;
    for (int d = 1; d < in[0].ndim(); ++d) rest = mul(rest, in[0][d]);
    return {Shape{in[0][0], rest}};
  }
};

// ---- reshape (MXNet codes) ----

struct ReshapeAttrs : OpAttrs {
  std::vector<int64_t> shape;
};

class ReshapeOp : public ReshapeLikeOp {
 public:
  const char* name() const override { return "reshape"; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<ReshapeAttrs>();
    a->shape = r.get_tuple("shape", std::nullopt, -4, INT64_MAX);
    r.finish();
    if (a->shape.empty()) fail_attr("shape", "a non-empty tuple", "()");
    return a;
  }

  // MXNet's rules: 0 copies the next input dim, -1 is inferred (it consumes one input dim),
  // -2 copies all remaining input dims, -3 merges the next two, -4 splits the next one into the
  // two codes that follow (one of which may be -1); a positive code is taken as is and skips
  // one input dim.
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const std::vector<int64_t>& codes = as<ReshapeAttrs>(attrs).shape;
    const Shape& x = in[0];
    const int n = x.ndim();
    auto fail = [&](const std::string& rule) {
      fail_attr("shape", rule, tuple_str(codes) + " for input shape " + x.str());
    };
    std::vector<int64_t> out;
    int src = 0;
    int inferred = -1;
    for (size_t i = 0; i < codes.size(); ++i) {
      const int64_t code = codes[i];
      if (code > 0) {
        out.push_back(code);
        ++src;
      } else if (code == 0) {
        if (src >= n) fail("code 0 only where an input dim is left to copy");
        out.push_back(x[src++]);
      } else if (code == -1) {
        if (inferred >= 0) fail("at most one -1");
        inferred = static_cast<int>(out.size());
        out.push_back(1);
        ++src;
      } else if (code == -2) {
        while (src < n) out.push_back(x[src++]);
      } else if (code == -3) {
        if (src + 1 >= n) fail("code -3 only where two input dims are left to merge");
        out.push_back(mul(x[src], x[src + 1]));
        src += 2;
      } else {  // -4
        if (i + 2 >= codes.size()) fail("code -4 followed by two split extents");
        if (src >= n) fail("code -4 only where an input dim is left to split");
        const int64_t whole = x[src++];
        int64_t d1 = codes[++i], d2 = codes[++i];
        if (d1 == 0 || d1 < -1 || d2 == 0 || d2 < -1 || (d1 == -1 && d2 == -1)) {
          fail("split extents after -4 that are positive or one -1");
        }
        if (d1 == -1 && whole % d2 == 0) d1 = whole / d2;
        if (d2 == -1 && whole % d1 == 0) d2 = whole / d1;
        int64_t product = 0;
        if (d1 < 0 || d2 < 0 || __builtin_mul_overflow(d1, d2, &product) || product != whole) {
          fail("split extents whose product is the input dim " + std::to_string(whole));
        }
        out.push_back(d1);
        out.push_back(d2);
      }
    }
    const int64_t size = x.numel();
    if (inferred >= 0) {
      int64_t known = 1;
      for (int64_t d : out) known = mul(known, d);
      if (size == 0) {
        out[inferred] = 0;
      } else {
        if (known == 0 || size % known != 0) {
          fail("a -1 that can be inferred for " + std::to_string(size) + " elements");
        }
        out[inferred] = size / known;
      }
    }
    int64_t count = 1;
    for (int64_t d : out) count = mul(count, d);
    if (count != size) fail("a shape of " + std::to_string(size) + " elements");
    return {Shape(out)};
  }
};

// ---- expand_dims ----

struct ExpandDimsAttrs : OpAttrs {
  int64_t axis;
  int64_t num_newaxis;
};

class ExpandDimsOp : public ReshapeLikeOp {
 public:
  const char* name() const override { return "expand_dims"; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<ExpandDimsAttrs>();
    a->axis = r.get_int("axis", std::nullopt, -kAxisBound, kAxisBound);
    a->num_newaxis = r.get_int("num_newaxis", 1);
    r.finish();
    return a;
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& a = as<ExpandDimsAttrs>(attrs);
    Shape out = in[0];
    const int axis = axis_in("axis", a.axis, out.ndim(), /*insert=*/true);
    for (int64_t i = 0; i < a.num_newaxis; ++i) out.insert(axis, 1);
    return {out};
  }
};

// ---- squeeze ----

struct AxesAttrs : OpAttrs {
  std::optional<std::vector<int64_t>> axes;  // nullopt or empty: the op's default
};

// Parses the optional axis tuple `key` ("None", "()" or absent: the default).
std::unique_ptr<OpAttrs> parse_axes(const char* op, const AttrMap& attrs, const char* key) {
  AttrReader r(op, attrs);
  auto a = std::make_unique<AxesAttrs>();
  a->axes = r.get_optional_tuple(key, -kAxisBound, kAxisBound);
  if (a->axes && a->axes->empty()) a->axes.reset();
  r.finish();
  return a;
}

class SqueezeOp : public ReshapeLikeOp {
 public:
  const char* name() const override { return "squeeze"; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    return parse_axes(name(), attrs, "axis");
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& axes = as<AxesAttrs>(attrs).axes;
    const Shape& x = in[0];
    std::vector<bool> drop(x.ndim(), !axes);
    if (axes) {
      for (int64_t axis : *axes) {  // repeated axes are accepted, as in CVM
        const int a = axis_in("axis", axis, x.ndim());
        if (x[a] != 1) {
          fail_attr("axis", "axes of extent 1",
                    "axis " + std::to_string(axis) + " of extent " + std::to_string(x[a]) +
                        " in input shape " + x.str());
        }
        drop[a] = true;
      }
    }
    Shape out;
    for (int d = 0; d < x.ndim(); ++d) {
      if (!drop[d] || x[d] != 1) out.push_back(x[d]);
    }
    if (out.empty()) out.push_back(1);
    return {out};
  }
};

// ---- transpose ----

class TransposeOp : public ViewOp {
 public:
  const char* name() const override { return "transpose"; }
  bool any_dtype() const override { return true; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    return parse_axes(name(), attrs, "axes");
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    Shape out;
    for (int a : permutation(attrs, in[0].ndim())) out.push_back(in[0][a]);
    return {out};
  }

 protected:
  NDArray view(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const Shape&) const override {
    return inputs[0].permute(permutation(attrs, inputs[0].ndim()));
  }

 private:
  std::vector<int> permutation(const OpAttrs& attrs, int n) const {
    const auto& axes = as<AxesAttrs>(attrs).axes;
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = n - 1 - i;
    if (!axes) return perm;
    const std::string expected = "a permutation of the " + std::to_string(n) + " input axes";
    if (static_cast<int>(axes->size()) != n) fail_attr("axes", expected, tuple_str(*axes));
    std::vector<bool> seen(n, false);
    for (int i = 0; i < n; ++i) {
      perm[i] = axis_in("axes", (*axes)[i], n);
      if (seen[perm[i]]) fail_attr("axes", expected, tuple_str(*axes));
      seen[perm[i]] = true;
    }
    return perm;
  }
};

// ---- strided_slice ----

struct StridedSliceAttrs : OpAttrs {
  std::vector<int64_t> begin, end, stride;
};

class StridedSliceOp : public ViewOp {
 public:
  const char* name() const override { return "strided_slice"; }
  bool any_dtype() const override { return true; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<StridedSliceAttrs>();
    a->begin = r.get_tuple("begin", std::vector<int64_t>{0}, -INT64_MAX, INT64_MAX);
    a->end = r.get_tuple("end", std::vector<int64_t>{1}, -INT64_MAX, INT64_MAX);
    a->stride =
        r.get_optional_tuple("stride", -INT64_MAX, INT64_MAX).value_or(std::vector<int64_t>{});
    r.finish();
    if (std::count(a->stride.begin(), a->stride.end(), 0) != 0) {
      fail_attr("stride", "non-zero strides", tuple_str(a->stride));
    }
    return a;
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& a = as<StridedSliceAttrs>(attrs);
    const int n = in[0].ndim();
    for (const auto& [key, values] :
         {std::pair{"begin", &a.begin}, std::pair{"end", &a.end}, std::pair{"stride", &a.stride}}) {
      if (static_cast<int>(values->size()) > n) {
        fail_attr(key, "at most " + std::to_string(n) + " values (one per input axis)",
                  tuple_str(*values));
      }
    }
    Shape out = in[0];
    for (int d = 0; d < n; ++d) out[d] = axis_slice(attrs, in[0], d).count;
    return {out};
  }

 protected:
  NDArray view(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const Shape&) const override {
    NDArray v = inputs[0];
    for (int d = 0; d < v.ndim(); ++d) {
      const Slice s = axis_slice(attrs, inputs[0].shape(), d);
      const int64_t dim = v.shape()[d];
      // NDArray::slice reads a negative stop as counted from the end: -1 - dim means "before 0".
      v = v.slice(d, s.begin, s.end < 0 ? s.end - dim : s.end, s.step);
    }
    return v;
  }

 private:
  struct Slice {
    int64_t begin, end, step, count;
  };
  // The spec's rule for axis d: pad missing entries with (0, dim, 1), count negative begin and
  // end from the end, clamp to [0, dim] (step > 0) or [-1, dim - 1] (step < 0), require a
  // non-empty range in the step's direction; count = ceil(|end - begin| / |step|). The tuple
  // lengths were checked by infer_shapes.
  Slice axis_slice(const OpAttrs& attrs, const Shape& x, int d) const {
    const auto& a = as<StridedSliceAttrs>(attrs);
    const int64_t dim = x[d];
    const int64_t step = d < static_cast<int>(a.stride.size()) ? a.stride[d] : 1;
    int64_t begin = d < static_cast<int>(a.begin.size()) ? a.begin[d] : 0;
    int64_t end = d < static_cast<int>(a.end.size()) ? a.end[d] : dim;
    if (begin < 0) begin += dim;
    if (end < 0) end += dim;
    const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
    begin = std::min(std::max(begin, lo), hi);
    end = std::min(std::max(end, lo), hi);
    if (step > 0 ? begin >= end : begin <= end) {
      CVM_LOGIC_ERROR() << op_prefix(*this) << "axis " << d << " of input shape " << x
                        << ": expected begin " << (step > 0 ? "<" : ">")
                        << " end after clamping for stride " << step << ", found begin " << begin
                        << ", end " << end;
    }
    const int64_t span = step > 0 ? end - begin : begin - end;
    const int64_t mag = std::min(step > 0 ? step : -step, dim);  // larger steps take 1 element
    return {begin, end, step > 0 ? mag : -mag, span / mag + (span % mag != 0)};
  }
};

// ---- concatenate ----

struct AxisAttrs : OpAttrs {
  int64_t axis;
};

class ConcatenateOp : public TransformOp {
 public:
  const char* name() const override { return "concatenate"; }
  bool any_dtype() const override { return true; }
  // In place, or copied by kernels of any element width (as ViewOp).
  Int8Activations int8_activations() const override {
    return Int8Activations::kTogetherAnyKernel;
  }
  int num_inputs() const override { return -1; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<AxisAttrs>();
    a->axis = r.get_int("axis", 1, -kAxisBound, kAxisBound);
    r.finish();
    return a;
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const int axis = axis_in("axis", as<AxisAttrs>(attrs).axis, in[0].ndim());
    Shape out = in[0];
    for (size_t i = 1; i < in.size(); ++i) {
      bool match = in[i].ndim() == out.ndim();
      for (int d = 0; match && d < out.ndim(); ++d) match = d == axis || in[i][d] == out[d];
      VERIFY(match) << op_prefix(*this) << "input " << i << " shape " << in[i]
                    << " does not match input 0 shape " << in[0] << " outside axis " << axis;
      VERIFY(!__builtin_add_overflow(out[axis], in[i][axis], &out[axis]))
          << op_prefix(*this) << "output extent on axis " << axis << " overflows int64";
    }
    return {out};
  }
  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>&,
                                    const std::vector<int>& precisions) const override {
    return {*std::max_element(precisions.begin(), precisions.end())};
  }
  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const NDArray& out = outputs[0];
    const int axis = axis_in("axis", as<AxisAttrs>(attrs).axis, out.ndim());
    int64_t offset = 0;
    for (const NDArray& x : inputs) {
      const int64_t extent = x.shape()[axis];
      const NDArray part = out.slice(axis, offset, offset + extent);
      // A part its producer wrote in place (the memory planner's concatenate inputs) stays.
      if (!same_elements(part, x)) copy_view(kernels[0], part, x);
      offset += extent;
    }
  }
};

// ---- repeat and tile: broadcast views of the input, copied into a finer view of the output ----

struct RepeatAttrs : OpAttrs {
  int64_t repeats;
  int64_t axis;
};

class RepeatOp : public TransformOp {
 public:
  const char* name() const override { return "repeat"; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<RepeatAttrs>();
    a->repeats = r.get_int("repeats", std::nullopt, 1, 4096);
    a->axis = r.get_int("axis", 0, -kAxisBound, kAxisBound);
    r.finish();
    return a;
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& a = as<RepeatAttrs>(attrs);
    Shape out = in[0];
    const int axis = axis_in("axis", a.axis, out.ndim());
    out[axis] = mul(out[axis], a.repeats);
    return {out};
  }
  // Each element repeated in place: x with a new axis of `repeats` after `axis`.
  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const auto& a = as<RepeatAttrs>(attrs);
    const NDArray& x = inputs[0];
    const int axis = axis_in("axis", a.axis, x.ndim());
    Shape fine = x.shape();
    fine.insert(axis + 1, a.repeats);
    copy_view(kernels[0], output_as(outputs[0], fine),
              x.expand_dims(axis + 1).broadcast_to(fine));
  }
};

struct TileAttrs : OpAttrs {
  std::vector<int64_t> reps;
};

class TileOp : public TransformOp {
 public:
  const char* name() const override { return "tile"; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<TileAttrs>();
    a->reps = r.get_tuple("reps", std::nullopt, 1, 4096);
    r.finish();
    if (a->reps.empty()) fail_attr("reps", "a non-empty tuple", "()");
    return a;
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const Shape fine = interleaved(attrs, in[0], true);
    Shape out;
    for (int d = 0; d < fine.ndim(); d += 2) out.push_back(mul(fine[d], fine[d + 1]));
    return {out};
  }
  // Right-aligned: Y[k] = X[k mod shape], i.e. x seen as (1, d0, 1, d1, ...) broadcast to
  // (r0, d0, r1, d1, ...), where the shorter of x's shape and reps is padded with leading 1s.
  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const Shape fine = interleaved(attrs, inputs[0].shape(), true);
    NDArray src = inputs[0].reshape(interleaved(attrs, inputs[0].shape(), false));
    copy_view(kernels[0], output_as(outputs[0], fine), src.broadcast_to(fine));
  }

 private:
  // (r0, d0, r1, d1, ...) with the reps, or (1, d0, 1, d1, ...) without.
  Shape interleaved(const OpAttrs& attrs, const Shape& x, bool with_reps) const {
    const std::vector<int64_t>& reps = as<TileAttrs>(attrs).reps;
    const int n = std::max(x.ndim(), static_cast<int>(reps.size()));
    const int pad_x = n - x.ndim(), pad_r = n - static_cast<int>(reps.size());
    Shape s;
    for (int d = 0; d < n; ++d) {
      s.push_back(with_reps && d >= pad_r ? reps[d - pad_r] : 1);
      s.push_back(d >= pad_x ? x[d - pad_x] : 1);
    }
    return s;
  }
};

// ---- slice_like ----

class SliceLikeOp : public ViewOp {
 public:
  const char* name() const override { return "slice_like"; }
  int num_inputs() const override { return 2; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    return parse_axes(name(), attrs, "axis");
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    Shape out = in[0];
    for (int a : sliced_axes(attrs, in[0], in[1])) out[a] = in[1][a];
    return {out};
  }

 protected:
  NDArray view(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const Shape&) const override {
    NDArray v = inputs[0];
    for (int a : sliced_axes(attrs, inputs[0].shape(), inputs[1].shape())) {
      v = v.slice(a, 0, inputs[1].shape()[a]);
    }
    return v;
  }

 private:
  // The axes to slice, validated: by default all of them (equal ndims required); explicit axes
  // count from the end of x and must exist in both inputs.
  std::vector<int> sliced_axes(const OpAttrs& attrs, const Shape& x, const Shape& like) const {
    const auto& axes = as<AxesAttrs>(attrs).axes;
    std::vector<int> out;
    if (!axes) {
      VERIFY(x.ndim() == like.ndim())
          << op_prefix(*this) << "without \"axis\", input 1 (like) must have the ndim of input 0 "
          << x << ", found shape " << like;
      for (int d = 0; d < x.ndim(); ++d) out.push_back(d);
    } else {
      for (int64_t axis : *axes) {
        const int a = axis_in("axis", axis, x.ndim());
        if (a >= like.ndim()) {
          fail_attr("axis", "axes that exist in input 1 (like) shape " + like.str(),
                    std::to_string(axis));
        }
        out.push_back(a);
      }
    }
    for (int a : out) {
      VERIFY(like[a] <= x[a]) << op_prefix(*this) << "input 1 (like) shape " << like
                              << " is larger than input 0 shape " << x << " on axis " << a
                              << ": expected at most " << x[a] << ", found " << like[a];
    }
    return out;
  }
};

}  // namespace
}  // namespace transform

void add_cvm_transform_ops(OpList& ops) {
  using namespace transform;  // NOLINT: the family's own namespace
  static const FlattenOp flatten;
  static const ReshapeOp reshape;
  static const ExpandDimsOp expand_dims;
  static const SqueezeOp squeeze;
  static const TransposeOp transpose;
  static const StridedSliceOp strided_slice;
  static const ConcatenateOp concatenate;
  static const RepeatOp repeat;
  static const TileOp tile;
  static const SliceLikeOp slice_like;
  for (const OpDef* op : std::initializer_list<const OpDef*>{
           &flatten, &reshape, &expand_dims, &squeeze, &transpose, &strided_slice, &concatenate,
           &repeat, &tile, &slice_like}) {
    ops.push_back(op);
  }
  add_index_ops(ops);
}

}  // namespace ops
}  // namespace cvm
