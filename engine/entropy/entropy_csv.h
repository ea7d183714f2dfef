// CSV text of one channel x channel entropy matrix (an epoch or the average), for spreadsheets
// and scripts: the first row is "template\target" then the target channel names; every other row
// is a template channel's name then its values. Row u, column v = [u][v] = Cross-ApEn(v||u)
// (entropy_result.h). Values are printed with 17 significant digits (they read back to the same
// double); NaN prints as "NaN". Names containing a comma, a quote or a line break are quoted
// (RFC 4180).
//
// Thread rules: pure function.
#pragma once

#include <string>
#include <vector>

namespace modescope {

// `matrix` holds names.size()^2 values, row-major. Throws InvalidParameterError when it does not.
std::string entropyMatrixCsv(const std::vector<std::string>& names,
                             const std::vector<double>& matrix);

}  // namespace modescope
