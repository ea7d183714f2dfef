// planReference: which block rows form the reference signal and which are re-referenced.
#include <algorithm>
#include <array>
#include <optional>

#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"

namespace modescope {
namespace {

// Row of recording channel `recIndex` in the block, if selected.
std::optional<std::size_t> rowOf(const std::vector<std::size_t>& blockChannels, int recIndex) {
  if (recIndex < 0) return std::nullopt;
  const auto it =
      std::find(blockChannels.begin(), blockChannels.end(), static_cast<std::size_t>(recIndex));
  if (it == blockChannels.end()) return std::nullopt;
  return static_cast<std::size_t>(it - blockChannels.begin());
}

std::vector<std::size_t> eegRows(const Recording& rec,
                                 const std::vector<std::size_t>& blockChannels) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < blockChannels.size(); ++r) {
    const std::size_t ch = blockChannels[r];
    if (ch >= rec.channels.size()) {
      throw InvalidParameterError("channels", "index " + std::to_string(ch + 1),
                                  "1.." + std::to_string(rec.channels.size()));
    }
    if (rec.channels[ch].type == ChannelType::EEG) rows.push_back(r);
  }
  return rows;
}

ReferencePlan linkedMastoids(const Recording& rec, const std::vector<std::size_t>& blockChannels,
                             std::vector<std::size_t> targets) {
  // Conventional names of the left/right mastoid (or earlobe) electrodes, in order of preference.
  static constexpr std::array<std::array<const char*, 2>, 3> kPairs = {
      {{"M1", "M2"}, {"A1", "A2"}, {"TP9", "TP10"}}};
  std::string presentButUnselected;
  for (const auto& pair : kPairs) {
    const int left = rec.findChannel(pair[0]);
    const int right = rec.findChannel(pair[1]);
    if (left < 0 || right < 0) continue;
    const auto lr = rowOf(blockChannels, left);
    const auto rr = rowOf(blockChannels, right);
    if (lr && rr) return {{*lr, *rr}, {0.5, 0.5}, std::move(targets)};
    if (presentButUnselected.empty()) {
      presentButUnselected = std::string(pair[0]) + " and " + pair[1];
    }
  }
  if (!presentButUnselected.empty()) {
    throw InvalidParameterError(
        "reference", "linked mastoids with " + presentButUnselected + " not in the selection",
        "both mastoid channels among the selected channels",
        "Add " + presentButUnselected + " to the channel selection (--channels)");
  }
  throw InvalidParameterError(
      "reference", "linked mastoids, but the recording has no M1/M2, A1/A2 or TP9/TP10 pair",
      "a recording with both mastoid (or earlobe) electrodes",
      "Use the average reference or channel:NAME with an electrode the recording has");
}

}  // namespace

ReferencePlan planReference(const Recording& rec, const std::vector<std::size_t>& blockChannels,
                            const ReferenceSpec& spec) {
  if (spec.kind == ReferenceKind::AsRecorded) return {};
  auto targets = eegRows(rec, blockChannels);
  if (targets.empty()) {
    throw InvalidParameterError(
        "reference", describe(spec) + " on a selection without EEG channels",
        "at least one EEG channel in the selection (only EEG channels are re-referenced)",
        "Select EEG channels, or use --reference none");
  }
  switch (spec.kind) {
    case ReferenceKind::AsRecorded:
      return {};
    case ReferenceKind::Average: {
      const double w = 1.0 / static_cast<double>(targets.size());
      ReferencePlan p;
      p.sources = targets;
      p.weights.assign(targets.size(), w);
      p.targets = std::move(targets);
      return p;
    }
    case ReferenceKind::LinkedMastoids:
      return linkedMastoids(rec, blockChannels, std::move(targets));
    case ReferenceKind::Channel: {
      if (spec.channel.empty()) {
        throw InvalidParameterError("reference channel", "an empty name",
                                    "an electrode name or label, e.g. channel:Cz");
      }
      const int index = rec.findChannel(spec.channel);
      if (index < 0) {
        throw InvalidParameterError(
            "reference channel", "'" + spec.channel + "'",
            "the name or label of a channel in the recording",
            "Check the spelling against the channel list (modescope-cli info)");
      }
      const auto row = rowOf(blockChannels, index);
      if (!row) {
        throw InvalidParameterError(
            "reference channel",
            "'" + spec.channel + "' (recording channel " + std::to_string(index + 1) +
                ") outside the selection",
            "the reference channel among the selected channels",
            "Add " + spec.channel + " to the channel selection (--channels)");
      }
      return {{*row}, {1.0}, std::move(targets)};
    }
  }
  return {};
}

}  // namespace modescope
