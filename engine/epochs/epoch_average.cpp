#include "engine/epochs/epoch_average.h"

#include <cmath>
#include <limits>
#include <string>

#include "engine/core/error.h"

namespace modescope {

EpochGroups groupEpochs(const EpochSet& set) {
  EpochGroups g;
  const auto K = set.conditions.size();
  g.offsets.assign(K + 1, 0);
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t e = 0; e < set.epochCount(); ++e)
      if (set.condition[e] == static_cast<int>(k)) g.order.push_back(static_cast<int32_t>(e));
    g.offsets[k + 1] = static_cast<int32_t>(g.order.size());
  }
  return g;
}

EpochAverages averageEpochsCpu(const EpochSet& set, JobContext& ctx) {
  EpochAverages avg;
  avg.conditions = set.conditions;
  avg.channels = set.channelCount();
  avg.samples = set.samples;
  const std::size_t K = set.conditions.size(), C = avg.channels,
                    S = static_cast<std::size_t>(set.samples);
  avg.mean.assign(K * C * S, 0.0);
  avg.standardError.assign(K * C * S, std::numeric_limits<double>::quiet_NaN());
  const EpochGroups groups = groupEpochs(set);
  std::vector<double> sum(S), dev(S);
  for (std::size_t k = 0; k < K; ++k) {
    const int32_t begin = groups.offsets[k], end = groups.offsets[k + 1];
    const int64_t n = end - begin;
    avg.counts.push_back(n);
    if (n == 0) {
      for (std::size_t c = 0; c < C; ++c)
        std::fill_n(avg.mean.begin() + avg.offset(k, c), S,
                    std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    for (std::size_t c = 0; c < C; ++c) {
      ctx.checkpoint();
      std::fill(sum.begin(), sum.end(), 0.0);
      for (int32_t i = begin; i < end; ++i) {
        const float* x = set.row(static_cast<std::size_t>(groups.order[i]), c);
        for (std::size_t s = 0; s < S; ++s) sum[s] += x[s];
      }
      double* mean = avg.mean.data() + avg.offset(k, c);
      for (std::size_t s = 0; s < S; ++s) mean[s] = sum[s] / static_cast<double>(n);
      if (n < 2) continue;
      // Two passes (the mean first): the sum of squares minus n mean^2 loses every digit when
      // the mean is large against the spread.
      std::fill(dev.begin(), dev.end(), 0.0);
      for (int32_t i = begin; i < end; ++i) {
        const float* x = set.row(static_cast<std::size_t>(groups.order[i]), c);
        for (std::size_t s = 0; s < S; ++s) {
          const double d = x[s] - mean[s];
          dev[s] += d * d;
        }
      }
      double* se = avg.standardError.data() + avg.offset(k, c);
      for (std::size_t s = 0; s < S; ++s)
        se[s] = std::sqrt(dev[s] / static_cast<double>(n - 1) / static_cast<double>(n));
    }
    ctx.progress(static_cast<double>(k + 1) / static_cast<double>(K), "averaging");
  }
  return avg;
}

namespace {

std::size_t conditionIndex(const EpochAverages& avg, const std::string& name) {
  for (std::size_t k = 0; k < avg.conditions.size(); ++k)
    if (avg.conditions[k] == name) return k;
  std::string known;
  for (const auto& c : avg.conditions) known += (known.empty() ? "'" : ", '") + c + "'";
  throw InvalidParameterError("difference", "'" + name + "'", "one of the conditions: " + known,
                              "name two epoched event types, e.g. --difference T1-T2");
}

}  // namespace

DifferenceWave differenceWave(const EpochAverages& avg, const std::string& a,
                              const std::string& b) {
  const std::size_t ka = conditionIndex(avg, a), kb = conditionIndex(avg, b);
  DifferenceWave d;
  d.name = a + " - " + b;
  d.minuend = a;
  d.subtrahend = b;
  const std::size_t n = avg.channels * static_cast<std::size_t>(avg.samples);
  d.mean.resize(n);
  d.standardError.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t ia = avg.offset(ka, 0) + i, ib = avg.offset(kb, 0) + i;
    d.mean[i] = avg.mean[ia] - avg.mean[ib];
    d.standardError[i] = std::hypot(avg.standardError[ia], avg.standardError[ib]);
  }
  return d;
}

std::pair<std::string, std::string> parseDifference(const EpochAverages& avg,
                                                    const std::string& text) {
  auto known = [&](const std::string& s) {
    for (const auto& c : avg.conditions)
      if (c == s) return true;
    return false;
  };
  for (std::size_t i = text.find('-'); i != std::string::npos; i = text.find('-', i + 1)) {
    const std::string a = text.substr(0, i), b = text.substr(i + 1);
    if (known(a) && known(b)) return {a, b};
  }
  std::string names;
  for (const auto& c : avg.conditions) names += (names.empty() ? "" : ", ") + c;
  throw InvalidParameterError("difference", "'" + text + "'",
                              "A-B with A and B among the conditions (" + names + ")",
                              "e.g. --difference T1-T2");
}

}  // namespace modescope
