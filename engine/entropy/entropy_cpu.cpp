// Entropy matrices on the CPU and the host steps all backends share (entropy_cpu.h).
#include "engine/entropy/entropy_cpu.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "engine/core/block_rows.h"
#include "engine/core/error.h"
#include "engine/core/finite_samples.h"
#include "engine/core/text.h"
#include "engine/entropy/entropy_candidates.h"
#include "engine/entropy/entropy_values.h"
#include "engine/parallel/parallel_for.h"

namespace modescope {
namespace {

std::string channelText(const SignalBlock& block, std::size_t row) {
  return "channel #" + std::to_string(block.channels[row] + 1) + " of the recording (row " +
         std::to_string(row + 1) + " of the selection)";
}

std::string sampleText(const SignalBlock& block, int64_t k) {
  const int64_t s = block.firstSample + k;
  std::string t = "sample " + std::to_string(s);
  if (block.sampleRate > 0)
    t += " (" + formatNumber(static_cast<double>(s) / block.sampleRate) + " s)";
  return t;
}

std::vector<std::size_t> resolveRows(const SignalBlock& block, const EntropyParams& p) {
  const std::size_t count = p.rows.empty() ? block.channels.size() : p.rows.size();
  if (count > kEntropyMaxChannels)
    throw InvalidParameterError("channels", std::to_string(count) + " channels",
                                "at most " + std::to_string(kEntropyMaxChannels),
                                "select fewer channels");
  return resolveBlockRows(block.channels.size(), p.rows, "select the channels to compare");
}

bool allEqual(const float* x, int64_t n) {
  for (int64_t k = 1; k < n; ++k)
    if (x[k] != x[0]) return false;
  return true;
}

std::string epochList(const std::vector<std::size_t>& epochs) {
  std::string s;
  const std::size_t shown = std::min<std::size_t>(epochs.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + std::to_string(epochs[i] + 1);
  if (epochs.size() > shown) s += ", ... (" + std::to_string(epochs.size()) + " in all)";
  return s;
}

}  // namespace

bool entropySeriesConstant(const float* x, int64_t n, SdConvention sd) {
  // An exactly constant series must give SD 0: summing n equal doubles can round, which would
  // leave a ~1e-17 "SD" and z-scores of pure rounding noise.
  const int64_t divisor = sd == SdConvention::Sample ? n - 1 : n;
  return n <= 0 || divisor <= 0 || allEqual(x, n);
}

double zscoreSeries(const float* x, int64_t n, SdConvention sd, double* out) {
  const int64_t divisor = sd == SdConvention::Sample ? n - 1 : n;
  if (entropySeriesConstant(x, n, sd)) {
    for (int64_t k = 0; k < n; ++k) out[k] = 0.0;
    return 0.0;
  }
  double sum = 0.0;
  for (int64_t k = 0; k < n; ++k) sum += x[k];
  const double mean = sum / static_cast<double>(n);
  double ss = 0.0;
  for (int64_t k = 0; k < n; ++k) ss += (x[k] - mean) * (x[k] - mean);
  const double s = std::sqrt(ss / static_cast<double>(divisor));
  for (int64_t k = 0; k < n; ++k) out[k] = (x[k] - mean) / s;
  return s;
}

EntropyPlan planEntropy(const SignalBlock& block, const EntropyParams& params,
                        EntropyZScores zscores) {
  validateEntropyParams(params);
  EntropyPlan plan;
  plan.params = params;
  plan.params.rows = resolveRows(block, params);
  plan.channels = plan.params.rows.size();
  const int64_t s = block.samples;
  if (s < 0 || block.data.size() != block.channels.size() * static_cast<std::size_t>(s))
    throw InvalidParameterError(
        "block", std::to_string(block.data.size()) + " values",
        std::to_string(block.channels.size()) + " channels x " + std::to_string(s) + " samples");
  const int64_t n = params.epochSamples > 0 ? params.epochSamples : s;
  const int64_t minimum = entropyMinimumEpoch(params.m);
  if (n < minimum)
    throw InvalidParameterError("epoch", std::to_string(n) + " samples",
                                "at least m + 2 = " + std::to_string(minimum) + " samples",
                                "select a longer range or use shorter templates");
  if (n > kEntropyMaxEpochSamples)
    throw InvalidParameterError("epoch", std::to_string(n) + " samples",
                                "at most " + std::to_string(kEntropyMaxEpochSamples) + " samples",
                                "give an epoch length, e.g. --epoch 1024");
  if (n > s)
    throw InvalidParameterError("epoch", std::to_string(n) + " samples",
                                "at most the selection's " + std::to_string(s) + " samples",
                                "use a shorter epoch or a longer range");
  plan.epochSamples = n;
  plan.epochs = static_cast<std::size_t>(s / n);
  const std::size_t c = plan.channels, e = plan.epochs;
  if (e * c * c > kEntropyMaxEntries)
    throw InvalidParameterError("epochs x channels^2",
                                std::to_string(e) + " x " + std::to_string(c) + "^2",
                                "at most " + std::to_string(kEntropyMaxEntries) + " entries",
                                "use fewer channels, longer epochs or a shorter range");
  const int64_t dropped = s - static_cast<int64_t>(e) * n;
  if (dropped > 0)
    addDiagnostic(plan.diagnostics, Severity::Info, "entropy.droppedTail",
                  "the last " + std::to_string(dropped) + " samples do not fill an epoch of " +
                      std::to_string(n) + " samples and were not used");

  const std::size_t un = static_cast<std::size_t>(n);
  const bool onHost = zscores == EntropyZScores::Host;
  if (onHost)
    plan.zscored.resize(e * c * un);  // every element written below, by its channel's worker
  plan.constant.assign(e * c, 0);
  // Channels in parallel (a 148-channel, 50,000-sample block is 7 million z-scores), then the
  // errors and diagnostics in channel order, so the message names the first bad channel.
  std::vector<int64_t> firstBad(c, -1);
  JobContext quiet;
  parallelFor(c, hardwareThreads(), quiet, "z-scoring", [&]() -> std::function<void(std::size_t)> {
    return [&](std::size_t ci) {
      const float* x = block.channel(plan.params.rows[ci]);
      const int64_t samples = static_cast<int64_t>(e) * n;
      if (const int64_t k = firstNonFinite(x, samples); k < samples) {
        firstBad[ci] = k;
        return;
      }
      for (std::size_t ei = 0; ei < e; ++ei) {
        const bool flat = onHost ? zscoreSeries(x + ei * un, n, params.sd,
                                                plan.zscored.data() + (ei * c + ci) * un) == 0.0
                                 : entropySeriesConstant(x + ei * un, n, params.sd);
        if (flat) plan.constant[ei * c + ci] = 1;
      }
    };
  });
  for (std::size_t ci = 0; ci < c; ++ci) {
    const std::size_t row = plan.params.rows[ci];
    const float* x = block.channel(row);
    if (const int64_t k = firstBad[ci]; k >= 0)
      throw InvalidInputError("", channelText(block, row),
                              std::string(std::isnan(x[k]) ? "NaN" : "an infinite value") + " at " +
                                  sampleText(block, k),
                              "finite samples",
                              "exclude the channel or choose a range without the gap");
    std::vector<std::size_t> flat;
    for (std::size_t ei = 0; ei < e; ++ei)
      if (plan.constant[ei * c + ci]) flat.push_back(ei);
    if (flat.size() == e)
      throw InvalidParameterError(
          "channels", channelText(block, row) + " is constant (SD = 0) over the selection",
          "channels that vary", "leave the flat channel out of the channel selection");
    if (!flat.empty())
      addDiagnostic(plan.diagnostics, Severity::Warning, "entropy.constantEpochs",
                    channelText(block, row) + " is constant (SD = 0) in epoch(s) " +
                        epochList(flat) + "; its row and column are NaN there");
  }
  return plan;
}

EntropyPairCounts countEntropyMatches(const double* x, const double* y, int64_t n, int m, double r,
                                      EntropyMeasure measure) {
  EntropyPairCounts out;
  const int64_t t = n - m + 1;  // m-templates
  const int64_t t1 = t - 1;     // (m+1)-templates
  const bool apen = measure == EntropyMeasure::ApproximateEntropy;
  // SampEn uses the same N - m templates for both lengths (Richman and Moorman).
  const int64_t rangeM = apen ? t : t1;
  for (int64_t i = 0; i < rangeM; ++i) {
    int64_t cm = 0, cm1 = 0;
    const bool hasLonger = i < t1;
    for (int64_t j = 0; j < rangeM; ++j) {
      countTemplatePair(x + i, y + j, m, r, hasLonger && j < t1, cm, cm1);
    }
    addTemplateCounts(out, cm, cm1, apen, hasLonger);
  }
  return out;
}

void addTemplateCounts(EntropyPairCounts& out, int64_t cm, int64_t cm1, bool apen, bool hasLonger) {
  out.matchesM += cm;
  out.matchesM1 += cm1;
  if (!apen) return;
  if (cm > 0)
    out.sumLogM += std::log(static_cast<double>(cm));
  else
    ++out.noMatchM;
  if (!hasLonger) return;
  if (cm1 > 0)
    out.sumLogM1 += std::log(static_cast<double>(cm1));
  else if (cm == 0)
    ++out.noMatchBoth;
  else
    ++out.noMatchM1Only;
}

double apEnFromCounts(const EntropyPairCounts& c, int64_t n, int m, ApEnBias bias) {
  return apEnValue(c, EntropyTemplateCounts(n, m), bias);
}

double sampEnFromCounts(const EntropyPairCounts& c, int64_t n, int m, bool diagonal) {
  return sampEnValue(c, n, m, diagonal);
}

double entropyFromCounts(const EntropyPairCounts& c, int64_t n, const EntropyParams& params,
                         bool diagonal) {
  return params.measure == EntropyMeasure::SampleEntropy
             ? sampEnFromCounts(c, n, params.m, diagonal)
             : apEnFromCounts(c, n, params.m, params.bias);
}

EntropyMatrixResult assembleEntropyResult(const EntropyPlan& plan, const SignalBlock& block,
                                          std::vector<EntropyPairCounts> counts) {
  const std::size_t c = plan.channels, e = plan.epochs;
  if (counts.size() != e * c * c)
    throw InvalidParameterError("counts", std::to_string(counts.size()) + " entries",
                                std::to_string(e * c * c) + " (epochs x channels^2)");
  std::vector<double> values(e * c * c, std::numeric_limits<double>::quiet_NaN());
  const EntropyTemplateCounts templates(plan.epochSamples, plan.params.m);
  const bool sampEn = plan.params.measure == EntropyMeasure::SampleEntropy;
  // Template rows in parallel (a 148-channel, 49-epoch result has a million entries).
  JobContext quiet;
  parallelFor(
      c, hardwareThreads(), quiet, "entropy values", [&]() -> std::function<void(std::size_t)> {
        return [&](std::size_t u) {
          for (std::size_t ei = 0; ei < e; ++ei)
            for (std::size_t v = 0; v < c; ++v) {
              const std::size_t at = (ei * c + u) * c + v;
              if (plan.constant[ei * c + u] || plan.constant[ei * c + v]) continue;
              values[at] = sampEn
                               ? sampEnValue(counts[at], plan.epochSamples, plan.params.m, u == v)
                               : apEnValue(counts[at], templates, plan.params.bias);
            }
        };
      });
  if (!plan.params.keepCounts) counts.clear();
  return finishEntropyResult(plan, block, std::move(values), std::move(counts));
}

EntropyMatrixResult finishEntropyResult(const EntropyPlan& plan, const SignalBlock& block,
                                        std::vector<double> epochValues,
                                        std::vector<EntropyPairCounts> counts) {
  const std::size_t c = plan.channels, e = plan.epochs;
  if (epochValues.size() != e * c * c)
    throw InvalidParameterError("values", std::to_string(epochValues.size()) + " entries",
                                std::to_string(e * c * c) + " (epochs x channels^2)");
  EntropyMatrixResult res;
  res.params = plan.params;
  res.sampleRate = block.sampleRate;
  res.firstSample = block.firstSample;
  res.epochSamples = plan.epochSamples;
  for (std::size_t row : plan.params.rows) res.channels.push_back(block.channels[row]);
  for (std::size_t ei = 0; ei < e; ++ei)
    res.epochStarts.push_back(static_cast<int64_t>(ei) * plan.epochSamples);
  res.constantEpochs = plan.constant;
  res.diagnostics = plan.diagnostics;
  res.epochValues = std::move(epochValues);
  res.average.assign(c * c, 0.0);
  res.averageEpochs.assign(c * c, 0);
  // Template rows in parallel; each row owns its average entries, so no two workers write the
  // same value. Undefined: not finite although neither channel is constant there.
  std::vector<std::size_t> undefinedInRow(c, 0);
  JobContext quiet;
  parallelFor(c, hardwareThreads(), quiet, "entropy average",
              [&]() -> std::function<void(std::size_t)> {
                return [&](std::size_t u) {
                  for (std::size_t ei = 0; ei < e; ++ei)
                    for (std::size_t v = 0; v < c; ++v) {
                      if (plan.constant[ei * c + u] || plan.constant[ei * c + v]) continue;
                      const double value = res.epochValues[(ei * c + u) * c + v];
                      if (std::isfinite(value)) {
                        res.average[u * c + v] += value;
                        ++res.averageEpochs[u * c + v];
                      } else {
                        ++undefinedInRow[u];
                      }
                    }
                };
              });
  std::size_t undefined = 0;
  for (std::size_t k : undefinedInRow) undefined += k;
  for (std::size_t k = 0; k < c * c; ++k)
    res.average[k] = res.averageEpochs[k] > 0 ? res.average[k] / res.averageEpochs[k]
                                              : std::numeric_limits<double>::quiet_NaN();
  if (undefined > 0)
    addDiagnostic(res.diagnostics, Severity::Warning, "entropy.undefined",
                  std::to_string(undefined) + " of " + std::to_string(e * c * c) +
                      " SampEn entries are undefined (no template match at length m + 1 or m: "
                      "A = 0 or B = 0) and are NaN; the epoch average skips them. Raise r or "
                      "use longer epochs.");
  if (plan.params.keepCounts) res.counts = std::move(counts);
  return res;
}

EntropyMatrixResult computeEntropyCpu(const SignalBlock& block, const EntropyParams& params,
                                      int threads, JobContext& ctx) {
  const EntropyPlan plan = planEntropy(block, params);
  const std::size_t c = plan.channels, e = plan.epochs;
  std::vector<EntropyPairCounts> counts(e * c * c);
  threads = threadsOrAll(threads);
  // Each series' first values sorted once, reused by all C template channels searching it
  // (entropy_candidates.h: the same matches as the brute force, about 8x fewer comparisons at
  // r = 0.2).
  std::vector<SortedFirstValues> sorted(e * c);
  parallelFor(
      e * c, threads, ctx, "entropy matrices: sorting", [&]() -> std::function<void(std::size_t)> {
        return [&](std::size_t s) {
          sorted[s] = sortFirstValues(plan.series(s / c, s % c), plan.epochSamples, plan.params.m);
        };
      });
  parallelFor(e * c * c, threads, ctx, "entropy matrices",
              [&]() -> std::function<void(std::size_t)> {
                return [&](std::size_t item) {
                  const std::size_t ei = item / (c * c), u = (item / c) % c, v = item % c;
                  if (plan.constant[ei * c + u] || plan.constant[ei * c + v]) return;
                  counts[item] = countEntropyMatchesSorted(
                      plan.series(ei, u), plan.series(ei, v), sorted[ei * c + v], plan.epochSamples,
                      plan.params.m, plan.params.r, plan.params.measure);
                };
              });
  return assembleEntropyResult(plan, block, std::move(counts));
}

}  // namespace modescope
