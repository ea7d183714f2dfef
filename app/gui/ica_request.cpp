#include "app/gui/ica_request.h"

#include <algorithm>
#include <map>

#include "app/core/channel_selection.h"

namespace modescope {

IcaJobSpec toJobSpec(const IcaRequest& request, const std::string& inputFile,
                     BackendChoice menuChoice) {
  IcaJobSpec spec;
  static_cast<Selection&>(spec) = request;  // channels and range
  spec.params = request.params;
  spec.presetName = request.presetName;
  spec.inputFile = inputFile;
  spec.backend = request.backend.value_or(menuChoice);
  return spec;
}

std::string describeIca(const Recording& rec, const IcaRequest& request) {
  return "ICA of " + describeChannels(rec, request.channels) + " (" +
         describeTimeRange(request.startSeconds, request.durationSeconds) + ")";
}

std::vector<int> defaultIcaChannels(const Recording& rec, const std::vector<std::string>& bad) {
  std::map<double, int> rates;
  for (const ChannelInfo& c : rec.channels)
    if (c.type == ChannelType::EEG) ++rates[c.sampleRate];
  if (rates.empty()) return {};
  const double rate =
      std::max_element(rates.begin(), rates.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  std::vector<int> out;
  for (std::size_t i = 0; i < rec.channelCount(); ++i) {
    const ChannelInfo& c = rec.channels[i];
    if (c.type != ChannelType::EEG || c.sampleRate != rate) continue;
    if (std::find(bad.begin(), bad.end(), c.name) != bad.end()) continue;
    out.push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace modescope
