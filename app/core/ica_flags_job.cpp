#include "app/core/ica_flags_job.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "app/core/ica_cleaning.h"
#include "app/core/ica_metrics.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/ica/infomax.h"
#include "engine/io/atomic_file.h"

namespace modescope {
namespace {

std::vector<IcaReferenceSeries> readReferences(const Recording& rec,
                                               const std::vector<std::size_t>& channels,
                                               const IcaFile& file) {
  std::vector<IcaReferenceSeries> out;
  for (std::size_t i : channels) {
    std::vector<float> x = rec.readChannel(i, file.firstSample, file.samples);
    if (static_cast<int64_t>(x.size()) == file.samples)
      out.push_back({rec.channels[i].name, std::move(x)});
  }
  return out;
}

// Without EOG electrodes, the frontal sites see blinks but hardly horizontal movements, which
// turn the eyes' dipoles sideways: F8 - F7 (AF8 - AF7) is the usual bipolar stand-in for the
// HEOG, the sites nearest the outer canthi.
void addHorizontalEogProxy(const Recording& rec, const IcaFile& file, IcaFlagInput& in) {
  for (const auto& [right, left] : {std::pair{"F8", "F7"}, std::pair{"AF8", "AF7"}}) {
    const int r = rec.findChannel(right), l = rec.findChannel(left);
    if (r < 0 || l < 0) continue;
    const auto& cr = rec.channels[static_cast<std::size_t>(r)];
    const auto& cl = rec.channels[static_cast<std::size_t>(l)];
    if (cr.sampleRate != file.sampleRate || cl.sampleRate != file.sampleRate) continue;
    std::vector<float> a =
        rec.readChannel(static_cast<std::size_t>(r), file.firstSample, file.samples);
    const std::vector<float> b =
        rec.readChannel(static_cast<std::size_t>(l), file.firstSample, file.samples);
    if (static_cast<int64_t>(a.size()) != file.samples || a.size() != b.size()) continue;
    for (std::size_t i = 0; i < a.size(); ++i) a[i] -= b[i];
    in.eog.push_back({std::string(right) + "-" + left, std::move(a)});
    return;
  }
}

std::string tsvField(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

IcaFlagInput icaFlagInput(const Recording& rec, const IcaFile& file) {
  checkIcaMatchesRecording(rec, file, file.inputFile);
  std::vector<std::size_t> channels;
  for (const IcaFileChannel& c : file.channels) channels.push_back(c.recordingIndex);
  const SignalBlock block = extractBlock(rec, channels, file.startSeconds(),
                                         static_cast<double>(file.samples) / file.sampleRate);
  return icaFlagInput(rec, file, icaActivations(file.result, block));
}

IcaFlagInput icaFlagInput(const Recording& rec, const IcaFile& file,
                          std::vector<float> activations) {
  IcaFlagInput in;
  in.sampleRate = file.sampleRate;
  in.components = file.result.components;
  in.samples = in.components > 0 ? static_cast<int64_t>(activations.size()) / in.components : 0;
  in.activations = std::move(activations);
  in.mixing = file.result.mixing;
  for (const IcaFileChannel& c : file.channels) {
    in.channelNames.push_back(c.name);
    in.positions.push_back(c.position);
  }
  const IcaReferenceChannels refs = icaReferenceChannels(rec, file.sampleRate);
  in.eog = readReferences(rec, refs.eog, file);
  in.ecg = readReferences(rec, refs.ecg, file);
  in.eogIsFrontalProxy = refs.eogIsFrontalProxy;
  if (refs.eogIsFrontalProxy) addHorizontalEogProxy(rec, file, in);
  return in;
}

IcaFlags flagIcaFile(const Recording& rec, const IcaFile& file, const IcaFlagParams& params,
                     JobContext& ctx) {
  validateIcaFlagParams(params);
  ctx.progress(0.0, "reading the decomposed range");
  const IcaFlagInput in = icaFlagInput(rec, file);
  ctx.checkpoint();
  return flagIcaComponents(in, params, ctx);
}

std::string icaFlagsTsv(const IcaFlags& flags) {
  std::string s =
      "component\ttype\tdescription\tstatus\tstatus_description\tannotate_method\t"
      "annotate_author\tic_type\tpred_prob\n";
  for (std::size_t k = 0; k < flags.components.size(); ++k) {
    const IcaComponentFlags& c = flags.components[k];
    std::string reasons = c.reasons();
    for (char& ch : reasons)
      if (ch == '\n') ch = ';';
    char prob[32];
    std::snprintf(prob, sizeof prob, "%.4f", c.confidence);
    const bool bad = c.label != IcaFlagLabel::BrainOrOther;
    s += std::to_string(k) + "\tica\tIndependent Component\t" + (bad ? "bad" : "good") + "\t" +
         (reasons.empty() ? "n/a" : tsvField(reasons)) + "\tmodescope-flags\tn/a\t" +
         icaFlagIcType(c.label) + "\t" + prob + "\n";
  }
  return s;
}

void writeIcaFlagsTsv(const std::string& path, const IcaFlags& flags) {
  writeTextAtomically(path, icaFlagsTsv(flags), "the ICA flags");
}

}  // namespace modescope

namespace modescope {

IcaFlags readIcaFlagsTsv(const std::string& path, int components) {
  std::ifstream in(path);
  if (!in)
    throw InvalidInputError(path, "file", "not readable", "a components.tsv",
                            "check the path given to --flags");
  auto fail = [&](int line, const std::string& what) {
    throw InvalidInputError(path, "line " + std::to_string(line), what,
                            "a components.tsv of this decomposition",
                            "write it with 'modescope-cli ica-flags' or mne-icalabel");
  };
  std::string line;
  if (!std::getline(in, line)) fail(1, "empty file, expected a components.tsv header");
  const std::vector<std::string> header = split(line, '\t');
  auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (trim(header[i]) == name) return static_cast<int>(i);
    return -1;
  };
  const int componentCol = column("component"), typeCol = column("ic_type");
  const int probCol = column("pred_prob");
  if (componentCol < 0 || typeCol < 0) fail(1, "no 'component' or 'ic_type' column");
  IcaFlags flags;
  flags.components.resize(static_cast<std::size_t>(std::max(components, 0)));
  std::vector<bool> seen(flags.components.size(), false);
  int lineNo = 1;
  while (std::getline(in, line)) {
    ++lineNo;
    if (trim(line).empty()) continue;
    const std::vector<std::string> cells = split(line, '\t');
    if (static_cast<int>(cells.size()) <= std::max({componentCol, typeCol, probCol}))
      fail(lineNo, "fewer cells than the header has columns");
    int k = -1;
    try {
      std::size_t used = 0;
      k = std::stoi(cells[componentCol], &used);
      if (used != trim(cells[componentCol]).size()) k = -1;
    } catch (const std::exception&) {
      k = -1;
    }
    if (k < 0 || k >= components || seen[static_cast<std::size_t>(k)])
      fail(lineNo, "component '" + cells[componentCol] + "' is not a new number from 0 to " +
                       std::to_string(components - 1));
    seen[static_cast<std::size_t>(k)] = true;
    IcaComponentFlags& c = flags.components[static_cast<std::size_t>(k)];
    const std::string type = trim(cells[typeCol]);
    if (type == "other" || type == "n/a") {
      c.label = IcaFlagLabel::BrainOrOther;
    } else {
      try {
        const auto labels = parseIcaFlagLabels(type, "ic_type");
        c.label = labels.front();
      } catch (const InvalidParameterError&) {
        if (type != "brain") fail(lineNo, "unknown ic_type '" + type + "'");
      }
    }
    c.confidence = 1.0;
    if (probCol >= 0) {
      try {
        c.confidence = std::stod(cells[probCol]);
      } catch (const std::exception&) {
        fail(lineNo, "pred_prob '" + cells[probCol] + "' is not a number");
      }
    }
  }
  for (std::size_t k = 0; k < seen.size(); ++k)
    if (!seen[k])
      fail(lineNo, "no row for component " + std::to_string(k) + " of " +
                       std::to_string(components) + " (is it this decomposition's file?)");
  return flags;
}

std::vector<int> rejectedByFlags(const IcaFlags& flags, const std::vector<IcaFlagLabel>& labels) {
  return flaggedComponents(flags, labels, 0.5);
}

}  // namespace modescope
