// Import of a CVM graph JSON (spec section 3) into the graph IR, verified.
#pragma once

#include <string>

#include "cvm/model.h"
#include "graph.h"

namespace cvm {
namespace graph {

struct CvmJsonImport {
  Graph graph;
  ModelCost cost;
  uint64_t storage_id_bytes = 0;  // CVM's storage pool size from the storage_id attribute
};

// Parses and verifies `text`, trailing NUL bytes ignored (every rule of spec sections 3 and 4
// except params and the planned-memory limit; the storage_id pool is checked against
// limits.max_storage_bytes). LogicError for any violation.
CvmJsonImport import_cvm_json(const std::string& text, const ModelLimits& limits);

// Greatest nesting depth of arrays and objects accepted in a JSON text (also for the
// op_attrs strings): a graph needs 4, real files stay far below this.
constexpr int kMaxJsonDepth = 64;

}  // namespace graph
}  // namespace cvm
