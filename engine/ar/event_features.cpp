#include "engine/ar/event_features.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "engine/ar/ar_spectrum.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string textsPresent(const Recording& rec) {
  std::set<std::string> texts;
  for (const auto& a : rec.annotations) texts.insert(a.text);
  if (texts.empty()) return "(the recording has no annotations)";
  std::string out;
  for (const auto& t : texts) out += (out.empty() ? "" : ", ") + quoted(t);
  return out;
}

// The selection's single sample rate; validates the channel indices.
double selectionRate(const Recording& rec, const std::vector<std::size_t>& channels) {
  if (channels.empty())
    throw InvalidParameterError("channels", "none", "at least one channel",
                                "select the channels to compute features for");
  double fs = 0.0;
  for (std::size_t c : channels) {
    if (c >= rec.channelCount())
      throw InvalidParameterError("channels", "index " + std::to_string(c),
                                  "an index below " + std::to_string(rec.channelCount()),
                                  "select channels of this recording");
    const double r = rec.channels[c].sampleRate;
    if (fs == 0.0) fs = r;
    if (r != fs)
      throw InvalidParameterError(
          "channels",
          "mixed sample rates (" + formatNumber(fs) + " and " + formatNumber(r) + " Hz)",
          "one sample rate", "select channels of one rate or resample");
  }
  if (!(std::isfinite(fs) && fs > 0))
    throw InvalidParameterError("channels", "sample rate " + formatNumber(fs) + " Hz",
                                "a finite rate > 0");
  return fs;
}

// Throws when fewer than 2 trials of a class are usable: r^2 needs a spread within each class.
void requireTwoTrials(const Recording& rec, const std::string& classText, std::size_t usable) {
  std::size_t annotations = 0;
  for (const auto& a : rec.annotations) annotations += a.text == classText ? 1 : 0;
  if (usable < 2)
    throw InvalidParameterError(
        "class " + quoted(classText),
        std::to_string(usable) + " usable trial(s) (" + std::to_string(annotations) +
            " annotation(s), " + std::to_string(annotations - usable) +
            " skipped, see the diagnostics)",
        "at least 2 trials per class",
        "pick a class with more events, or change the offset/length so the trials fit");
}

}  // namespace

std::vector<TrialSegment> trialSegments(const Recording& rec,
                                        const std::vector<std::size_t>& channels,
                                        const std::string& classText,
                                        const EventFeatureOptions& options,
                                        Diagnostics& diagnostics) {
  const double fs = selectionRate(rec, channels);
  if (!std::isfinite(options.offsetSeconds))
    throw InvalidParameterError("offset", formatNumber(options.offsetSeconds) + " s",
                                "a finite offset in seconds");
  if (!std::isfinite(options.lengthSeconds))
    throw InvalidParameterError("length", formatNumber(options.lengthSeconds) + " s",
                                "a finite length in seconds (<= 0: the annotation's duration)");
  int64_t available = rec.channels[channels.front()].sampleCount;
  for (std::size_t c : channels) available = std::min(available, rec.channels[c].sampleCount);

  std::vector<TrialSegment> out;
  std::size_t found = 0;
  for (std::size_t i = 0; i < rec.annotations.size(); ++i) {
    const Annotation& a = rec.annotations[i];
    if (a.text != classText) continue;
    ++found;
    TrialSegment t;
    t.annotationIndex = i;
    t.onsetSeconds = a.onset;
    const double length = options.lengthSeconds > 0 ? options.lengthSeconds : a.duration;
    t.firstSample = std::llround((a.onset + options.offsetSeconds) * fs);
    t.samples = std::llround(length * fs);
    const std::string where = quoted(classText) + " at " + formatNumber(a.onset) + " s";
    if (t.firstSample < 0 || t.firstSample + t.samples > available) {
      addDiagnostic(
          diagnostics, Severity::Warning, "events.trialOutsideRecording",
          "trial " + where + " skipped: its segment [" + formatNumber(t.firstSample / fs) + ", " +
              formatNumber((t.firstSample + t.samples) / fs) +
              ") s runs outside the recording (0 to " + formatNumber(available / fs) + " s)");
      continue;
    }
    bool inGap = false;
    for (const auto& g : options.gaps) {
      const int64_t g0 = std::llround(g.startSeconds * fs);
      const int64_t g1 = std::llround((g.startSeconds + g.durationSeconds) * fs);
      if (g1 > g0 && t.firstSample < g1 && g0 < t.firstSample + t.samples) {
        addDiagnostic(diagnostics, Severity::Warning, "events.trialOverlapsGap",
                      "trial " + where + " skipped: its segment overlaps the gap at " +
                          formatNumber(g.startSeconds) + " s (" + formatNumber(g.durationSeconds) +
                          " s long)");
        inGap = true;
        break;
      }
    }
    if (!inGap) out.push_back(t);
  }
  if (found == 0)
    throw InvalidParameterError("class", quoted(classText) + " (no annotation has this text)",
                                "one of the annotation texts present: " + textsPresent(rec),
                                "pick a class from the recording's annotations");
  return out;
}

ClassFeatures computeClassFeatures(const Recording& rec, const std::vector<std::size_t>& channels,
                                   const std::string& classText, const BurgArParams& params,
                                   const EventFeatureOptions& options, ComputeBackend& backend,
                                   JobContext& ctx, Diagnostics& diagnostics) {
  const double fs = selectionRate(rec, channels);
  if (params.output == ArOutput::Coefficients)
    throw InvalidParameterError("output", "coefficients", "power or amplitude",
                                "event features average bin values; choose power or amplitude");
  validateBurgArParams(params, fs);
  const ArResolvedLengths lengths = resolveArLengths(params, fs);

  ClassFeatures f;
  f.label = classText;
  f.trials = trialSegments(rec, channels, classText, options, diagnostics);
  requireTwoTrials(rec, classText, f.trials.size());
  for (const auto& t : f.trials) {
    if (t.samples < lengths.windowSamples)
      throw InvalidParameterError(
          "length",
          "trial " + quoted(classText) + " at " + formatNumber(t.onsetSeconds) + " s is " +
              formatNumber(t.samples / fs) + " s (" + std::to_string(t.samples) + " samples)",
          "at least the AR window, " + formatNumber(lengths.windowSamples / fs) + " s (" +
              std::to_string(lengths.windowSamples) + " samples)",
          "give a longer trial length or a shorter AR window");
  }

  f.channelCount = options.spatialFilter ? options.spatialFilter->outputCount() : channels.size();
  f.binCount = arBinCenters(params).size();
  f.values.assign(f.trials.size() * f.channelCount * f.binCount, 0.0);
  for (std::size_t ti = 0; ti < f.trials.size(); ++ti) {
    ctx.checkpoint();
    const TrialSegment& t = f.trials[ti];
    ctx.progress(static_cast<double>(ti) / f.trials.size(),
                 "event features " + classText + ": trial " + std::to_string(ti + 1) + "/" +
                     std::to_string(f.trials.size()));
    SignalBlock block;
    block.channels = channels;
    block.sampleRate = fs;
    block.firstSample = t.firstSample;
    block.samples = t.samples;
    block.data.reserve(channels.size() * static_cast<std::size_t>(t.samples));
    for (std::size_t c : channels) {
      const std::vector<float> x = rec.readChannel(c, t.firstSample, t.samples);
      block.data.insert(block.data.end(), x.begin(), x.end());
    }
    JobContext sub = ctx.sub(static_cast<double>(ti) / f.trials.size(),
                             static_cast<double>(ti + 1) / f.trials.size());
    const ArSpectrumResult ar =
        backend.filteredArSpectra(options.spatialFilter.get(), block, params, sub);
    for (const auto& d : ar.diagnostics)
      addDiagnostic(diagnostics, d.severity, d.code,
                    "trial " + quoted(classText) + " at " + formatNumber(t.onsetSeconds) +
                        " s: " + d.message);
    const std::size_t windows = ar.windowCount();
    f.windowsPerTrial.push_back(static_cast<int64_t>(windows));
    for (std::size_t c = 0; c < f.channelCount; ++c) {
      double* out = f.values.data() + (ti * f.channelCount + c) * f.binCount;
      for (std::size_t w = 0; w < windows; ++w) {
        const float* row = ar.row(c, w);
        for (std::size_t b = 0; b < f.binCount; ++b) out[b] += row[b];
      }
      for (std::size_t b = 0; b < f.binCount; ++b) out[b] /= static_cast<double>(windows);
    }
  }
  ctx.progress(1.0, "event features " + classText + ": done");
  return f;
}

double pointBiserialR(const double* a, std::size_t nA, const double* b, std::size_t nB) {
  const double n = static_cast<double>(nA + nB);
  double sumA = 0, sumB = 0;
  for (std::size_t i = 0; i < nA; ++i) sumA += a[i];
  for (std::size_t i = 0; i < nB; ++i) sumB += b[i];
  const double meanA = sumA / nA, meanB = sumB / nB, mean = (sumA + sumB) / n;
  // Two-pass variance about the pooled mean: no cancellation for large features (uV^2/Hz).
  double ss = 0;
  for (std::size_t i = 0; i < nA; ++i) ss += (a[i] - mean) * (a[i] - mean);
  for (std::size_t i = 0; i < nB; ++i) ss += (b[i] - mean) * (b[i] - mean);
  const double s = std::sqrt(ss / n);
  if (!(s > 0) || !std::isfinite(s)) return 0.0;
  const double r = (meanA - meanB) * std::sqrt(static_cast<double>(nA) * nB) / (n * s);
  // Rounding can push |r| a few ulps past 1 for perfectly separated classes.
  return std::clamp(r, -1.0, 1.0);
}

EventR2Result computeEventR2(const Recording& rec, const std::vector<std::size_t>& channels,
                             const std::string& classA, const std::string& classB,
                             const BurgArParams& params, const EventFeatureOptions& options,
                             ComputeBackend& backend, JobContext& ctx) {
  if (classA == classB)
    throw InvalidParameterError("class B", quoted(classB), "a class different from class A",
                                "pick two different annotation texts");
  EventR2Result r;
  r.classA = classA;
  r.classB = classB;
  r.channels = channels;
  r.sampleRate = selectionRate(rec, channels);
  r.output = params.output;
  // Both classes' trial lists first, so an unknown class B fails before any spectrum is computed.
  Diagnostics scratch;
  requireTwoTrials(rec, classA, trialSegments(rec, channels, classA, options, scratch).size());
  requireTwoTrials(rec, classB, trialSegments(rec, channels, classB, options, scratch).size());
  JobContext ctxA = ctx.sub(0.0, 0.5), ctxB = ctx.sub(0.5, 1.0);
  r.featuresA =
      computeClassFeatures(rec, channels, classA, params, options, backend, ctxA, r.diagnostics);
  r.featuresB =
      computeClassFeatures(rec, channels, classB, params, options, backend, ctxB, r.diagnostics);
  r.binCenters = arBinCenters(params);
  if (options.spatialFilter) {
    r.rowNames = options.spatialFilter->outputNames;
  } else {
    for (std::size_t ch : channels) r.rowNames.push_back(rec.channels[ch].name);
  }
  r.trialsA = r.featuresA.trials.size();
  r.trialsB = r.featuresB.trials.size();
  const std::size_t cells = r.rowNames.size() * r.binCenters.size();
  r.meanA.assign(cells, 0.0);
  r.meanB.assign(cells, 0.0);
  r.r2.assign(cells, 0.0);
  r.signedR2.assign(cells, 0.0);
  std::vector<double> a(r.trialsA), b(r.trialsB);
  for (std::size_t c = 0; c < r.rowNames.size(); ++c) {
    for (std::size_t bin = 0; bin < r.binCenters.size(); ++bin) {
      for (std::size_t t = 0; t < r.trialsA; ++t) a[t] = r.featuresA.at(t, c, bin);
      for (std::size_t t = 0; t < r.trialsB; ++t) b[t] = r.featuresB.at(t, c, bin);
      const std::size_t k = r.index(c, bin);
      double sa = 0, sb = 0;
      for (double v : a) sa += v;
      for (double v : b) sb += v;
      r.meanA[k] = sa / static_cast<double>(r.trialsA);
      r.meanB[k] = sb / static_cast<double>(r.trialsB);
      const double rr = pointBiserialR(a.data(), a.size(), b.data(), b.size());
      r.r2[k] = rr * rr;
      r.signedR2[k] = rr < 0 ? -rr * rr : rr * rr;
    }
  }
  return r;
}

}  // namespace modescope
