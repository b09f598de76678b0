// Operator definitions of the array_elementwise family (placeholder until the family is implemented).
#include "op_def.h"

namespace cvm {
namespace ops {

void add_array_elementwise_ops(OpList&) {}

}  // namespace ops
}  // namespace cvm
