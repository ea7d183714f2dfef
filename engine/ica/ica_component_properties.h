// What the properties view shows for one independent component (EEGLAB pop_prop, MNE
// ICA.plot_properties): the activation's power spectrum in dB (1-80 Hz, Welch with 2 s
// segments), an epoch image (the activation across consecutive segments, or across epochs
// around chosen events), the average of those rows, and the variance the component accounts for
// in each row (plot_properties' "dropped segments" panel shows the same per-epoch variance).
//
// Thread rules: a pure function on values.
#pragma once

#include <cstdint>
#include <vector>

namespace modescope {

struct IcaComponentProperties {
  std::vector<double> frequencies;  // Hz, 1 to min(80, Nyquist)
  std::vector<double> powerDb;      // 10 log10 of the Welch power (activation unit^2 / Hz)
  double rowSeconds = 0.0;          // the length of one row of the epoch image
  double rowStartSeconds = 0.0;     // the first sample of a row, from its segment start or event
  int rowSamples = 0;
  std::vector<std::vector<float>> rows;  // consecutive segments, or epochs around the events
  std::vector<double> rowStarts;         // s from the decomposed range's start
  std::vector<double> average;           // mean of the rows, sample by sample
  // Per row: 100 * sum_c (a_c s(t))^2 / sum_c (x_c(t) - mean_c)^2 over the row (EEGLAB's pvaf
  // of one component), when the channel data were given; empty otherwise.
  std::vector<double> variancePercent;
};

// `activation` (n samples at `sampleRate`), its scalp map `map` (one weight per channel) and,
// optionally, the decomposed channels' data `channels` (map.size() rows x n, row-major; null:
// no variance per row) with their means `means`. `eventSeconds` empty: consecutive segments of
// `segmentSeconds`; else epochs from `before` s before to `after` s after each event (events
// whose epoch leaves the range are skipped).
IcaComponentProperties icaComponentProperties(const float* activation, int64_t n, double sampleRate,
                                              const std::vector<double>& map, const float* channels,
                                              const std::vector<double>& means,
                                              double segmentSeconds,
                                              const std::vector<double>& eventSeconds = {},
                                              double before = 0.5, double after = 1.0);

}  // namespace modescope
