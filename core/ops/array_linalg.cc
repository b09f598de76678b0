// Operator definitions of the array_linalg family (placeholder until the family is implemented).
#include "op_def.h"

namespace cvm {
namespace ops {

void add_array_linalg_ops(OpList&) {}

}  // namespace ops
}  // namespace cvm
