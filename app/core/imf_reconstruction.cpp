#include "app/core/imf_reconstruction.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "app/core/patched_recording.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

bool isDropped(const std::vector<int>& dropped, int row) {
  return std::find(dropped.begin(), dropped.end(), row) != dropped.end();
}

std::string rowName(const EmdChannelModes& m, int row) {
  return row == m.rows - 1 ? std::string("residue") : "IMF " + std::to_string(row + 1);
}

const std::vector<int>* droppedFor(const DroppedRows& dropped, std::size_t channel) {
  const auto it = dropped.find(channel);
  return it == dropped.end() ? nullptr : &it->second;
}

std::string channelName(const Recording& rec, std::size_t channel) {
  return channel < rec.channelCount() ? rec.channels[channel].name : std::to_string(channel + 1);
}

}  // namespace

DroppedRows droppedRowsFor(const Recording& rec, const EmdResult& result,
                           const EmdCleaning& cleaning, std::vector<std::string>* notes) {
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
  DroppedRows dropped;
  for (const EmdChannelModes& m : result.channels) {
    std::vector<int>& rows = dropped[m.channel];
    std::string skipped;
    for (int k : cleaning.dropImfs) {
      if (k <= m.imfCount()) {
        rows.push_back(k - 1);
      } else {
        skipped += (skipped.empty() ? "" : ", ") + std::to_string(k);
      }
    }
    if (cleaning.dropResidue) rows.push_back(m.rows - 1);
    if (notes && !skipped.empty()) {
      notes->push_back(channelName(rec, m.channel) + " has " + std::to_string(m.imfCount()) +
                       " IMFs: IMF " + skipped + " skipped there");
    }
  }
  return dropped;
}

std::string describeCleaning(const EmdCleaning& c) {
  std::vector<int> imfs = c.dropImfs;
  std::sort(imfs.begin(), imfs.end());
  imfs.erase(std::unique(imfs.begin(), imfs.end()), imfs.end());
  std::vector<std::string> parts;
  for (int k : imfs) parts.push_back("IMF " + std::to_string(k));
  if (c.dropResidue) parts.push_back("the residue");
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) s += i + 1 == parts.size() ? " and " : ", ";
    s += parts[i];
  }
  return s.empty() ? "nothing" : s;
}

std::vector<float> reconstructKeptRows(const EmdChannelModes& modes, int64_t samples,
                                       const std::vector<int>& dropped) {
  const auto n = static_cast<std::size_t>(std::max<int64_t>(samples, 0));
  if (modes.rows < 0 || modes.data.size() != static_cast<std::size_t>(modes.rows) * n) {
    throw InvalidParameterError(
        "modes", std::to_string(modes.data.size()) + " values",
        std::to_string(modes.rows) + " rows x " + std::to_string(n) + " samples",
        "Use the decomposition result as the engine returned it");
  }
  // Double accumulation: a dozen float rows of EEG-sized values would otherwise lose a few
  // ulps each, and the oracle (sum of all rows == input) is checked at float precision.
  std::vector<double> sum(n, 0.0);
  for (int r = 0; r < modes.rows; ++r) {
    if (isDropped(dropped, r)) continue;
    const float* row = modes.row(r, samples);
    for (std::size_t i = 0; i < n; ++i) sum[i] += row[i];
  }
  return std::vector<float>(sum.begin(), sum.end());
}

std::shared_ptr<const Recording> cleanedRecording(std::shared_ptr<const Recording> base,
                                                  const EmdResult& result,
                                                  const DroppedRows& dropped) {
  static const std::vector<int> kNone;
  std::map<std::size_t, std::vector<float>> replacement;
  for (const EmdChannelModes& m : result.channels) {
    const std::vector<int>* d = droppedFor(dropped, m.channel);
    replacement[m.channel] = reconstructKeptRows(m, result.samples, d ? *d : kNone);
  }
  auto rec = patchedRecording(base, result.sampleRate, result.firstSample, std::move(replacement),
                              "Apply the result to the recording it was computed from");
  // The rate was checked against every decomposed channel above; with none there is nothing to say.
  const double rate = result.sampleRate;
  if (!result.channels.empty()) {
    addDiagnostic(
        rec->diagnostics, Severity::Info, "emd.cleaned",
        "Removed " + describeDroppedRows(*base, result, dropped) + " over " +
            formatNumber(static_cast<double>(result.firstSample) / rate) + "-" +
            formatNumber(static_cast<double>(result.firstSample + result.samples) / rate) +
            " s (EMD-based cleaning).");
  }
  return rec;
}

std::string describeDroppedRows(const Recording& rec, const EmdResult& result,
                                const DroppedRows& dropped) {
  std::string text;
  for (const EmdChannelModes& m : result.channels) {
    const std::vector<int>* d = droppedFor(dropped, m.channel);
    if (!d) continue;
    std::string rows;
    for (int r = 0; r < m.rows; ++r) {
      if (!isDropped(*d, r)) continue;
      if (!rows.empty()) rows += ", ";
      rows += rowName(m, r);
    }
    if (rows.empty()) continue;
    if (!text.empty()) text += "; ";
    text += channelName(rec, m.channel) + ": " + rows;
  }
  return text.empty() ? std::string("none") : text;
}

Provenance cleaningProvenance(const Recording& rec, const EmdResult& result,
                              const DroppedRows& dropped) {
  Provenance p;
  p.method = "emd-cleaning";
  p.parameters = {{"dropped", describeDroppedRows(rec, result, dropped)},
                  // The method that made the modes: its provenance says ("memd" for MEMD modes
                  // carried as an EmdResult); hand-made results fall back to the EMD variant.
                  {"decomposition", result.provenance.method.empty()
                                        ? std::string(emdMethodName(result.params.method))
                                        : result.provenance.method}};
  for (const auto& parameter : result.provenance.parameters) {
    if (parameter.first != "method") p.parameters.push_back(parameter);
  }
  p.seed = result.provenance.seed;
  p.backend = result.provenance.backend;
  p.inputFile = result.provenance.inputFile;
  p.selection = result.provenance.selection;
  p.softwareVersion = softwareVersion();
  p.createdAt = utcNowIso8601();
  return p;
}

}  // namespace modescope
