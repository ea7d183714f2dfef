// The result of an entropy-matrix computation (entropy_cpu.h): per-epoch ordered channel x channel
// matrices of Cross-ApEn (diagonal ApEn) or cross-SampEn (diagonal SampEn), their epoch average,
// and optionally the match counts they came from. Immutable once made; shared as
// std::shared_ptr<const EntropyMatrixResult>.
//
// Orientation (every matrix here, the HDF5 file and the views): entry [u][v] is the statistic of
// target channel v given template channel u, Cross-ApEn(v||u): row u = "template channel (u)",
// column v = "target channel (v)". Cross-ApEn is not symmetric, so [u][v] and [v][u] differ.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/core/recording.h"
#include "engine/entropy/entropy_params.h"

namespace modescope {

// Match summary of one (epoch, template channel u, target channel v): everything the final value
// needs, and nothing that depends on the measure's log rules: the value formulas
// (entropy_values.h) turn them into values on the host or on a device alike.
//
// With N the epoch length, x/y the z-scored u/v epochs, T = N - m + 1 the number of m-templates,
// d_m(i, j) = max_{k<m} |x[i+k] - y[j+k]|, d_{m+1}(i, j) = max(d_m, |x[i+m] - y[j+m]|),
// N_i^m = #{j in [0, T): d_m(i, j) <= r} and N_i^{m+1} = #{j in [0, T-1): d_{m+1}(i, j) <= r}:
struct EntropyPairCounts {
  // ApEn only (zero for SampleEntropy).
  double sumLogM = 0.0;       // sum over i in [0, T) with N_i^m > 0 of ln N_i^m
  double sumLogM1 = 0.0;      // sum over i in [0, T-1) with N_i^{m+1} > 0 of ln N_i^{m+1}
  int32_t noMatchM = 0;       // #{i in [0, T): N_i^m = 0}
  int32_t noMatchBoth = 0;    // #{i in [0, T-1): N_i^m = 0} (then N_i^{m+1} = 0 as well)
  int32_t noMatchM1Only = 0;  // #{i in [0, T-1): N_i^m > 0 and N_i^{m+1} = 0}
  // Both measures; pairs (i, i) included (the SampEn diagonal subtracts them: T - 1 each).
  // ApEn: sum over i in [0, T) of N_i^m. SampEn: B = #{(i, j) in [0, T-1)^2 : d_m <= r}
  // (Richman-Moorman use the same N - m templates for both lengths).
  int64_t matchesM = 0;
  // Both measures: A = #{(i, j) in [0, T-1)^2 : d_{m+1} <= r} = sum over i < T-1 of N_i^{m+1}.
  int64_t matchesM1 = 0;
};

struct EntropyMatrixResult {
  EntropyParams params;      // as requested, with `rows` resolved (never empty)
  double sampleRate = 0.0;   // Hz
  int64_t firstSample = 0;   // the block's first sample in the recording
  int64_t epochSamples = 0;  // N, resolved (the block length when params.epochSamples was 0)
  std::vector<std::size_t> channels;  // recording channel indices, in matrix order
  std::vector<std::string>
      channelNames;                  // filled by the caller (nameEntropyChannels); may be empty
  std::vector<int64_t> epochStarts;  // first sample of each epoch, relative to the block start
  // E x C x C, epoch slowest: value of (epoch e, template u, target v) at [(e * C + u) * C + v].
  // NaN where undefined: SampEn with A = 0 or B = 0, or a channel constant (SD = 0) in that epoch.
  std::vector<double> epochValues;
  // C x C: mean over the epochs whose value is finite, and how many those were (0 -> NaN).
  std::vector<double> average;
  std::vector<int32_t> averageEpochs;
  // E x C: 1 where channel c is constant (SD = 0) in epoch e, its row and column then NaN.
  std::vector<uint8_t> constantEpochs;
  // E x C x C like epochValues when params.keepCounts, else empty.
  std::vector<EntropyPairCounts> counts;
  // "entropy.droppedTail" (info), "entropy.constantEpochs" (warning, per channel, with the epoch
  // numbers), "entropy.undefined" (warning: SampEn entries with A = 0 or B = 0).
  Diagnostics diagnostics;

  std::size_t channelCount() const { return channels.size(); }
  std::size_t epochCount() const { return epochStarts.size(); }
  double at(std::size_t e, std::size_t u, std::size_t v) const {
    return epochValues[(e * channelCount() + u) * channelCount() + v];
  }
  double averageAt(std::size_t u, std::size_t v) const { return average[u * channelCount() + v]; }
  // The C x C matrix of epoch e (row-major, row = template channel).
  const double* epochMatrix(std::size_t e) const {
    return epochValues.data() + e * channelCount() * channelCount();
  }
  // ApEn / SampEn of channel c: the diagonal of the average.
  double channelEntropy(std::size_t c) const { return averageAt(c, c); }
};

// Fills result.channelNames from the recording's channel names (ChannelInfo::name) for
// result.channels. Throws InvalidParameterError when an index is outside the recording.
void nameEntropyChannels(EntropyMatrixResult& result, const Recording& recording);

}  // namespace modescope
