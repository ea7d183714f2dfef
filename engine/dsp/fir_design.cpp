#include "engine/dsp/fir_design.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/dsp/preprocess.h"

namespace modescope {

double autoLowTransitionHz(double lowHz) { return std::min(std::max(0.25 * lowHz, 2.0), lowHz); }

double autoHighTransitionHz(double highHz, double sampleRate) {
  return std::min(std::max(0.25 * highHz, 2.0), sampleRate / 2.0 - highHz);
}

namespace {

std::size_t makeOdd(std::size_t n) { return n % 2 == 0 ? n + 1 : n; }

// Length of one transition's piece. MNE rounds half to even here (Python's round) and ceils the
// overall length; std::nearbyint rounds half to even in the default rounding mode.
std::size_t pieceLength(double widthHz, double sampleRate) {
  const double taps = std::nearbyint(kHammingLengthFactor / (widthHz / sampleRate));
  return makeOdd(static_cast<std::size_t>(std::max(taps, 1.0)));
}

}  // namespace

std::size_t filterLengthFor(double transitionHz, double sampleRate) {
  // Same order of operations as MNE (seconds first, then samples) so lengths agree exactly.
  const double seconds = kHammingLengthFactor / transitionHz;
  const double taps = std::ceil(seconds * sampleRate);
  return makeOdd(static_cast<std::size_t>(std::max(taps, 1.0)));
}

std::vector<double> hammingWindow(std::size_t length) {
  std::vector<double> w(length, 1.0);
  if (length < 2) return w;
  const double denom = static_cast<double>(length - 1);
  // Computed for the first half and mirrored: exact symmetry keeps the filter exactly linear-phase.
  for (std::size_t k = 0; k <= (length - 1) / 2; ++k) {
    w[k] = 0.54 - 0.46 * std::cos(2.0 * std::numbers::pi * static_cast<double>(k) / denom);
    w[length - 1 - k] = w[k];
  }
  return w;
}

std::vector<double> windowedSincLowPass(double cutoffHz, std::size_t length, double sampleRate) {
  if (length % 2 == 0) throw std::logic_error("windowedSincLowPass: length must be odd");
  const double fc = cutoffHz / sampleRate;  // cycles per sample
  const auto window = hammingWindow(length);
  const double centre = static_cast<double>(length - 1) / 2.0;
  std::vector<double> h(length);
  for (std::size_t k = 0; k <= length / 2; ++k) {
    const double m = static_cast<double>(k) - centre;
    // Ideal low-pass impulse response 2 fc sinc(2 fc m), sinc(x) = sin(pi x) / (pi x); even in m,
    // so the second half mirrors the first exactly.
    const double x = 2.0 * fc * m;
    const double sinc = x == 0.0 ? 1.0 : std::sin(std::numbers::pi * x) / (std::numbers::pi * x);
    h[k] = 2.0 * fc * sinc * window[k];
    h[length - 1 - k] = h[k];
  }
  double sum = 0.0;
  for (double v : h) sum += v;
  for (double& v : h) v /= sum;  // unit DC gain, like scipy's firwin(scale=True)
  return h;
}

std::vector<double> composeFir(const std::vector<FirTransition>& transitions, int gainAtNyquist,
                               std::size_t length, double sampleRate) {
  if (length % 2 == 0) throw std::logic_error("composeFir: length must be odd");
  std::vector<double> h(length, 0.0);
  if (gainAtNyquist == 1) h[length / 2] = 1.0;  // all-pass start, pieces carve the stop bands
  auto sorted = transitions;
  std::sort(sorted.begin(), sorted.end(),
            [](const FirTransition& a, const FirTransition& b) { return a.cutoffHz > b.cutoffHz; });
  int gain = gainAtNyquist;
  for (const auto& t : sorted) {
    if (t.gainBelow == gain || (t.gainBelow != 0 && t.gainBelow != 1)) {
      throw std::logic_error("composeFir: transitions must alternate between gain 0 and 1");
    }
    // Float noise can round a piece one step above the overall ceil; never exceed the length.
    const std::size_t n = std::min(pieceLength(t.widthHz, sampleRate), length);
    const auto piece = windowedSincLowPass(t.cutoffHz, n, sampleRate);
    const std::size_t offset = (length - n) / 2;
    const double sign = t.gainBelow == 1 ? 1.0 : -1.0;
    for (std::size_t k = 0; k < n; ++k) h[offset + k] += sign * piece[k];
    gain = t.gainBelow;
  }
  return h;
}

// ---- designFir (declared in preprocess.h) ----------------------------------------------------

namespace {

std::string hz(double v) { return formatNumber(v) + " Hz"; }

void requireFinitePositive(const std::string& parameter, double v, const std::string& remedy) {
  if (!std::isfinite(v) || v <= 0.0) {
    throw InvalidParameterError(parameter, hz(v), "a positive frequency in Hz", remedy);
  }
}

void requireBelowNyquist(const std::string& parameter, double v, double fs) {
  requireFinitePositive(parameter, v, "Give the edge in Hz, e.g. bandpass:1-40");
  if (v >= fs / 2.0) {
    throw InvalidParameterError(
        parameter, hz(v),
        "a frequency in (0, " + formatNumber(fs / 2.0) + ") Hz, below the Nyquist frequency of " +
            formatNumber(fs) + " Hz sampling",
        "Lower the edge, or drop the filter (a low-pass at or above Nyquist does nothing)");
  }
}

double lowTransition(const FilterSpec& s) {
  if (s.transitionHz > 0.0) {
    if (s.transitionHz > s.lowHz) {
      throw InvalidParameterError("transition width", hz(s.transitionHz),
                                  "at most the high-pass edge (" + hz(s.lowHz) +
                                      "), so the stop band starts at or above 0 Hz",
                                  "Use a narrower transition or 0 for the automatic width");
    }
    return s.transitionHz;
  }
  return autoLowTransitionHz(s.lowHz);
}

double highTransition(const FilterSpec& s, double fs) {
  if (s.transitionHz > 0.0) {
    if (s.highHz + s.transitionHz > fs / 2.0) {
      throw InvalidParameterError(
          "transition width", hz(s.transitionHz),
          "at most Nyquist minus the low-pass edge (" + hz(fs / 2.0 - s.highHz) + ")",
          "Use a narrower transition or 0 for the automatic width");
    }
    return s.transitionHz;
  }
  return autoHighTransitionHz(s.highHz, fs);
}

std::string withTaps(const std::string& what, std::size_t taps) {
  return what + ", " + std::to_string(taps) + " taps, Hamming";
}

}  // namespace

FirKernel designFir(const FilterSpec& spec, double sampleRate) {
  if (!std::isfinite(sampleRate) || sampleRate <= 0.0) {
    throw InvalidParameterError("sample rate", hz(sampleRate), "a positive rate in Hz",
                                "Check the recording's header");
  }
  if (!(spec.transitionHz >= 0.0) || !std::isfinite(spec.transitionHz)) {
    throw InvalidParameterError("transition width", hz(spec.transitionHz),
                                "0 (automatic) or a positive width in Hz");
  }
  const double fs = sampleRate;
  const double nyquist = fs / 2.0;
  FirKernel k;
  k.sampleRate = fs;
  switch (spec.kind) {
    case FilterKind::BandPass: {
      requireBelowNyquist("band-pass low edge", spec.lowHz, fs);
      requireBelowNyquist("band-pass high edge", spec.highHz, fs);
      if (spec.lowHz >= spec.highHz) {
        throw InvalidParameterError(
            "band-pass edges", formatNumber(spec.lowHz) + "-" + hz(spec.highHz),
            "low edge below high edge", "Write the lower frequency first, e.g. bandpass:1-40");
      }
      const double lt = lowTransition(spec);
      const double ht = highTransition(spec, fs);
      const std::size_t n = filterLengthFor(std::min(lt, ht), fs);
      k.taps =
          composeFir({{spec.lowHz - lt / 2.0, lt, 0}, {spec.highHz + ht / 2.0, ht, 1}}, 0, n, fs);
      break;
    }
    case FilterKind::HighPass: {
      requireBelowNyquist("high-pass edge", spec.lowHz, fs);
      const double lt = lowTransition(spec);
      const std::size_t n = filterLengthFor(lt, fs);
      k.taps = composeFir({{spec.lowHz - lt / 2.0, lt, 0}}, 1, n, fs);
      break;
    }
    case FilterKind::LowPass: {
      requireBelowNyquist("low-pass edge", spec.highHz, fs);
      const double ht = highTransition(spec, fs);
      const std::size_t n = filterLengthFor(ht, fs);
      k.taps = composeFir({{spec.highHz + ht / 2.0, ht, 1}}, 0, n, fs);
      break;
    }
    case FilterKind::Notch: {
      requireFinitePositive("notch frequency", spec.notchHz, "Use notch:50 or notch:60");
      const double tr = spec.transitionHz > 0.0 ? spec.transitionHz : 1.0;
      const double halfStop = 0.5;         // 1 Hz-wide stop band
      const double reach = halfStop + tr;  // pass edges at f -/+ reach
      if (spec.notchHz + reach > nyquist) {
        throw InvalidParameterError(
            "notch frequency", hz(spec.notchHz),
            "at most " + hz(nyquist - reach) + " (the notch and its " + hz(tr) +
                " transitions must fit below the Nyquist frequency of " + formatNumber(fs) +
                " Hz sampling)",
            "The mains frequency is not present at this sample rate; drop the notch");
      }
      if (spec.notchHz - reach < 0.0) {
        throw InvalidParameterError("notch frequency", hz(spec.notchHz), "at least " + hz(reach),
                                    "Use notch:50 or notch:60");
      }
      std::vector<FirTransition> t;
      for (int m = 1;; ++m) {
        const double f = spec.notchHz * m;
        if (f + reach > nyquist || (m > 1 && !spec.notchHarmonics)) break;
        t.push_back({f - halfStop - tr / 2.0, tr, 1});
        t.push_back({f + halfStop + tr / 2.0, tr, 0});
      }
      const std::size_t n = filterLengthFor(tr, fs);
      k.taps = composeFir(t, 1, n, fs);
      break;
    }
  }
  k.description = withTaps(describe(spec), k.taps.size());
  return k;
}

}  // namespace modescope
