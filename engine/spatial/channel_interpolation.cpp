// Spherical-spline interpolation of bad channels (channel_interpolation.h).
#include "engine/spatial/channel_interpolation.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/montage/scalp_interpolation.h"

namespace modescope {
namespace {

using Field = ParamField<SplineInterpolationParams>;

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindField<SplineInterpolationParams>(
      integerParam("order", "order", "Spline order")
          .atLeast(1)
          .atMost(10)
          .because("m of the spline kernel g(x) = 1/(4 pi) sum (2n + 1) / (n (n + 1))^m P_n(x): "
                   "smoothness (Perrin et al. 1989 and MNE's interpolate_bads use 4)"),
      &SplineInterpolationParams::order));
  f.push_back(bindField<SplineInterpolationParams>(
      integerParam("terms", "terms", "Legendre terms")
          .atLeast(1)
          .atMost(1000)
          .because("terms of the Legendre series of g(x) (MNE 50, EEGLAB's spheric_spline 7)"),
      &SplineInterpolationParams::terms));
  f.push_back(bindField<SplineInterpolationParams>(
      realParam("lambda", "lambda", "Regularisation")
          .atLeast(0)
          .atMost(1)
          .shown(7, 1e-6)
          .because("added to the diagonal of G before the fit (MNE's alpha 1e-5; EEGLAB 0 = "
                   "exact at the good electrodes)"),
      &SplineInterpolationParams::lambda));
  return f;
}

std::string channelName(const std::vector<ChannelInfo>& channels, std::size_t i) {
  const ChannelInfo& c = channels[i];
  return sanitizeUtf8(c.name.empty() ? c.label : c.name);
}

std::string joinNames(const std::vector<ChannelInfo>& channels,
                      const std::vector<std::size_t>& which) {
  std::string s;
  for (std::size_t i : which) s += (s.empty() ? "" : ", ") + channelName(channels, i);
  return s;
}

bool hasPosition(const ChannelInfo& c) {
  if (!c.position) return false;
  const Position3& p = *c.position;
  const double n = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
  return std::isfinite(n) && n > 0.0;
}

}  // namespace

const ParamTable<SplineInterpolationParams>& splineInterpolationParamTable() {
  static const ParamTable<SplineInterpolationParams> table(makeFields());
  return table;
}

void validateSplineInterpolationParams(const SplineInterpolationParams& p) {
  splineInterpolationParamTable().validate(p);
}

std::vector<double> splineInterpolationMatrix(const std::vector<Position3>& from,
                                              const std::vector<Position3>& to,
                                              const SplineInterpolationParams& params) {
  validateSplineInterpolationParams(params);
  const SphericalSpline spline(from, {params.order, params.terms, params.lambda});
  return spline.evaluator(to).weights();
}

ChannelInterpolationPlan planChannelInterpolation(const std::vector<ChannelInfo>& channels,
                                                  const std::vector<std::size_t>& bad,
                                                  const SplineInterpolationParams& params,
                                                  const std::vector<std::size_t>& alsoExcluded) {
  validateSplineInterpolationParams(params);
  if (bad.empty()) {
    throw InvalidParameterError(
        "bad channels", "none", "at least one channel to interpolate",
        "name them (--bad C3,C4 or --auto-bad on the command line, \"channels\" in a "
        "pipeline step) or mark them (Shift+click a channel label in the "
        "window)");
  }
  std::set<std::size_t> excluded(alsoExcluded.begin(), alsoExcluded.end());
  std::set<std::size_t> badSet;
  std::vector<std::size_t> noPosition;
  for (std::size_t i : bad) {
    if (i >= channels.size()) {
      throw InvalidParameterError("bad channels", "index " + std::to_string(i + 1),
                                  "1 to " + std::to_string(channels.size()));
    }
    if (!badSet.insert(i).second) {
      throw InvalidParameterError("bad channels", channelName(channels, i) + " listed twice",
                                  "each channel once");
    }
    if (!hasPosition(channels[i])) noPosition.push_back(i);
  }
  if (!noPosition.empty()) {
    throw InvalidParameterError(
        "bad channels", joinNames(channels, noPosition) + " without an electrode position",
        "channels with positions (10-05 names or a position file)",
        "load electrode positions for them, or leave them out of the list to interpolate");
  }
  const double rate = channels[bad.front()].sampleRate;
  std::vector<std::size_t> otherRate;
  for (std::size_t i : bad)
    if (channels[i].sampleRate != rate) otherRate.push_back(i);
  if (!otherRate.empty()) {
    throw InvalidParameterError(
        "bad channels",
        joinNames(channels, otherRate) + " at another sample rate than " +
            channelName(channels, bad.front()) + " (" + formatNumber(rate) + " Hz)",
        "bad channels sharing one sample rate", "interpolate the channels of each rate separately");
  }

  ChannelInterpolationPlan plan;
  plan.bad = bad;
  plan.sampleRate = rate;
  plan.params = params;
  std::vector<Position3> from, to;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const ChannelInfo& c = channels[i];
    if (badSet.count(i) || excluded.count(i) || c.bad) continue;
    if (c.type != ChannelType::EEG || !hasPosition(c) || c.sampleRate != rate) continue;
    plan.sources.push_back(i);
    from.push_back(*c.position);
  }
  if (plan.sources.size() < 3) {
    throw InvalidParameterError(
        "bad channels",
        std::to_string(plan.sources.size()) + " good EEG channel(s) with a position at " +
            formatNumber(rate) + " Hz",
        "at least 3 good EEG channels with positions to interpolate from",
        "mark fewer channels bad, or load electrode positions for more channels");
  }
  for (std::size_t i : bad) to.push_back(*channels[i].position);

  SpatialFilter& f = plan.filter;
  f.matrix = splineInterpolationMatrix(from, to, params);
  for (std::size_t i : plan.sources) f.inputNames.push_back(channelName(channels, i));
  for (std::size_t i : bad) f.outputNames.push_back(channelName(channels, i));
  f.inputChannels = plan.sources;
  f.description =
      "spherical-spline interpolation of " + joinNames(channels, bad) + " from " +
      std::to_string(plan.sources.size()) + " channels (m = " + std::to_string(params.order) +
      ", " + std::to_string(params.terms) + " terms, lambda " + formatNumber(params.lambda) + ")";
  return plan;
}

}  // namespace modescope
