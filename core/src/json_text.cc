// The core's JSON parser and writing helpers (json_text.h): RFC 8259, strings checked as UTF-8.
#include "json_text.h"

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace cvm {
namespace json {
namespace {

// RFC 8259's escapes of one letter (besides \/, read but never written, and \u): the letter
// after the backslash and the byte it stands for.
constexpr char kEscapes[][2] = {{'"', '"'},  {'\\', '\\'}, {'b', '\b'}, {'f', '\f'},
                                {'n', '\n'}, {'r', '\r'},   {'t', '\t'}};

// Bytes of the UTF-8 sequence starting at p (RFC 3629: no overlong forms, no surrogates, nothing
// past U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_length(const unsigned char* p, size_t avail) {
  const unsigned char b = p[0];
  if (b < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b >= 0xC2 && b <= 0xDF) {
    len = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    len = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    len = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (avail < len || p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < len; ++i) {
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  }
  return len;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// strtod of a JSON number's text, whatever decimal point setlocale(LC_NUMERIC) chose.
double read_double(std::string_view token) {
  std::string text(token);
  const char* point = std::localeconv()->decimal_point;
  if (point != nullptr && point[0] != '\0' && std::strcmp(point, ".") != 0) {
    const size_t dot = text.find('.');
    if (dot != std::string::npos) text.replace(dot, 1, point);
  }
  return std::strtod(text.c_str(), nullptr);
}

}  // namespace

const char* Value::type_name() const {
  switch (kind_) {
    case Kind::kNull: return "null";
    case Kind::kBoolean: return "boolean";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
    default: return "number";
  }
}

bool Value::integer(int64_t* out) const {
  if (kind_ != Kind::kInteger) return false;
  *out = int_;
  return true;
}

double Value::number() const {
  if (kind_ == Kind::kInteger) return static_cast<double>(int_);
  if (kind_ == Kind::kUnsigned) return static_cast<double>(uint_);
  return float_;
}

const Value* Value::find(std::string_view key) const {
  if (kind_ != Kind::kObject) return nullptr;
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key,
                             [](const std::string& k, std::string_view x) { return k < x; });
  return it != keys_.end() && *it == key ? &items_[static_cast<size_t>(it - keys_.begin())]
                                         : nullptr;
}

std::string Value::brief_text() const {
  switch (kind_) {
    case Kind::kNull: return "null";
    case Kind::kBoolean: return boolean_ ? "true" : "false";
    case Kind::kInteger: return std::to_string(int_);
    case Kind::kUnsigned: return std::to_string(uint_);
    case Kind::kFloat: return number_text(float_);
    case Kind::kArray: return "[...]";
    case Kind::kObject: return "{...}";
    case Kind::kString: break;
  }
  std::string out;
  if (!append_quoted(out, text_)) out = "\"<not UTF-8>\"";  // the parser never makes one
  return out;
}

// Recursive descent over the text, one C++ frame per nesting level (bounded by max_depth).
class Parser {
 public:
  Parser(std::string_view text, int max_depth) : s_(text), max_depth_(max_depth) {}

  Value run() {
    Value v;
    skip_space();
    value(v, 0);
    skip_space();
    if (at_ != s_.size()) fail("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw ParseError("syntax error at byte " + std::to_string(at_) + ": " + what);
  }

  unsigned char peek() const { return static_cast<unsigned char>(s_[at_]); }

  void skip_space() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\r' ||
                               s_[at_] == '\t')) {
      ++at_;
    }
  }

  // Consumes `c` after whitespace when it is next.
  bool take(char c) {
    skip_space();
    if (at_ >= s_.size() || s_[at_] != c) return false;
    ++at_;
    return true;
  }

  // Consumes `c` (after whitespace) or fails with `what`.
  void expect(char c, const char* what) {
    if (!take(c)) fail(what);
  }

  void value(Value& v, int depth) {
    if (at_ >= s_.size()) fail("unexpected end of the text, expected a value");
    switch (s_[at_]) {
      case '{': return object(v, depth + 1);
      case '[': return array(v, depth + 1);
      case '"':
        v.kind_ = Value::Kind::kString;
        return string(v.text_);
      case 't': return literal(v, "true", Value::Kind::kBoolean, true);
      case 'f': return literal(v, "false", Value::Kind::kBoolean, false);
      case 'n': return literal(v, "null", Value::Kind::kNull, false);
      default:
        if (s_[at_] == '-' || (s_[at_] >= '0' && s_[at_] <= '9')) return number(v);
        fail("expected a value");
    }
  }

  void enter(int depth) const {
    if (depth > max_depth_) {
      throw ParseError("nesting deeper than " + std::to_string(max_depth_) + " levels at byte " +
                       std::to_string(at_));
    }
  }

  void literal(Value& v, std::string_view word, Value::Kind kind, bool b) {
    if (s_.compare(at_, word.size(), word) != 0) fail("invalid literal");
    at_ += word.size();
    v.kind_ = kind;
    v.boolean_ = b;
  }

  // After a container's item: false at its `close`, true past a ',', else fails with `what`.
  bool more_items(char close, const char* what) {
    if (take(close)) return false;
    expect(',', what);
    return true;
  }

  void array(Value& v, int depth) {
    enter(depth);
    ++at_;  // '['
    v.kind_ = Value::Kind::kArray;
    if (take(']')) return;
    do {
      skip_space();
      v.items_.emplace_back();
      value(v.items_.back(), depth);
    } while (more_items(']', "expected ',' or ']' in an array"));
  }

  void object(Value& v, int depth) {
    enter(depth);
    ++at_;  // '{'
    v.kind_ = Value::Kind::kObject;
    if (take('}')) return;
    std::vector<std::string> keys;
    std::vector<Value> values;
    do {
      skip_space();
      if (at_ >= s_.size() || s_[at_] != '"') fail("expected a string as an object key");
      keys.emplace_back();
      string(keys.back());
      expect(':', "expected ':' after an object key");
      skip_space();
      values.emplace_back();
      value(values.back(), depth);
    } while (more_items('}', "expected ',' or '}' in an object"));
    // Sorted by key; of a repeated key the last value (the stable sort keeps text order).
    std::vector<size_t> order(keys.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    for (size_t i = 0; i < order.size(); ++i) {
      if (i + 1 < order.size() && keys[order[i + 1]] == keys[order[i]]) continue;
      v.keys_.push_back(std::move(keys[order[i]]));
      v.items_.push_back(std::move(values[order[i]]));
    }
  }

  uint32_t hex4() {
    if (s_.size() - at_ < 4) fail("expected four hex digits after \\u");
    uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[at_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') {
        cp |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        cp |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        cp |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        --at_;
        fail("expected four hex digits after \\u");
      }
    }
    return cp;
  }

  void string(std::string& out) {
    ++at_;  // '"'
    while (true) {
      const size_t run = at_;
      while (at_ < s_.size() && peek() >= 0x20 && peek() < 0x80 && s_[at_] != '"' &&
             s_[at_] != '\\') {
        ++at_;
      }
      out.append(s_.data() + run, at_ - run);
      if (at_ >= s_.size()) fail("unterminated string");
      const unsigned char c = peek();
      if (c == '"') {
        ++at_;
        return;
      }
      if (c < 0x20) fail("control character in a string (it must be escaped)");
      if (c >= 0x80) {
        const size_t len = utf8_length(reinterpret_cast<const unsigned char*>(s_.data()) + at_,
                                       s_.size() - at_);
        if (len == 0) fail("a string is not valid UTF-8");
        out.append(s_.data() + at_, len);
        at_ += len;
        continue;
      }
      escape(out);
    }
  }

  void escape(std::string& out) {
    ++at_;  // '\\'
    if (at_ >= s_.size()) fail("unterminated string");
    const char c = s_[at_++];
    if (c == '/') {
      out += '/';
      return;
    }
    for (const auto& e : kEscapes) {
      if (e[0] == c) {
        out += e[1];
        return;
      }
    }
    if (c != 'u') {
      --at_;
      fail("invalid escape in a string");
    }
    uint32_t cp = hex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail("\\u escape of a low surrogate without a high one");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (s_.compare(at_, 2, "\\u") != 0) fail("\\u escape of a high surrogate without a low one");
      at_ += 2;
      const uint32_t low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) {
        fail("\\u escape of a high surrogate without a low one");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, cp);
  }

  void digits(const char* what) {
    if (at_ >= s_.size() || s_[at_] < '0' || s_[at_] > '9') fail(what);
    while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
  }

  void number(Value& v) {
    const size_t start = at_;
    const bool negative = s_[at_] == '-';
    if (negative) ++at_;
    if (at_ < s_.size() && s_[at_] == '0') {
      ++at_;
    } else {
      digits("expected a digit");
    }
    bool integral = true;
    if (at_ < s_.size() && s_[at_] == '.') {
      ++at_;
      digits("expected a digit after '.'");
      integral = false;
    }
    if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      ++at_;
      if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
      digits("expected a digit in the exponent");
      integral = false;
    }
    const std::string_view token = s_.substr(start, at_ - start);
    if (integral) {
      uint64_t magnitude = 0;
      bool fits = true;
      for (char c : token.substr(negative ? 1 : 0)) {
        const uint64_t d = static_cast<uint64_t>(c - '0');
        if (magnitude > (UINT64_MAX - d) / 10) {
          fits = false;
          break;
        }
        magnitude = magnitude * 10 + d;
      }
      if (fits && !negative && magnitude > static_cast<uint64_t>(INT64_MAX)) {
        v.kind_ = Value::Kind::kUnsigned;
        v.uint_ = magnitude;
        return;
      }
      if (fits && magnitude <= static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0)) {
        v.kind_ = Value::Kind::kInteger;
        v.int_ = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
        return;
      }
    }
    // A fraction, an exponent or an integer beyond int64 / uint64: a double.
    v.kind_ = Value::Kind::kFloat;
    v.float_ = read_double(token);
    if (!std::isfinite(v.float_)) {
      throw ParseError("number overflow parsing '" + std::string(token) + "'");
    }
  }

  std::string_view s_;
  size_t at_ = 0;
  int max_depth_;
};

Value parse(std::string_view text, int max_depth) { return Parser(text, max_depth).run(); }

bool append_quoted(std::string& out, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_length(p + i, s.size() - i);
    if (len == 0) return false;
    i += len;
  }
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const char* letter = nullptr;
    for (const auto& e : kEscapes) {
      if (e[1] == ch) letter = &e[0];
    }
    if (letter != nullptr) {
      out += '\\';
      out += *letter;
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
  return true;
}

void Writer::separate() {
  if (!first_) out_ += ',';
  first_ = false;
}

Writer& Writer::open(char bracket) {
  separate();
  out_ += bracket;
  first_ = true;
  return *this;
}

Writer& Writer::close(char bracket) {
  out_ += bracket;
  first_ = false;
  return *this;
}

Writer& Writer::key(std::string_view k) {
  string(k);
  out_ += ':';
  first_ = true;
  return *this;
}

Writer& Writer::string(std::string_view s) {
  separate();
  if (!append_quoted(out_, s)) {
    out_ += "\"\"";
    ok_ = false;
  }
  return *this;
}

Writer& Writer::integer(int64_t v) {
  separate();
  out_ += std::to_string(v);
  return *this;
}

Writer& Writer::number(double v) {
  separate();
  out_ += number_text(v);
  return *this;
}

Writer& Writer::boolean(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

Writer& Writer::strings(const std::vector<std::string>& list) {
  open('[');
  for (const std::string& s : list) string(s);
  return close(']');
}

std::string number_text(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;  // both in the current locale
  }
  std::string text(buf);
  const char* point = std::localeconv()->decimal_point;
  if (point != nullptr && point[0] != '\0' && std::strcmp(point, ".") != 0) {
    const size_t at = text.find(point);
    if (at != std::string::npos) text.replace(at, std::strlen(point), ".");
  }
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

}  // namespace json
}  // namespace cvm
