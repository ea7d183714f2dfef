#include "engine/core/job_result.h"

#if defined(__GNUC__) || defined(__clang__)
#include <cxxabi.h>

#include <cstdlib>
#endif

namespace modescope {

namespace {

// "modescope::OpenedRecording" rather than "N9modescope15OpenedRecordingE" (Itanium ABI).
std::string demangle(const char* mangled) {
#if defined(__GNUC__) || defined(__clang__)
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status == 0 && readable) {
    std::string name(readable);
    std::free(readable);
    return name;
  }
  std::free(readable);
#endif
  return mangled;
}

}  // namespace

std::string readableTypeName(const std::type_info& type) { return demangle(type.name()); }

std::string JobResult::typeName() const { return empty() ? "nothing" : demangle(type_.name()); }

void JobResult::throwMismatch(const std::type_info& asked) const {
  throw std::logic_error("job result read as " + readableTypeName(asked) + ", but the job " +
                         (empty() ? std::string("returned nothing") : "returned " + typeName()));
}

}  // namespace modescope
