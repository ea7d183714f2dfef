// Which rows of a SignalBlock a method works on: the requested ones, or every row when none are
// requested. Shared by the methods whose parameters carry `rows` (entropy, time-frequency).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace modescope {

// `requested` checked against `available` rows: each below it and none twice; empty -> all.
// Throws InvalidParameterError ("channels" when there is no row at all, with `remedyForNone`;
// "rows" naming the offending row otherwise).
std::vector<std::size_t> resolveBlockRows(std::size_t available,
                                          const std::vector<std::size_t>& requested,
                                          const std::string& remedyForNone);

}  // namespace modescope
