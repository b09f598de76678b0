// CVM attribute text parsers and the AttrReader that validates an op's attributes (text or
// typed AttrValues).
#include "attrs.h"

#include <cctype>

#include "cvm/check.h"

namespace cvm {
namespace ops {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string join(const std::vector<int64_t>& v) {
  detail::MessageStream os;  // ostream formatting without iostreams
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ")";
  return os.str();
}

using Kind = AttrValue::Kind;

// A value of the wrong kind, as messages show it: its text form, quoted.
std::string quoted(const AttrValue& v) { return "\"" + v.text() + "\""; }

// Typed None, or the text "None" in any case.
bool is_none(const AttrValue& v) {
  return v.kind() == Kind::kNone || (v.is_text() && lower(trim(v.as_text())) == "none");
}

}  // namespace

int64_t parse_int_text(const std::string& raw) {
  std::string s = trim(raw);
  if (!s.empty() && (s.back() == 'L' || s.back() == 'l')) s.pop_back();  // Python 2 longs
  VERIFY(!s.empty()) << "empty integer";
  size_t i = 0;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  VERIFY(i < s.size()) << "not an integer: \"" << raw << "\"";
  uint64_t mag = 0;
  for (; i < s.size(); ++i) {
    VERIFY(std::isdigit(static_cast<unsigned char>(s[i]))) << "not an integer: \"" << raw << "\"";
    uint64_t d = static_cast<uint64_t>(s[i] - '0');
    VERIFY(mag <= (UINT64_MAX - d) / 10) << "integer out of range: \"" << raw << "\"";
    mag = mag * 10 + d;
  }
  VERIFY(mag <= (neg ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX)))
      << "integer out of range: \"" << raw << "\"";
  return neg ? static_cast<int64_t>(uint64_t(0) - mag) : static_cast<int64_t>(mag);
}

std::vector<int64_t> parse_tuple_text(const std::string& raw) {
  std::string s = trim(raw);
  VERIFY(!s.empty()) << "empty tuple";
  if (s.front() == '(' || s.front() == '[') {
    char close = s.front() == '(' ? ')' : ']';
    VERIFY(s.size() >= 2 && s.back() == close) << "unbalanced brackets in \"" << raw << "\"";
    s = trim(s.substr(1, s.size() - 2));
    std::vector<int64_t> out;
    if (s.empty()) return out;
    size_t start = 0;
    while (start <= s.size()) {
      size_t comma = s.find(',', start);
      std::string item = trim(s.substr(start, comma == std::string::npos ? std::string::npos
                                                                          : comma - start));
      if (item.empty()) {
        // A trailing comma, as in "(3,)", is allowed; an empty item elsewhere is not.
        VERIFY(comma == std::string::npos && !out.empty()) << "empty item in \"" << raw << "\"";
        break;
      }
      out.push_back(parse_int_text(item));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return out;
  }
  return {parse_int_text(s)};
}

bool parse_bool_text(const std::string& raw) {
  std::string s = lower(trim(raw));
  if (s == "true" || s == "1") return true;
  if (s == "false" || s == "0") return false;
  CVM_LOGIC_ERROR() << "not a bool: \"" << raw << "\"";
}

const AttrValue* AttrReader::find(const std::string& key) {
  known_.insert(key);
  auto it = attrs_.find(key);
  return it == attrs_.end() ? nullptr : &it->second;
}

void AttrReader::fail(const std::string& key, const std::string& expected,
                      const std::string& found) const {
  CVM_LOGIC_ERROR() << "op \"" << op_ << "\": attribute \"" << key << "\": expected " << expected
                    << ", found " << found;
}

int64_t AttrReader::get_int(const std::string& key, std::optional<int64_t> fallback, int64_t lo,
                            int64_t hi) {
  const AttrValue* v = find(key);
  std::string range = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (v == nullptr) {
    if (!fallback) fail(key, range, "nothing (it is required)");
    return *fallback;
  }
  int64_t x;
  if (v->kind() == Kind::kInt) {
    x = v->as_int();
  } else if (v->is_text()) {
    try {
      x = parse_int_text(v->as_text());
    } catch (const LogicError&) {
      fail(key, range, "\"" + v->as_text() + "\"");
    }
  } else {
    fail(key, range, quoted(*v));
  }
  if (x < lo || x > hi) fail(key, range, std::to_string(x));
  return x;
}

std::optional<int64_t> AttrReader::get_optional_int(const std::string& key, int64_t lo,
                                                    int64_t hi) {
  const AttrValue* v = find(key);
  if (v == nullptr || is_none(*v)) return std::nullopt;
  known_.erase(key);
  int64_t x = get_int(key, std::nullopt, lo, hi);
  return x;
}

std::vector<int64_t> AttrReader::get_tuple(const std::string& key,
                                           std::optional<std::vector<int64_t>> fallback,
                                           int64_t lo, int64_t hi) {
  const AttrValue* v = find(key);
  if (v == nullptr) {
    if (!fallback) fail(key, "a tuple", "nothing (it is required)");
    return *fallback;
  }
  std::vector<int64_t> t;
  if (v->kind() == Kind::kTuple) {
    t = v->as_tuple();
  } else if (v->kind() == Kind::kInt) {
    t = {v->as_int()};  // as the text form "5" reads
  } else if (v->is_text()) {
    try {
      t = parse_tuple_text(v->as_text());
    } catch (const LogicError& e) {
      fail(key, "a tuple such as (1, 2)", "\"" + v->as_text() + "\" (" + e.what() + ")");
    }
  } else {
    fail(key, "a tuple such as (1, 2)", quoted(*v));
  }
  for (int64_t x : t) {
    if (x < lo || x > hi) {
      fail(key, "values in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", join(t));
    }
  }
  return t;
}

std::optional<std::vector<int64_t>> AttrReader::get_optional_tuple(const std::string& key,
                                                                   int64_t lo, int64_t hi) {
  const AttrValue* v = find(key);
  if (v == nullptr || is_none(*v)) return std::nullopt;
  return get_tuple(key, std::nullopt, lo, hi);
}

bool AttrReader::get_bool(const std::string& key, std::optional<bool> fallback) {
  const AttrValue* v = find(key);
  if (v == nullptr) {
    if (!fallback) fail(key, "a bool", "nothing (it is required)");
    return *fallback;
  }
  if (v->kind() == Kind::kBool) return v->as_bool();
  // The integers 0 and 1 are bools, as their text forms "0" and "1" are.
  if (v->kind() == Kind::kInt && (v->as_int() == 0 || v->as_int() == 1)) return v->as_int() == 1;
  if (!v->is_text()) fail(key, "a bool (true/false/1/0)", quoted(*v));
  try {
    return parse_bool_text(v->as_text());
  } catch (const LogicError&) {
    fail(key, "a bool (true/false/1/0)", "\"" + v->as_text() + "\"");
  }
}

std::string AttrReader::get_string(const std::string& key, std::optional<std::string> fallback) {
  const AttrValue* v = find(key);
  if (v == nullptr) {
    if (!fallback) fail(key, "a string", "nothing (it is required)");
    return *fallback;
  }
  return v->text();
}

void AttrReader::ignore(const std::string& key) { known_.insert(key); }

void AttrReader::finish() const {
  for (const auto& [key, value] : attrs_) {
    if (known_.count(key)) continue;
    if (key.size() >= 4 && key.compare(0, 2, "__") == 0 && key.compare(key.size() - 2, 2, "__") == 0)
      continue;
    CVM_LOGIC_ERROR() << "op \"" << op_ << "\": unknown attribute \"" << key << "\"";
  }
}

}  // namespace ops
}  // namespace cvm
