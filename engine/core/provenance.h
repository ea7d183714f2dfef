// Where a result came from: stored with every result and output file (docs/hdf5-schema.md,
// "provenance/").
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace modescope {

struct Provenance {
  std::string method;  // "preprocess", "synth", "convert", ...
  std::vector<std::pair<std::string, std::string>> parameters;  // name -> value with unit
  std::string seed;     // "" when the method is deterministic
  std::string backend;  // BackendInfo::describe(): "CPU, 2 threads", "GPU: NVIDIA H200, 139.8 GiB"
  std::string softwareVersion;
  std::string inputFile;
  std::string selection;  // channels and time range, human readable
  std::string createdAt;  // ISO 8601 UTC
  double wallSeconds = 0.0;
};

// "ModeScope 0.1.0"
std::string softwareVersion();
// Current UTC time as ISO 8601 ("2026-11-22T11:20:03Z").
std::string utcNowIso8601();

}  // namespace modescope
