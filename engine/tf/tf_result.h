// The result of a time-frequency transform (tf_cpu.h): complex images, one per channel, on the
// grid columns x bins that the plan (tf_plan.h) fixed. Both backends fill the same type: the CPU
// computes in double and stores float, the CUDA backend computes in float.
//
// Thread rules: plain values.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/tf/tf_params.h"

namespace modescope {

struct TfResult {
  TfParams params;  // rows resolved (never empty)
  double sampleRate = 0.0;
  int64_t firstSample = 0;            // of the block in the recording
  std::vector<std::size_t> channels;  // recording channel indices, image order
  int64_t samples = 0;                // per channel in the block
  int64_t columns = 0;                // T = ceil(samples / hop); column t at sample t * hop
  int firstBin = 0;                   // FFT bin of image row 0
  int bins = 0;                       // K
  double sigma = 0.0;                 // Gaussian sigma used (samples); 0 for Hann/Hamming
  double windowAtZero = 0.0;          // h(0): the reconstruction divides by N h(0)
  // C x T x K, [(c * T + t) * K + k]: the squeezed STFT (order 0: the STFT) at bin firstBin + k.
  std::vector<std::complex<float>> values;
  Diagnostics diagnostics;

  std::size_t channelCount() const { return channels.size(); }
  double binHz() const { return sampleRate / params.fftLength; }
  double frequency(int k) const { return (firstBin + k) * binHz(); }
  double time(int64_t t) const {
    return static_cast<double>(firstSample + t * params.hop) / sampleRate;
  }
  const std::complex<float>* column(std::size_t c, int64_t t) const {
    return values.data() + (c * static_cast<std::size_t>(columns) + static_cast<std::size_t>(t)) *
                               static_cast<std::size_t>(bins);
  }
  std::complex<float>* column(std::size_t c, int64_t t) {
    return values.data() + (c * static_cast<std::size_t>(columns) + static_cast<std::size_t>(t)) *
                               static_cast<std::size_t>(bins);
  }
};

}  // namespace modescope
