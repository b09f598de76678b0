// Operator definitions of the cvm_reduce family (placeholder until the family is implemented).
#include "op_def.h"

namespace cvm {
namespace ops {

void add_cvm_reduce_ops(OpList&) {}

}  // namespace ops
}  // namespace cvm
