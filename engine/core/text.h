// Small string helpers shared by readers, writers and the CLI.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace modescope {

std::string trim(std::string_view s);
std::string toLower(std::string_view s);
std::string toUpper(std::string_view s);
bool equalsIgnoreCase(std::string_view a, std::string_view b);
bool startsWithIgnoreCase(std::string_view s, std::string_view prefix);
std::vector<std::string> split(std::string_view s, char sep);
// Shortest round-trip-ish text for a number in messages ("160", "0.5", "1e-07").
std::string formatNumber(double v);
// A memory size for messages, in whole mebibytes rounded up ("130 MiB"), so a need is never
// understated.
std::string formatMebibytes(std::size_t bytes);
// A size for people, in the largest binary unit it reaches, one decimal: "1.5 GiB", "640.0 MiB",
// "12.0 KiB", "100 bytes" (a need of 300 MiB is not "0.3 GiB").
std::string formatByteSize(double bytes);
// Replaces bytes that are not valid UTF-8 with U+FFFD so labels from old files display safely.
std::string sanitizeUtf8(std::string_view s);
// Printable form of header bytes for error messages: non-printable bytes as \xNN.
std::string printableBytes(std::string_view s);

}  // namespace modescope
