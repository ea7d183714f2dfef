// Non-fatal findings that travel beside a result: a reader fallback, clipped samples,
// rank deficiency, a method that did not converge. Shown to the user, never thrown.
#pragma once

#include <string>
#include <vector>

namespace modescope {

enum class Severity { Info, Warning };

struct Diagnostic {
  Severity severity = Severity::Info;
  std::string code;     // stable machine-readable key, e.g. "edf.nonCompliant"
  std::string message;  // one sentence for a human
};

using Diagnostics = std::vector<Diagnostic>;

inline const char* severityName(Severity s) { return s == Severity::Warning ? "warning" : "info"; }

}  // namespace modescope
