#include "engine/core/provenance.h"

#include <ctime>

#include "engine/core/version.h"

namespace modescope {

std::string softwareVersion() { return std::string("ModeScope ") + kVersionString; }

std::string utcNowIso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace modescope
