#include "app/gui/emd_job.h"

#include "app/core/channel_selection.h"

namespace modescope {
namespace {

const char* methodTitle(EmdMethod m) {
  switch (m) {
    case EmdMethod::Emd:
      return "EMD";
    case EmdMethod::Eemd:
      return "EEMD";
    case EmdMethod::Ceemdan:
      return "CEEMDAN";
    case EmdMethod::Iceemdan:
      return "ICEEMDAN";
  }
  return "EMD";
}

}  // namespace

EmdJobSpec toJobSpec(const DecomposeRequest& request, const std::string& inputFile) {
  EmdJobSpec spec;
  static_cast<Selection&>(spec) = request;  // channels and range
  spec.params = request.params;
  spec.presetName = request.presetName;
  spec.hht = request.hht;
  spec.inputFile = inputFile;
  return spec;
}

std::string describeDecomposition(const Recording& rec, const DecomposeRequest& request) {
  return std::string(methodTitle(request.params.method)) + " of " +
         describeChannels(rec, request.channels) + " (" +
         describeTimeRange(request.startSeconds, request.durationSeconds) + ")";
}

}  // namespace modescope
