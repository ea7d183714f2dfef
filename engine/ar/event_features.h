// Event-related features from Burg AR spectra: trials cut out of a recording at
// its annotations, one band-power matrix (channel x bin) per trial, and the r^2 between two
// classes per channel x bin (BCI2000's offline analysis quantity). docs/ar.md, section
// "Event-related features and r^2", is the user-facing summary.
//
// Procedure:
//  1. A class is an annotation text ("T1"); its trials are the annotations with exactly that text.
//     Trial segment, in samples of the selection's single sample rate fs:
//       first = round((onset + offsetSeconds) * fs),
//       count = round(L * fs), L = lengthSeconds if > 0, else the annotation's duration.
//     A trial whose segment starts before 0, ends past the shortest selected channel, or overlaps
//     one of options.gaps is skipped with a warning diagnostic (the Recording model itself holds
//     no discontinuities: EDF+D files are refused by the reader, so gaps come from the caller).
//  2. Per trial, the AR spectra are computed on that trial's segment alone (computeArSpectraCpu on
//     a block of exactly `count` samples). This is the simpler correct choice: windows start at the
//     segment start every `step` samples and every window lies fully inside the segment by
//     construction; a recording-wide window grid would need alignment and overlap bookkeeping.
//     The trial's feature (channel c, bin b) = the mean over its windows of the bin value (the
//     params' output: Power in unit^2/Hz or Amplitude in unit/sqrt(Hz)).
//  3. r (point-biserial, i.e. Pearson's correlation between feature x and the label y = 1 for
//     class A, 0 for class B), per channel x bin over the nA + nB = n trials:
//       r = (mean_A - mean_B) * sqrt(nA * nB) / (n * s),  s^2 = (1/n) sum_i (x_i - mean_all)^2
//     (s is the population standard deviation of all trials pooled; with 1/n the formula is
//     exactly Pearson's r, so |r| <= 1). r^2 is reported, and signed r^2 = sign(r) * r^2 (positive
//     where class A has the larger mean). Where all n features are equal (s = 0, e.g. a flat
//     channel) r is undefined and reported as 0. Under the null (features independent of the
//     label, normal) r^2 ~ Beta(1/2, (n-2)/2), E[r^2] = 1/(n-1).
//
// Thread rules: every function is re-entrant; the spectra run on `backend`
// (ComputeBackend::arSpectra, one call per trial), which the caller must not share with another
// job. Progress ("event features: trial t/T") is reported per trial, checkpoint() between trials;
// Cancelled is thrown on a stop request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/ar/ar_params.h"
#include "engine/compute/backend.h"
#include "engine/core/diagnostics.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"

namespace modescope {

// A stretch of the recording no trial may overlap, in seconds from the recording start:
// [startSeconds, startSeconds + durationSeconds).
struct TimeInterval {
  double startSeconds = 0.0;
  double durationSeconds = 0.0;
};

struct EventFeatureOptions {
  double offsetSeconds = 0.0;      // trial start relative to the annotation onset (may be negative)
  double lengthSeconds = 0.0;      // trial length; <= 0: each annotation's own duration
  std::vector<TimeInterval> gaps;  // recording gaps / excluded stretches (see step 1)
  // Applied to every trial before the spectra (ComputeBackend::filteredArSpectra); null: none.
  // It must be bound (bindSpatialFilter) and its inputs must be among `channels`; the features
  // are then per filter output (outputNames), not per selected channel.
  std::shared_ptr<const SpatialFilter> spatialFilter;
};

// One trial's segment in the recording (samples at the selection's rate).
struct TrialSegment {
  std::size_t annotationIndex = 0;  // into Recording::annotations
  double onsetSeconds = 0.0;        // the annotation's onset
  int64_t firstSample = 0;
  int64_t samples = 0;
};

// The usable trials of class `classText` (step 1) over `channels`. Skipped trials add warnings
// "events.trialOutsideRecording" / "events.trialOverlapsGap" to `diagnostics`. Throws
// InvalidParameterError: empty or out-of-range channels, mixed sample rates, offset/length not
// finite, a text no annotation carries (the message lists the texts present).
std::vector<TrialSegment> trialSegments(const Recording& rec,
                                        const std::vector<std::size_t>& channels,
                                        const std::string& classText,
                                        const EventFeatureOptions& options,
                                        Diagnostics& diagnostics);

// The features of one class: trials x channels x bins, row-major (trial slowest).
struct ClassFeatures {
  std::string label;
  std::vector<TrialSegment> trials;
  std::vector<int64_t> windowsPerTrial;
  std::size_t channelCount = 0;
  std::size_t binCount = 0;
  std::vector<double> values;
  double at(std::size_t trial, std::size_t channel, std::size_t bin) const {
    return values[(trial * channelCount + channel) * binCount + bin];
  }
};

// Steps 1-2 for one class. Besides trialSegments' errors, throws InvalidParameterError for
// output Coefficients (no bins), fewer than 2 usable trials (the message says how many
// annotations were found and how many skipped), and a trial segment shorter than the AR window
// (the message gives the window length, i.e. the minimum trial length).
ClassFeatures computeClassFeatures(const Recording& rec, const std::vector<std::size_t>& channels,
                                   const std::string& classText, const BurgArParams& params,
                                   const EventFeatureOptions& options, ComputeBackend& backend,
                                   JobContext& ctx, Diagnostics& diagnostics);

// Step 3 for one feature: r of the values a[0..nA) (class A) against b[0..nB) (class B).
// Requires nA, nB >= 1; returns 0 when all values are equal.
double pointBiserialR(const double* a, std::size_t nA, const double* b, std::size_t nB);

struct EventR2Result {
  std::string classA, classB;
  std::vector<std::size_t> channels;  // recording channel indices, in selection order
  // One name per feature row: the selected channels' names, or the spatial filter's output
  // names when options.spatialFilter was set (then rows are filter outputs, not `channels`).
  std::vector<std::string> rowNames;
  std::vector<double> binCenters;  // Hz
  double sampleRate = 0.0;
  ArOutput output = ArOutput::Power;  // what the features are (Power or Amplitude)
  std::size_t trialsA = 0, trialsB = 0;
  // channels x bins, row-major (channel slowest):
  std::vector<double> meanA, meanB;  // per-class mean spectra (the feature averaged over trials)
  std::vector<double> r2;            // in [0, 1]
  std::vector<double> signedR2;      // sign(mean_A - mean_B) * r2
  ClassFeatures featuresA, featuresB;
  Diagnostics diagnostics;  // skipped trials, AR diagnostics of the trials

  std::size_t channelCount() const { return rowNames.size(); }
  std::size_t binCount() const { return binCenters.size(); }
  std::size_t index(std::size_t channel, std::size_t bin) const {
    return channel * binCount() + bin;
  }
};

// Steps 1-3 for classes A and B. Throws InvalidParameterError as computeClassFeatures, and when
// classA == classB; Cancelled on a stop request.
EventR2Result computeEventR2(const Recording& rec, const std::vector<std::size_t>& channels,
                             const std::string& classA, const std::string& classB,
                             const BurgArParams& params, const EventFeatureOptions& options,
                             ComputeBackend& backend, JobContext& ctx);

}  // namespace modescope
