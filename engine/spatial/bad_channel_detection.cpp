// Bad-channel suggestions (bad_channel_detection.h).
#include "engine/spatial/bad_channel_detection.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/dsp/fir_design.h"
#include "engine/dsp/preprocess.h"
#include "engine/parallel/parallel_for.h"

namespace modescope {
namespace {

using Field = ParamField<BadChannelCriteria>;
constexpr double kMadToSd = 1.4826;  // 1 / Phi^-1(3/4): MAD -> SD for normal data
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindField<BadChannelCriteria>(
      realParam("flatThreshold", "flat-threshold", "Flat: SD at most")
          .in("uV")
          .atLeast(0)
          .shown(9, 1e-6)
          .because("a channel whose robust or plain SD is at most this is flat (PREP: 1e-15 V; "
                   "in the channel's unit)"),
      &BadChannelCriteria::flatThreshold));
  f.push_back(bindField<BadChannelCriteria>(
      realParam("deviationZ", "deviation-z", "Deviation: |robust z| above")
          .above(0)
          .atMost(1000)
          .shown(2, 0.5)
          .because("robust z-score of the channel's robust SD among the channels (PREP 5)"),
      &BadChannelCriteria::deviationZ));
  f.push_back(bindField<BadChannelCriteria>(
      realParam("highFrequencyZ", "hf-z", "High-frequency noise: robust z above")
          .above(0)
          .atMost(1000)
          .shown(2, 0.5)
          .because("robust z-score of MAD(x - lowpass x) / MAD(lowpass x) (PREP 5)"),
      &BadChannelCriteria::highFrequencyZ));
  f.push_back(bindField<BadChannelCriteria>(
      realParam("highFrequencyCutoff", "hf-cutoff", "High-frequency cutoff")
          .in("Hz")
          .above(0)
          .atMost(1e6)
          .shown(1, 5)
          .because("the zero-phase FIR low-pass that separates high-frequency noise (PREP 50 Hz)"),
      &BadChannelCriteria::highFrequencyCutoff));
  f.push_back(bindField<BadChannelCriteria>(
      realParam("correlationThreshold", "correlation-threshold", "Correlation: best |r| below")
          .above(0)
          .atMost(1)
          .shown(2, 0.05)
          .because("a window is bad for a channel whose 98th-percentile |r| with the other "
                   "channels is below this (PREP 0.4)"),
      &BadChannelCriteria::correlationThreshold));
  f.push_back(bindField<BadChannelCriteria>(
      realParam("correlationWindow", "correlation-window", "Correlation window")
          .in("s")
          .above(0)
          .atMost(3600)
          .shown(2, 0.5)
          .because("length of the windows correlated (PREP 1 s)"),
      &BadChannelCriteria::correlationWindow));
  f.push_back(bindField<BadChannelCriteria>(
      realParam("badWindowFraction", "bad-window-fraction", "Correlation: bad windows above")
          .atLeast(0)
          .below(1)
          .shown(3, 0.01)
          .because("share of bad windows above which the channel is suggested (PREP 0.01)"),
      &BadChannelCriteria::badWindowFraction));
  f.push_back(bindField<BadChannelCriteria>(
      realParam("detrendCutoff", "detrend-cutoff", "Detrend: high-pass at")
          .in("Hz")
          .above(0)
          .atMost(1e6)
          .orSpecial(0, "off")
          .shown(2, 0.5)
          .because("slow trends removed before measuring, by a zero-phase FIR high-pass (pyprep "
                   "NoisyChannels do_detrend, removeTrend: 1 Hz); 0 = measure the data as it is"),
      &BadChannelCriteria::detrendCutoff));
  return f;
}

// Median absolute deviation times 1.4826 around `median`.
double robustSpread(std::vector<double> values, double median) {
  for (double& v : values) v = std::abs(v - median);
  return kMadToSd * medianOf(std::move(values));
}

// Robust SD (1.4826 MAD) of n floats.
double robustSdOf(const float* x, std::size_t n) {
  std::vector<double> v(x, x + n);
  const double m = medianOf(v);
  return robustSpread(std::move(v), m);
}

double plainSdOf(const float* x, std::size_t n) {
  if (n < 2) return 0.0;
  double mean = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean += x[i];
  mean /= static_cast<double>(n);
  double ss = 0.0;
  for (std::size_t i = 0; i < n; ++i) ss += (x[i] - mean) * (x[i] - mean);
  return std::sqrt(ss / static_cast<double>(n - 1));
}

// Every row of `data` through a zero-phase FIR high-pass or low-pass at `hz` (preprocess.h).
void filterRows(SignalBlock& data, FilterKind kind, double hz, ComputeBackend& backend,
                JobContext ctx) {
  FilterSpec spec;
  spec.kind = kind;
  (kind == FilterKind::HighPass ? spec.lowHz : spec.highHz) = hz;
  backend.applyFir(data, designFir(spec, data.sampleRate), ctx);
}

int threadCount() { return hardwareThreads(); }

// Share of windows in which each non-flat row's largest |r| with another non-flat row is below
// the threshold; NaN for flat rows. Windows where a row is constant count as bad for that row.
std::vector<double> lowCorrelationFractions(const SignalBlock& data, const std::vector<char>& flat,
                                            std::size_t windowSamples, int windows,
                                            double threshold, const JobContext& ctx) {
  const std::size_t rows = data.channels.size();
  std::vector<std::size_t> used;
  for (std::size_t r = 0; r < rows; ++r)
    if (!flat[r]) used.push_back(r);
  std::vector<int> badWindows(rows, 0);
  std::vector<std::vector<char>> badIn(static_cast<std::size_t>(windows),
                                       std::vector<char>(rows, 0));
  parallelFor(static_cast<std::size_t>(windows), threadCount(), ctx, "correlating channels", [&]() {
    return [&](std::size_t w) {
      const std::size_t u = used.size();
      // Centred, unit-norm rows of this window: r_ij is then a dot product.
      std::vector<double> z(u * windowSamples);
      std::vector<bool> constant(u, false);
      for (std::size_t k = 0; k < u; ++k) {
        const float* x = data.channel(used[k]) + w * windowSamples;
        double mean = 0.0;
        for (std::size_t i = 0; i < windowSamples; ++i) mean += x[i];
        mean /= static_cast<double>(windowSamples);
        double ss = 0.0;
        double* zk = z.data() + k * windowSamples;
        for (std::size_t i = 0; i < windowSamples; ++i) {
          zk[i] = x[i] - mean;
          ss += zk[i] * zk[i];
        }
        if (!(ss > 0.0)) {
          constant[k] = true;
          continue;
        }
        const double inv = 1.0 / std::sqrt(ss);
        for (std::size_t i = 0; i < windowSamples; ++i) zk[i] *= inv;
      }
      // |r| of every pair of the window's varying rows; each row's own entry stays 0 (PREP sets
      // the diagonal to 0 before the quantile).
      std::vector<std::size_t> varying;
      for (std::size_t k = 0; k < u; ++k)
        if (!constant[k]) varying.push_back(k);
      const std::size_t v = varying.size();
      std::vector<double> r(v * v, 0.0);
      for (std::size_t a = 0; a < v; ++a) {
        const double* za = z.data() + varying[a] * windowSamples;
        for (std::size_t b = a + 1; b < v; ++b) {
          const double* zb = z.data() + varying[b] * windowSamples;
          double dot = 0.0;
          for (std::size_t i = 0; i < windowSamples; ++i) dot += za[i] * zb[i];
          r[a * v + b] = r[b * v + a] = std::abs(dot);
        }
      }
      for (std::size_t k = 0; k < u; ++k) badIn[w][used[k]] = 1;  // constant rows: bad
      for (std::size_t a = 0; a < v; ++a) {
        const std::vector<double> column(r.begin() + static_cast<std::ptrdiff_t>(a * v),
                                         r.begin() + static_cast<std::ptrdiff_t>((a + 1) * v));
        badIn[w][used[varying[a]]] = matlabQuantile(column, 0.98) < threshold ? 1 : 0;
      }
    };
  });
  for (const auto& window : badIn)
    for (std::size_t r = 0; r < rows; ++r) badWindows[r] += window[r];
  std::vector<double> out(rows, kNaN);
  for (std::size_t r : used) out[r] = static_cast<double>(badWindows[r]) / windows;
  return out;
}

std::string percent(double fraction) {
  return formatNumber(std::round(1000.0 * fraction) / 10.0) + " %";
}

}  // namespace

const ParamTable<BadChannelCriteria>& badChannelCriteriaParamTable() {
  static const ParamTable<BadChannelCriteria> table(makeFields());
  return table;
}

const char* badChannelReasonName(BadChannelReason r) {
  switch (r) {
    case BadChannelReason::Flat:
      return "flat";
    case BadChannelReason::Deviation:
      return "deviation";
    case BadChannelReason::HighFrequencyNoise:
      return "high-frequency noise";
    case BadChannelReason::LowCorrelation:
      return "low correlation";
  }
  return "?";
}

double matlabQuantile(std::vector<double> values, double p) {
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  // Value i (1-based) sits at (i - 0.5) / n: position p n + 0.5, clamped to the ends.
  const double position = std::clamp(p * n + 0.5, 1.0, n);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const double t = position - static_cast<double>(below);
  if (below >= values.size()) return values.back();
  return values[below - 1] + t * (values[below] - values[below - 1]);
}

double medianOf(std::vector<double> values) {
  if (values.empty()) return kNaN;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return 0.5 * (lower + upper);
}

std::vector<double> robustZScores(const std::vector<double>& values) {
  std::vector<double> finite;
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  std::vector<double> z(values.size(), kNaN);
  if (finite.empty()) return z;
  const double m = medianOf(finite);
  const double spread = robustSpread(finite, m);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) continue;
    const double d = values[i] - m;
    if (spread > 0.0)
      z[i] = d / spread;
    else
      z[i] = d == 0.0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), d);
  }
  return z;
}

std::string ChannelQuality::explanation(const BadChannelCriteria& c) const {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : "; ") + part; };
  for (BadChannelReason r : reasons) {
    switch (r) {
      case BadChannelReason::Flat:
        add("flat: SD " + formatNumber(std::min(robustSd, sd)) +
            " <= " + formatNumber(c.flatThreshold));
        break;
      case BadChannelReason::Deviation:
        add("deviation z " + formatNumber(std::round(100.0 * deviationZ) / 100.0) + " beyond +-" +
            formatNumber(c.deviationZ));
        break;
      case BadChannelReason::HighFrequencyNoise:
        add("high-frequency noise z " + formatNumber(std::round(100.0 * highFrequencyZ) / 100.0) +
            " > " + formatNumber(c.highFrequencyZ));
        break;
      case BadChannelReason::LowCorrelation:
        add("low correlation in " + percent(lowCorrelationFraction) + " of windows > " +
            percent(c.badWindowFraction));
        break;
    }
  }
  return s;
}

std::vector<std::size_t> BadChannelReport::suggested() const {
  std::vector<std::size_t> out;
  for (const ChannelQuality& q : channels)
    if (q.suggested()) out.push_back(q.channel);
  return out;
}

std::vector<std::string> BadChannelReport::thresholdLines() const {
  const BadChannelCriteria& c = criteria;
  return {"flat: robust or plain SD <= " + formatNumber(c.flatThreshold) + " (channel unit)",
          "deviation: |robust z of the robust SD| > " + formatNumber(c.deviationZ),
          "high-frequency noise: robust z of MAD(x - lowpass " +
              formatNumber(c.highFrequencyCutoff) + " Hz) / MAD(lowpass) > " +
              formatNumber(c.highFrequencyZ),
          "low correlation: 98th-percentile |r| < " + formatNumber(c.correlationThreshold) +
              " in more than " + percent(c.badWindowFraction) + " of " +
              formatNumber(c.correlationWindow) + " s windows",
          c.detrendCutoff > 0.0
              ? "measured after a " + formatNumber(c.detrendCutoff) + " Hz high-pass (detrend)"
              : std::string("measured without detrending")};
}

BadChannelReport suggestBadChannels(const SignalBlock& block, const BadChannelCriteria& criteria,
                                    ComputeBackend& backend, JobContext& ctx) {
  badChannelCriteriaParamTable().validate(criteria);
  const std::size_t rows = block.channels.size();
  if (rows < 3) {
    throw InvalidParameterError("channels", std::to_string(rows) + " channel(s)",
                                "at least 3 channels (the criteria compare channels)",
                                "select more channels");
  }
  const double fs = block.sampleRate;
  const std::size_t samples = static_cast<std::size_t>(block.samples);
  const std::size_t windowSamples =
      static_cast<std::size_t>(std::llround(criteria.correlationWindow * fs));
  if (windowSamples < 2 || samples < 2 * windowSamples) {
    throw InvalidParameterError(
        "correlationWindow", formatNumber(criteria.correlationWindow) + " s",
        "a window of at least 2 samples that fits twice into the " +
            formatNumber(static_cast<double>(samples) / fs) + " s selection",
        "select a longer stretch of the recording or a shorter window");
  }

  BadChannelReport report;
  report.criteria = criteria;
  report.channels.resize(rows);
  std::vector<double> robust(rows), ratio(rows, kNaN);
  std::vector<char> flat(rows, 0);  // not vector<bool>: threads write neighbouring entries

  // The detrended data every measure reads (pyprep's removeTrend before NoisyChannels).
  SignalBlock data = block;
  if (criteria.detrendCutoff > 0.0) {
    if (criteria.detrendCutoff < fs / 2.0) {
      ctx.progress(0.0, "removing slow trends");
      filterRows(data, FilterKind::HighPass, criteria.detrendCutoff, backend, ctx.sub(0.0, 0.15));
    } else {
      report.notes.push_back("detrending skipped: " + formatNumber(criteria.detrendCutoff) +
                             " Hz is not below half the sample rate " + formatNumber(fs) + " Hz");
    }
  }

  // The low-passed copy: the high-frequency measure and the correlations use it (PREP).
  ctx.progress(0.15, "low-pass for the noise criteria");
  SignalBlock low = data;
  const bool lowPassed = criteria.highFrequencyCutoff < fs / 2.0 &&
                         autoHighTransitionHz(criteria.highFrequencyCutoff, fs) > 0.0;
  if (lowPassed) {
    filterRows(low, FilterKind::LowPass, criteria.highFrequencyCutoff, backend, ctx.sub(0.15, 0.3));
  } else {
    report.notes.push_back("high-frequency criterion skipped: the sample rate " + formatNumber(fs) +
                           " Hz leaves no band above " +
                           formatNumber(criteria.highFrequencyCutoff) + " Hz");
  }
  ctx.checkpoint();

  parallelFor(rows, threadCount(), ctx.sub(0.3, 0.6), "measuring channels", [&]() {
    return [&](std::size_t r) {
      ChannelQuality& q = report.channels[r];
      q.channel = block.channels[r];
      const float* x = data.channel(r);
      q.robustSd = robustSdOf(x, samples);
      q.sd = plainSdOf(x, samples);
      robust[r] = q.robustSd;
      flat[r] = q.robustSd <= criteria.flatThreshold || q.sd <= criteria.flatThreshold;
      if (lowPassed && !flat[r]) {
        const float* l = low.channel(r);
        std::vector<float> high(samples);
        for (std::size_t i = 0; i < samples; ++i) high[i] = x[i] - l[i];
        const double lowSpread = robustSdOf(l, samples);
        if (lowSpread > 0.0) ratio[r] = robustSdOf(high.data(), samples) / lowSpread;
      }
    };
  });

  // The statistics of the usable channels: a flat one's SD would pull the median down.
  for (std::size_t r = 0; r < rows; ++r)
    if (flat[r]) robust[r] = kNaN;
  const std::vector<double> deviation = robustZScores(robust);
  const std::vector<double> hf = robustZScores(ratio);
  report.windows = static_cast<int>(samples / windowSamples);
  const std::vector<double> lowCorrelation = lowCorrelationFractions(
      low, flat, windowSamples, report.windows, criteria.correlationThreshold, ctx.sub(0.6, 1.0));
  for (std::size_t r = 0; r < rows; ++r) {
    ChannelQuality& q = report.channels[r];
    q.deviationZ = deviation[r];
    q.highFrequencyRatio = ratio[r];
    q.highFrequencyZ = hf[r];
    q.lowCorrelationFraction = lowCorrelation[r];
    if (flat[r]) {
      q.reasons.push_back(BadChannelReason::Flat);
      continue;  // the other measures of a flat channel say nothing more
    }
    if (std::abs(q.deviationZ) > criteria.deviationZ)
      q.reasons.push_back(BadChannelReason::Deviation);
    if (std::isfinite(q.highFrequencyZ) && q.highFrequencyZ > criteria.highFrequencyZ)
      q.reasons.push_back(BadChannelReason::HighFrequencyNoise);
    if (q.lowCorrelationFraction > criteria.badWindowFraction)
      q.reasons.push_back(BadChannelReason::LowCorrelation);
  }
  ctx.progress(1.0, "bad-channel suggestions");
  return report;
}

}  // namespace modescope
