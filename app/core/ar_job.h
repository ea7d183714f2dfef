// The event-related AR spectra job of "Analysis > Event-related spectra (AR)": trials of two
// annotation classes, an optional spatial filter (common average reference, small or large
// surface Laplacian, a user matrix file), Burg AR spectra per trial and the r^2 map between the
// classes (engine/ar/event_features.h computeEventR2, on a ComputeBackend), plus the facts the
// results pane's summary line shows.
//
// The time range restricts the trials: the stretches before startSeconds and after
// startSeconds + durationSeconds are passed to computeEventR2 as gaps (EventFeatureOptions::gaps),
// so trials reaching into them are skipped with a diagnostic like any other unusable trial.
//
// Thread rules: plain values and re-entrant functions. runArJob runs on a worker thread and reads
// `rec` (whose source is thread-safe); the backend must not be shared with another running job.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "app/core/selection.h"
#include "engine/ar/ar_params.h"
#include "engine/ar/event_features.h"
#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/spatial/spatial_filter.h"

namespace modescope {

enum class ArSpatialFilterKind { None, CommonAverage, SmallLaplacian, LargeLaplacian, UserMatrix };

// "none", "CAR", "small Laplacian", "large Laplacian", "user matrix" (for summaries).
const char* arSpatialFilterKindName(ArSpatialFilterKind kind);

struct ArJobSpec : Selection {  // the channels; the trials lie within [start, start + duration)
  std::string classA = "T1";    // annotation texts (computeEventR2's classA / classB)
  std::string classB = "T2";
  BurgArParams params;                 // burgArPreset("bci2000") by default
  std::string presetName = "bci2000";  // "" when the fields differ from every preset
  double offsetSeconds = 0.0;          // trial start relative to the annotation onset
  double lengthSeconds = 0.0;          // <= 0: each annotation's own duration
  ArSpatialFilterKind filter = ArSpatialFilterKind::None;
  LaplacianWeighting weighting = LaplacianWeighting::Equal;  // Laplacians only
  std::string filterPath;  // UserMatrix: the matrix file (engine/spatial loadSpatialFilter)
};

// The spatial filter the spec asks for, built over spec.channels and bound; null for None.
// Throws what the engine builders throw: InvalidInputError naming the channels without a position
// (Laplacians) or the file problem (user matrix), InvalidParameterError for a bad selection.
std::shared_ptr<const SpatialFilter> makeArSpatialFilter(const Recording& rec,
                                                         const ArJobSpec& spec);

// Every check that needs no spectra, before any sample is read: channels (at least one, one
// rate), the AR parameters at that rate (validateBurgArParams), output not Coefficients, the two
// classes present and different, the range inside the recording, a trial length (given, or the
// shortest annotation of either class) at least one AR window, and the spatial filter buildable.
// Throws InvalidParameterError / InvalidInputError with the engine's messages.
void checkArJob(const Recording& rec, const ArJobSpec& spec);

// The options computeEventR2 gets for this spec (offset, length, gaps from the range, filter).
EventFeatureOptions arEventOptions(const Recording& rec, const ArJobSpec& spec,
                                   std::shared_ptr<const SpatialFilter> filter);

struct ArJobResult {
  std::shared_ptr<const EventR2Result> result;
  std::string backend;            // BackendInfo::describe()
  std::string filterDescription;  // SpatialFilter::description, or "none"
  std::string presetName;         // as in the spec
  double wallSeconds = 0.0;
};

// checkArJob, the filter, computeEventR2 on `backend`. Progress: "spatial filter" at 0, then
// computeEventR2's "event features: trial t/T". Throws what those throw (Cancelled included).
ArJobResult runArJob(const Recording& rec, const ArJobSpec& spec, ComputeBackend& backend,
                     JobContext& ctx);

// "T1 vs T2 (15 / 15 trials), bci2000 order 16, 0.5 s windows, CAR" style one-line description.
std::string describeArJob(const ArJobSpec& spec);

}  // namespace modescope
