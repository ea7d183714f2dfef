// The result of Burg AR spectra over sliding windows (ar_spectrum.h): one row of values per
// (channel, window). Immutable once made; shared as std::shared_ptr<const ArSpectrumResult>.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ar/ar_params.h"
#include "engine/core/diagnostics.h"

namespace modescope {

struct ArSpectrumResult {
  BurgArParams params;        // as requested (lengths possibly in seconds)
  double sampleRate = 0.0;    // Hz
  int64_t windowSamples = 0;  // N
  int64_t stepSamples = 0;
  int64_t firstSample = 0;            // the block's first sample in the recording
  std::vector<std::size_t> channels;  // recording channel indices, in block order
  // First sample of each window, relative to the block start. Window w covers
  // [windowStarts[w], windowStarts[w] + N); its end (the BCI2000 update time) is at
  // (firstSample + windowStarts[w] + N) / sampleRate seconds into the recording.
  std::vector<int64_t> windowStarts;
  std::vector<double> binCenters;  // Hz; empty for ArOutput::Coefficients
  // channels x windows x valuesPerWindow(), row-major (channel slowest):
  //   Power: one-sided PSD averaged over each bin, unit^2/Hz;
  //   Amplitude: sqrt of that, unit/sqrt(Hz);
  //   Coefficients: a_1..a_p (x_t = sum a_k x_{t-k} + e_t), dimensionless.
  // Stored as float (a recording-long result is large); computed in double.
  std::vector<float> values;
  // channels x windows: the prediction error power sigma_p^2 (unit^2, per sample); 0 when flat.
  std::vector<float> noiseVariance;
  Diagnostics diagnostics;  // flat windows, models stopped below the order

  std::size_t channelCount() const { return channels.size(); }
  std::size_t windowCount() const { return windowStarts.size(); }
  std::size_t valuesPerWindow() const {
    return params.output == ArOutput::Coefficients ? static_cast<std::size_t>(params.order)
                                                   : binCenters.size();
  }
  // Values of (channel c, window w): valuesPerWindow() floats.
  const float* row(std::size_t c, std::size_t w) const {
    return values.data() + (c * windowCount() + w) * valuesPerWindow();
  }
};

}  // namespace modescope
