#include "app/core/emd_cleaning.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "app/core/channel_selection.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

// The original source with some channels overwritten over one sample range each.
class PatchedSource final : public SignalSource {
 public:
  struct Patch {
    int64_t first = 0;
    std::vector<float> samples;
  };
  PatchedSource(std::shared_ptr<const SignalSource> base, std::map<std::size_t, Patch> patches)
      : base_(std::move(base)), patches_(std::move(patches)) {}

  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    if (count <= 0) return;
    base_->read(channel, first, count, out);
    const auto it = patches_.find(channel);
    if (it == patches_.end()) return;
    const Patch& p = it->second;
    const int64_t pEnd = p.first + static_cast<int64_t>(p.samples.size());
    const int64_t from = std::max(first, p.first), to = std::min(first + count, pEnd);
    if (from < to) {
      std::copy(p.samples.begin() + (from - p.first), p.samples.begin() + (to - p.first),
                out + (from - first));
    }
  }

 private:
  std::shared_ptr<const SignalSource> base_;
  std::map<std::size_t, Patch> patches_;
};

}  // namespace

std::vector<float> sumKeptRows(const EmdChannelModes& modes, int64_t samples,
                               const std::vector<int>& dropRows) {
  const auto n = static_cast<std::size_t>(std::max<int64_t>(samples, 0));
  std::vector<double> sum(n, 0.0);
  for (int r = 0; r < modes.rows; ++r) {
    if (std::find(dropRows.begin(), dropRows.end(), r) != dropRows.end()) continue;
    const float* row = modes.row(r, samples);
    for (std::size_t i = 0; i < n; ++i) sum[i] += row[i];
  }
  return std::vector<float>(sum.begin(), sum.end());
}

std::string describeCleaning(const EmdCleaning& c) {
  std::vector<std::string> parts;
  std::vector<int> imfs = c.dropImfs;
  std::sort(imfs.begin(), imfs.end());
  imfs.erase(std::unique(imfs.begin(), imfs.end()), imfs.end());
  for (int k : imfs) parts.push_back("IMF " + std::to_string(k));
  if (c.dropResidue) parts.push_back("the residue");
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) s += i + 1 == parts.size() ? " and " : ", ";
    s += parts[i];
  }
  return s.empty() ? "nothing" : s;
}

CleanedRecording cleanWithModes(const std::shared_ptr<const Recording>& rec,
                                const EmdResult& modes, const EmdCleaning& cleaning) {
  if (cleaning.dropImfs.empty() && !cleaning.dropResidue) {
    throw InvalidParameterError("IMFs to drop", "none", "at least one IMF number or the residue",
                                "Mark the IMFs that hold the artifact");
  }
  for (int k : cleaning.dropImfs) {
    if (k < 1) {
      throw InvalidParameterError("IMFs to drop", std::to_string(k),
                                  "IMF numbers from 1 (IMF 1 is the fastest oscillation)");
    }
  }
  CleanedRecording out;
  std::map<std::size_t, PatchedSource::Patch> patches;
  std::vector<std::size_t> cleanedChannels;
  for (const EmdChannelModes& m : modes.channels) {
    if (m.channel >= rec->channelCount()) {
      throw InvalidParameterError("decomposed channel", "index " + std::to_string(m.channel + 1),
                                  "1.." + std::to_string(rec->channelCount()));
    }
    const ChannelInfo& info = rec->channels[m.channel];
    if (info.sampleRate != modes.sampleRate || modes.firstSample < 0 ||
        modes.firstSample + modes.samples > info.sampleCount) {
      throw InvalidParameterError(
          "decomposed range of " + info.name,
          "samples " + std::to_string(modes.firstSample) + "+" + std::to_string(modes.samples) +
              " at " + formatNumber(modes.sampleRate) + " Hz",
          "a range inside the channel's " + std::to_string(info.sampleCount) + " samples at " +
              formatNumber(info.sampleRate) + " Hz",
          "Decompose the recording the cleaning is applied to");
    }
    std::vector<int> dropRows;
    std::vector<int> skipped;
    for (int k : cleaning.dropImfs) {
      if (k <= m.imfCount())
        dropRows.push_back(k - 1);
      else
        skipped.push_back(k);
    }
    if (cleaning.dropResidue) dropRows.push_back(m.rows - 1);
    if (!skipped.empty()) {
      std::string list;
      for (int k : skipped) list += (list.empty() ? "" : ", ") + std::to_string(k);
      out.notes.push_back(info.name + " has " + std::to_string(m.imfCount()) +
                          " IMFs: IMF " + list + " skipped there");
    }
    patches[m.channel] = {modes.firstSample, sumKeptRows(m, modes.samples, dropRows)};
    cleanedChannels.push_back(m.channel);
  }
  auto cleaned = std::make_shared<Recording>(*rec);
  cleaned->source = std::make_shared<PatchedSource>(rec->source, std::move(patches));
  const double start = modes.sampleRate > 0 ? modes.firstSample / modes.sampleRate : 0.0;
  const double end =
      modes.sampleRate > 0 ? (modes.firstSample + modes.samples) / modes.sampleRate : 0.0;
  addDiagnostic(cleaned->diagnostics, Severity::Info, "emd.cleaned",
                "Removed " + describeCleaning(cleaning) + " from " +
                    describeChannels(*rec, cleanedChannels) + " over " + formatNumber(start) +
                    "-" + formatNumber(end) + " s (EMD-based cleaning).");
  out.recording = std::move(cleaned);
  return out;
}

}  // namespace modescope
