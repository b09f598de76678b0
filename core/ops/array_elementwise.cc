// The dtype-generic elementwise array operators (not CVM): NumPy-broadcasting arithmetic,
// maximum/minimum and comparisons. negative and abs are the CVM ops, which take these dtypes too.
#include "elementwise_ops.h"

namespace cvm {
namespace ops {

void add_array_elementwise_ops(OpList& ops) {
  constexpr ShapeRule kB = ShapeRule::kBroadcast;
  constexpr DtypeRule kNum = DtypeRule::kNumeric, kCmp = DtypeRule::kAnyToBool;
  static const ElementwiseOp kOps[] = {
      ElementwiseOp({"add", "add", 2, false, false, kB, kNum, nullptr}),
      ElementwiseOp({"sub", "sub", 2, false, false, kB, kNum, nullptr}),
      ElementwiseOp({"mul", "mul", 2, false, false, kB, kNum, nullptr}),
      ElementwiseOp({"div", "div", 2, false, false, kB, kNum, nullptr}),
      ElementwiseOp({"maximum", "maximum", 2, false, false, kB, kNum, nullptr}),
      ElementwiseOp({"minimum", "minimum", 2, false, false, kB, kNum, nullptr}),
      ElementwiseOp({"equal", "equal", 2, false, false, kB, kCmp, nullptr}),
      ElementwiseOp({"not_equal", "not_equal", 2, false, false, kB, kCmp, nullptr}),
      ElementwiseOp({"less", "less", 2, false, false, kB, kCmp, nullptr}),
      ElementwiseOp({"less_equal", "less_equal", 2, false, false, kB, kCmp, nullptr}),
      ElementwiseOp({"greater", "greater", 2, false, false, kB, kCmp, nullptr}),
      ElementwiseOp({"greater_equal", "greater_equal", 2, false, false, kB, kCmp, nullptr}),
  };
  for (const OpDef& op : kOps) ops.push_back(&op);
}

}  // namespace ops
}  // namespace cvm
