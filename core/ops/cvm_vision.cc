// Operator definitions of the cvm_vision family: get_valid_counts, non_max_suppression (spec §5).
#include <climits>
#include <optional>
#include <string>

#include "attrs.h"
#include "kernel_views.h"
#include "op_def.h"
#include "precision.h"
#include "params/vision.h"
#include "registry_internal.h"

namespace cvm {
namespace ops {
namespace {

void verify_3d(const OpDef& op, const char* input, const Shape& s, const char* dims) {
  s.numel();  // LogicError on negative extents or an element count overflow
  VERIFY(s.ndim() == 3) << op_prefix(op) << input << " shape " << s << " must be 3-D " << dims;
}

// ---------------------------------------------------------------------------------------------
// get_valid_counts: outputs (valid_count (B), rows (B, N, K)).

struct GetValidCountsAttrs : OpAttrs {
  kernel::GetValidCountsParams params{};
};

class GetValidCountsOp : public OpDef {
 public:
  const char* name() const override { return "get_valid_counts"; }
  int num_inputs() const override { return 1; }
  int num_outputs() const override { return 2; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<GetValidCountsAttrs>();
    a->params.score_threshold =
        static_cast<int32_t>(r.get_int("score_threshold", 0, INT32_MIN, INT32_MAX));
    r.finish();
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs&, const std::vector<Shape>& in) const override {
    const Shape& x = in[0];
    verify_3d(*this, "data", x, "(B, N, K)");
    VERIFY(x[2] >= 2 && x[2] < 32) << op_prefix(*this) << "data shape " << x
                                   << ": K (the row length) must be in [2, 31], found " << x[2];
    return {Shape{x[0]}, x};
  }

  // Output 0 counts rows: NP(N * K) (spec §5, literally); output 1 holds input values.
  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>& shapes,
                                    const std::vector<int>& p) const override {
    const Shape& x = shapes[0];
    int64_t row_cells = checked_mul(x[1], x[2], "get_valid_counts N * K");
    return {number_precision(static_cast<uint64_t>(row_cells)), p[0]};
  }

  // Cost base 1 (default), applied to output 0 of shape (B,): a quirk of the reference.

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    const auto& a = static_cast<const GetValidCountsAttrs&>(attrs);
    run_kernel(kernels[0], plain_views(outputs, inputs), 2, &a.params);
  }
};

// ---------------------------------------------------------------------------------------------
// non_max_suppression: inputs (data (B, N, 6), valid_count (B)).

struct NmsAttrs : OpAttrs {
  kernel::NmsParams params{};
};

class NmsOp : public OpDef {
 public:
  const char* name() const override { return "non_max_suppression"; }
  int num_inputs() const override { return 2; }

  std::unique_ptr<OpAttrs> parse(const AttrMap& attrs) const override {
    AttrReader r(name(), attrs);
    auto a = std::make_unique<NmsAttrs>();
    kernel::NmsParams& p = a->params;
    p.iou_threshold = r.get_int("iou_threshold", 50, 1, INT32_MAX);
    p.force_suppress = r.get_bool("force_suppress", false) ? 1 : 0;
    p.top_k = static_cast<int32_t>(r.get_int("top_k", -1, INT32_MIN, INT32_MAX));
    p.max_output_size =
        static_cast<int32_t>(r.get_int("max_output_size", -1, INT32_MIN, INT32_MAX));
    // Only the reference's fixed layout and output form are supported.
    if (r.get_bool("return_indices", false)) r.fail("return_indices", "false", "true");
    if (!r.get_bool("invalid_to_bottom", true)) r.fail("invalid_to_bottom", "true", "false");
    for (auto [key, value] :
         {std::pair<const char*, int64_t>{"coord_start", 2}, {"score_index", 1}, {"id_index", 0}}) {
      int64_t v = r.get_int(key, value, INT64_MIN, INT64_MAX);
      if (v != value) r.fail(key, std::to_string(value), std::to_string(v));
    }
    r.finish();
    return a;
  }

  std::vector<Shape> infer_shapes(const OpAttrs&, const std::vector<Shape>& in) const override {
    const Shape &data = in[0], &count = in[1];
    verify_3d(*this, "data", data, "(B, N, 6)");
    VERIFY(data[2] == 6) << op_prefix(*this) << "data shape " << data
                         << " must have rows of 6 values [id, score, x1, y1, x2, y2]";
    VERIFY(data[1] <= INT32_MAX) << op_prefix(*this) << "data shape " << data << " has more than "
                                 << INT32_MAX << " boxes per batch";
    VERIFY(count.ndim() == 1 && count[0] == data[0])
        << op_prefix(*this) << "valid_count shape " << count << " does not match data shape "
        << data << ": expected (" << data[0] << ")";
    return {data};
  }

  std::vector<int> infer_precisions(const OpAttrs&, const std::vector<Shape>&,
                                    const std::vector<int>& p) const override {
    return {p[0]};
  }

  int64_t cost_base(const OpAttrs&, const std::vector<Shape>& shapes) const override {
    return checked_mul(shapes[0][0], 20, "non_max_suppression cost");
  }

  void compute(const OpAttrs& attrs, const std::vector<NDArray>& inputs,
               const std::vector<NDArray>& outputs, const NodeKernels& kernels) const override {
    // The kernel sorts box indices in caller-owned scratch (kernels never allocate).
    NDArray order = NDArray::empty(Shape{inputs[0].shape()[1]}, DataType::Int(32),
                                    inputs[0].device());
    kernel::NmsParams params = static_cast<const NmsAttrs&>(attrs).params;
    params.order = order.mutable_data_as<int32_t>();
    run_kernel(kernels[0], plain_views(outputs, inputs), 1, &params);
  }
};

}  // namespace

void add_cvm_vision_ops(OpList& ops) {
  static const GetValidCountsOp get_valid_counts;
  static const NmsOp non_max_suppression;
  ops.insert(ops.end(), {&get_valid_counts, &non_max_suppression});
}

}  // namespace ops
}  // namespace cvm
