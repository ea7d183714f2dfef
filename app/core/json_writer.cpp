#include "app/core/json_writer.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "engine/core/text.h"

namespace modescope {

std::string jsonQuote(std::string_view raw) {
  // sanitizeUtf8 also turns control bytes into U+FFFD, which would lose tabs and newlines in
  // annotation texts; so escape those first and sanitise only the rest.
  std::string out = "\"";
  std::size_t runStart = 0;
  auto flushRun = [&](std::size_t end) {
    if (end > runStart) out += sanitizeUtf8(raw.substr(runStart, end - runStart));
  };
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    const char* esc = nullptr;
    char buf[8];
    switch (c) {
      case '"':
        esc = "\\\"";
        break;
      case '\\':
        esc = "\\\\";
        break;
      case '\n':
        esc = "\\n";
        break;
      case '\r':
        esc = "\\r";
        break;
      case '\t':
        esc = "\\t";
        break;
      case '\b':
        esc = "\\b";
        break;
      case '\f':
        esc = "\\f";
        break;
      default:
        if (c < 0x20) {
          static const char kHex[] = "0123456789abcdef";
          buf[0] = '\\', buf[1] = 'u', buf[2] = '0', buf[3] = '0';
          buf[4] = kHex[c >> 4], buf[5] = kHex[c & 15], buf[6] = 0;
          esc = buf;
        }
    }
    if (esc) {
      flushRun(i);
      out += esc;
      runStart = i + 1;
    }
  }
  flushRun(raw.size());
  out += '"';
  return out;
}

JsonWriter::JsonWriter(bool pretty) : pretty_(pretty) {}

void JsonWriter::newlineIndent(std::size_t depth) {
  if (!pretty_) return;
  out_ += '\n';
  out_.append(depth * 2, ' ');
}

void JsonWriter::beforeValue() {
  if (stack_.empty()) {
    if (wroteRoot_) throw std::logic_error("JsonWriter: a second root value");
    wroteRoot_ = true;
    return;
  }
  Level& top = stack_.back();
  if (top.isObject) {
    if (!expectValueAfterKey_) throw std::logic_error("JsonWriter: a value without a key");
    expectValueAfterKey_ = false;
    return;
  }
  if (!top.empty) out_ += ',';
  top.empty = false;
  newlineIndent(stack_.size());
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (stack_.empty() || !stack_.back().isObject || expectValueAfterKey_) {
    throw std::logic_error("JsonWriter: a key outside an object or after another key");
  }
  Level& top = stack_.back();
  if (!top.empty) out_ += ',';
  top.empty = false;
  newlineIndent(stack_.size());
  out_ += jsonQuote(name);
  out_ += pretty_ ? ": " : ":";
  expectValueAfterKey_ = true;
  return *this;
}

JsonWriter& JsonWriter::open(bool isObject, char bracket) {
  beforeValue();
  out_ += bracket;
  stack_.push_back({isObject});
  return *this;
}

JsonWriter& JsonWriter::close(bool isObject, char bracket) {
  if (stack_.empty() || stack_.back().isObject != isObject || expectValueAfterKey_) {
    throw std::logic_error("JsonWriter: unbalanced end");
  }
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newlineIndent(stack_.size());
  out_ += bracket;
  if (stack_.empty() && pretty_) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::beginObject() { return open(true, '{'); }
JsonWriter& JsonWriter::endObject() { return close(true, '}'); }
JsonWriter& JsonWriter::beginArray() { return open(false, '['); }
JsonWriter& JsonWriter::endArray() { return close(false, ']'); }

JsonWriter& JsonWriter::value(std::string_view s) {
  beforeValue();
  out_ += jsonQuote(s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  beforeValue();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  beforeValue();
  char buf[32];
  // Shortest round-trip form; never locale-dependent (printf would follow LC_NUMERIC).
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  if (ec != std::errc()) throw std::logic_error("JsonWriter: number formatting failed");
  out_.append(buf, end);
  return *this;
}

JsonWriter& JsonWriter::writeInteger(std::int64_t v) {
  beforeValue();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::writeUnsigned(std::uint64_t v) {
  beforeValue();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::null() {
  beforeValue();
  out_ += "null";
  return *this;
}

}  // namespace modescope
