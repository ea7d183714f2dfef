// Shared by the tests that hand expected values to an independent Python reader
// (tests/unit/hdf5_emd_test.cpp, tests/integration/h5py_schema_test.cpp): run a shell command
// and capture what it prints, quote a shell argument, and write strings and numbers as JSON text
// that Python reads back exactly. Header-only.
#pragma once

#include <array>
#include <cstdio>
#include <string>

namespace modescope::test_support {

struct CommandResult {
  int status = -1;     // as pclose() returns it (-1 when the command could not start)
  std::string output;  // stdout and stderr together
};

// Runs `command` through /bin/sh with stderr joined to stdout.
inline CommandResult runCommand(const std::string& command) {
  CommandResult r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  r.status = ::pclose(p);
  return r;
}

// `s` as one single-quoted shell word.
inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `s` as a JSON string literal (UTF-8 passes through; control characters become \u escapes).
inline std::string jsonString(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

// Enough digits to round-trip: 17 for a double, 9 for a float.
inline std::string jsonDouble(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
inline std::string jsonFloat(float v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", static_cast<double>(v));
  return b;
}

}  // namespace modescope::test_support
