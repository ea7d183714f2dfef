// The epoching parameters, declared once (engine/method/param_table.h). The defaults are
// mne.Epochs' (-0.2 to 0.5 s) with the baseline over the whole pre-event part.
#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/epochs/epoch_params.h"

namespace modescope {
namespace {

using Field = ParamField<EpochParams>;

// Epochs of more than a minute each are a mistake for ERPs (and would hold minutes x channels x
// epochs of samples in memory).
constexpr double kMaxOffsetSeconds = 60.0;

bool hasBaseline(const EpochParams& p) { return p.baseline; }

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindField<EpochParams>(
      realParam("tmin", "tmin", "Epoch start")
          .in("s")
          .atLeast(-kMaxOffsetSeconds)
          .below(kMaxOffsetSeconds)
          .shown(3, 0.05)
          .because("start of the window relative to the event, rounded to a sample (mne.Epochs "
                   "tmin)"),
      &EpochParams::tmin));
  f.push_back(bindField<EpochParams>(
      realParam("tmax", "tmax", "Epoch end")
          .in("s")
          .above(-kMaxOffsetSeconds)
          .atMost(kMaxOffsetSeconds)
          .shown(3, 0.05)
          .because("end of the window relative to the event, included (mne.Epochs tmax)"),
      &EpochParams::tmax));
  f.push_back(bindField<EpochParams>(
      flagParam("baseline", "baseline", "Baseline correction")
          .because("subtract each channel's mean over the baseline interval from every epoch "
                   "(mne.baseline.rescale, mode 'mean')"),
      &EpochParams::baseline));
  f.push_back(bindField<EpochParams>(
      realParam("baselineStart", "baseline-start", "Baseline start")
          .in("s")
          .atLeast(-kMaxOffsetSeconds)
          .atMost(kMaxOffsetSeconds)
          .shown(3, 0.05)
          .because("first time of the baseline, inside the window (MNE: baseline=(a, b))")
          .onlyFor("baseline correction"),
      &EpochParams::baselineStart, hasBaseline));
  f.push_back(bindField<EpochParams>(realParam("baselineEnd", "baseline-end", "Baseline end")
                                         .in("s")
                                         .atLeast(-kMaxOffsetSeconds)
                                         .atMost(kMaxOffsetSeconds)
                                         .shown(3, 0.05)
                                         .because("last time of the baseline, included")
                                         .onlyFor("baseline correction"),
                                     &EpochParams::baselineEnd, hasBaseline));
  f.push_back(bindField<EpochParams>(
      realParam("rejectPeakToPeak", "reject", "Peak-to-peak rejection")
          .in("channel unit")
          .above(0)
          .orSpecial(0, "off")
          .shown(1, 10)
          .because("an epoch whose peak-to-peak amplitude on any channel exceeds it is dropped "
                   "(mne.Epochs reject=; EEG in uV: 100-150 is usual)"),
      &EpochParams::rejectPeakToPeak));
  f.push_back(bindField<EpochParams>(
      flagParam("rejectBadSegments", "reject-bad-segments", "Reject bad segments")
          .because("drop epochs that overlap a bad segment: annotations beginning with 'bad' "
                   "and marked segments (mne.Epochs reject_by_annotation)"),
      &EpochParams::rejectBadSegments));
  f.push_back(bindField<EpochParams>(
      realParam("confidence", "confidence", "Confidence band")
          .above(0)
          .below(1)
          .shown(3, 0.01)
          .because("the band around each average: mean +- z SE with z the two-sided normal "
                   "quantile of this level (0.95: 1.96)"),
      &EpochParams::confidence));
  return f;
}

void crossCheck(const EpochParams& p) {
  if (p.tmin >= p.tmax)
    throw InvalidParameterError("tmin", formatNumber(p.tmin) + " s",
                                "below the epoch end, " + formatNumber(p.tmax) + " s",
                                "lower --tmin or raise --tmax");
  if (!p.baseline) return;
  if (p.baselineStart > p.baselineEnd)
    throw InvalidParameterError("baselineStart", formatNumber(p.baselineStart) + " s",
                                "at most the baseline end, " + formatNumber(p.baselineEnd) + " s",
                                "swap --baseline-start and --baseline-end");
  if (p.baselineStart < p.tmin || p.baselineEnd > p.tmax)
    throw InvalidParameterError(
        "baselineStart",
        formatNumber(p.baselineStart) + " to " + formatNumber(p.baselineEnd) + " s",
        "inside the epoch, " + formatNumber(p.tmin) + " to " + formatNumber(p.tmax) + " s",
        "move the baseline into the window or widen the window");
}

std::vector<ParamField<SpectrumParams>> makeSpectrumFields() {
  std::vector<ParamField<SpectrumParams>> f;
  f.push_back(bindField<SpectrumParams>(
      integerParam("segmentLength", "segment", "Welch segment")
          .in("samples")
          .atLeast(8)
          .atMost(1 << 20)
          .orSpecial(0, "automatic")
          .because("samples per Hann-windowed segment, 50 % overlap (Welch 1967); automatic = the "
                   "power of two nearest 2 s (0.5 Hz bins, MNE's and spectopo's usual choice)"),
      &SpectrumParams::segmentLength));
  f.push_back(bindField<SpectrumParams>(realParam("maxFrequency", "fmax", "Highest frequency")
                                            .in("Hz")
                                            .above(0)
                                            .orSpecial(0, "Nyquist")
                                            .shown(1, 1)
                                            .because("the highest frequency shown and written"),
                                        &SpectrumParams::maxFrequency));
  return f;
}

}  // namespace

const ParamTable<EpochParams>& epochParamTable() {
  static const ParamTable<EpochParams> table(makeFields(), crossCheck);
  return table;
}

const ParamTable<SpectrumParams>& spectrumParamTable() {
  static const ParamTable<SpectrumParams> table(makeSpectrumFields());
  return table;
}

void validateEpochParams(const EpochParams& p) { epochParamTable().validate(p); }

EpochWindow epochWindow(const EpochParams& p, double sampleRate) {
  validateEpochParams(p);
  if (!(sampleRate > 0))
    throw InvalidParameterError("sample rate", formatNumber(sampleRate) + " Hz", "> 0 Hz");
  EpochWindow w;
  w.first = std::llround(p.tmin * sampleRate);
  w.last = std::llround(p.tmax * sampleRate);
  if (w.samples() < 2)
    throw InvalidParameterError(
        "tmax", formatNumber(p.tmax) + " s",
        "a window of at least 2 samples at " + formatNumber(sampleRate) + " Hz",
        "widen the window");
  w.baselineFirst = 0;
  w.baselineLast = w.samples() - 1;
  if (p.baseline) {
    // mne.baseline: times >= bmin and times <= bmax, the times being (first + i) / fs. A tiny
    // tolerance keeps 0.0 inside when it is computed as -41 / 205 + 41 / 205.
    const double eps = 1e-9 / sampleRate;
    int64_t lo = -1, hi = -1;
    for (int64_t i = 0; i < w.samples(); ++i) {
      const double t = static_cast<double>(w.first + i) / sampleRate;
      if (t >= p.baselineStart - eps && t <= p.baselineEnd + eps) {
        if (lo < 0) lo = i;
        hi = i;
      }
    }
    if (lo < 0)
      throw InvalidParameterError(
          "baselineStart",
          formatNumber(p.baselineStart) + " to " + formatNumber(p.baselineEnd) + " s",
          "an interval that holds at least one sample at " + formatNumber(sampleRate) + " Hz",
          "widen the baseline");
    w.baselineFirst = lo;
    w.baselineLast = hi;
  }
  return w;
}

double confidenceZ(double level) {
  if (!(level > 0 && level < 1))
    throw InvalidParameterError("confidence", formatNumber(level), "a level in (0, 1)");
  // P(|Z| <= z) = erf(z / sqrt 2): bisection on erf, monotone on [0, 40].
  double lo = 0.0, hi = 40.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (std::erf(mid / std::sqrt(2.0)) < level ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace modescope
