// The strict JSON reader: values of every kind, member order, exact integers, and for malformed
// input the exact position, found and expected text a user is shown.
#include "engine/core/json_value.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"

namespace modescope {
namespace {

using Kind = JsonValue::Kind;

// The InvalidInputError that parsing `text` throws; none is a test failure.
InvalidInputError parseError(std::string_view text) {
  try {
    parseJson(text, "test.json");
  } catch (const InvalidInputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for: " << text;
  return InvalidInputError("", "", "", "");
}

std::string stringOf(std::string_view json) { return parseJson(json, "test.json").asString(); }

TEST(JsonValue, ParsesEveryKind) {
  const JsonValue v = parseJson(
      R"({"n": null, "t": true, "f": false, "i": -12, "d": 2.5e-3, "s": "x", "a": [1, []],)"
      R"( "o": {}})",
      "test.json");
  ASSERT_EQ(v.kind(), Kind::Object);
  EXPECT_STREQ(v.kindName(), "object");
  ASSERT_EQ(v.members().size(), 8u);

  EXPECT_TRUE(v.find("n")->isNull());
  EXPECT_STREQ(v.find("n")->kindName(), "null");
  EXPECT_TRUE(v.find("t")->asBool());
  EXPECT_FALSE(v.find("f")->asBool());
  EXPECT_STREQ(v.find("t")->kindName(), "boolean");
  EXPECT_EQ(v.find("i")->asDouble(), -12.0);
  EXPECT_EQ(v.find("i")->asInt64(), -12);
  EXPECT_EQ(v.find("d")->asDouble(), 2.5e-3);
  EXPECT_EQ(v.find("d")->numberText(), "2.5e-3");
  EXPECT_STREQ(v.find("d")->kindName(), "number");
  EXPECT_EQ(v.find("s")->asString(), "x");
  EXPECT_STREQ(v.find("s")->kindName(), "string");

  const JsonValue& a = *v.find("a");
  EXPECT_STREQ(a.kindName(), "array");
  ASSERT_EQ(a.asArray().size(), 2u);
  EXPECT_EQ(a.asArray()[0].asDouble(), 1.0);
  EXPECT_TRUE(a.asArray()[1].asArray().empty());
  EXPECT_TRUE(v.find("o")->members().empty());
}

TEST(JsonValue, ScalarsAtTopLevel) {
  EXPECT_TRUE(parseJson("null", "t").isNull());
  EXPECT_FALSE(parseJson(" false\n", "t").asBool());
  EXPECT_EQ(parseJson("-0.5", "t").asDouble(), -0.5);
  EXPECT_EQ(parseJson("\"a b\"", "t").asString(), "a b");
  EXPECT_EQ(parseJson("0", "t").asUint64(), 0u);
  EXPECT_EQ(parseJson("1E2", "t").asDouble(), 100.0);
}

TEST(JsonValue, KeepsMemberOrderAndFindsByName) {
  const JsonValue v = parseJson(R"({"zeta": 1, "alpha": 2, "mu": 3})", "t");
  ASSERT_EQ(v.members().size(), 3u);
  EXPECT_EQ(v.members()[0].first, "zeta");
  EXPECT_EQ(v.members()[1].first, "alpha");
  EXPECT_EQ(v.members()[2].first, "mu");
  ASSERT_NE(v.find("alpha"), nullptr);
  EXPECT_EQ(v.find("alpha")->asDouble(), 2.0);
  EXPECT_EQ(v.find("beta"), nullptr);
  EXPECT_EQ(v.find("Alpha"), nullptr);
}

TEST(JsonValue, RecordsWhereEachValueStarts) {
  // Columns count code points: "é" is two bytes but one column.
  const JsonValue v = parseJson("{\r\n  \"é\": [10,\n\t\"x\"],\r  \"b\": null}", "t");
  EXPECT_EQ(v.line(), 1u);
  EXPECT_EQ(v.column(), 1u);
  const JsonValue& arr = *v.find("é");
  EXPECT_EQ(arr.line(), 2u);
  EXPECT_EQ(arr.column(), 8u);
  EXPECT_EQ(arr.asArray()[0].line(), 2u);
  EXPECT_EQ(arr.asArray()[0].column(), 9u);
  EXPECT_EQ(arr.asArray()[1].line(), 3u);
  EXPECT_EQ(arr.asArray()[1].column(), 2u);
  EXPECT_EQ(v.find("b")->line(), 4u);
  EXPECT_EQ(v.find("b")->column(), 8u);
}

TEST(JsonValue, RefusesDuplicateMemberNames) {
  const InvalidInputError e = parseError("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}");
  EXPECT_EQ(e.path(), "test.json");
  EXPECT_EQ(e.field(), "line 3, column 2");
  EXPECT_EQ(e.found(), "the member name 'a' a second time (first at line 1, column 2)");
  EXPECT_EQ(e.expected(), "member names that are unique within an object");
  // Same name in different objects is fine.
  EXPECT_NO_THROW(parseJson(R"({"a": {"a": 1}, "b": {"a": 2}})", "t"));
}

struct ErrorCase {
  const char* name;
  std::string_view text;
  const char* field;
  const char* found;
  const char* expected;
};

class JsonErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(JsonErrorTest, SaysWhereAndWhat) {
  const ErrorCase& c = GetParam();
  const InvalidInputError e = parseError(c.text);
  EXPECT_EQ(e.path(), "test.json");
  EXPECT_EQ(e.field(), c.field);
  EXPECT_EQ(e.found(), c.found);
  EXPECT_EQ(e.expected(), c.expected);
  EXPECT_EQ(e.exitCode(), 2);
}

using namespace std::string_view_literals;

constexpr const char* kValue = "a value (object, array, string, number, true, false or null)";

INSTANTIATE_TEST_SUITE_P(
    Malformed, JsonErrorTest,
    ::testing::Values(
        ErrorCase{"MissingCommaInObject", "{\"a\": 1\n  \"b\": 2}", "line 2, column 3", "'\"b\"'",
                  "a ',' or '}' after an object member"},
        ErrorCase{"MissingCommaInArray", "[1 2]", "line 1, column 4", "'2'",
                  "a ',' or ']' after an array element"},
        ErrorCase{"TrailingCommaInArray", "[1, 2,]", "line 1, column 7", "']'",
                  "a value after ','"},
        ErrorCase{"TrailingCommaInObject", "{\"a\": 1,\n}", "line 2, column 1", "'}'",
                  "a member name in double quotes after ','"},
        ErrorCase{"MissingColon", "{\"a\" 1}", "line 1, column 6", "'1'",
                  "a ':' after the member name"},
        ErrorCase{"MissingValue", "{\"a\": }", "line 1, column 7", "'}'", kValue},
        ErrorCase{"UnquotedName", "{a: 1}", "line 1, column 2", "'a'",
                  "a member name in double quotes, or '}'"},
        ErrorCase{"SingleQuotes", "{'a': 1}", "line 1, column 2", "\"'\"",
                  "a member name in double quotes, or '}'"},
        ErrorCase{"UnclosedArray", "[1,\n 2", "line 2, column 3", "end of file",
                  "a ',' or ']' after an array element"},
        ErrorCase{"UnterminatedString", "[\"abc", "line 1, column 6", "end of file",
                  "the closing '\"' of the string that starts at line 1, column 2"},
        ErrorCase{"StringRunsIntoNewline", "{\"a\": \"abc\n}", "line 1, column 11",
                  "control character U+000A",
                  "a character that may appear in a string, or the closing '\"' of the string "
                  "that starts at line 1, column 7"},
        ErrorCase{"RawTabInString", "\"a\tb\"", "line 1, column 3", "control character U+0009",
                  "a character that may appear in a string, or the closing '\"' of the string "
                  "that starts at line 1, column 1"},
        ErrorCase{"BadEscape", "[\"ab\\qc\"]", "line 1, column 5", "'\\q'",
                  "one of the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"},
        ErrorCase{"ShortUnicodeEscape", "\"x\\u12G4\"", "line 1, column 3", "'\\u12G4'",
                  "four hex digits after \\u"},
        ErrorCase{"LoneHighSurrogate", "\"\\uD83Dx\"", "line 1, column 2",
                  "'\\uD83D' without a low surrogate after it",
                  "a low surrogate (\\uDC00 to \\uDFFF) right after a high surrogate"},
        ErrorCase{"HighSurrogateThenNonSurrogate", "\"\\uD83D\\u0041\"", "line 1, column 2",
                  "'\\uD83D' without a low surrogate after it",
                  "a low surrogate (\\uDC00 to \\uDFFF) right after a high surrogate"},
        ErrorCase{"LoneLowSurrogate", "\"\\uDE00\"", "line 1, column 2", "'\\uDE00'",
                  "a high surrogate (\\uD800 to \\uDBFF) before a low surrogate"},
        ErrorCase{"LeadingZero", "{\"n\": 012}", "line 1, column 7", "'012'",
                  "a number without leading zeros"},
        ErrorCase{"NegativeLeadingZero", "[-00.5]", "line 1, column 2", "'-00.5'",
                  "a number without leading zeros"},
        ErrorCase{"LonelyMinus", "[-]", "line 1, column 3", "']'", "a digit after '-'"},
        ErrorCase{"NoFractionDigits", "[1.]", "line 1, column 4", "']'",
                  "a digit after the decimal point"},
        ErrorCase{"NoExponentDigits", "1e+", "line 1, column 4", "end of file",
                  "a digit in the exponent"},
        ErrorCase{"PlusSign", "[+1]", "line 1, column 2", "'+1'", kValue},
        ErrorCase{"Overflow", "[1e400]", "line 1, column 2", "'1e400'",
                  "a number within the range of a double (about 1.8e308)"},
        ErrorCase{"NaN", "[NaN]", "line 1, column 2", "'NaN'", kValue},
        ErrorCase{"Infinity", "[-Infinity]", "line 1, column 3", "'Infinity'", "a digit after '-'"},
        ErrorCase{"MisspelledLiteral", "[tru]", "line 1, column 2", "'tru'", kValue},
        ErrorCase{"LiteralWithTail", "[truex]", "line 1, column 2", "'truex'", kValue},
        ErrorCase{"CapitalLiteral", "True", "line 1, column 1", "'True'", kValue},
        ErrorCase{"Comment", "{\"a\": 1 // note\n}", "line 1, column 9", "'/'",
                  "a ',' or '}' after an object member"},
        ErrorCase{"TrailingGarbage", "{\"a\": 1}\n  x", "line 2, column 3", "'x'",
                  "end of file after the top-level value"},
        ErrorCase{"TwoValues", "1 2", "line 1, column 3", "'2'",
                  "end of file after the top-level value"},
        ErrorCase{"EmptyInput", "", "line 1, column 1", "end of file", kValue},
        ErrorCase{"OnlyWhitespace", "  \n ", "line 2, column 2", "end of file", kValue},
        ErrorCase{"OnlyBom", "\xEF\xBB\xBF", "line 1, column 1", "end of file", kValue},
        ErrorCase{"ColumnsAfterBomAndUtf8", "\xEF\xBB\xBF[\"äö€\" x]", "line 1, column 8", "'x'",
                  "a ',' or ']' after an array element"},
        ErrorCase{"CrLfLines", "[1,\r\n2,\r\n]", "line 3, column 1", "']'", "a value after ','"},
        ErrorCase{"LoneCrEndsALine", "[1,\r 2 3]", "line 2, column 4", "'3'",
                  "a ',' or ']' after an array element"},
        ErrorCase{"TabIsOneColumn", "[\t1 2]", "line 1, column 5", "'2'",
                  "a ',' or ']' after an array element"},
        ErrorCase{"NoBreakSpace", "[\xC2\xA0 1]", "line 1, column 2", "'\xC2\xA0' (U+00A0)",
                  kValue},
        ErrorCase{"InvalidUtf8InString", "\"a\xC3(\"", "line 1, column 3",
                  "byte 0xC3, which is not UTF-8", "UTF-8 text"},
        ErrorCase{"OverlongUtf8", "\"\xC0\xAF\"", "line 1, column 2",
                  "byte 0xC0, which is not UTF-8", "UTF-8 text"},
        ErrorCase{"EncodedSurrogateUtf8", "\"\xED\xA0\x80\"", "line 1, column 2",
                  "byte 0xED, which is not UTF-8", "UTF-8 text"},
        ErrorCase{"NulOutsideString", "[1,\0 2]"sv, "line 1, column 4", "control character U+0000",
                  kValue}),
    [](const ::testing::TestParamInfo<ErrorCase>& c) { return std::string(c.param.name); });

TEST(JsonValue, MessageNamesFileLineFoundExpectedAndRemedy) {
  EXPECT_EQ(std::string(parseError("[1, 2,]").what()),
            "'test.json', line 1, column 7: found ']', expected a value after ','. Remove the ',' "
            "before ']'.");
  EXPECT_NE(std::string(parseError("[NaN]").what()).find("JSON has no NaN or Infinity"),
            std::string::npos);
  EXPECT_NE(std::string(parseError("{\"a\": 1 // c\n}").what()).find("does not allow comments"),
            std::string::npos);
  EXPECT_NE(std::string(parseError("{'a': 1}").what()).find("double quotes"), std::string::npos);
}

TEST(JsonValue, NestingUpToTheLimitParses) {
  const std::string deep = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  const JsonValue* v = nullptr;
  const JsonValue root = parseJson(deep, "t");
  v = &root;
  std::size_t depth = 1;
  while (!v->asArray().empty()) {
    v = &v->asArray()[0];
    ++depth;
  }
  EXPECT_EQ(depth, kMaxJsonDepth);
}

TEST(JsonValue, NestingBeyondTheLimitIsAnError) {
  EXPECT_EQ(kMaxJsonDepth, 256u);
  const InvalidInputError e = parseError(std::string(257, '[') + std::string(257, ']'));
  EXPECT_EQ(e.field(), "line 1, column 257");
  EXPECT_EQ(e.found(), "'['");
  EXPECT_EQ(e.expected(), "at most 256 nested arrays and objects");

  // Objects count too, and a huge depth stops at the limit instead of overflowing the stack.
  std::string objects;
  for (int i = 0; i < 300; ++i) objects += "{\"k\":";
  EXPECT_EQ(parseError(objects).field(), "line 1, column " + std::to_string(256 * 5 + 1));
  EXPECT_EQ(parseError(std::string(1'000'000, '[')).field(), "line 1, column 257");
}

TEST(JsonValue, DecodesEscapes) {
  EXPECT_EQ(stringOf(R"("\"\\\/\b\f\n\r\t")"), "\"\\/\b\f\n\r\t");
  EXPECT_EQ(stringOf(R"("\u0041\u00e9\u20AC")"), "A\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(stringOf(R"("\u0000")"), std::string(1, '\0'));
  // U+1F600 as a surrogate pair, and U+10FFFF, the last code point.
  EXPECT_EQ(stringOf(R"("\uD83D\uDE00")"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(stringOf(R"("\udbff\udfff")"), "\xF4\x8F\xBF\xBF");
  // Raw UTF-8 passes through unchanged.
  EXPECT_EQ(stringOf("\"Fp1–Fp2 µV 😀\""), "Fp1–Fp2 µV 😀");
}

TEST(JsonValue, BomIsSkipped) {
  const JsonValue v = parseJson("\xEF\xBB\xBF{\"a\": 1}", "t");
  EXPECT_EQ(v.column(), 1u);
  EXPECT_EQ(v.find("a")->column(), 7u);
}

TEST(JsonValue, BigIntegersAreExact) {
  EXPECT_EQ(parseJson("18446744073709551615", "t").asUint64(), UINT64_C(18446744073709551615));
  EXPECT_EQ(parseJson("9007199254740993", "t").asUint64(), UINT64_C(9007199254740993));
  EXPECT_EQ(parseJson("9007199254740993", "t").numberText(), "9007199254740993");
  EXPECT_EQ(parseJson("-9223372036854775808", "t").asInt64(), INT64_MIN);
  EXPECT_EQ(parseJson("9223372036854775807", "t").asInt64(), INT64_MAX);
  EXPECT_EQ(parseJson("-0", "t").asInt64(), 0);
  EXPECT_EQ(parseJson("-0", "t").asUint64(), 0u);
  // The double is still the nearest one.
  EXPECT_EQ(parseJson("18446744073709551615", "t").asDouble(), 18446744073709551616.0);

  EXPECT_THROW(parseJson("18446744073709551616", "t").asUint64(), std::range_error);
  EXPECT_THROW(parseJson("9223372036854775808", "t").asInt64(), std::range_error);
  EXPECT_THROW(parseJson("-9223372036854775809", "t").asInt64(), std::range_error);
  EXPECT_THROW(parseJson("-1", "t").asUint64(), std::range_error);
}

TEST(JsonValue, IntegerReadersRefuseFractionsAndExponents) {
  for (const char* text : {"1.5", "1.0", "1e3", "1E+2", "-2e0"}) {
    EXPECT_THROW(parseJson(text, "t").asInt64(), std::range_error) << text;
    EXPECT_THROW(parseJson(text, "t").asUint64(), std::range_error) << text;
  }
  try {
    parseJson("[\n 1.5]", "t").asArray()[0].asInt64();
    ADD_FAILURE() << "no error";
  } catch (const std::range_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "number 1.5 at line 2, column 2 is not an integer from -9223372036854775808 to "
              "9223372036854775807");
  }
}

TEST(JsonValue, TinyNumbersRoundToZero) {
  EXPECT_EQ(parseJson("1e-400", "t").asDouble(), 0.0);
  EXPECT_TRUE(std::signbit(parseJson("-1e-400", "t").asDouble()));
  EXPECT_EQ(parseJson("4.9e-324", "t").asDouble(), 4.9e-324);
  EXPECT_EQ(parseJson("1.7976931348623157e308", "t").asDouble(), 1.7976931348623157e308);
  // The decimal point and the exponent are weighed together: 1e308 fits, 1e309 and 1e-325 do not.
  EXPECT_EQ(parseJson("0.0001e312", "t").asDouble(), 1e308);
  EXPECT_EQ(parseError("0.0001e313").found(), "'0.0001e313'");
  EXPECT_EQ(parseJson("100000e-330", "t").asDouble(), 0.0);
  EXPECT_EQ(parseError("[1, 100000e330]").field(), "line 1, column 5");
}

TEST(JsonValue, WrongKindAccessorsThrowLogicError) {
  const JsonValue v = parseJson("{\"n\": 1, \"s\": \"x\", \"a\": []}", "t");
  EXPECT_THROW(v.find("n")->asString(), std::logic_error);
  EXPECT_THROW(v.find("n")->asBool(), std::logic_error);
  EXPECT_THROW(v.find("s")->asDouble(), std::logic_error);
  EXPECT_THROW(v.find("s")->asUint64(), std::logic_error);
  EXPECT_THROW(v.find("s")->numberText(), std::logic_error);
  EXPECT_THROW(v.find("a")->members(), std::logic_error);
  EXPECT_THROW(v.find("a")->find("x"), std::logic_error);
  EXPECT_THROW(v.asArray(), std::logic_error);
  try {
    v.find("s")->asDouble();
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()), "JSON value at line 1, column 15 is a string, not a number");
  }
  const JsonValue null;
  EXPECT_TRUE(null.isNull());
  EXPECT_EQ(null.line(), 0u);
}

class JsonFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "modescope-json-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, std::string_view text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(JsonFileTest, ReadsAFile) {
  const std::string path = write("pipeline.json", "{\"version\": 3,\n \"steps\": []}\n");
  const JsonValue v = readJsonFile(path);
  EXPECT_EQ(v.find("version")->asUint64(), 3u);
  EXPECT_EQ(v.find("steps")->line(), 2u);
}

TEST_F(JsonFileTest, ParseErrorsNameThePath) {
  const std::string path = write("bad.json", "{\"steps\": [1,]}");
  try {
    readJsonFile(path);
    ADD_FAILURE() << "no error";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.path(), path);
    EXPECT_EQ(e.field(), "line 1, column 14");
  }
}

TEST_F(JsonFileTest, MissingFileSaysToCheckThePath) {
  const std::string path = (dir_ / "absent.json").string();
  try {
    readJsonFile(path);
    ADD_FAILURE() << "no error";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.path(), path);
    EXPECT_EQ(e.found(), "a file that cannot be opened (No such file or directory)");
    EXPECT_EQ(e.expected(), "a readable JSON file");
    EXPECT_NE(std::string(e.what()).find("Check the path"), std::string::npos);
    EXPECT_EQ(e.exitCode(), 2);
  }
  try {
    readJsonFile(dir_.string());
    ADD_FAILURE() << "no error";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.found(), "a directory");
  }
}

}  // namespace
}  // namespace modescope
