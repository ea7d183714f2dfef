// Streamed BCI features (docs/ar.md, "Live replay"): blocks of new samples in, the AR spectra of
// the latest window out, as BCI2000 and Wilson and Williams (2009, "SF on S/5 samples + AR on S
// samples") run it. Each pushed block (e.g. 50 ms) goes through the spatial filter once; the
// filtered samples go into a ring of the last N samples per output; Burg then runs on that window
// of every output, and the bin values are returned.
//
// Procedure (every backend; the CPU in engine/ar, the GPU in cuda/):
//  1. push(samples, count): `samples` is inputCount() rows x count values, row-major (row r =
//     the filter's input column r, or channel r when there is no filter). count >= 1.
//  2. filtered(o, t) = sum_r B(o, r) x(r, t) for the new samples (no filter: filtered = x),
//     appended to output o's ring; the ring keeps the last N = window samples.
//  3. Once N samples have been pushed in total, every push returns the spectra of the window
//     [pushed - N, pushed): for each output, the window goes through ar_spectrum.h step 3
//     (flat check, detrend, Burg, bins). Before that, the update is not ready (values empty).
//     The step parameter of params is not used: the push cadence is the step.
//  4. Values: outputs x bins, params.output Power (unit^2/Hz) or Amplitude (unit/sqrt(Hz));
//     Coefficients is refused at open (a stream feeds maps and spectra).
// Inputs must be finite: a NaN/Inf sample throws InvalidInputError naming the input row and the
// sample (the stream is then reset, so the next push starts a fresh window).
//
// Thread rules: a stream is used by one thread at a time; it may be created on one thread and
// used on another (the GPU stream sets its device on every call).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/ar/ar_params.h"
#include "engine/spatial/spatial_filter.h"

namespace modescope {

struct ArStreamConfig {
  // Applied to every pushed block; null: none (inputs are the outputs). When set, it need not be
  // bound: only its matrix and names are used (the caller orders the pushed rows by its columns).
  std::shared_ptr<const SpatialFilter> filter;
  std::size_t channels = 0;  // rows of each push when filter is null (ignored otherwise)
  BurgArParams params;       // window, order, detrend, bins, output (Power or Amplitude)
  double sampleRate = 0.0;   // Hz
};

struct ArStreamUpdate {
  bool ready = false;                   // a full window has been pushed; values hold its spectra
  int64_t pushedSamples = 0;            // total samples pushed since open/reset (the window's end)
  std::vector<float> values;            // outputs x bins, row-major (output slowest)
  std::vector<float> noiseVariance;     // per output: sigma_p^2, 0 for a flat window
  std::size_t flatOutputs = 0;          // outputs whose window is flat (values 0)
  std::size_t reducedOrderOutputs = 0;  // outputs whose model stopped below the order
};

class ArStream {
 public:
  virtual ~ArStream() = default;
  virtual std::size_t inputCount() const = 0;   // rows per push
  virtual std::size_t outputCount() const = 0;  // rows of the values
  virtual std::size_t binCount() const = 0;
  virtual const std::vector<double>& binCenters() const = 0;  // Hz
  // Steps 1-3. Throws InvalidParameterError for count < 1 or a null pointer, InvalidInputError
  // for a non-finite sample.
  virtual ArStreamUpdate push(const float* samples, int64_t count) = 0;
  // Forgets every sample pushed (a seek in the replay).
  virtual void reset() = 0;
};

// Checks a configuration as every backend's openArStream does. Throws InvalidParameterError for:
// validateBurgArParams failures, output Coefficients, no filter and channels == 0, a filter whose
// matrix size disagrees with its names or that has no outputs.
void validateArStreamConfig(const ArStreamConfig& config);

}  // namespace modescope
