#include "engine/core/json_value.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <unordered_map>

#include "engine/core/error.h"

namespace modescope {
namespace {

constexpr const char* kExpectValue = "a value (object, array, string, number, true, false or null)";
constexpr const char* kFixSyntax = "Correct the JSON at that position.";
constexpr std::size_t kExcerptBytes = 24;

bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(unsigned char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool isLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Characters that run together into one token in an excerpt ("NaN", "-01", "1e5x").
bool isWordChar(unsigned char c) {
  return isLetter(c) || isDigit(c) || c == '_' || c == '+' || c == '-' || c == '.';
}
bool isContinuationByte(unsigned char c) { return (c & 0xC0) == 0x80; }

std::string hexCode(unsigned value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*X", digits, value);
  return buf;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
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

// Length of the well-formed UTF-8 sequence at s[pos] (Unicode table 3-7: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when it is not one.
std::size_t utf8SequenceLength(std::string_view s, std::size_t pos) {
  const auto byte = [&](std::size_t i) {
    return pos + i < s.size() ? static_cast<unsigned char>(s[pos + i]) : 0u;
  };
  const unsigned b0 = byte(0);
  const auto inRange = [](unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  if (b0 < 0x80) return 1;
  if (inRange(b0, 0xC2, 0xDF)) return isContinuationByte(byte(1)) ? 2 : 0;
  if (inRange(b0, 0xE0, 0xEF)) {
    const unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    return inRange(byte(1), lo, hi) && isContinuationByte(byte(2)) ? 3 : 0;
  }
  if (inRange(b0, 0xF0, 0xF4)) {
    const unsigned lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return inRange(byte(1), lo, hi) && isContinuationByte(byte(2)) && isContinuationByte(byte(3))
               ? 4
               : 0;
  }
  return 0;
}

// Bytes for a quoted excerpt: escapes what would garble a one-line message.
std::string printable(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) {
      out += "\\u" + hexCode(c, 4);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = utf8SequenceLength(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\x" + hexCode(c, 2);
      ++i;
    }
  }
  return out;
}

// Cuts at most `maxBytes` from the front of `s` without splitting a UTF-8 sequence.
std::string_view prefixOf(std::string_view s, std::size_t maxBytes) {
  if (s.size() <= maxBytes) return s;
  std::size_t n = maxBytes;
  while (n > 0 && isContinuationByte(static_cast<unsigned char>(s[n]))) --n;
  return s.substr(0, n);
}

std::string quoted(std::string_view s) {
  const std::string p = printable(s);
  return p == "'" ? "\"'\"" : "'" + p + "'";
}

std::string quotedExcerpt(std::string_view s) {
  const std::string_view cut = prefixOf(s, kExcerptBytes);
  return quoted(cut) + (cut.size() < s.size() ? "..." : "");
}

// What a user sees at `pos`: the whole token where there is one, so "NaN" rather than "'N'".
std::string describeAt(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return "end of file";
  const auto c = static_cast<unsigned char>(text[pos]);
  if (c < 0x20 || c == 0x7F) return "control character U+" + hexCode(c, 4);
  if (c >= 0x80) {
    const std::size_t n = utf8SequenceLength(text, pos);
    if (n == 0) return "byte 0x" + hexCode(c, 2) + ", which is not UTF-8";
    // The code point too, since many (a stray U+FEFF, U+00A0) look like nothing at all.
    std::uint32_t cp = c & (0x7F >> n);
    for (std::size_t i = 1; i < n; ++i) cp = (cp << 6) | (text[pos + i] & 0x3F);
    return quoted(text.substr(pos, n)) + " (U+" + hexCode(cp, 4) + ")";
  }
  std::size_t end = pos + 1;
  if (isWordChar(c)) {
    while (end < text.size() && isWordChar(static_cast<unsigned char>(text[end]))) ++end;
  } else if (c == '"') {
    while (end < text.size() && text[end] != '"' && static_cast<unsigned char>(text[end]) >= 0x20)
      ++end;
    if (end < text.size() && text[end] == '"') ++end;
  }
  return quotedExcerpt(text.substr(pos, end - pos));
}

// Advice for the slips people make most when writing JSON by hand.
std::string remedyFor(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return kFixSyntax;
  switch (text[pos]) {
    case '/':
    case '#':
      return "JSON does not allow comments; remove them.";
    case '\'':
      return "Write strings and member names in double quotes.";
    default:
      break;
  }
  const std::string_view rest = text.substr(pos);
  for (std::string_view word : {"NaN", "Infinity"})
    if (rest.substr(0, word.size()) == word)
      return "JSON has no NaN or Infinity; write null or a finite number.";
  for (std::string_view word : {"True", "False", "Null", "None", "TRUE", "FALSE", "NULL"})
    if (rest.substr(0, word.size()) == word) return "Write true, false and null in lower case.";
  return kFixSyntax;
}

// Sign of the decimal exponent of the leading significant digit, for a number from_chars found
// out of range: true means the number overflowed, false that it underflowed. `text` follows the
// JSON number grammar and is not zero.
bool magnitudeAtLeastOne(std::string_view text) {
  std::size_t i = text[0] == '-' ? 1 : 0;
  long long lead = 0;  // exponent of the first non-zero digit, before the explicit exponent
  if (text[i] != '0') {
    for (; i < text.size() && isDigit(static_cast<unsigned char>(text[i])); ++i) ++lead;
    --lead;
  } else {
    ++i;
    if (i < text.size() && text[i] == '.') {
      ++i;
      lead = -1;
      for (; i < text.size() && text[i] == '0'; ++i) --lead;
    }
  }
  while (i < text.size() && text[i] != 'e' && text[i] != 'E') ++i;
  long long exponent = 0;
  if (i < text.size()) {
    ++i;
    const bool negative = text[i] == '-';
    if (text[i] == '-' || text[i] == '+') ++i;
    constexpr long long kCap = 1'000'000'000'000LL;  // far beyond any double, far from overflow
    for (; i < text.size(); ++i) exponent = std::min(kCap, exponent * 10 + (text[i] - '0'));
    if (negative) exponent = -exponent;
  }
  return lead + exponent >= 0;
}

std::string where(const JsonValue& v) {
  return "line " + std::to_string(v.line()) + ", column " + std::to_string(v.column());
}

}  // namespace

class JsonParser {
 public:
  JsonParser(std::string_view text, const std::string& sourceName)
      : text_(text), sourceName_(sourceName) {}

  JsonValue parseDocument() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    skipWhitespace();
    if (atEnd())
      fail(mark(), "end of file", kExpectValue, "The input is empty; it must hold one JSON value.");
    JsonValue root = parseValue(0);
    skipWhitespace();
    if (!atEnd()) {
      failHere("end of file after the top-level value",
               "Remove what follows the value, or put several values in an array.");
    }
    return root;
  }

 private:
  struct Mark {
    std::size_t pos, line, column;
  };

  Mark mark() const { return {pos_, line_, column_}; }
  bool atEnd() const { return pos_ >= text_.size(); }
  unsigned char peek() const { return static_cast<unsigned char>(text_[pos_]); }
  bool at(char c) const { return !atEnd() && text_[pos_] == c; }

  // The one place the position moves, so line and column stay right.
  void advance() {
    const char c = text_[pos_++];
    if (c == '\n' || (c == '\r' && !at('\n'))) {
      ++line_;
      column_ = 1;
    } else if (c != '\r' && !isContinuationByte(static_cast<unsigned char>(c))) {
      ++column_;
    }
  }

  [[noreturn]] void fail(const Mark& position, std::string found, std::string expected,
                         std::string remedy) const {
    throw InvalidInputError(
        sourceName_,
        "line " + std::to_string(position.line) + ", column " + std::to_string(position.column),
        std::move(found), std::move(expected), std::move(remedy));
  }
  [[noreturn]] void failHere(std::string expected, std::string remedy = {}) const {
    fail(mark(), describeAt(text_, pos_), std::move(expected),
         remedy.empty() ? remedyFor(text_, pos_) : std::move(remedy));
  }

  void skipWhitespace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      advance();
  }

  void expectNesting(std::size_t depth) {
    if (depth > kMaxJsonDepth) {
      failHere("at most " + std::to_string(kMaxJsonDepth) + " nested arrays and objects",
               "Flatten the structure; no ModeScope file nests this deeply.");
    }
  }

  JsonValue parseValue(std::size_t depth) {
    JsonValue v;
    v.line_ = line_;
    v.column_ = column_;
    if (atEnd()) fail(mark(), "end of file", kExpectValue, kFixSyntax);
    const unsigned char c = peek();
    if (c == '{') {
      expectNesting(depth + 1);
      v.kind_ = JsonValue::Kind::Object;
      parseObject(v, depth + 1);
    } else if (c == '[') {
      expectNesting(depth + 1);
      v.kind_ = JsonValue::Kind::Array;
      parseArray(v, depth + 1);
    } else if (c == '"') {
      v.kind_ = JsonValue::Kind::String;
      v.text_ = parseString();
    } else if (c == '-' || isDigit(c)) {
      v.kind_ = JsonValue::Kind::Number;
      parseNumber(v);
    } else {
      parseLiteral(v);
    }
    return v;
  }

  void parseObject(JsonValue& v, std::size_t depth) {
    advance();  // '{'
    skipWhitespace();
    if (at('}')) {
      advance();
      return;
    }
    std::unordered_map<std::string, Mark> seen;
    bool first = true;
    while (true) {
      if (!at('"')) {
        if (!first && at('}'))
          failHere("a member name in double quotes after ','", "Remove the ',' before '}'.");
        failHere(first ? "a member name in double quotes, or '}'"
                       : "a member name in double quotes after ','");
      }
      const Mark keyAt = mark();
      std::string key = parseString();
      if (const auto it = seen.find(key); it != seen.end()) {
        fail(keyAt,
             "the member name " + quotedExcerpt(key) + " a second time (first at line " +
                 std::to_string(it->second.line) + ", column " + std::to_string(it->second.column) +
                 ")",
             "member names that are unique within an object", "Remove or rename one of them.");
      }
      seen.emplace(key, keyAt);
      skipWhitespace();
      if (!at(':')) failHere("a ':' after the member name");
      advance();
      skipWhitespace();
      JsonValue member = parseValue(depth);
      v.members_.emplace_back(std::move(key), std::move(member));
      skipWhitespace();
      if (at('}')) {
        advance();
        return;
      }
      if (!at(',')) failHere("a ',' or '}' after an object member");
      advance();
      skipWhitespace();
      first = false;
    }
  }

  void parseArray(JsonValue& v, std::size_t depth) {
    advance();  // '['
    skipWhitespace();
    if (at(']')) {
      advance();
      return;
    }
    while (true) {
      v.elements_.push_back(parseValue(depth));
      skipWhitespace();
      if (at(']')) {
        advance();
        return;
      }
      if (!at(',')) failHere("a ',' or ']' after an array element");
      advance();
      skipWhitespace();
      if (at(']')) failHere("a value after ','", "Remove the ',' before ']'.");
    }
  }

  std::string parseString() {
    const Mark start = mark();
    advance();  // '"'
    std::string out;
    const auto unterminated = [&] {
      return "the closing '\"' of the string that starts at line " + std::to_string(start.line) +
             ", column " + std::to_string(start.column);
    };
    while (true) {
      if (atEnd()) fail(mark(), "end of file", unterminated(), "Close the string with '\"'.");
      const unsigned char c = peek();
      if (c == '"') {
        advance();
        return out;
      }
      if (c == '\\') {
        parseEscape(out);
      } else if (c < 0x20) {
        failHere("a character that may appear in a string, or " + unterminated(),
                 "Write control characters as escapes (\\n, \\t, \\u001F); a string cannot span "
                 "lines.");
      } else if (c < 0x80) {
        out += static_cast<char>(c);
        advance();
      } else {
        const std::size_t n = utf8SequenceLength(text_, pos_);
        if (n == 0) failHere("UTF-8 text", "Save the file as UTF-8.");
        out.append(text_.substr(pos_, n));
        for (std::size_t i = 0; i < n; ++i) advance();
      }
    }
  }

  // Reads the four hex digits of a \u escape whose backslash is at `escape`.
  std::uint32_t parseHex4(const Mark& escape) {
    advance();  // 'u'
    std::uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      if (atEnd() || !isHexDigit(peek())) {
        fail(escape, escapeExcerpt(escape), "four hex digits after \\u",
             "Write the code point as \\uXXXX with exactly four hex digits.");
      }
      const unsigned char h = peek();
      cp = cp * 16 + (isDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
      advance();
    }
    return cp;
  }

  // The escape starting at `escape` as written, for messages: "\q", "\u12G4", "\uD83D".
  std::string escapeExcerpt(const Mark& escape) const {
    std::size_t end = escape.pos + 1;
    const std::size_t limit = escape.pos + (text_.substr(escape.pos + 1, 1) == "u" ? 6 : 2);
    while (end < limit && end < text_.size() && static_cast<unsigned char>(text_[end]) >= 0x20 &&
           text_[end] != '"')
      ++end;
    return quoted(text_.substr(escape.pos, end - escape.pos));
  }

  void parseEscape(std::string& out) {
    const Mark escape = mark();
    advance();  // '\'
    if (atEnd()) fail(mark(), "end of file", "an escape character after '\\'", kFixSyntax);
    // Escape letters and the characters they stand for, position by position.
    constexpr std::string_view kLetters = "\"\\/bfnrt";
    constexpr std::string_view kMeanings = "\"\\/\b\f\n\r\t";
    if (const std::size_t i = kLetters.find(text_[pos_]); i != std::string_view::npos) {
      out += kMeanings[i];
      advance();
      return;
    }
    if (!at('u')) {
      fail(escape, escapeExcerpt(escape),
           "one of the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
           "Write a literal backslash as \\\\.");
    }
    std::uint32_t cp = parseHex4(escape);
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      fail(escape, escapeExcerpt(escape),
           "a high surrogate (\\uD800 to \\uDBFF) before a low surrogate",
           "Write characters above U+FFFF as a high and low surrogate pair.");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      const Mark low = mark();
      const bool escaped = text_.substr(pos_, 2) == "\\u";
      std::uint32_t second = 0;
      if (escaped) {
        advance();  // '\'
        second = parseHex4(low);
      }
      if (!escaped || second < 0xDC00 || second > 0xDFFF) {
        fail(escape, escapeExcerpt(escape) + " without a low surrogate after it",
             "a low surrogate (\\uDC00 to \\uDFFF) right after a high surrogate",
             "Write characters above U+FFFF as a high and low surrogate pair.");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (second - 0xDC00);
    }
    appendUtf8(out, cp);
  }

  void parseNumber(JsonValue& v) {
    const Mark start = mark();
    if (at('-')) advance();
    if (atEnd() || !isDigit(peek())) failHere("a digit after '-'");
    if (at('0')) {
      advance();
      if (!atEnd() && isDigit(peek())) {
        fail(start, describeAt(text_, start.pos), "a number without leading zeros",
             "Remove the leading zeros; JSON does not allow them.");
      }
    } else {
      while (!atEnd() && isDigit(peek())) advance();
    }
    if (at('.')) {
      advance();
      if (atEnd() || !isDigit(peek())) failHere("a digit after the decimal point");
      while (!atEnd() && isDigit(peek())) advance();
    }
    if (at('e') || at('E')) {
      advance();
      if (at('+') || at('-')) advance();
      if (atEnd() || !isDigit(peek())) failHere("a digit in the exponent");
      while (!atEnd() && isDigit(peek())) advance();
    }
    const std::string_view text = text_.substr(start.pos, pos_ - start.pos);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) {
      if (magnitudeAtLeastOne(text)) {
        fail(start, quotedExcerpt(text), "a number within the range of a double (about 1.8e308)",
             "Write a smaller number.");
      }
      value = text[0] == '-' ? -0.0 : 0.0;  // too small for a double: rounds to zero
    } else if (ec != std::errc() || end != text.data() + text.size()) {
      fail(start, quotedExcerpt(text), "a number", kFixSyntax);  // the grammar check passed it
    }
    v.number_ = value;
    v.text_ = std::string(text);
  }

  void parseLiteral(JsonValue& v) {
    const Mark start = mark();
    std::size_t end = pos_;
    while (end < text_.size() && isLetter(static_cast<unsigned char>(text_[end]))) ++end;
    const std::string_view word = text_.substr(pos_, end - pos_);
    if (word == "true" || word == "false") {
      v.kind_ = JsonValue::Kind::Bool;
      v.bool_ = word == "true";
    } else if (word == "null") {
      v.kind_ = JsonValue::Kind::Null;
    } else {
      failHere(kExpectValue);
    }
    while (pos_ < end) advance();
    // "truex" is one bad word, not true followed by garbage.
    if (!atEnd() && isWordChar(peek()))
      fail(start, describeAt(text_, start.pos), kExpectValue, kFixSyntax);
  }

  std::string_view text_;
  const std::string& sourceName_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t column_ = 1;
};

const char* JsonValue::kindName(Kind kind) noexcept {
  switch (kind) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return "boolean";
    case Kind::Number:
      return "number";
    case Kind::String:
      return "string";
    case Kind::Array:
      return "array";
    case Kind::Object:
      return "object";
  }
  return "unknown";
}

void JsonValue::requireKind(Kind kind) const {
  if (kind_ != kind) {
    throw std::logic_error(
        "JSON value at " + where(*this) + " is " +
        (kind_ == Kind::Array || kind_ == Kind::Object ? "an " : "a ") + kindName() + ", not " +
        (kind == Kind::Array || kind == Kind::Object ? "an " : "a ") + kindName(kind));
  }
}

bool JsonValue::asBool() const {
  requireKind(Kind::Bool);
  return bool_;
}

double JsonValue::asDouble() const {
  requireKind(Kind::Number);
  return number_;
}

const std::string& JsonValue::numberText() const {
  requireKind(Kind::Number);
  return text_;
}

std::int64_t JsonValue::asInt64() const {
  requireKind(Kind::Number);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), value);
  if (ec != std::errc() || end != text_.data() + text_.size()) {
    throw std::range_error("number " + text_ + " at " + where(*this) +
                           " is not an integer from -9223372036854775808 to "
                           "9223372036854775807");
  }
  return value;
}

std::uint64_t JsonValue::asUint64() const {
  requireKind(Kind::Number);
  if (text_ == "-0") return 0;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), value);
  if (ec != std::errc() || end != text_.data() + text_.size()) {
    throw std::range_error("number " + text_ + " at " + where(*this) +
                           " is not an integer from 0 to 18446744073709551615");
  }
  return value;
}

const std::string& JsonValue::asString() const {
  requireKind(Kind::String);
  return text_;
}

const std::vector<JsonValue>& JsonValue::asArray() const {
  requireKind(Kind::Array);
  return elements_;
}

const std::vector<JsonValue::Member>& JsonValue::members() const {
  requireKind(Kind::Object);
  return members_;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  requireKind(Kind::Object);
  for (const Member& m : members_)
    if (m.first == key) return &m.second;
  return nullptr;
}

JsonValue parseJson(std::string_view text, const std::string& sourceName) {
  return JsonParser(text, sourceName).parseDocument();
}

JsonValue readJsonFile(const std::string& path) {
  const char* remedy = "Check the path and that the file can be read.";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InvalidInputError(path, "", "a directory", "a JSON file", remedy);
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw InvalidInputError(path, "",
                            err ? "a file that cannot be opened (" +
                                      std::error_code(err, std::generic_category()).message() + ")"
                                : std::string("a file that cannot be opened"),
                            "a readable JSON file", remedy);
  }
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) text.append(buf, in.gcount());
  if (in.bad()) {
    throw InvalidInputError(path, "", "a read error part way through the file",
                            "a readable JSON file", remedy);
  }
  return parseJson(text, path);
}

}  // namespace modescope
