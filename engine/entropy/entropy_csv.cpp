// CSV text of an entropy matrix (entropy_csv.h).
#include "engine/entropy/entropy_csv.h"

#include <cmath>
#include <cstdio>

#include "engine/core/error.h"

namespace modescope {
namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string entropyMatrixCsv(const std::vector<std::string>& names,
                             const std::vector<double>& matrix) {
  const std::size_t c = names.size();
  if (matrix.size() != c * c)
    throw InvalidParameterError("matrix", std::to_string(matrix.size()) + " values",
                                std::to_string(c * c) + " (channels^2)");
  std::string out = "template\\target";
  for (const std::string& n : names) out += "," + field(n);
  out += "\n";
  for (std::size_t u = 0; u < c; ++u) {
    out += field(names[u]);
    for (std::size_t v = 0; v < c; ++v) out += "," + number(matrix[u * c + v]);
    out += "\n";
  }
  return out;
}

}  // namespace modescope
