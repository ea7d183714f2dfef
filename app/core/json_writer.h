// A small streaming JSON writer for machine-readable output (`modescope-cli ... --json`) and for
// anything else that must emit JSON without a third-party library.
//
// Strings are written as UTF-8; invalid byte sequences are replaced with U+FFFD and control
// characters are escaped, so the output always parses. Numbers use the shortest text that reads
// back to the same double (locale-independent); NaN and infinities become null because JSON has
// no spelling for them. Misuse (a value where a key is due, unbalanced end calls) throws
// std::logic_error: it is a programming error, not a user error.
//
// Not thread-safe: one writer per thread.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace modescope {

class JsonWriter {
 public:
  // pretty: two-space indentation and one member per line; else the most compact form.
  explicit JsonWriter(bool pretty = true);

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  // The next member's name; only inside an object, and only before each value.
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double d);
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonWriter& value(T v) {
    if constexpr (std::is_signed_v<T>)
      return writeInteger(static_cast<std::int64_t>(v));
    else
      return writeUnsigned(static_cast<std::uint64_t>(v));
  }
  JsonWriter& null();

  // key(name).value(v) in one call.
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }
  JsonWriter& nullField(std::string_view name) {
    key(name);
    return null();
  }

  // The text so far; complete once every begin has its end.
  const std::string& str() const { return out_; }
  bool complete() const { return stack_.empty() && wroteRoot_; }

 private:
  struct Level {
    bool isObject;
    bool empty = true;
  };
  void beforeValue();
  void newlineIndent(std::size_t depth);
  JsonWriter& writeInteger(std::int64_t v);
  JsonWriter& writeUnsigned(std::uint64_t v);
  JsonWriter& open(bool isObject, char bracket);
  JsonWriter& close(bool isObject, char bracket);

  bool pretty_;
  bool expectValueAfterKey_ = false;
  bool wroteRoot_ = false;
  std::vector<Level> stack_;
  std::string out_;
};

// The JSON string literal for s, quotes included (escaped as JsonWriter does).
std::string jsonQuote(std::string_view s);

}  // namespace modescope
