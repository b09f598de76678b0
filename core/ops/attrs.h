// Reading operator attributes with range checks and unknown-key detection, for the op
// definitions: CVM attribute text ("(3, 3)", "True", "None", "10") is parsed, typed values
// (AttrValue from the C ABI's JSON) are taken as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cvm/op.h"

namespace cvm {
namespace ops {

// Reads one op instance's attributes. Each getter marks its key as known; finish() rejects
// any key that no getter asked for (keys of the form __x__ are ignored, as in CVM).
// Every error is a LogicError: op "conv2d": attribute "strides": expected ..., found "...";
// a typed value of the wrong kind is shown as its text() form.
class AttrReader {
 public:
  AttrReader(const char* op, const AttrMap& attrs) : op_(op), attrs_(attrs) {}

  // Integer in [lo, hi]; `fallback` when absent (nullopt: required).
  int64_t get_int(const std::string& key, std::optional<int64_t> fallback, int64_t lo = 0,
                  int64_t hi = 4096);
  // Tuple of integers, each in [lo, hi]; `fallback` when absent (nullopt: required). A single
  // integer is a 1-tuple.
  std::vector<int64_t> get_tuple(const std::string& key,
                                 std::optional<std::vector<int64_t>> fallback,
                                 int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);
  // Tuple that may also be "None" (returns nullopt for None, or when absent and no fallback).
  std::optional<std::vector<int64_t>> get_optional_tuple(const std::string& key, int64_t lo,
                                                         int64_t hi);
  // Integer that may be "None" or absent (nullopt).
  std::optional<int64_t> get_optional_int(const std::string& key, int64_t lo, int64_t hi);
  // A bool, or the integer 0 or 1.
  bool get_bool(const std::string& key, std::optional<bool> fallback);
  // The value as text (a typed value's text() form).
  std::string get_string(const std::string& key, std::optional<std::string> fallback);
  // Accepts and ignores the key (attributes the spec says are ignored).
  void ignore(const std::string& key);
  // LogicError naming the first attribute no getter asked for.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const std::string& found) const;

 private:
  const AttrValue* find(const std::string& key);
  const char* op_;
  const AttrMap& attrs_;
  std::set<std::string> known_;
};

// The raw parsers, exposed for tests: LogicError on malformed text (message without context).
int64_t parse_int_text(const std::string& text);
std::vector<int64_t> parse_tuple_text(const std::string& text);
bool parse_bool_text(const std::string& text);

}  // namespace ops
}  // namespace cvm
