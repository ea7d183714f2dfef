// Projection directions of MEMD: the Hammersley set exactly as Rehman and Mandic's memd.m builds
// it, and direction/noise sets read from text files so a MATLAB run can be repeated value for
// value (docs/memd.md, "Files").
//
// memd.m's construction for n dimensions and K directions, k = 1..K:
//   seq_1(k) = (mod(k, K + 1) + 0.5) / K                 (hamm(K, -K))
//   seq_j(k) = radical inverse of k in base p_{j-1}      (p = 2, 3, 5, 7, ...), j = 2..n
//   n != 3:  b = 2 seq - 1; theta_i = atan2(|b_{i+1..n}|, b_i), i = 1..n-1;
//            d_1 = cos theta_1, d_i = prod_{j<i} sin theta_j * cos theta_i, d_n = prod sin theta_j
//   n == 3:  tt = clip(2 seq_1 - 1, -1, 1), phi = 2 pi seq_2; d = (sqrt(1 - tt^2) cos phi,
//            sqrt(1 - tt^2) sin phi, tt)
// (The published GPU code's MATLAB entry point passes primes [2 3 5 ...] where memd.m passes -K,
// which crowds the directions around -e_1; this is memd.m's set, not that one.)
//
// Thread rules: pure functions.
#pragma once

#include <string>
#include <vector>

namespace modescope {

// K x n values, row-major: row k-1 is direction k. n >= 1, K >= 1.
std::vector<double> hammersleyDirections(int dims, int count);

// The first `count` primes (2, 3, 5, ...).
std::vector<int> firstPrimes(int count);

// A numeric text table: one row per line, values separated by spaces, tabs or commas (MATLAB
// writematrix/dlmwrite, numpy savetxt); empty lines and lines starting with '#' or '%' skipped.
// Throws InvalidInputError naming the file, line and token for an unreadable or non-finite value
// or rows of different lengths.
struct TextMatrix {
  int rows = 0, columns = 0;
  std::vector<double> values;  // rows x columns, row-major
};
TextMatrix readTextMatrix(const std::string& path);

}  // namespace modescope
