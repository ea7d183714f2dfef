#include "app/core/ar_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "app/core/recording_selection.h"
#include "engine/core/bad_marks.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

using Clock = std::chrono::steady_clock;

std::string seconds(double s) { return formatNumber(s) + " s"; }

bool classPresent(const Recording& rec, const std::string& text) {
  return std::any_of(rec.annotations.begin(), rec.annotations.end(),
                     [&](const Annotation& a) { return a.text == text; });
}

// The shortest duration among the annotations of `text` (infinity when there are none).
double shortestDuration(const Recording& rec, const std::string& text) {
  double out = std::numeric_limits<double>::infinity();
  for (const Annotation& a : rec.annotations)
    if (a.text == text) out = std::min(out, a.duration);
  return out;
}

}  // namespace

const char* arSpatialFilterKindName(ArSpatialFilterKind kind) {
  switch (kind) {
    case ArSpatialFilterKind::None:
      return "none";
    case ArSpatialFilterKind::CommonAverage:
      return "CAR";
    case ArSpatialFilterKind::SmallLaplacian:
      return "small Laplacian";
    case ArSpatialFilterKind::LargeLaplacian:
      return "large Laplacian";
    case ArSpatialFilterKind::UserMatrix:
      return "user matrix";
  }
  return "?";
}

std::shared_ptr<const SpatialFilter> makeArSpatialFilter(const Recording& rec,
                                                         const ArJobSpec& spec) {
  switch (spec.filter) {
    case ArSpatialFilterKind::None:
      return nullptr;
    case ArSpatialFilterKind::CommonAverage:
      return std::make_shared<const SpatialFilter>(
          commonAverageReference(rec.channels, spec.channels));
    case ArSpatialFilterKind::SmallLaplacian:
    case ArSpatialFilterKind::LargeLaplacian:
      return std::make_shared<const SpatialFilter>(surfaceLaplacian(
          rec.channels, spec.channels,
          spec.filter == ArSpatialFilterKind::SmallLaplacian ? LaplacianSize::Small
                                                             : LaplacianSize::Large,
          spec.weighting));
    case ArSpatialFilterKind::UserMatrix: {
      if (spec.filterPath.empty())
        throw InvalidParameterError("spatial filter file", "none", "a matrix file",
                                    "choose the file of the user matrix (docs/spatial-filters.md)");
      SpatialFilter f = loadSpatialFilter(spec.filterPath);
      bindSpatialFilter(f, rec.channels, spec.channels);
      // The filter's inputs must be among the selected channels (computeEventR2 reads only those).
      for (std::size_t i = 0; i < f.inputChannels.size(); ++i) {
        const std::size_t ch = f.inputChannels[i];
        if (std::find(spec.channels.begin(), spec.channels.end(), ch) == spec.channels.end())
          throw InvalidParameterError(
              "channels", "input '" + f.inputNames[i] + "' of " + spec.filterPath + " not selected",
              "every input channel of the matrix selected", "select that channel as well");
      }
      if (f.description.empty()) f.description = "user matrix from " + spec.filterPath;
      return std::make_shared<const SpatialFilter>(std::move(f));
    }
  }
  return nullptr;
}

EventFeatureOptions arEventOptions(const Recording& rec, const ArJobSpec& spec,
                                   std::shared_ptr<const SpatialFilter> filter) {
  EventFeatureOptions o;
  o.offsetSeconds = spec.offsetSeconds;
  o.lengthSeconds = spec.lengthSeconds;
  o.spatialFilter = std::move(filter);
  const double total = rec.duration();
  if (spec.startSeconds > 0) o.gaps.push_back({0.0, spec.startSeconds});
  if (spec.durationSeconds >= 0) {
    const double end = spec.startSeconds + spec.durationSeconds;
    if (end < total) o.gaps.push_back({end, total - end + 1.0});  // past the end as well
  }
  // Trials that reach into a bad segment are rejected the same way, with the same diagnostic
  // (MNE's reject_by_annotation for epochs).
  for (const Annotation& a : badSegments(rec.annotations)) o.gaps.push_back({a.onset, a.duration});
  return o;
}

void checkArJob(const Recording& rec, const ArJobSpec& spec) {
  const double fs =
      checkSelection(rec, spec, {1, "", "select the channels to compute spectra for"}).sampleRate;
  validateBurgArParams(spec.params, fs);
  if (spec.params.output == ArOutput::Coefficients)
    throw InvalidParameterError("output", "coefficients", "power or amplitude",
                                "r^2 maps need spectra: choose power or amplitude");
  if (spec.classA == spec.classB)
    throw InvalidParameterError("classes", "'" + spec.classA + "' twice", "two different classes",
                                "choose another annotation text for class B");
  for (const std::string* c : {&spec.classA, &spec.classB}) {
    if (!classPresent(rec, *c))
      throw InvalidParameterError("class", "'" + *c + "'", "an annotation text of the recording",
                                  "choose one of the recording's annotation texts");
  }
  if (!std::isfinite(spec.offsetSeconds))
    throw InvalidParameterError("trial offset", formatNumber(spec.offsetSeconds), "a finite time");
  const ArResolvedLengths n = resolveArLengths(spec.params, fs);
  const double window = static_cast<double>(n.windowSamples) / fs;
  const double length = spec.lengthSeconds > 0 ? spec.lengthSeconds
                                               : std::min(shortestDuration(rec, spec.classA),
                                                          shortestDuration(rec, spec.classB));
  // Half a sample of slack: trial lengths are rounded to samples like the window.
  if (std::round(length * fs) < static_cast<double>(n.windowSamples))
    throw InvalidParameterError(
        "trial length",
        seconds(length) + (spec.lengthSeconds > 0 ? "" : " (the shortest annotation)"),
        "at least one AR window (" + seconds(window) + ")",
        "lengthen the trials or shorten the AR window");
  makeArSpatialFilter(rec, spec);
}

ArJobResult runArJob(const Recording& rec, const ArJobSpec& spec, ComputeBackend& backend,
                     JobContext& ctx) {
  const auto t0 = Clock::now();
  ctx.progress(0.0, "spatial filter");
  checkArJob(rec, spec);
  std::shared_ptr<const SpatialFilter> filter = makeArSpatialFilter(rec, spec);
  ctx.checkpoint();
  ArJobResult out;
  out.backend = backend.info().describe();
  out.filterDescription = filter ? filter->description : std::string("none");
  out.presetName = spec.presetName;
  const EventFeatureOptions options = arEventOptions(rec, spec, filter);
  out.result = std::make_shared<const EventR2Result>(computeEventR2(
      rec, spec.channels, spec.classA, spec.classB, spec.params, options, backend, ctx));
  out.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  ctx.progress(1.0, "r^2 map");
  return out;
}

std::string describeArJob(const ArJobSpec& spec) {
  std::string s = spec.classA + " vs " + spec.classB + ", ";
  s += spec.presetName.empty() ? std::string("custom") : spec.presetName;
  s += " order " + std::to_string(spec.params.order);
  if (spec.filter != ArSpatialFilterKind::None)
    s += ", " + std::string(arSpatialFilterKindName(spec.filter));
  s += ", " + std::to_string(spec.channels.size()) + " channels";
  return s;
}

}  // namespace modescope
