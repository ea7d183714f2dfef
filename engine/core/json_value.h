// A strict JSON (RFC 8259) reader that builds a tree, for versioned pipeline files. Every parse
// error is an InvalidInputError that names the source, "line L, column C", what was found and what
// was expected, so a user can fix a hand-edited file without guessing.
//
// Positions are 1-based. Columns count Unicode code points, not bytes, so they match what editors
// show; a tab counts as one column. "\n", "\r\n" and a lone "\r" each end a line. A UTF-8 byte
// order mark at the start is skipped and takes no column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modescope {

// Deeper nesting is a parse error; the limit keeps a hostile file from exhausting the stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

class JsonValue {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  using Member = std::pair<std::string, JsonValue>;

  // A null value at no source position (line() and column() are 0).
  JsonValue() = default;

  Kind kind() const noexcept { return kind_; }
  // "null", "boolean", "number", "string", "array" or "object", for messages.
  const char* kindName() const noexcept { return kindName(kind_); }
  static const char* kindName(Kind kind) noexcept;

  bool isNull() const noexcept { return kind_ == Kind::Null; }

  // Accessors for the wrong kind throw std::logic_error: callers check kind() first, so reaching
  // one is a bug in the caller, not a problem with the file.
  bool asBool() const;
  double asDouble() const;  // the nearest double; beyond 2^53 integers may lose digits
  // Exact integer reading of the number's source text. Only integer syntax is accepted: an
  // optional '-' and digits, so 1.5, 1.0 and 1e3 are refused even though 1e3 is whole; "-0" is
  // 0. Not an integer, or outside the type's range: std::range_error (a problem with the file).
  std::int64_t asInt64() const;
  std::uint64_t asUint64() const;
  const std::string& numberText() const;  // the number exactly as written
  const std::string& asString() const;    // UTF-8, escapes decoded
  const std::vector<JsonValue>& asArray() const;
  const std::vector<Member>& members() const;  // in file order; names are unique
  // The member named `key`, or nullptr when there is none.
  const JsonValue* find(std::string_view key) const;

  std::size_t line() const noexcept { return line_; }
  std::size_t column() const noexcept { return column_; }

 private:
  friend class JsonParser;

  void requireKind(Kind kind) const;

  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0.0;
  std::string text_;  // string contents, or a number's source text
  std::vector<JsonValue> elements_;
  std::vector<Member> members_;
  std::size_t line_ = 0;
  std::size_t column_ = 0;
};

// Parses `text` as one JSON value. Malformed input throws InvalidInputError with `sourceName` as
// its path and "line L, column C" as its field.
JsonValue parseJson(std::string_view text, const std::string& sourceName);

// Reads and parses the file at `path`; an unreadable file throws InvalidInputError too.
JsonValue readJsonFile(const std::string& path);

}  // namespace modescope
