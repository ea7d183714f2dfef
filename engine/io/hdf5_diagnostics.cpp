#include "engine/io/hdf5_diagnostics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace modescope::h5 {

void writeDiagnostics(H5::Group& parent, const Diagnostics& diagnostics) {
  H5::Group g = parent.createGroup("diagnostics");
  std::vector<std::string> severity, code, message;
  for (const Diagnostic& d : diagnostics) {
    severity.push_back(severityName(d.severity));
    code.push_back(d.code);
    message.push_back(d.message);
  }
  writeStrings(g, "severity", severity);
  writeStrings(g, "code", code);
  writeStrings(g, "message", message);
}

Diagnostics readDiagnostics(const Reader& reader, const H5::Group& parent, bool required) {
  Diagnostics out;
  if (!required && !reader.hasChild(parent, "diagnostics")) return out;
  H5::Group g = reader.group(parent, "diagnostics");
  const auto severity = reader.strings(g, "severity");
  const auto n = static_cast<int64_t>(severity.size());
  const auto code = reader.strings(g, "code", n);
  const auto message = reader.strings(g, "message", n);
  for (std::size_t i = 0; i < severity.size(); ++i)
    out.push_back(
        {severity[i] == "warning" ? Severity::Warning : Severity::Info, code[i], message[i]});
  return out;
}

}  // namespace modescope::h5
