// Hammersley directions as memd.m builds them, and the text tables of supplied directions and
// noise (memd_directions.h).
#include "engine/memd/memd_directions.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"

namespace modescope {

std::vector<int> firstPrimes(int count) {
  std::vector<int> primes;
  for (int c = 2; static_cast<int>(primes.size()) < count; ++c) {
    bool prime = true;
    for (int p : primes) {
      if (p * p > c) break;
      if (c % p == 0) {
        prime = false;
        break;
      }
    }
    if (prime) primes.push_back(c);
  }
  return primes;
}

namespace {

// memd.m hamm(n, base) for base > 1: the radical inverse of seed = 1..n.
double radicalInverse(long long k, int base) {
  double value = 0, inv = 1.0 / base;
  while (k != 0) {
    value += static_cast<double>(k % base) * inv;
    inv /= base;
    k /= base;
  }
  return value;
}

}  // namespace

std::vector<double> hammersleyDirections(int dims, int count) {
  const auto un = static_cast<std::size_t>(dims);
  std::vector<double> out(un * static_cast<std::size_t>(count));
  const std::vector<int> primes = firstPrimes(dims > 1 ? dims - 1 : 0);
  std::vector<double> seq(un), b(un), theta(un);
  for (int k = 1; k <= count; ++k) {
    double* d = out.data() + static_cast<std::size_t>(k - 1) * un;
    // hamm(K, -K): (mod(k, K + 1) + 0.5) / K
    seq[0] = (static_cast<double>(k % (count + 1)) + 0.5) / count;
    for (int j = 1; j < dims; ++j) seq[j] = radicalInverse(k, primes[j - 1]);
    if (dims == 1) {
      d[0] = 1;
      continue;
    }
    if (dims == 3) {
      const double tt = std::min(1.0, std::max(-1.0, 2 * seq[0] - 1));
      const double phi = seq[1] * 2 * M_PI;
      const double st = std::sqrt(1.0 - tt * tt);
      d[0] = st * std::cos(phi);
      d[1] = st * std::sin(phi);
      d[2] = tt;
      continue;
    }
    for (int j = 0; j < dims; ++j) b[j] = 2 * seq[j] - 1;
    // theta_i = atan2(sqrt(sum_{j>i} b_j^2), b_i): memd.m's flipud(cumsum(b(end:-1:2).^2)).
    double tail = 0;
    for (int i = dims - 2; i >= 0; --i) {
      tail += b[i + 1] * b[i + 1];
      theta[i] = std::atan2(std::sqrt(tail), b[i]);
    }
    // dir = [1 cumprod(sin(theta))]; dir(1:end-1) .*= cos(theta)
    double prod = 1;
    for (int i = 0; i < dims - 1; ++i) {
      d[i] = prod * std::cos(theta[i]);
      prod *= std::sin(theta[i]);
    }
    d[dims - 1] = prod;
  }
  return out;
}

TextMatrix readTextMatrix(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw InvalidInputError(path, "file", "cannot be opened", "a readable text file",
                            "check the path (docs/memd.md, \"Files\")");
  TextMatrix m;
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    for (char& c : line)
      if (c == ',' || c == ';' || c == '\t' || c == '\r') c = ' ';
    std::istringstream ss(line);
    std::string tok;
    int cols = 0;
    bool any = false;
    while (ss >> tok) {
      if (!any && (tok[0] == '#' || tok[0] == '%')) break;
      any = true;
      char* end = nullptr;
      const double v = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0' || !std::isfinite(v))
        throw InvalidInputError(path, "line " + std::to_string(lineNo), "'" + tok + "'",
                                "finite numbers separated by spaces or commas",
                                "write the table with MATLAB writematrix or numpy savetxt");
      m.values.push_back(v);
      ++cols;
    }
    if (!any) continue;
    if (m.rows > 0 && cols != m.columns)
      throw InvalidInputError(path, "line " + std::to_string(lineNo),
                              std::to_string(cols) + " values",
                              std::to_string(m.columns) + " values, as the first row",
                              "write one row per line, all rows of equal length");
    m.columns = cols;
    ++m.rows;
  }
  if (m.rows == 0)
    throw InvalidInputError(path, "file", "no numbers", "at least one row of numbers");
  return m;
}

}  // namespace modescope
