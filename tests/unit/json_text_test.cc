// The core's JSON (json_text.h) against nlohmann::json, an independent RFC 8259 parser: the same
// texts accepted, the same values read, and what the writer emits read back unchanged.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "json_same.h"
#include "json_text.h"

using cvm::json::Value;
using Catch::Matchers::Contains;

namespace {

constexpr int kDepth = 64;

// Parses `text` both ways: both accept it with the same value, or both reject it.
void agree(const std::string& text) {
  INFO("text: " << text);
  bool theirs_ok = true, ours_ok = true;
  nlohmann::json theirs;
  Value ours;
  try {
    theirs = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    theirs_ok = false;
  }
  std::string error;
  try {
    ours = cvm::json::parse(text, kDepth);
  } catch (const cvm::json::ParseError& e) {
    ours_ok = false;
    error = e.what();
  }
  INFO("our error: " << error);
  REQUIRE(ours_ok == theirs_ok);
  if (ours_ok) CHECK(cvm_test::same_json(ours, theirs));
}

std::string error_of(const std::string& text) {
  try {
    cvm::json::parse(text, kDepth);
  } catch (const cvm::json::ParseError& e) {
    return e.what();
  }
  return "(accepted)";
}

// A random JSON document of at most `depth` levels, with the spellings the grammar allows.
std::string random_document(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  static const char* const kScalars[] = {
      "0", "-0", "7", "-12", "3.25", "-0.5e-3", "1E+2", "2e400", "1e-400", "9223372036854775807",
      "-9223372036854775808", "9223372036854775808", "18446744073709551615",
      "18446744073709551616", "-9223372036854775809", "true", "false", "null", "\"\"",
      "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"\\u00e9\\u20AC\\ud83d\\ude00\"",
      "\"\xc3\xa9\xe2\x82\xac\"",
      "\"\xf0\x9f\x98\x80\"", "\"\\u0000x\""};
  const int kind = depth > 0 ? pick(4) : 3;
  auto space = [&] { return std::string(" \t\n\r").substr(0, static_cast<size_t>(pick(3))); };
  if (kind == 0 || kind == 1) {
    const bool object = kind == 0;
    std::string out = object ? "{" : "[";
    const int n = pick(4);
    for (int i = 0; i < n; ++i) {
      if (i > 0) out += ",";
      out += space();
      if (object) out += "\"k" + std::to_string(pick(3)) + "\"" + space() + ":" + space();
      out += random_document(rng, depth - 1) + space();
    }
    return out + (object ? "}" : "]");
  }
  return kScalars[pick(static_cast<int>(sizeof kScalars / sizeof kScalars[0]))];
}

}  // namespace

TEST_CASE("json: hand-written texts read as nlohmann reads them", "[json]") {
  for (const char* text :
       {"null", "true", "false", " 1 ", "-1", "0", "-0", "0.0", "-0.0", "1.5e3", "1E-3", "1e+3",
        "123456789012345678901234567890", "[]", "{}", "[1,[2,[3]]]", "{\"b\":1,\"a\":[true]}",
        "{\"a\":1,\"a\":2}", "{\"a\":1,\"b\":2,\"a\":3}", "\"\\u0041\\u00DF\\u6771\\uD834\\uDD1E\"",
        "\"tab\\there\"", "\"\\/\"", "\"\xe6\x9d\xb1\"", "\"\xf4\x8f\xbf\xbf\"", "1e-400",
        // Rejected (all but the unescaped DEL, which RFC 8259 allows):
        "", " ", "nul", "tru", "True", "NaN", "Infinity", "-", "01", "+1", "1.", ".5", "1e", "1e+",
        "0x10", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{a:1}", "{'a':1}", "{\"a\":1,}", "[1 2]",
        "\"abc", "\"a\\x\"", "\"\\u12\"", "\"\\uD800\"", "\"\\uDC00\"", "\"\\uD800\\u0041\"",
        "\"\t\"", "\"\x01\"", "\"\x7f\"", "\"\xff\"", "\"\xc0\xaf\"", "\"\xc3\"",
        "\"\xed\xa0\x80\"",
        "\"\xf4\x90\x80\x80\"", "\"\xe0\x80\xaf\"", "\"\xf0\x80\x80\xaf\"", "{} {}", "[] x",
        "3e333", "-3e333", "[1e999]"}) {
    agree(text);
  }
}

TEST_CASE("json: random documents and their corruptions read as nlohmann reads them", "[json]") {
  std::mt19937 rng(20261129);
  const std::string kNoise = "{}[]\",:\\ -+.eE0123456789tfnulx\x80\xc3\xff";
  for (int round = 0; round < 3000; ++round) {
    std::string text = random_document(rng, 1 + round % 5);
    agree(text);
    // One byte replaced, inserted or removed.
    for (int m = 0; m < 3; ++m) {
      std::string bad = text;
      const size_t at = rng() % (bad.size() + 1);
      const char c = kNoise[rng() % kNoise.size()];
      const int how = static_cast<int>(rng() % 3);
      if (how == 0 && at < bad.size()) {
        bad[at] = c;
      } else if (how == 1) {
        bad.insert(at, 1, c);
      } else if (at < bad.size()) {
        bad.erase(at, 1);
      }
      agree(bad);
    }
  }
}

TEST_CASE("json: numbers keep their kind and value", "[json]") {
  int64_t i = 0;
  CHECK((cvm::json::parse("-9223372036854775808", kDepth).integer(&i) && i == INT64_MIN));
  CHECK((cvm::json::parse("9223372036854775807", kDepth).integer(&i) && i == INT64_MAX));
  const Value big = cvm::json::parse("18446744073709551615", kDepth);
  CHECK(big.kind() == Value::Kind::kUnsigned);
  CHECK_FALSE(big.integer(&i));
  CHECK(cvm::json::parse("18446744073709551616", kDepth).is_float());
  CHECK(cvm::json::parse("-9223372036854775809", kDepth).is_float());
  CHECK(cvm::json::parse("2.0", kDepth).is_float());
  CHECK(cvm::json::parse("0.5", kDepth).brief_text() == "0.5");
  CHECK(cvm::json::parse("2.0", kDepth).brief_text() == "2.0");
  CHECK(cvm::json::parse("1e300", kDepth).brief_text() == "1e+300");
  CHECK(cvm::json::parse("-7", kDepth).brief_text() == "-7");
  CHECK(cvm::json::parse("\"a\\nb\"", kDepth).brief_text() == "\"a\\nb\"");
  CHECK(cvm::json::parse("[1]", kDepth).brief_text() == "[...]");
}

TEST_CASE("json: errors say what and where", "[json]") {
  CHECK(error_of("{\"a\" 1}") == "syntax error at byte 5: expected ':' after an object key");
  CHECK(error_of("[1,]") == "syntax error at byte 3: expected a value");
  CHECK(error_of("") == "syntax error at byte 0: unexpected end of the text, expected a value");
  CHECK(error_of("1 2") == "syntax error at byte 2: unexpected text after the value");
  CHECK(error_of("\"\xff\"") == "syntax error at byte 1: a string is not valid UTF-8");
  CHECK(error_of("\"\\q\"") == "syntax error at byte 2: invalid escape in a string");
  CHECK(error_of("[3e333]") == "number overflow parsing '3e333'");
  // A NUL byte is no JSON whitespace (nlohmann::json would end the text there).
  CHECK(error_of(std::string("[1]\0x", 5)) ==
        "syntax error at byte 3: unexpected text after the value");
  CHECK(error_of(std::string("\"a\0\"", 4)) ==
        "syntax error at byte 2: control character in a string (it must be escaped)");
  // Nesting: 64 levels read, the 65th is refused where it opens (no recursion past it).
  CHECK(cvm::json::parse(std::string(64, '[') + std::string(64, ']'), kDepth).is_array());
  CHECK(error_of(std::string(65, '[') + std::string(65, ']')) ==
        "nesting deeper than 64 levels at byte 64");
  CHECK(error_of(std::string(1000000, '[')) == "nesting deeper than 64 levels at byte 64");
  CHECK_THAT(error_of(std::string(3, '{')), Contains("expected a string as an object key"));
}

TEST_CASE("json: objects are sorted by key, a repeated key keeps its last value", "[json]") {
  const Value v = cvm::json::parse(R"({"b": 1, "a": 2, "c": 3, "a": 4, "B": 5})", kDepth);
  REQUIRE(v.keys() == std::vector<std::string>{"B", "a", "b", "c"});
  int64_t x = 0;
  CHECK((v.find("a")->integer(&x) && x == 4));
  CHECK((v.find("B")->integer(&x) && x == 5));
  CHECK(v.find("d") == nullptr);
  CHECK(cvm::json::parse("[1]", kDepth).find("a") == nullptr);
}

TEST_CASE("json: the writer's text reads back the same", "[json]") {
  cvm::json::Writer w;
  w.open('{').key("a").integer(-3).key("b").open('[').number(0.1).number(1.0).boolean(true);
  w.close(']').key("c").strings({"x\"y", "\x01", "\xc3\xa9"}).key("d").open('{').close('}');
  w.key("e").number(std::nan("")).close('}');
  REQUIRE(w.ok());
  CHECK(w.text() ==
        "{\"a\":-3,\"b\":[0.1,1.0,true],\"c\":[\"x\\\"y\",\"\\u0001\",\"\xc3\xa9\"],\"d\":{},"
        "\"e\":null}");
  CHECK(nlohmann::json::parse(w.text()) ==
        nlohmann::json::parse(R"({"a":-3,"b":[0.1,1.0,true],"c":["x\"y","\u0001","é"],"d":{},
                                  "e":null})"));
  cvm::json::Writer bad;
  bad.open('[').string("ok").string("\xff").close(']');
  CHECK_FALSE(bad.ok());
  CHECK(bad.text() == "[\"ok\",\"\"]");
}

TEST_CASE("json: number_text is the shortest text that reads back bit for bit", "[json]") {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    const std::string text = cvm::json::number_text(v);
    INFO(text);
    const double back = nlohmann::json::parse(text).get<double>();
    REQUIRE(std::memcmp(&back, &v, sizeof v) == 0);
    if (text.size() > 3) {  // one digit fewer would not read back
      CHECK(text.find_first_of(".e") != std::string::npos);
    }
  }
  CHECK(cvm::json::number_text(0.1 + 0.2) == "0.30000000000000004");
  CHECK(cvm::json::number_text(1.0 / 3.0) == "0.3333333333333333");
  CHECK(cvm::json::number_text(64.0) == "64.0");
  CHECK(cvm::json::number_text(-0.0) == "-0.0");
  CHECK(cvm::json::number_text(1e21) == "1e+21");
  CHECK(cvm::json::number_text(INFINITY) == "null");
}

TEST_CASE("json: append_quoted escapes what JSON needs and refuses what is not UTF-8", "[json]") {
  std::string out;
  REQUIRE(cvm::json::append_quoted(out, std::string("a\"\\/\b\f\n\r\t\x1f\x7f\0z", 13)));
  CHECK(out == "\"a\\\"\\\\/\\b\\f\\n\\r\\t\\u001f\x7f\\u0000z\"");
  CHECK(nlohmann::json::parse(out).get<std::string>() ==
        std::string("a\"\\/\b\f\n\r\t\x1f\x7f\0z", 13));
  for (const char* bad :
       {"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "a\x80"}) {
    std::string o = "x";
    CHECK_FALSE(cvm::json::append_quoted(o, bad));
    CHECK(o == "x");
  }
}
