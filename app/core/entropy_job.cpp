#include "app/core/entropy_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/core/recording_selection.h"
#include "engine/core/bad_marks.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

namespace {

// What the job's check finds, or nothing (rate and samples 0) where it would refuse the
// selection: the dialog asks while the user is still choosing.
CheckedSelection checkedOrNothing(const Recording& rec, const EntropyJobSpec& spec) {
  try {
    return checkSelection(rec, spec);
  } catch (const InvalidParameterError&) {
    return {};
  }
}

}  // namespace

int64_t entropySelectionSamples(const Recording& rec, const EntropyJobSpec& spec) {
  return checkedOrNothing(rec, spec).samples;
}

int64_t entropyEpochCount(const Recording& rec, const EntropyJobSpec& spec) {
  const int64_t n = entropySelectionSamples(rec, spec);
  if (n <= 0 || spec.params.epochSamples < 0) return 0;
  if (spec.params.epochSamples == 0) return 1;
  return n / spec.params.epochSamples;
}

void checkEntropyJob(const Recording& rec, const EntropyJobSpec& spec) {
  if (spec.channels.size() > kEntropyMaxChannels)
    throw InvalidParameterError("channels", std::to_string(spec.channels.size()),
                                "at most " + std::to_string(kEntropyMaxChannels),
                                "select fewer channels");
  const auto [fs, n] = checkSelection(rec, spec, {1, "", "select the channels to compare"});
  validateEntropyParams(spec.params);
  const int64_t epoch = spec.params.epochSamples;
  const int m = spec.params.m;
  if (epoch > n)
    throw InvalidParameterError("epoch", std::to_string(epoch) + " samples",
                                "at most the selection, " + std::to_string(n) + " samples (" +
                                    formatNumber(static_cast<double>(n) / fs) + " s)",
                                "shorten the epoch or lengthen the time range");
  if (epoch == 0 && (n < entropyMinimumEpoch(m) || n > kEntropyMaxEpochSamples))
    throw InvalidParameterError("epoch", "the whole selection, " + std::to_string(n) + " samples",
                                std::to_string(entropyMinimumEpoch(m)) + " to " +
                                    std::to_string(kEntropyMaxEpochSamples) + " samples",
                                "give an epoch length (the seed used 1024 samples)");
  const double entries = static_cast<double>(epoch == 0 ? 1 : n / epoch) *
                         static_cast<double>(spec.channels.size()) *
                         static_cast<double>(spec.channels.size());
  if (entries > static_cast<double>(kEntropyMaxEntries))
    throw InvalidParameterError("epochs x channels^2", formatNumber(entries),
                                "at most " + std::to_string(kEntropyMaxEntries),
                                "use longer epochs, a shorter range or fewer channels");
}

void checkEntropyBlock(const Recording& rec, const SignalBlock& block,
                       const std::string& cliInput) {
  const bool cli = !cliInput.empty();
  const std::string input = cli                      ? cliInput
                            : rec.sourcePath.empty() ? std::string("the recording")
                                                     : rec.sourcePath;
  const std::string via = cli ? " with --channels" : "";
  for (std::size_t row = 0; row < block.channels.size(); ++row) {
    const ChannelInfo& ch = rec.channels[block.channels[row]];
    const float* x = block.channel(row);
    bool constant = true;
    for (int64_t k = 0; k < block.samples; ++k) {
      if (!std::isfinite(x[k])) {
        const int64_t s = block.firstSample + k;
        throw InvalidInputError(input, "channel " + ch.name,
                                std::string(std::isnan(x[k]) ? "NaN" : "an infinite value") +
                                    " at sample " + std::to_string(s) + " (" +
                                    formatNumber(static_cast<double>(s) / block.sampleRate) + " s)",
                                "finite samples",
                                "leave the channel out" + via + " or choose another range");
      }
      if (x[k] != x[0]) constant = false;
    }
    if (constant)
      throw InvalidParameterError(
          "channels",
          "channel " + ch.name + (cli ? " of " + input : std::string()) +
              " is constant (SD = 0) over the selection",
          cli ? "channels that vary (ApEn z-scores each series by its own SD)"
              : "channels that vary (each series is z-scored by its own SD)",
          "leave the flat channel out" + via);
  }
}

std::vector<std::pair<std::string, std::string>> entropyProvenanceParameters(
    const EntropyMatrixResult& r) {
  // The declared parameters, then the epochs the run cut.
  std::vector<std::pair<std::string, std::string>> v = entropyParamTable().describe(r.params);
  const double seconds = r.sampleRate > 0 ? static_cast<double>(r.epochSamples) / r.sampleRate : 0;
  v.emplace_back("ran.epochs", std::to_string(r.epochCount()) + " of " +
                                   std::to_string(r.epochSamples) + " samples (" +
                                   formatNumber(seconds) + " s)");
  return v;
}

std::vector<int64_t> badSegmentEpochs(const Recording& rec, int64_t firstSample, int64_t samples,
                                      double sampleRate, int64_t epochSamples) {
  std::vector<int64_t> out;
  const std::vector<Annotation> segments = badSegments(rec.annotations);
  if (segments.empty() || samples <= 0 || sampleRate <= 0) return out;
  const int64_t n = epochSamples == 0 ? samples : epochSamples;
  for (int64_t e = 0; e < samples / n; ++e) {
    double covered = 0.0;
    goodRanges(segments, static_cast<double>(firstSample + e * n) / sampleRate,
               static_cast<double>(firstSample + (e + 1) * n) / sampleRate, &covered);
    if (covered > 0.0) out.push_back(e);
  }
  return out;
}

int64_t entropyBadSegmentEpochCount(const Recording& rec, const EntropyJobSpec& spec) {
  const auto [fs, samples] = checkedOrNothing(rec, spec);
  if (fs <= 0 || samples <= 0 || spec.params.epochSamples < 0) return 0;
  return static_cast<int64_t>(badSegmentEpochs(rec, std::llround(spec.startSeconds * fs), samples,
                                               fs, spec.params.epochSamples)
                                  .size());
}

std::vector<std::pair<std::string, std::string>> excludeBadSegmentEpochs(
    const Recording& rec, SignalBlock& block, const EntropyParams& params,
    std::vector<int64_t>* keptStarts) {
  const double fs = block.sampleRate;
  double covered = 0.0;
  goodRanges(badSegments(rec.annotations), static_cast<double>(block.firstSample) / fs,
             static_cast<double>(block.firstSample + block.samples) / fs, &covered);
  if (covered <= 0.0) return {};
  if (!params.excludeBadSegments)
    return {{"ran.badSegments", formatNumber(covered) + " s of bad segments kept in the epochs"}};
  const int64_t n = params.epochSamples == 0 ? block.samples : params.epochSamples;
  const int64_t epochs = block.samples / n;
  const std::vector<int64_t> bad =
      badSegmentEpochs(rec, block.firstSample, block.samples, fs, params.epochSamples);
  std::vector<int64_t> kept;
  std::string dropped;
  for (int64_t e = 0; e < epochs; ++e) {
    if (std::find(bad.begin(), bad.end(), e) != bad.end())
      dropped += (dropped.empty() ? "" : ", ") + std::to_string(e + 1);
    else
      kept.push_back(e);
  }
  if (params.epochSamples == 0) {
    throw InvalidParameterError(
        "epoch",
        "the whole selection, which overlaps bad segments (" + formatNumber(covered) + " s)",
        "an epoch length, so that the epochs overlapping bad segments can be left out",
        "give an epoch length, choose a range without bad segments, or keep them (turn 'Leave "
        "out bad segments' off, --no-exclude-bad-segments)");
  }
  if (kept.empty()) {
    throw InvalidParameterError(
        "epochs", "all " + std::to_string(epochs) + " overlap bad segments",
        "at least one epoch outside the bad segments",
        "choose another range, shorter epochs, or keep the segments (--no-exclude-bad-segments)");
  }
  const auto N = static_cast<std::size_t>(n);
  const auto keptSamples = static_cast<int64_t>(kept.size()) * n;
  std::vector<float> data(block.channels.size() * static_cast<std::size_t>(keptSamples));
  for (std::size_t c = 0; c < block.channels.size(); ++c) {
    const float* from = block.channel(c);
    float* to = data.data() + c * static_cast<std::size_t>(keptSamples);
    for (std::size_t k = 0; k < kept.size(); ++k)
      std::copy(from + static_cast<std::size_t>(kept[k]) * N,
                from + static_cast<std::size_t>(kept[k] + 1) * N, to + k * N);
  }
  block.data = std::move(data);
  block.samples = keptSamples;
  if (keptStarts) {
    keptStarts->clear();
    for (int64_t e : kept) keptStarts->push_back(e * n);
  }
  return {{"ran.badSegments", std::to_string(epochs - static_cast<int64_t>(kept.size())) + " of " +
                                  std::to_string(epochs) +
                                  " epochs left out: they overlap bad segments (" +
                                  formatNumber(covered) + " s)"},
          {"ran.badSegmentEpochs", dropped}};
}

EntropyJobResult runEntropyJob(const Recording& rec, const EntropyJobSpec& spec,
                               ComputeBackend& backend, JobContext& ctx) {
  const auto t0 = Clock::now();
  ctx.progress(0.0, "reading samples");
  checkEntropyJob(rec, spec);
  SignalBlock block = extractBlock(rec, spec.channels, spec.startSeconds, spec.durationSeconds);
  const int64_t selectedSamples = block.samples;
  std::vector<int64_t> keptStarts;
  const auto badSegmentLines = excludeBadSegmentEpochs(rec, block, spec.params, &keptStarts);
  checkEntropyBlock(rec, block);
  ctx.checkpoint();
  EntropyParams params = spec.params;
  params.rows.clear();
  params.keepCounts = false;
  EntropyJobResult out;
  out.backend = backend.info().describe();
  auto run = std::make_shared<EntropyFileRecording>();
  JobContext work = ctx.sub(0.02, 1.0);
  run->result = backend.entropyMatrices(block, params, work);
  nameEntropyChannels(run->result, rec);
  if (!keptStarts.empty()) run->result.epochStarts = keptStarts;  // where they were in the range
  run->inputFile = rec.sourcePath;
  run->channels = entropyFileChannels(rec, run->result.channels);
  run->selectionSamples = selectedSamples;
  out.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  Provenance& prov = run->provenance;
  prov.method = "xapen";
  prov.parameters = entropyProvenanceParameters(run->result);
  prov.parameters.insert(prov.parameters.end(), badSegmentLines.begin(), badSegmentLines.end());
  stampJobProvenance(prov, out.backend, rec.sourcePath, rec, spec.channels, spec.startSeconds,
                     spec.durationSeconds, out.wallSeconds,
                     spec.params.excludeBadSegments ? BadSegmentUse::Skipped : BadSegmentUse::Kept);
  out.run = std::move(run);
  ctx.progress(1.0, "entropy matrices");
  return out;
}

std::string describeEntropyJob(const EntropyParams& p, std::size_t channels, int64_t epochs,
                               int64_t epochSamples) {
  std::string s = p.measure == EntropyMeasure::ApproximateEntropy ? "Cross-ApEn" : "cross-SampEn";
  s += " m=" + std::to_string(p.m) + " r=" + formatNumber(p.r);
  if (p.measure == EntropyMeasure::ApproximateEntropy)
    s += std::string(", bias ") + apEnBiasName(p.bias);
  s += ", " + std::to_string(channels) + " channels, " + std::to_string(epochs) + " x " +
       std::to_string(epochSamples) + " samples";
  return s;
}

}  // namespace modescope
