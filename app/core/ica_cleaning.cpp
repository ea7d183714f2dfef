#include "app/core/ica_cleaning.h"

#include <algorithm>
#include <cmath>

#include "app/core/patched_recording.h"
#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/ica/infomax.h"

namespace modescope {
namespace {

const char* kMatchRemedy = "Give the recording the ICA file was computed from (its input_file)";

}  // namespace

void checkIcaMatchesRecording(const Recording& rec, const IcaFile& f, const std::string& icaPath) {
  for (const IcaFileChannel& c : f.channels) {
    if (c.recordingIndex >= rec.channelCount()) {
      throw InvalidParameterError(
          "--ica",
          "'" + icaPath + "' uses channel " + std::to_string(c.recordingIndex + 1) + " (" +
              c.label + ")",
          "a recording with at least " + std::to_string(c.recordingIndex + 1) + " channels",
          kMatchRemedy);
    }
    const ChannelInfo& info = rec.channels[c.recordingIndex];
    if (info.label != c.label && info.name != c.name) {
      throw InvalidParameterError("--ica",
                                  "channel " + std::to_string(c.recordingIndex + 1) +
                                      " labelled '" + info.label + "' in the recording",
                                  "'" + c.label + "' as in '" + icaPath + "'", kMatchRemedy);
    }
    if (info.sampleRate != f.sampleRate) {
      throw InvalidParameterError("--ica", formatNumber(info.sampleRate) + " Hz on " + info.name,
                                  formatNumber(f.sampleRate) + " Hz as in '" + icaPath + "'",
                                  kMatchRemedy);
    }
    if (f.firstSample + f.samples > info.sampleCount) {
      throw InvalidParameterError("--ica",
                                  std::to_string(info.sampleCount) + " samples on " + info.name,
                                  "at least " + std::to_string(f.firstSample + f.samples) +
                                      " (the decomposed range of '" + icaPath + "')",
                                  kMatchRemedy);
    }
  }
}

std::vector<int> parseRejectList(const std::string& text, int components) {
  std::vector<int> out;
  const std::string all = trim(text);
  if (all.empty() || equalsIgnoreCase(all, "none")) return out;
  std::string item;
  auto take = [&](const std::string& raw) {
    const std::string s = trim(raw);
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || v < 1 || v > components) {
      throw InvalidParameterError("--reject", "'" + s + "'",
                                  "component numbers 1.." + std::to_string(components) +
                                      ", comma-separated (as 'modescope-cli ica' prints them)");
    }
    const int k = static_cast<int>(v) - 1;
    if (std::find(out.begin(), out.end(), k) != out.end()) {
      throw InvalidParameterError("--reject", "'" + text + "'",
                                  "each component once (" + s + " twice)");
    }
    out.push_back(k);
  };
  for (char ch : all) {
    if (ch == ',') {
      take(item);
      item.clear();
    } else {
      item += ch;
    }
  }
  take(item);
  std::sort(out.begin(), out.end());
  return out;
}

std::string describeRejected(const std::vector<int>& rejected) {
  if (rejected.empty()) return "no components";
  std::string s = rejected.size() == 1 ? "component " : "components ";
  for (std::size_t i = 0; i < rejected.size(); ++i) {
    if (i > 0) s += i + 1 == rejected.size() ? " and " : ", ";
    s += std::to_string(rejected[i] + 1);
  }
  return s;
}

std::shared_ptr<const Recording> icaCleanedRecording(std::shared_ptr<const Recording> base,
                                                     const IcaFile& f,
                                                     const std::vector<int>& rejected,
                                                     const std::string& icaPath) {
  if (!base || !base->source) {
    throw InvalidParameterError("recording", "none", "the decomposed recording", kMatchRemedy);
  }
  checkIcaMatchesRecording(*base, f, icaPath);
  std::vector<std::size_t> channels;
  for (const IcaFileChannel& c : f.channels) channels.push_back(c.recordingIndex);
  const double start = static_cast<double>(f.firstSample) / f.sampleRate;
  const double duration = static_cast<double>(f.samples) / f.sampleRate;
  const SignalBlock block = extractBlock(*base, channels, start, duration);
  if (block.firstSample != f.firstSample || block.samples != f.samples) {
    throw InvalidParameterError(
        "--ica",
        "samples " + std::to_string(block.firstSample) + " + " + std::to_string(block.samples),
        "samples " + std::to_string(f.firstSample) + " + " + std::to_string(f.samples) +
            " as in '" + icaPath + "'",
        kMatchRemedy);
  }
  const SignalBlock cleaned = icaBackProject(f.result, block, rejected);

  std::map<std::size_t, std::vector<float>> replacement;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    replacement[channels[i]].assign(cleaned.channel(i), cleaned.channel(i) + cleaned.samples);
  }
  auto rec =
      patchedRecording(base, f.sampleRate, f.firstSample, std::move(replacement), kMatchRemedy);
  addDiagnostic(rec->diagnostics, Severity::Info, "ica.cleaned",
                "Removed ICA " + describeRejected(rejected) + " of " +
                    std::to_string(f.result.components) + " from " +
                    std::to_string(channels.size()) + " channels over " + formatNumber(start) +
                    "-" + formatNumber(start + duration) + " s (" + icaPath + ").");
  return rec;
}

Provenance icaCleaningProvenance(const IcaFile& f, const std::vector<int>& rejected,
                                 const std::string& icaPath) {
  Provenance p;
  p.method = "ica-cleaning";
  std::string list;
  for (int k : rejected) list += (list.empty() ? "" : ",") + std::to_string(k + 1);
  p.parameters = {{"ica_file", icaPath},
                  {"rejected_components", list.empty() ? std::string("none") : list},
                  {"components", std::to_string(f.result.components)}};
  for (const auto& parameter : f.provenance.parameters) p.parameters.push_back(parameter);
  p.seed = f.provenance.seed;
  p.backend = f.provenance.backend;
  p.inputFile = f.inputFile;
  p.selection = f.provenance.selection;
  p.softwareVersion = softwareVersion();
  p.createdAt = utcNowIso8601();
  return p;
}

}  // namespace modescope
