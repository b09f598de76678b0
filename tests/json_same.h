// The core's parsed JSON (core/src/json_text.h) compared with nlohmann::json's reading of the
// same text: the JSON unit test's and the fuzz_json target's one notion of "the same value".
#pragma once

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "json_text.h"

namespace cvm_test {

// Whether our value equals nlohmann's: same kind, same numbers (integers exactly, floats bit
// for bit), same strings, arrays in order, objects with the same keys in byte order.
inline bool same_json(const cvm::json::Value& v, const nlohmann::json& n) {
  using Kind = cvm::json::Value::Kind;
  switch (v.kind()) {
    case Kind::kNull: return n.is_null();
    case Kind::kBoolean: return n.is_boolean() && n.get<bool>() == v.boolean();
    case Kind::kInteger: {
      int64_t i = 0;
      v.integer(&i);
      return n.is_number_integer() && n.get<int64_t>() == i &&
             (i < 0 || n.get<uint64_t>() == static_cast<uint64_t>(i));
    }
    case Kind::kUnsigned:
      return n.is_number_unsigned() && n.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) &&
             static_cast<double>(n.get<uint64_t>()) == v.number();
    case Kind::kFloat: {
      if (!n.is_number_float()) return false;
      const double a = v.number(), b = n.get<double>();
      return std::memcmp(&a, &b, sizeof a) == 0;
    }
    case Kind::kString: return n.is_string() && n.get<std::string>() == v.string();
    case Kind::kArray:
      if (!n.is_array() || n.size() != v.size()) return false;
      for (size_t i = 0; i < v.size(); ++i) {
        if (!same_json(v[i], n[i])) return false;
      }
      return true;
    case Kind::kObject: {
      if (!n.is_object() || n.size() != v.size()) return false;
      size_t i = 0;
      for (const auto& item : n.items()) {  // std::map: byte order like ours
        if (item.key() != v.keys()[i] || !same_json(v[i], item.value())) return false;
        ++i;
      }
      return true;
    }
  }
  return false;
}

}  // namespace cvm_test
