#include "engine/ica/ica_flags.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/ica/ica_flags_signal.h"
#include "engine/ica/ica_flags_spatial.h"

namespace modescope {
namespace {

using namespace ica_flags;

// Heart rates the periodicity check accepts: 42-180 beats per minute.
constexpr double kHeartLowHz = 0.7, kHeartHighHz = 3.0;
constexpr double kRefractorySeconds = 0.3;  // no two R peaks closer (200 beats per minute)
constexpr double kCtpsHalfWindow = 0.5;     // create_ecg_epochs tmin -0.5, tmax 0.5
constexpr double kLineBandHz = 0.5;         // "within 0.5 Hz of the mains frequency"
// ICA fitted to data that were not high-passed: Winkler, Debener, Mueller and Tangermann 2015
// (EMBC, "On the influence of high-pass filtering on ICA-based artifact reduction in EEG-ERP")
// found 1-2 Hz high-passing before ICA necessary for eye components to separate, as MNE's and
// EEGLAB's tutorials advise. A 1 Hz high-passed recording keeps a few per cent of its power
// below 1 Hz (the filter's transition band; 5 % in the synthetic tests), unfiltered EEG far
// more (1/f drift; 16 % in the synthetic recordings, which have little): a tenth marks data the
// ICA saw unfiltered.
constexpr double kSlowHz = 1.0;
constexpr double kSlowShareNote = 0.1;

struct Named {
  IcaFlagLabel label;
  const char* name;
  const char* icType;
};
constexpr Named kLabels[] = {{IcaFlagLabel::BrainOrOther, "brain", "brain"},
                             {IcaFlagLabel::Eye, "eye", "eye blink"},
                             {IcaFlagLabel::Heart, "heart", "heart beat"},
                             {IcaFlagLabel::Muscle, "muscle", "muscle artifact"},
                             {IcaFlagLabel::Line, "line", "line noise"},
                             {IcaFlagLabel::Channel, "channel", "channel noise"}};

std::string number(double v) { return formatNumber(std::round(v * 1000.0) / 1000.0); }

IcaFlagFeature feature(std::string key, std::string label, double value, double threshold) {
  return {std::move(key), std::move(label), value, threshold, value > threshold};
}

// The verdict of a rule that needs every feature above its threshold; confidence from the
// smallest margin, each in units of `spreads` (the feature's spread over the components).
// Evidence levels (ica_flags.h): reference channel, time course, map shape, channel noise.
constexpr int kByReference = 1, kByTimeCourse = 2, kByMapShape = 3, kByChannel = 4;

IcaDetectorVerdict allAbove(IcaFlagLabel label, int evidence, std::string rule,
                            std::vector<IcaFlagFeature> features,
                            const std::vector<double>& spreads) {
  IcaDetectorVerdict v;
  v.label = label;
  v.evidence = evidence;
  v.rule = std::move(rule);
  v.confidence = 1.0;
  v.flagged = true;
  std::string why;
  for (std::size_t i = 0; i < features.size(); ++i) {
    const IcaFlagFeature& f = features[i];
    v.confidence = std::min(v.confidence, logistic(f.value, f.threshold, spreads[i]));
    v.flagged = v.flagged && f.above;
    why += (why.empty() ? "" : ", ") + f.label + " " + number(f.value) +
           (f.above ? " > " : " <= ") + number(f.threshold);
  }
  v.reason = v.rule + ": " + why;
  v.features = std::move(features);
  return v;
}

double spreadOf(const std::vector<double>& values) {
  if (values.size() < 2) return 1.0;
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
  double var = 0.0;
  for (double v : values) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / (values.size() - 1));
  return sd > 0 ? 0.25 * sd : 1.0;
}

// ADJUST's trimmed statistics: the largest floor(1 %) values dropped (trim_and_mean,
// trim_and_max).
std::vector<double> trimmedTop(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t drop =
      static_cast<std::size_t>(std::floor(0.01 * static_cast<double>(v.size())));
  v.resize(v.size() - drop);
  return v;
}

struct TemporalFeatures {
  double tk = 0.0, mev = 0.0;
};

TemporalFeatures temporalFeatures(const float* a, int64_t n, int64_t segment) {
  std::vector<double> kurt, var;
  for (int64_t s = 0; s + segment <= n; s += segment) {
    kurt.push_back(kurtosis(a + s, segment));
    double mean = 0.0, v = 0.0;
    for (int64_t i = 0; i < segment; ++i) mean += a[s + i];
    mean /= static_cast<double>(segment);
    for (int64_t i = 0; i < segment; ++i) v += (a[s + i] - mean) * (a[s + i] - mean);
    var.push_back(v / static_cast<double>(segment - 1));
  }
  TemporalFeatures t;
  if (kurt.empty()) return t;
  const auto k = trimmedTop(kurt), v = trimmedTop(var);
  t.tk = std::accumulate(k.begin(), k.end(), 0.0) / static_cast<double>(k.size());
  const double meanVar = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  t.mev = meanVar > 0 ? *std::max_element(v.begin(), v.end()) / meanVar : 0.0;
  return t;
}

// MNE _find_bads_ch with measure='zscore': r of each band-passed activation with each
// band-passed reference, iterated z-scores per reference; a component is flagged by any.
// `mapCheck(k, reference)`: for a frontal proxy, the map feature that must also lie above its
// threshold for the verdict to count (nullopt: no check).
using MapCheck = std::function<std::optional<IcaFlagFeature>(int, const std::string&)>;

void correlationRule(const IcaFlagInput& in, const std::vector<IcaReferenceSeries>& refs,
                     const std::vector<std::vector<double>>& filtered, double low, double high,
                     double zThreshold, IcaFlagLabel label, const char* function,
                     std::vector<IcaComponentFlags>& out, JobContext& ctx,
                     const MapCheck& mapCheck = {}) {
  const int r = in.components;
  const int64_t n = in.samples;
  // The z-score ranks the components against each other; r must also stand out from chance.
  // Band-passed to (low, high) over T seconds, a series has about 2 (high - low) T independent
  // samples, so r of unrelated series spreads with sd 1 / sqrt(2 (high - low) T). MNE's second
  // z round, over the scores left after the first, can pass an r within that noise (a brain
  // component with r -0.04 and |z| 3.1 next to the blinks, on the synthetic recordings).
  const double seconds = static_cast<double>(n) / in.sampleRate;
  const double chanceR = 3.0 / std::sqrt(2.0 * (high - low) * seconds);
  for (const IcaReferenceSeries& ref : refs) {
    ctx.checkpoint();
    const std::vector<double> target = bandPass(ref.samples.data(), n, in.sampleRate, low, high);
    std::vector<double> scores(static_cast<std::size_t>(r));
    for (int k = 0; k < r; ++k)
      scores[static_cast<std::size_t>(k)] =
          correlation(filtered[static_cast<std::size_t>(k)].data(), target.data(), n);
    std::vector<double> z;
    const std::vector<bool> bad = iteratedZOutliers(scores, zThreshold, &z);
    for (int k = 0; k < r; ++k) {
      const auto i = static_cast<std::size_t>(k);
      IcaDetectorVerdict v =
          allAbove(label, kByReference, std::string("MNE ") + function + " (" + ref.name + ")",
                   {feature("z_" + ref.name, "|z| of r", z[i], zThreshold)}, {0.5});
      // MNE's decision is the z-score (flagged); |r| against chance decides whether it counts.
      const bool significant = std::fabs(scores[i]) > chanceR;
      v.features.insert(v.features.begin(),
                        {"r_" + ref.name, "|r| with " + ref.name, scores[i], chanceR, significant});
      v.flagged = bad[i];
      v.counted = significant;
      v.confidence = logistic(z[i], zThreshold, 0.5);
      v.reason = v.rule + ": r " + number(scores[i]) + ", |z| " + number(z[i]) +
                 (bad[i] ? " > " : " <= ") + number(zThreshold);
      if (bad[i] && !significant)
        v.reason += " (not counted: |r| <= " + number(chanceR) + ", within chance)";
      if (const std::optional<IcaFlagFeature> map =
              mapCheck ? mapCheck(k, ref.name) : std::nullopt) {
        v.features.push_back(*map);
        v.counted = v.counted && map->above;
        v.reason += ", " + map->label + " " + number(map->value) + (map->above ? " > " : " <= ") +
                    number(map->threshold) +
                    (map->above || !bad[i] ? "" : " (not counted: a frontal site, not an eye map)");
      }
      out[i].verdicts.push_back(std::move(v));
    }
  }
}

// R peaks of an ECG: in the band find_bads_ecg hands find_ecg_events (8-16 Hz), the largest |x|
// above half its 99th percentile, at least kRefractorySeconds apart.
std::vector<int64_t> rPeaks(const std::vector<float>& ecg, double fs, double low, double high) {
  const int64_t n = static_cast<int64_t>(ecg.size());
  const std::vector<double> x = bandPass(ecg.data(), n, fs, low, high);
  std::vector<double> mag(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) mag[i] = std::fabs(x[i]);
  std::vector<double> sorted = mag;
  const std::size_t q = static_cast<std::size_t>(0.99 * static_cast<double>(sorted.size() - 1));
  std::nth_element(sorted.begin(), sorted.begin() + q, sorted.end());
  const double level = 0.5 * sorted[q];
  const auto refractory = static_cast<int64_t>(kRefractorySeconds * fs);
  std::vector<int64_t> peaks;
  for (int64_t i = 1; i + 1 < n; ++i) {
    if (mag[i] < level || mag[i] < mag[i - 1] || mag[i] < mag[i + 1]) continue;
    if (!peaks.empty() && i - peaks.back() < refractory) {
      if (mag[i] > mag[peaks.back()]) peaks.back() = i;
      continue;
    }
    peaks.push_back(i);
  }
  return peaks;
}

// MNE find_bads_ecg(method='ctps'): the activations in epochs of +-0.5 s around the R peaks, the
// phase of each epoch, Kuiper's pk across epochs at each time, its maximum over time.
std::vector<double> ctpsScores(const IcaFlagInput& in, const std::vector<int64_t>& peaks,
                               const std::vector<std::vector<double>>& filtered) {
  const auto half = static_cast<int64_t>(std::llround(kCtpsHalfWindow * in.sampleRate));
  const int len = static_cast<int>(2 * half + 1);
  std::vector<int64_t> starts;
  for (int64_t p : peaks)
    if (p - half >= 0 && p + half < in.samples) starts.push_back(p - half);
  std::vector<double> scores(static_cast<std::size_t>(in.components), 0.0);
  if (starts.size() < 2) return scores;
  const int trials = static_cast<int>(starts.size());
  for (int k = 0; k < in.components; ++k) {
    std::vector<std::vector<double>> phases;
    for (int64_t s : starts)
      phases.push_back(normalisedPhase(filtered[static_cast<std::size_t>(k)].data() + s, len));
    double best = 0.0;
    std::vector<double> column(static_cast<std::size_t>(trials));
    for (int t = 0; t < len; ++t) {
      for (int e = 0; e < trials; ++e)
        column[static_cast<std::size_t>(e)] = phases[static_cast<std::size_t>(e)][t];
      best = std::max(best, kuiperProbability(kuiperStatistic(column), trials));
    }
    scores[static_cast<std::size_t>(k)] = best;
  }
  return scores;
}

// Without ECG: the spectrum of the 8-16 Hz band's power envelope; a heart-driven component beats
// at one rate, so its envelope spectrum has a sharp peak at 0.7-3 Hz.
double periodicity(const std::vector<double>& band, double fs) {
  std::vector<double> envelope(band.size());
  for (std::size_t i = 0; i < band.size(); ++i) envelope[i] = band[i] * band[i];
  double binHz = 0.0;
  const int64_t n = static_cast<int64_t>(envelope.size());
  const double resolution = std::max(0.05, fs / static_cast<double>(std::max<int64_t>(n, 1)));
  const std::vector<double> p = welchPower(envelope.data(), n, fs, resolution, &binHz);
  std::vector<double> inBand;
  double peak = 0.0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double f = static_cast<double>(k) * binHz;
    if (f < kHeartLowHz || f > kHeartHighHz) continue;
    inBand.push_back(p[k]);
    peak = std::max(peak, p[k]);
  }
  if (inBand.size() < 3) return 0.0;
  std::nth_element(inBand.begin(), inBand.begin() + inBand.size() / 2, inBand.end());
  const double median = inBand[inBand.size() / 2];
  return median > 0 ? peak / median : 0.0;
}

struct LineFeatures {
  double hz = 0.0, db = 0.0, share = 0.0;
  double slowShare = 0.0;  // of the activation's power below kSlowHz
};

// The stronger of the 50 and 60 Hz peaks: power within 0.5 Hz over the 40-70 Hz median (away
// from both mains frequencies), and that band's share of the activation's power.
LineFeatures lineFeatures(const float* a, int64_t n, double fs) {
  std::vector<double> x(a, a + n);
  double binHz = 0.0;
  const std::vector<double> p = welchPower(x.data(), n, fs, 0.25, &binHz);
  const double total = std::accumulate(p.begin() + 1, p.end(), 0.0);
  LineFeatures best;
  double slow = 0.0;
  for (std::size_t k = 1; k < p.size() && static_cast<double>(k) * binHz < kSlowHz; ++k)
    slow += p[k];
  best.slowShare = total > 0 ? slow / total : 0.0;
  for (double mains : {50.0, 60.0}) {
    if (mains + 1.0 >= fs / 2.0) continue;
    double peak = 0.0, band = 0.0;
    std::vector<double> around;
    for (std::size_t k = 1; k < p.size(); ++k) {
      const double f = static_cast<double>(k) * binHz;
      if (std::fabs(f - mains) <= kLineBandHz) peak = std::max(peak, p[k]), band += p[k];
      if (f >= 40 && f <= 70 && std::fabs(f - 50) > 2 && std::fabs(f - 60) > 2)
        around.push_back(p[k]);
    }
    if (around.empty() || peak <= 0) continue;
    std::nth_element(around.begin(), around.begin() + around.size() / 2, around.end());
    const double median = std::max(around[around.size() / 2], 1e-300);
    const double db = 10.0 * std::log10(peak / median);
    if (db > best.db) best = {mains, db, total > 0 ? band / total : 0.0, best.slowShare};
  }
  return best;
}

void checkInput(const IcaFlagInput& in) {
  const auto r = static_cast<std::size_t>(std::max(in.components, 0));
  if (in.components < 1 || in.samples < 8 || !(in.sampleRate > 0))
    throw InvalidParameterError(
        "activations", std::to_string(in.components) + " x " + std::to_string(in.samples),
        "at least one component, 8 samples and a positive rate", "decompose a longer range");
  if (in.activations.size() != r * static_cast<std::size_t>(in.samples) ||
      in.mixing.cols != in.components || in.mixing.rows < 1 ||
      static_cast<int>(in.channelNames.size()) != in.mixing.rows)
    throw InvalidParameterError(
        "mixing", std::to_string(in.mixing.rows) + " x " + std::to_string(in.mixing.cols),
        "channels x components matching the activations and names",
        "pass the decomposition's own matrices");
  for (const auto* refs : {&in.eog, &in.ecg})
    for (const IcaReferenceSeries& s : *refs)
      if (static_cast<int64_t>(s.samples.size()) != in.samples)
        throw InvalidParameterError("reference " + s.name, std::to_string(s.samples.size()),
                                    std::to_string(in.samples) + " samples",
                                    "read the reference over the decomposed range");
}

}  // namespace

const char* icaFlagLabelName(IcaFlagLabel label) {
  for (const Named& n : kLabels)
    if (n.label == label) return n.name;
  return "brain";
}

const char* icaFlagIcType(IcaFlagLabel label) {
  for (const Named& n : kLabels)
    if (n.label == label) return n.icType;
  return "brain";
}

std::vector<IcaFlagLabel> parseIcaFlagLabels(const std::string& text, const std::string& option) {
  std::vector<IcaFlagLabel> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const Named* found = nullptr;
    for (const Named& n : kLabels)
      if (item == n.name || item == n.icType) found = &n;
    if (!found || found->label == IcaFlagLabel::BrainOrOther)
      throw InvalidParameterError(option, "'" + item + "'",
                                  "a comma-separated list of eye, heart, muscle, line, channel",
                                  "for example --reject-flagged eye,heart");
    if (std::find(out.begin(), out.end(), found->label) == out.end()) out.push_back(found->label);
  }
  if (out.empty())
    throw InvalidParameterError(option, "'" + text + "'", "at least one label",
                                "for example --reject-flagged eye,heart");
  return out;
}

std::string IcaComponentFlags::reasons() const {
  std::string s;
  for (const IcaDetectorVerdict& v : verdicts)
    if (v.flagged && v.counted) s += (s.empty() ? "" : "\n") + v.reason;
  return s;
}

IcaFlags flagIcaComponents(const IcaFlagInput& in, const IcaFlagParams& params, JobContext& ctx) {
  validateIcaFlagParams(params);
  checkInput(in);
  IcaFlags flags;
  flags.params = params;
  const int r = in.components;
  const int64_t n = in.samples;
  const double fs = in.sampleRate;
  auto activation = [&](int k) { return in.activations.data() + static_cast<std::size_t>(k) * n; };
  std::vector<IcaComponentFlags>& out = flags.components;
  out.resize(static_cast<std::size_t>(r));
  ctx.progress(0.0, "component features");

  // Features every rule reads.
  const std::vector<MapFeatures> maps = mapFeatures(in.mixing, in.positions);
  const bool sited = !maps.empty() && maps.front().hasPositions;
  const auto segment = std::max<int64_t>(8, std::llround(params.segmentSeconds * fs));
  std::vector<TemporalFeatures> temporal(static_cast<std::size_t>(r));
  std::vector<LineFeatures> line(static_cast<std::size_t>(r));
  for (int k = 0; k < r; ++k) {
    temporal[static_cast<std::size_t>(k)] = temporalFeatures(activation(k), n, segment);
    line[static_cast<std::size_t>(k)] = lineFeatures(activation(k), n, fs);
    ctx.checkpoint();
  }
  auto column = [&](auto get) {
    std::vector<double> v;
    for (int k = 0; k < r; ++k) v.push_back(get(k));
    return v;
  };
  const auto sad = column([&](int k) { return maps[k].sad; });
  const auto sed = column([&](int k) { return maps[k].sed; });
  const auto gdsf = column([&](int k) { return maps[k].gdsf; });
  const auto tk = column([&](int k) { return temporal[k].tk; });
  const auto mev = column([&](int k) { return temporal[k].mev; });
  auto threshold = [](double given, const std::vector<double>& v) {
    return given > 0 ? given : emThreshold(v);
  };
  const double tSad = threshold(params.sadThreshold, sad),
               tSed = threshold(params.sedThreshold, sed);
  const double tGdsf = threshold(params.gdsfThreshold, gdsf);
  const double tTk = threshold(params.kurtosisThreshold, tk);
  const double tMev = threshold(params.mevThreshold, mev);
  ctx.progress(0.2, "eye rules");
  double slowShare = 0.0;
  for (const LineFeatures& l : line) slowShare += l.slowShare / static_cast<double>(r);
  if (slowShare > kSlowShareNote)
    flags.notes.push_back(
        "the activations keep " + number(100.0 * slowShare) +
        " % of their power below 1 Hz: ICA fitted to data that were not high-passed separates "
        "eye movements poorly (Winkler et al. 2015); high-pass at 1 Hz before ICA");
  // MNE's z-score over r components: one outlier among equal scores has |z| = sqrt(r - 1).
  const double zCeiling = std::sqrt(static_cast<double>(r - 1));
  for (const auto& [refs, threshold, what] : {std::tuple{&in.eog, params.eogZThreshold, "EOG"},
                                              std::tuple{&in.ecg, params.ecgZThreshold, "ECG"}})
    if (!refs->empty() && zCeiling <= threshold)
      flags.notes.push_back("with " + std::to_string(r) + " components no |z| can exceed sqrt(" +
                            std::to_string(r - 1) + ") = " + number(zCeiling) + ": the " + what +
                            " z-score threshold " + number(threshold) + " cannot be reached");

  // Eye.
  std::vector<std::vector<double>> eyeBand(static_cast<std::size_t>(r));
  if (!in.eog.empty()) {
    for (int k = 0; k < r; ++k)
      eyeBand[static_cast<std::size_t>(k)] =
          bandPass(activation(k), n, fs, params.eogLowHz, params.eogHighHz);
    // A proxy is an EEG channel: every component strong at that site follows it a little, and
    // one of twenty-odd may pass the z-score by chance. An eye component also has the eyes'
    // map: frontal (SAD) for Fp/AF sites, opposite at the outer canthi (SED) for F8-F7.
    MapCheck eyeMap;
    if (in.eogIsFrontalProxy && sited)
      eyeMap = [&](int k, const std::string& ref) -> std::optional<IcaFlagFeature> {
        const auto i = static_cast<std::size_t>(k);
        return ref.find('-') != std::string::npos ? feature("sed", "SED", sed[i], tSed)
                                                  : feature("sad", "SAD", sad[i], tSad);
      };
    correlationRule(in, in.eog, eyeBand, params.eogLowHz, params.eogHighHz, params.eogZThreshold,
                    IcaFlagLabel::Eye, "find_bads_eog", out, ctx, eyeMap);
    if (in.eogIsFrontalProxy)
      flags.notes.push_back("no EOG channel: the eye correlation uses the frontal sites");
  } else {
    flags.notes.push_back(
        "no EOG channel and no frontal site (Fp1, Fp2, AF7, AF8): the eye "
        "correlation rule did not run");
  }
  if (sited) {
    const double sSad = spreadOf(sad), sSed = spreadOf(sed), sTk = spreadOf(tk),
                 sMev = spreadOf(mev), sGdsf = spreadOf(gdsf);
    for (int k = 0; k < r; ++k) {
      const auto i = static_cast<std::size_t>(k);
      out[i].verdicts.push_back(allAbove(
          IcaFlagLabel::Eye, kByMapShape, "ADJUST blink",
          {feature("sad", "SAD", sad[i], tSad), feature("tk", "TK", tk[i], tTk)}, {sSad, sTk}));
      out[i].verdicts.push_back(
          allAbove(IcaFlagLabel::Eye, kByMapShape, "ADJUST vertical movement",
                   {feature("sad", "SAD", sad[i], tSad), feature("mev", "MEV", mev[i], tMev)},
                   {sSad, sMev}));
      out[i].verdicts.push_back(
          allAbove(IcaFlagLabel::Eye, kByMapShape, "ADJUST horizontal movement",
                   {feature("sed", "SED", sed[i], tSed), feature("mev", "MEV", mev[i], tMev)},
                   {sSed, sMev}));
      out[i].verdicts.push_back(
          allAbove(IcaFlagLabel::Channel, kByChannel, "ADJUST generic discontinuity",
                   {feature("gdsf", "GDSF", gdsf[i], tGdsf), feature("mev", "MEV", mev[i], tMev)},
                   {sGdsf, sMev}));
    }
  } else {
    flags.notes.push_back(
        "channels without montage positions: the ADJUST and muscle rules, "
        "which read the scalp map's geometry, did not run");
  }
  ctx.progress(0.4, "heart rules");

  // Heart.
  std::vector<std::vector<double>> heartBand(static_cast<std::size_t>(r));
  for (int k = 0; k < r; ++k) {
    heartBand[static_cast<std::size_t>(k)] =
        bandPass(activation(k), n, fs, params.ecgLowHz, params.ecgHighHz);
    ctx.checkpoint();
  }
  if (!in.ecg.empty()) {
    correlationRule(in, in.ecg, heartBand, params.ecgLowHz, params.ecgHighHz, params.ecgZThreshold,
                    IcaFlagLabel::Heart, "find_bads_ecg correlation", out, ctx);
    const std::vector<int64_t> peaks =
        rPeaks(in.ecg.front().samples, fs, params.ecgLowHz, params.ecgHighHz);
    const double tCtps =
        params.ctpsThreshold > 0 ? params.ctpsThreshold : ctpsAutomaticThreshold(fs);
    // create_ecg_epochs epochs the recording as it is: l_freq and h_freq only filter the ECG for
    // the QRS detector, so the phases are those of the unfiltered activations.
    std::vector<std::vector<double>> plain(static_cast<std::size_t>(r));
    for (int k = 0; k < r; ++k)
      plain[static_cast<std::size_t>(k)].assign(activation(k), activation(k) + n);
    const std::vector<double> ctps = ctpsScores(in, peaks, plain);
    for (int k = 0; k < r; ++k) {
      const auto i = static_cast<std::size_t>(k);
      IcaDetectorVerdict v = allAbove(IcaFlagLabel::Heart, kByReference,
                                      "MNE find_bads_ecg CTPS (" + in.ecg.front().name + ", " +
                                          std::to_string(peaks.size()) + " beats)",
                                      {feature("ctps", "max pk", ctps[i], tCtps)}, {0.05});
      // MNE flags scores >= threshold.
      v.flagged = ctps[i] >= tCtps;
      out[i].verdicts.push_back(std::move(v));
    }
  } else {
    flags.notes.push_back(
        "no ECG channel: the heart rule is the periodicity of the 8-16 Hz "
        "envelope");
    for (int k = 0; k < r; ++k) {
      const auto i = static_cast<std::size_t>(k);
      out[i].verdicts.push_back(
          allAbove(IcaFlagLabel::Heart, kByTimeCourse, "heartbeat periodicity",
                   {feature("periodicity", "envelope peak/median at 0.7-3 Hz",
                            periodicity(heartBand[i], fs), params.periodicityThreshold)},
                   {0.25 * params.periodicityThreshold}));
    }
  }
  ctx.progress(0.7, "muscle, line and channel rules");

  // Muscle: MNE find_bads_muscle.
  if (sited) {
    for (int k = 0; k < r; ++k) {
      const auto i = static_cast<std::size_t>(k);
      std::vector<double> freqs;
      const std::vector<double> psd =
          mnePsd(activation(k), n, fs, params.muscleLowHz, params.muscleHighHz, &freqs);
      std::vector<double> lf, lp;
      for (std::size_t j = 0; j < psd.size(); ++j)
        if (psd[j] > 0) lf.push_back(std::log10(freqs[j])), lp.push_back(std::log10(psd[j]));
      const double slope = fitSlope(lf, lp);
      const double focus = maps[i].focusDistance, smooth = maps[i].smoothness;
      // ica.py: logistic(slope; -0.5, 0.25) * logistic(focus; 0.65, 0.1) *
      // (1 - logistic(smoothness; 300, 100)), flagged above threshold^3.
      const double score = logistic(slope, -0.5, 0.25) * logistic(focus, 0.65, 0.1) *
                           (1.0 - logistic(smooth, 300.0, 100.0));
      const double cut = std::pow(params.muscleThreshold, 3.0);
      IcaDetectorVerdict v;
      v.label = IcaFlagLabel::Muscle;
      v.evidence = kByTimeCourse;
      v.rule = "MNE find_bads_muscle";
      v.features = {feature("slope", "log-log spectral slope", slope, -0.5),
                    feature("focus", "peripheral distance", focus, 0.65),
                    feature("smoothness", "smoothness", smooth, 300.0),
                    feature("muscle_score", "score", score, cut)};
      v.features[2].above = smooth < 300.0;  // low smoothness is muscle-like
      v.flagged = score > cut;
      // The geometric mean of the three factors against the threshold, on a log scale.
      v.confidence = logistic(std::log(std::cbrt(std::max(score, 1e-300))),
                              std::log(params.muscleThreshold), 0.15);
      v.reason = v.rule + ": slope " + number(slope) + ", distance " + number(focus) +
                 ", smoothness " + number(smooth) + ", score " + number(score) +
                 (v.flagged ? " > " : " <= ") + number(cut);
      out[i].verdicts.push_back(std::move(v));
      ctx.checkpoint();
    }
  }

  // Line noise and single-electrode maps.
  for (int k = 0; k < r; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const LineFeatures& l = line[i];
    out[i].verdicts.push_back(
        allAbove(IcaFlagLabel::Line, kByTimeCourse,
                 "line peak" + (l.hz > 0 ? " at " + number(l.hz) + " Hz" : ""),
                 {feature("line_db", "peak over 40-70 Hz median (dB)", l.db, params.linePeakDb),
                  feature("line_share", "share of power at the peak", l.share, params.lineShare)},
                 {3.0, 0.05}));
    out[i].verdicts.push_back(
        allAbove(IcaFlagLabel::Channel, kByChannel,
                 "single electrode (" + in.channelNames[maps[i].peakChannel] + ")",
                 {feature("concentration", "share of the map on one electrode",
                          maps[i].concentration, params.channelConcentration)},
                 {0.05}));
  }

  // Labels: the strongest evidence level with a flagged rule, the most confident rule in it.
  for (IcaComponentFlags& c : out) {
    double strongest = 0.0;
    int level = kByChannel + 1;
    for (const IcaDetectorVerdict& v : c.verdicts) {
      if (!v.counted) continue;
      strongest = std::max(strongest, v.confidence);
      if (!v.flagged) continue;
      if (v.evidence < level || (v.evidence == level && v.confidence > c.confidence)) {
        level = v.evidence;
        c.label = v.label;
        c.confidence = v.confidence;
      }
    }
    if (c.label == IcaFlagLabel::BrainOrOther) c.confidence = 1.0 - strongest;
  }
  ctx.progress(1.0, "flags");
  return flags;
}

std::vector<int> flaggedComponents(const IcaFlags& flags, const std::vector<IcaFlagLabel>& labels,
                                   double minConfidence) {
  std::vector<int> out;
  for (std::size_t k = 0; k < flags.components.size(); ++k) {
    const IcaComponentFlags& c = flags.components[k];
    if (c.label != IcaFlagLabel::BrainOrOther && c.confidence >= minConfidence &&
        std::find(labels.begin(), labels.end(), c.label) != labels.end())
      out.push_back(static_cast<int>(k));
  }
  return out;
}

}  // namespace modescope
