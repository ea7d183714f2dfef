#include "engine/core/block_rows.h"

#include "engine/core/error.h"

namespace modescope {

std::vector<std::size_t> resolveBlockRows(std::size_t available,
                                          const std::vector<std::size_t>& requested,
                                          const std::string& remedyForNone) {
  std::vector<std::size_t> rows = requested;
  if (rows.empty())
    for (std::size_t i = 0; i < available; ++i) rows.push_back(i);
  if (rows.empty())
    throw InvalidParameterError("channels", "none", "at least one channel", remedyForNone);
  std::vector<bool> seen(available, false);
  for (std::size_t r : rows) {
    if (r >= available)
      throw InvalidParameterError("rows", "row " + std::to_string(r),
                                  "a row below " + std::to_string(available),
                                  "pick rows of the selected block");
    if (seen[r])
      throw InvalidParameterError("rows", "row " + std::to_string(r) + " twice",
                                  "each channel once", "remove the repeated channel");
    seen[r] = true;
  }
  return rows;
}

}  // namespace modescope
