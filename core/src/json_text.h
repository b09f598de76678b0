// The core's own JSON: a parsed document for the CVM graph importer and the C ABI's attrs_json,
// and the writing helpers for the JSON the core emits (strict RFC 8259, UTF-8 checked).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cvm {
namespace json {

// One JSON value. Numbers keep the kind their text had: an integer literal is kInteger (or
// kUnsigned above INT64_MAX, within uint64), anything else or an integer beyond those is kFloat.
// An object's members are sorted by key (byte-wise) with one member per key: a repeated key
// keeps its last value.
class Value {
 public:
  enum class Kind : uint8_t {
    kNull, kBoolean, kInteger, kUnsigned, kFloat, kString, kArray, kObject
  };

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_boolean() const { return kind_ == Kind::kBoolean; }
  bool is_number() const {
    return kind_ == Kind::kInteger || kind_ == Kind::kUnsigned || kind_ == Kind::kFloat;
  }
  bool is_float() const { return kind_ == Kind::kFloat; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }
  bool is_structured() const { return is_array() || is_object(); }
  // "null", "boolean", "number", "string", "array" or "object".
  const char* type_name() const;

  bool boolean() const { return boolean_; }
  // An integer literal within int64 into *out; false for every other value.
  bool integer(int64_t* out) const;
  // A number as a double (integers rounded to nearest).
  double number() const;
  const std::string& string() const { return text_; }

  // Array elements or object values, in order; object keys, sorted, one per value.
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const Value& operator[](size_t i) const { return items_[i]; }
  const std::vector<std::string>& keys() const { return keys_; }
  // The object member `key`, or null (for every non-object too).
  const Value* find(std::string_view key) const;

  // JSON text of a scalar: null, true, false, a number (a float the shortest text that reads
  // back the same, with ".0" when it has no fraction), a string quoted. Containers: "[...]" or
  // "{...}" (messages never recurse).
  std::string brief_text() const;

 private:
  friend class Parser;
  Kind kind_ = Kind::kNull;
  bool boolean_ = false;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double float_ = 0;
  std::string text_;               // a string's value
  std::vector<Value> items_;       // array elements or object values
  std::vector<std::string> keys_;  // object keys
};

// Thrown by parse: what is wrong and the byte offset, e.g. "syntax error at byte 7: expected
// ':' after an object key" or "number overflow parsing '3e333'".
class ParseError : public std::exception {
 public:
  explicit ParseError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// The one JSON value `text` holds (whitespace around it allowed, nothing else after it).
// Strings must be valid UTF-8; \u escapes must pair surrogates. Arrays and objects may nest at
// most max_depth deep (the parser recurses once per level).
Value parse(std::string_view text, int max_depth);

// JSON text built value by value, compact, members in the order given: open('{').key("a")
// .integer(1).close('}') is {"a":1}. A string that is not valid UTF-8 is written as "" and
// clears ok(): check it before using the text.
class Writer {
 public:
  Writer& open(char bracket);  // '{' or '['
  Writer& close(char bracket);
  Writer& key(std::string_view k);
  Writer& string(std::string_view s);
  Writer& integer(int64_t v);
  Writer& number(double v);  // as number_text
  Writer& boolean(bool b);
  Writer& strings(const std::vector<std::string>& list);  // an array of strings

  bool ok() const { return ok_; }
  const std::string& text() const { return out_; }

 private:
  void separate();  // the ',' before a value or key that is not its container's first

  std::string out_;
  bool first_ = true;  // nothing written yet in the open container (or a key was just written)
  bool ok_ = true;
};

// `s` as a JSON string literal (quotes, \" \\ \b \f \n \r \t, \u00XX for other control bytes,
// everything else as it is); false when `s` is not valid UTF-8 (nothing appended then).
bool append_quoted(std::string& out, std::string_view s);
// A finite double as the shortest decimal text that reads back the same (".0" added when it
// would read as an integer); "null" for NaN and infinities.
std::string number_text(double v);

}  // namespace json
}  // namespace cvm
