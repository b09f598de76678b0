// Operator definitions of the cvm_nn family (placeholder until the family is implemented).
#include "op_def.h"

namespace cvm {
namespace ops {

void add_cvm_nn_ops(OpList&) {}

}  // namespace ops
}  // namespace cvm
