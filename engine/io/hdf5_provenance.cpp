#include "engine/io/hdf5_provenance.h"

#include <string>
#include <vector>

namespace modescope::h5 {

void writeProvenance(H5::Group& parent, const Provenance& p) {
  H5::Group g = parent.createGroup("provenance");
  setAttribute(g, "method", p.method);
  setAttribute(g, "seed", p.seed);
  setAttribute(g, "backend", p.backend);
  setAttribute(g, "software_version", p.softwareVersion);
  setAttribute(g, "input_file", p.inputFile);
  setAttribute(g, "selection", p.selection);
  setAttribute(g, "created_at", p.createdAt);
  setAttribute(g, "wall_seconds", p.wallSeconds);
  // Parameters as two parallel string columns: ordered, and a cell array each in MATLAB.
  std::vector<std::string> names, values;
  for (const auto& [n, v] : p.parameters) {
    names.push_back(n);
    values.push_back(v);
  }
  writeStrings(g, "parameter_name", names);
  writeStrings(g, "parameter_value", values);
}

Provenance readProvenance(const Reader& reader, const H5::Group& parent) {
  Provenance p;
  if (!reader.hasChild(parent, "provenance")) return p;
  H5::Group g = reader.group(parent, "provenance");
  p.method = reader.stringAttribute(g, "method", "");
  p.seed = reader.stringAttribute(g, "seed", "");
  p.backend = reader.stringAttribute(g, "backend", "");
  p.softwareVersion = reader.stringAttribute(g, "software_version", "");
  p.inputFile = reader.stringAttribute(g, "input_file", "");
  p.selection = reader.stringAttribute(g, "selection", "");
  p.createdAt = reader.stringAttribute(g, "created_at", "");
  p.wallSeconds = reader.doubleAttribute(g, "wall_seconds", 0.0);
  if (reader.hasChild(g, "parameter_name") || reader.hasChild(g, "parameter_value")) {
    const auto names = reader.strings(g, "parameter_name");
    const auto values = reader.strings(g, "parameter_value", static_cast<int64_t>(names.size()));
    for (std::size_t i = 0; i < names.size(); ++i) p.parameters.emplace_back(names[i], values[i]);
  }
  return p;
}

}  // namespace modescope::h5
