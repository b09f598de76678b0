// The CVM broadcast operators (spec section 5): NumPy-broadcasting int32 arithmetic, max, div
// and greater, each run by the dtype-generic kernel of the matching array op.
#include "elementwise_ops.h"

namespace cvm {
namespace ops {

void add_cvm_broadcast_ops(OpList& ops) {
  using S = ShapeRule;
  using D = DtypeRule;
  static const ElementwiseOp kOps[] = {
      ElementwiseOp({"broadcast_add", "add", 2, true, false, S::kBroadcast, D::kInt32,
                     precision_max_plus_one}),
      ElementwiseOp({"broadcast_sub", "sub", 2, true, false, S::kBroadcast, D::kInt32,
                     precision_max_plus_one}),
      ElementwiseOp(
          {"broadcast_mul", "mul", 2, true, false, S::kBroadcast, D::kInt32, precision_sum}),
      ElementwiseOp(
          {"broadcast_max", "maximum", 2, true, false, S::kBroadcast, D::kInt32, precision_max}),
      ElementwiseOp(
          {"broadcast_div", "div", 2, true, false, S::kBroadcast, D::kInt32, precision_p0}),
      // The "greater" kernel writes int32 0/1 here because the output is int32.
      ElementwiseOp(
          {"broadcast_greater", "greater", 2, true, false, S::kBroadcast, D::kInt32, precision_p0}),
  };
  for (const OpDef& op : kOps) ops.push_back(&op);
}

}  // namespace ops
}  // namespace cvm
