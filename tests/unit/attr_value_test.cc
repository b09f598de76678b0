// Typed attribute values (cvm::AttrValue): their text forms, AttrReader reading them without a
// text round trip, the messages for values of the wrong kind, and the C ABI's JSON conversion.
#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "attrs.h"
#include "attrs_json.h"
#include "cvm/error.h"
#include "cvm/op.h"

using Catch::Matchers::Equals;
using cvm::AttrMap;
using cvm::AttrValue;
using cvm::capi::attrs_from_json;
using cvm::ops::AttrReader;
using Kind = AttrValue::Kind;
using Tuple = std::vector<int64_t>;

namespace {

// The message of the LogicError `f` raises, or a marker when none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cvm::LogicError& e) {
    return e.what();
  } catch (...) {
    return "<an exception other than LogicError>";
  }
  return "<no exception>";
}

// A reader of {"v": value} for op "conv2d".
struct One {
  explicit One(AttrValue value) : attrs{{"v", std::move(value)}} {}
  AttrMap attrs;
  AttrReader reader() const { return AttrReader("conv2d", attrs); }
};

std::string message(const std::string& expected, const std::string& found) {
  return "op \"conv2d\": attribute \"v\": expected " + expected + ", found " + found;
}

}  // namespace

TEST_CASE("AttrValue: kinds and canonical text forms", "[attrs]") {
  CHECK(AttrValue().kind() == Kind::kText);
  CHECK(AttrValue().text().empty());
  CHECK(AttrValue("  (3, 3) ").kind() == Kind::kText);
  CHECK(AttrValue("  (3, 3) ").text() == "  (3, 3) ");  // text is kept as given
  CHECK(AttrValue(std::string("NEAREST")).as_text() == "NEAREST");

  CHECK(AttrValue::integer(10).kind() == Kind::kInt);
  CHECK(AttrValue::integer(10).as_int() == 10);
  CHECK(AttrValue::integer(-7).text() == "-7");
  CHECK(AttrValue::integer(INT64_MIN).text() == "-9223372036854775808");
  CHECK(AttrValue::integer(INT64_MAX).text() == "9223372036854775807");
  CHECK(AttrValue::boolean(true).kind() == Kind::kBool);
  CHECK(AttrValue::boolean(true).text() == "True");
  CHECK(AttrValue::boolean(false).text() == "False");
  CHECK(AttrValue::none().kind() == Kind::kNone);
  CHECK(AttrValue::none().text() == "None");
  CHECK(AttrValue::tuple({1, -2, 3}).kind() == Kind::kTuple);
  CHECK(AttrValue::tuple({1, -2, 3}).as_tuple() == Tuple{1, -2, 3});
  CHECK(AttrValue::tuple({1, -2, 3}).text() == "(1, -2, 3)");
  CHECK(AttrValue::tuple({5}).text() == "(5,)");
  CHECK(AttrValue::tuple({}).text() == "()");
  CHECK_THROWS_AS(AttrValue::integer(1).as_text(), std::bad_variant_access);

  // Equality and printing go by the text form.
  CHECK(AttrValue::integer(3) == "3");
  CHECK(AttrValue::tuple({3, 3}) == "(3, 3)");
  CHECK(AttrValue::boolean(false) == AttrValue("False"));
  CHECK(AttrValue("3") != AttrValue(" 3"));
  CHECK(AttrValue::tuple({3}) != AttrValue::integer(3));
  std::ostringstream os;
  os << AttrValue::tuple({2, 2}) << " " << AttrValue("x");
  CHECK(os.str() == "(2, 2) x");
}

TEST_CASE("AttrValue: maps of text keep the std::string conveniences", "[attrs]") {
  AttrMap attrs = {{"axis", "1"}, {"shape", std::string("(2, 3)")}};
  attrs["units"] = "10";
  attrs["precision"] = std::to_string(8);
  attrs["strides"] = AttrValue::tuple({2, 2});
  CHECK(attrs.at("axis").is_text());
  CHECK(attrs.at("units").as_text() == "10");
  CHECK(attrs.at("precision") == "8");
  CHECK(attrs == AttrMap{{"axis", "1"},
                         {"precision", "8"},
                         {"shape", "(2, 3)"},
                         {"strides", "(2, 2)"},
                         {"units", "10"}});
}

TEST_CASE("AttrReader: typed values are read as they are", "[attrs]") {
  AttrMap attrs = {{"big", AttrValue::integer(INT64_MIN)},
                   {"groups", AttrValue::integer(3)},
                   {"strides", AttrValue::tuple({2, 1})},
                   {"padding", AttrValue::integer(4)},  // an integer where a tuple is expected
                   {"empty", AttrValue::tuple({})},
                   {"use_bias", AttrValue::boolean(false)},
                   {"one", AttrValue::integer(1)},
                   {"axis", AttrValue::none()},
                   {"size", AttrValue::none()},
                   {"top_k", AttrValue::integer(-1)},
                   {"reps", AttrValue::tuple({2})},
                   {"layout", AttrValue::integer(7)},
                   {"name", "NCHW"}};
  AttrReader r("conv2d", attrs);
  CHECK(r.get_int("big", std::nullopt, INT64_MIN, INT64_MAX) == INT64_MIN);
  CHECK(r.get_int("groups", 1) == 3);
  CHECK(r.get_tuple("strides", std::nullopt) == Tuple{2, 1});
  CHECK(r.get_tuple("padding", Tuple{0, 0}) == Tuple{4});
  CHECK(r.get_tuple("empty", std::nullopt).empty());
  CHECK(r.get_bool("use_bias", true) == false);
  CHECK(r.get_bool("one", false) == true);  // as the text "1"
  CHECK(r.get_optional_tuple("axis", -8, 8) == std::nullopt);
  CHECK(r.get_optional_int("size", 0, 10) == std::nullopt);
  CHECK(r.get_optional_int("top_k", -1, 100) == -1);
  CHECK(r.get_optional_tuple("reps", 1, 4) == Tuple{2});
  CHECK(r.get_string("layout", std::nullopt) == "7");
  CHECK(r.get_string("name", std::nullopt) == "NCHW");
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("AttrReader: typed values of the wrong kind or range show their text form",
          "[attrs]") {
  const std::string int_range = "an integer in [0, 4096]";
  CHECK_THAT(error_of([] { One(AttrValue::boolean(true)).reader().get_int("v", 1); }),
             Equals(message(int_range, "\"True\"")));
  CHECK_THAT(error_of([] { One(AttrValue::none()).reader().get_int("v", 1); }),
             Equals(message(int_range, "\"None\"")));
  CHECK_THAT(error_of([] { One(AttrValue::tuple({3})).reader().get_int("v", 1); }),
             Equals(message(int_range, "\"(3,)\"")));
  CHECK_THAT(error_of([] { One(AttrValue::integer(5000)).reader().get_int("v", 1); }),
             Equals(message(int_range, "5000")));
  CHECK_THAT(error_of([] { One(AttrValue::boolean(true)).reader().get_optional_int("v", 0, 9); }),
             Equals(message("an integer in [0, 9]", "\"True\"")));

  CHECK_THAT(error_of([] { One(AttrValue::boolean(false)).reader().get_tuple("v", std::nullopt); }),
             Equals(message("a tuple such as (1, 2)", "\"False\"")));
  CHECK_THAT(error_of([] { One(AttrValue::none()).reader().get_tuple("v", std::nullopt); }),
             Equals(message("a tuple such as (1, 2)", "\"None\"")));
  CHECK_THAT(error_of([] {
               One(AttrValue::tuple({1, 5})).reader().get_tuple("v", std::nullopt, 1, 3);
             }),
             Equals(message("values in [1, 3]", "(1, 5)")));
  CHECK_THAT(error_of([] { One(AttrValue::integer(9)).reader().get_optional_tuple("v", 1, 3); }),
             Equals(message("values in [1, 3]", "(9)")));

  CHECK_THAT(error_of([] { One(AttrValue::tuple({1})).reader().get_bool("v", false); }),
             Equals(message("a bool (true/false/1/0)", "\"(1,)\"")));
  CHECK_THAT(error_of([] { One(AttrValue::integer(2)).reader().get_bool("v", false); }),
             Equals(message("a bool (true/false/1/0)", "\"2\"")));
  CHECK_THAT(error_of([] { One(AttrValue::none()).reader().get_bool("v", false); }),
             Equals(message("a bool (true/false/1/0)", "\"None\"")));
}

TEST_CASE("AttrReader: text values give the same messages as before", "[attrs]") {
  CHECK_THAT(error_of([] { One("abc").reader().get_int("v", 1); }),
             Equals(message("an integer in [0, 4096]", "\"abc\"")));
  CHECK_THAT(error_of([] { One("(1,,2)").reader().get_tuple("v", std::nullopt); }),
             Equals(message("a tuple such as (1, 2)",
                            "\"(1,,2)\" (empty item in \"(1,,2)\")")));
  CHECK_THAT(error_of([] { One("yes").reader().get_bool("v", false); }),
             Equals(message("a bool (true/false/1/0)", "\"yes\"")));
  // And the same values as the typed forms.
  CHECK(One(" none ").reader().get_optional_int("v", 0, 9) == std::nullopt);
  CHECK(One("[4]").reader().get_tuple("v", std::nullopt) == Tuple{4});
  CHECK(One("5").reader().get_tuple("v", std::nullopt) == Tuple{5});
  CHECK(One("TRUE").reader().get_bool("v", false));
}

TEST_CASE("attrs_from_json: JSON values become typed values, strings stay text", "[attrs]") {
  AttrMap m = attrs_from_json(
      R"j({"s": "(3, 3)", "i": 10, "big": 9223372036854775807, "min": -9223372036854775808,
          "f": 3.0, "nf": -2e3, "t": true, "fl": false, "n": null, "tuple": [1, -2, 3],
          "one": [5], "empty": [], "ftuple": [2.0, 4]})j",
      "f");
  REQUIRE(m.size() == 13);
  CHECK(m.at("s").kind() == Kind::kText);
  CHECK(m.at("s").as_text() == "(3, 3)");
  CHECK(m.at("i").kind() == Kind::kInt);
  CHECK(m.at("i").as_int() == 10);
  CHECK(m.at("big").as_int() == INT64_MAX);
  CHECK(m.at("min").as_int() == INT64_MIN);
  CHECK(m.at("f").kind() == Kind::kInt);  // an integral float is an integer
  CHECK(m.at("f").as_int() == 3);
  CHECK(m.at("nf").as_int() == -2000);
  CHECK(m.at("t").kind() == Kind::kBool);
  CHECK(m.at("t").as_bool());
  CHECK_FALSE(m.at("fl").as_bool());
  CHECK(m.at("n").kind() == Kind::kNone);
  CHECK(m.at("tuple").kind() == Kind::kTuple);
  CHECK(m.at("tuple").as_tuple() == Tuple{1, -2, 3});
  CHECK(m.at("one").as_tuple() == Tuple{5});
  CHECK(m.at("empty").kind() == Kind::kTuple);
  CHECK(m.at("empty").as_tuple().empty());
  CHECK(m.at("ftuple").as_tuple() == Tuple{2, 4});

  // An integer no double holds exactly reaches the reader unchanged.
  AttrMap wide = attrs_from_json(R"j({"x": 9007199254740993, "t": [-9007199254740993]})j", "f");
  AttrReader w("tile", wide);
  CHECK(w.get_int("x", std::nullopt, 0, INT64_MAX) == 9007199254740993);
  CHECK(w.get_tuple("t", std::nullopt) == Tuple{-9007199254740993});
  CHECK_NOTHROW(w.finish());

  // Read by AttrReader as the op layer does.
  AttrMap conv = attrs_from_json(
      R"j({"strides": [2, 2], "padding": 1, "groups": 1.0, "use_bias": false, "axis": null})j",
      "CVMOpRun");
  AttrReader r("conv2d", conv);
  CHECK(r.get_tuple("strides", std::nullopt) == Tuple{2, 2});
  CHECK(r.get_tuple("padding", std::nullopt) == Tuple{1});
  CHECK(r.get_int("groups", std::nullopt) == 1);
  CHECK_FALSE(r.get_bool("use_bias", true));
  CHECK(r.get_optional_int("axis", 0, 3) == std::nullopt);
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("attrs_from_json: the kinds without a typed form are rejected naming the key",
          "[attrs]") {
  auto json_error = [](const char* text) {
    return error_of([text] { attrs_from_json(text, "CVMOpRun"); });
  };
  CHECK_THAT(json_error(R"j({"alpha": 2.5})j"),
             Equals("CVMOpRun: attribute \"alpha\": expected an integer (within int64), found "
                    "2.5"));
  CHECK_THAT(json_error(R"j({"x": 9223372036854775808})j"),
             Equals("CVMOpRun: attribute \"x\": expected an integer (within int64), found "
                    "9223372036854775808"));
  CHECK_THAT(json_error(R"j({"obj": {"a": 1}})j"),
             Equals("CVMOpRun: attribute \"obj\": expected a string, integer, boolean, null or "
                    "array of integers, found object"));
  CHECK_THAT(json_error(R"j({"nest": [[1, 2]]})j"),
             Equals("CVMOpRun: attribute \"nest\": expected an array of integers, found item 0 = "
                    "an array"));
  CHECK_THAT(json_error(R"j({"fl": [1, 2.5]})j"),
             Equals("CVMOpRun: attribute \"fl\": expected an array of integers, found item 1 = "
                    "2.5"));
  CHECK_THAT(json_error(R"j({"b": [true]})j"),
             Equals("CVMOpRun: attribute \"b\": expected an array of integers, found item 0 = "
                    "true"));
  CHECK_THAT(json_error(R"j({"s": ["1"]})j"),
             Equals("CVMOpRun: attribute \"s\": expected an array of integers, found item 0 = "
                    "\"1\""));
}
