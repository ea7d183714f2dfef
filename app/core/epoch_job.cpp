#include "app/core/epoch_job.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "app/core/recording_selection.h"
#include "engine/core/text.h"

namespace modescope {

EpochJobResult runEpochJob(const Recording& rec, const EpochJobSpec& spec, ComputeBackend& backend,
                           JobContext& ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  // Epochs are cut around events anywhere in the recording: the selection is its channels over
  // the whole time range. (extractEpochs checks the events and the window at that rate.)
  checkSelection(rec, Selection{spec.epochs.channels, 0.0, -1.0},
                 {1, "", "select the channels to average"});
  EpochSpec es = spec.epochs;
  // The window's marks reach here twice (in the spec and in the recording it hands over): a
  // segment is counted once.
  for (const TimeSpan& s : badSegmentsFromAnnotations(rec)) {
    const bool known = std::any_of(
        es.badSegments.begin(), es.badSegments.end(),
        [&](const TimeSpan& t) { return t.onset == s.onset && t.duration == s.duration; });
    if (!known) es.badSegments.push_back(s);
  }
  auto file = std::make_shared<EpochFile>();
  JobContext cut = ctx.sub(0.0, 0.7);
  file->set = extractEpochs(rec, es, cut);
  JobContext avg = ctx.sub(0.7, 0.95);
  file->averages = backend.averageEpochs(file->set, avg);
  for (const std::string& d : spec.differences) {
    const auto [a, b] = parseDifference(file->averages, d);
    file->differences.push_back(differenceWave(file->averages, a, b));
  }
  file->inputFile = rec.sourcePath;
  file->writeEpochs = spec.keepEpochs;
  EpochJobResult out;
  out.backend = backend.info().describe();
  out.badSegments = es.badSegments.size();
  out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Provenance& prov = file->provenance;
  prov.method = spec.keepEpochs ? "epoch" : "average";
  prov.parameters = epochParamTable().describe(file->set.params);
  std::string types;
  for (const auto& t : es.eventTypes) types += (types.empty() ? "" : ", ") + t;
  prov.parameters.emplace_back("ran.events", types);
  prov.parameters.emplace_back("ran.bad_segments", std::to_string(es.badSegments.size()));
  for (const auto& line : epochSummaryLines(file->set))
    prov.parameters.emplace_back("ran.kept", line);
  for (const auto& d : file->differences) prov.parameters.emplace_back("ran.difference", d.name);
  stampJobProvenance(prov, out.backend, rec.sourcePath, rec, es.channels, 0.0, -1.0,
                     out.wallSeconds);
  out.file = std::move(file);
  ctx.progress(1.0, "averaged");
  return out;
}

std::vector<std::string> epochSummaryLines(const EpochSet& set) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < set.conditions.size(); ++k) {
    std::size_t total = 0, outside = 0, bad = 0, p2p = 0;
    for (const EpochLogEntry& e : set.log) {
      if (e.condition != static_cast<int>(k)) continue;
      ++total;
      outside += e.fate == EpochFate::OutsideData;
      bad += e.fate == EpochFate::BadSegment;
      p2p += e.fate == EpochFate::PeakToPeak;
    }
    std::string line = set.conditions[k] + ": " +
                       std::to_string(set.keptCount(static_cast<int>(k))) + " epochs kept of " +
                       std::to_string(total);
    std::string why;
    if (p2p) why += std::to_string(p2p) + " peak-to-peak";
    if (bad) why += (why.empty() ? "" : ", ") + std::to_string(bad) + " bad segment";
    if (outside) why += (why.empty() ? "" : ", ") + std::to_string(outside) + " outside the data";
    if (!why.empty()) line += " (" + why + ")";
    out.push_back(line);
  }
  return out;
}

}  // namespace modescope
