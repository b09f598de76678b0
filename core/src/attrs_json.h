// Converts a C caller's JSON attribute object into typed operator attributes (used by CVMOpRun
// and CVMOpInfer; implemented in c_api_ops.cc).
#pragma once

#include <cstddef>

#include "cvm/op.h"

namespace cvm {
namespace capi {

// Longest attrs_json text accepted, in bytes (without the terminating NUL).
constexpr size_t kMaxAttrsJsonBytes = size_t(1) << 20;

// Parses `text` (NULL or "" = no attributes; else a NUL-terminated JSON object) into attribute
// values, typed, without formatting any text: a string is CVM attribute text (passed through),
// an integer or an integral float is AttrValue::integer, a boolean AttrValue::boolean, null
// AttrValue::none(), an array of integers (integral floats included) AttrValue::tuple.
// LogicError, prefixed with "<fn>: ", for malformed JSON (with the parser's reason), text
// longer than kMaxAttrsJsonBytes, a non-object, or a value of any other kind (naming its key).
AttrMap attrs_from_json(const char* text, const char* fn);

}  // namespace capi
}  // namespace cvm
