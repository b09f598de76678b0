// Converts a C caller's JSON attribute object into CVM string attributes (used by CVMOpRun).
#pragma once

#include <cstddef>

#include "cvm/op.h"

namespace cvm {
namespace capi {

// Longest attrs_json text accepted, in bytes (without the terminating NUL).
constexpr size_t kMaxAttrsJsonBytes = size_t(1) << 20;

// Parses `text` (NULL or "" = no attributes; else a NUL-terminated JSON object) into CVM
// attribute text: strings pass through, integers and integral floats become decimal text,
// booleans "True"/"False", null "None", arrays of integers "(a, b)" / "(a,)" / "()".
// LogicError, prefixed with "<fn>: ", for malformed JSON (with the parser's reason), text
// longer than kMaxAttrsJsonBytes, a non-object, or a value of any other kind (naming its key).
AttrMap attrs_from_json(const char* text, const char* fn);

}  // namespace capi
}  // namespace cvm
