// Transform ops whose indexing depends on data: take and cvm_lut ("take" kernel), where.
#include "attrs.h"
#include "cvm/check.h"
#include "cvm_transform.h"
#include "kernel_views.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {
namespace transform {
namespace {

// ---- take and cvm_lut: the "take" kernel ----

// LogicError unless `dim`, the extent indices select from (in `source`, of shape `x`), can
// serve `out`: an empty axis can only serve an empty output.
void verify_indexable(const OpDef& op, int64_t dim, const Shape& out, const char* source,
                      const Shape& x) {
  VERIFY(dim > 0 || out.numel() == 0)
      << op_prefix(op) << "cannot take elements from an empty axis of " << source << " shape " << x
      << " into output shape " << out;
}

// `out` seen as (outer, n, inner) = `x` seen as (outer, dim, inner) at clamp(indices, 0, dim - 1).
void gather(const KernelChain& take, const NDArray& out, const NDArray& x, const NDArray& indices,
            int64_t outer, int64_t dim, int64_t inner) {
  NDArray y = output_as(out, Shape{outer, indices.numel(), inner});
  void* y_data = y.mutable_data();
  NDArray src = x.reshape(Shape{outer, dim, inner});
  NDArray idx = indices.reshape(Shape{indices.numel()});
  run_kernel(take,
             {plain_view(y, y_data), plain_view(src, const_cast<void*>(src.data())),
              plain_view(idx, const_cast<void*>(idx.data()))},
             1, nullptr);
}

struct TakeAttrs : OpAttrs {
  std::optional<int64_t> axis;
};

class TakeOp : public TransformOp {
 public:
  const char* name() const override { return "take"; }
  int num_inputs() const override { return 2; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<TakeAttrs>();
    a->axis = r.get_optional_int("axis", -kAxisBound, kAxisBound);
    r.finish();
    return a;
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const auto& a = as<TakeAttrs>(attrs);
    Shape out;
    if (!a.axis) {
      out = in[1];
      verify_indexable(*this, in[0].numel(), out, "input 0", in[0]);
      return {out};
    }
    const int axis = axis_in("axis", *a.axis, in[0].ndim());
    for (int d = 0; d < in[0].ndim(); ++d) {
      if (d != axis) out.push_back(in[0][d]);
      for (int k = 0; d == axis && k < in[1].ndim(); ++k) out.push_back(in[1][k]);
    }
    verify_indexable(*this, in[0][axis], out, "input 0", in[0]);
    return {out};
  }
  std::vector<const char*> kernel_ops() const override { return {"take"}; }
  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const auto& a = as<TakeAttrs>(attrs);
    const Shape& x = inputs[0].shape();
    if (!a.axis) {
      gather(kernels[0], outputs[0], inputs[0], inputs[1], 1, x.numel(), 1);
      return;
    }
    const int axis = axis_in("axis", *a.axis, x.ndim());
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x[d];
    for (int d = axis + 1; d < x.ndim(); ++d) inner *= x[d];
    gather(kernels[0], outputs[0], inputs[0], inputs[1], outer, x[axis], inner);
  }
};

struct LutAttrs : OpAttrs {
  int64_t in_dim;
};

class CvmLutOp : public TransformOp {
 public:
  const char* name() const override { return "cvm_lut"; }
  int num_inputs() const override { return 2; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<LutAttrs>();
    a->in_dim = r.get_int("in_dim", std::nullopt);
    r.finish();
    return a;
  }
  std::vector<Shape> infer_shapes(const OpAttrs& attrs,
                                  const std::vector<Shape>& in) const override {
    const int64_t in_dim = as<LutAttrs>(attrs).in_dim;
    if (in_dim != in[1].numel()) {
      fail_attr("in_dim",
                "the table size " + std::to_string(in[1].numel()) + " (input 1 shape " +
                    in[1].str() + ")",
                std::to_string(in_dim));
    }
    verify_indexable(*this, in_dim, in[0], "input 1 (table)", in[1]);
    return {in[0]};
  }
  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>&,
                                    const std::vector<int>& precisions) const override {
    return {precisions.at(1)};
  }
  std::vector<const char*> kernel_ops() const override { return {"take"}; }
  std::vector<KernelKey> kernels(const OpAttrs&, const std::vector<DataType>& inputs,
                                 const std::vector<DataType>&) const override {
    return {{"take", elem_type_of(inputs[1])}};
  }
  // Y[i] = table_flat[clamp(data[i], 0, in_dim - 1)]: take without axis, from the table.
  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    gather(kernels[0], outputs[0], inputs[1], inputs[0], 1, as<LutAttrs>(attrs).in_dim, 1);
  }
};

// ---- where ----

class WhereOp : public TransformOp {
 public:
  const char* name() const override { return "where"; }
  int num_inputs() const override { return 3; }
  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader(name(), attrs).finish();
    return std::make_unique<NoAttrs>();
  }
  std::vector<Shape> infer_shapes(const OpAttrs&, const std::vector<Shape>& in) const override {
    const Shape &cond = in[0], &x = in[1], &y = in[2];
    VERIFY(x == y) << op_prefix(*this) << "input 2 (y) shape " << y
                   << " does not match input 1 (x) shape " << x;
    VERIFY(cond == x || (cond.ndim() == 1 && x.ndim() >= 1 && cond[0] == x[0]))
        << op_prefix(*this) << "input 0 (cond) shape " << cond << " is neither input 1 (x) shape "
        << x << " nor 1-d of length x.shape[0]";
    return {x};
  }
  std::vector<const char*> kernel_ops() const override { return {"where"}; }
  // cond != 0 ? x : y; a 1-d cond selects whole rows (broadcast along the other axes).
  void compute(const OpAttrs&, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    NDArray out = outputs[0];
    void* out_data = out.mutable_data();
    const NDArray &x = inputs[1], &y = inputs[2];
    NDArray cond = inputs[0];
    if (cond.shape() != x.shape()) {
      Shape column;
      column.resize(x.ndim(), 1);
      column[0] = x.shape()[0];
      cond = cond.reshape(column).broadcast_to(x.shape());
    }
    auto views = elementwise_views({{&out, out_data},
                                    {&cond, const_cast<void*>(cond.data())},
                                    {&x, const_cast<void*>(x.data())},
                                    {&y, const_cast<void*>(y.data())}});
    run_kernel(kernels[0], views, 1, nullptr);
  }
};

}  // namespace

void add_index_ops(OpList& ops) {
  static const TakeOp take;
  static const CvmLutOp cvm_lut;
  static const WhereOp where;
  ops.push_back(&take);
  ops.push_back(&cvm_lut);
  ops.push_back(&where);
}

}  // namespace transform
}  // namespace ops
}  // namespace cvm
