// AR spectra and r^2 maps in HDF5, schema "modescope-ar/1" (docs/ar.md, "HDF5 file").
#include "engine/io/hdf5_ar.h"

#include <H5Cpp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_diagnostics.h"
#include "engine/io/hdf5_params.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"

namespace modescope {
namespace {

constexpr const char* kArSchemaPrefix = "modescope-ar/";
constexpr const char* kArSchema = "modescope-ar/1";
constexpr int kArSchemaVersion = 1;
const char* kRewriteRemedy = "Run 'modescope-cli ar' again to write a new file";

std::string dims(const std::vector<std::size_t>& d) {
  std::string s;
  for (std::size_t v : d) s += (s.empty() ? "" : " x ") + std::to_string(v);
  return s;
}

void needSize(const char* what, std::size_t found, std::size_t expected,
              const std::string& meaning) {
  if (found != expected) {
    throw InvalidParameterError(what, std::to_string(found) + " values",
                                std::to_string(expected) + " (" + meaning + ")",
                                "Write the result the AR engine returned");
  }
}

void checkFile(const ArFile& f) {
  const ArSpectrumResult& s = f.spectra;
  if (!(s.sampleRate > 0)) {
    throw InvalidParameterError("sample rate", formatNumber(s.sampleRate) + " Hz", "> 0 Hz");
  }
  const std::size_t rows = s.channelCount(), windows = s.windowCount(), per = s.valuesPerWindow();
  needSize("AR row names", f.rowNames.size(), rows, "one per spectra row");
  needSize("AR spectra", s.values.size(), rows * windows * per,
           "rows x windows x values = " + dims({rows, windows, per}));
  needSize("AR noise variance", s.noiseVariance.size(), rows * windows, "rows x windows");
  if (s.params.output != ArOutput::Coefficients && s.binCenters.empty()) {
    throw InvalidParameterError("AR bin centres", "none", "one per bin for power or amplitude");
  }
  if (f.spatialFilter) {
    const SpatialFilter& b = *f.spatialFilter;
    needSize("spatial filter matrix", b.matrix.size(), b.outputCount() * b.inputCount(),
             "outputs x inputs");
    needSize("spatial filter input channels", b.inputChannels.size(), b.inputCount(),
             "one bound recording channel per input");
    needSize("spatial filter outputs", b.outputCount(), rows, "one per spectra row");
  }
  if (f.events) {
    const EventR2Result& e = *f.events;
    const std::size_t r = e.channelCount(), nb = e.binCount();
    for (const auto* m : {&e.meanA, &e.meanB, &e.r2, &e.signedR2})
      needSize("event r^2 maps", m->size(), r * nb, "rows x bins");
    for (const ClassFeatures* c : {&e.featuresA, &e.featuresB}) {
      needSize("event trials", c->windowsPerTrial.size(), c->trials.size(), "one per trial");
      needSize("event trial features", c->values.size(), c->trials.size() * r * nb,
               "trials x rows x bins");
    }
    needSize("event class A trials", e.featuresA.trials.size(), e.trialsA, "trials_a");
    needSize("event class B trials", e.featuresB.trials.size(), e.trialsB, "trials_b");
  }
}

// An n-D dataset of float32 (values computed in double, stored as the result holds them).
void writeFloats(H5::Group& g, const std::string& name, const std::vector<float>& v,
                 const std::vector<hsize_t>& shape) {
  H5::DataSet ds = g.createDataSet(name, H5::PredType::IEEE_F32LE,
                                   H5::DataSpace(static_cast<int>(shape.size()), shape.data()));
  if (!v.empty()) ds.write(v.data(), H5::PredType::NATIVE_FLOAT);
}

void writeDoublesNd(H5::Group& g, const std::string& name, const std::vector<double>& v,
                    const std::vector<hsize_t>& shape) {
  H5::DataSet ds = g.createDataSet(name, H5::PredType::IEEE_F64LE,
                                   H5::DataSpace(static_cast<int>(shape.size()), shape.data()));
  if (!v.empty()) ds.write(v.data(), H5::PredType::NATIVE_DOUBLE);
}

void describe(H5::Group& g, const std::string& name, const std::string& units,
              const std::string& description) {
  H5::DataSet ds = g.openDataSet(name);
  if (!units.empty()) h5::setAttribute(ds, "units", units);
  if (!description.empty()) h5::setAttribute(ds, "description", description);
}

std::vector<int64_t> toInt64(const std::vector<std::size_t>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

void writeSpectra(H5::Group& root, const ArFile& f) {
  const ArSpectrumResult& s = f.spectra;
  const BurgArParams& p = s.params;
  H5::Group g = root.createGroup("ar");
  h5::setAttribute(g, "sample_rate", s.sampleRate);
  h5::setAttribute(g, "first_sample", s.firstSample);
  h5::setAttribute(g, "window_samples", s.windowSamples);
  h5::setAttribute(g, "step_samples", s.stepSamples);
  h5::setAttribute(g, "window_s", static_cast<double>(s.windowSamples) / s.sampleRate);
  h5::setAttribute(g, "step_s", static_cast<double>(s.stepSamples) / s.sampleRate);
  h5::writeParamAttributes(g, burgArParamTable(), p);
  h5::setAttribute(g, "preset", f.presetName);
  h5::setAttribute(g, "signal_unit", f.signalUnit);
  const std::string valueUnit = arValueUnit(p.output, f.signalUnit);
  h5::setAttribute(g, "units", valueUnit);

  const hsize_t rows = s.channelCount(), windows = s.windowCount(), per = s.valuesPerWindow();
  writeFloats(g, "spectra", s.values, {rows, windows, per});
  describe(g, "spectra", valueUnit,
           p.output == ArOutput::Coefficients
               ? "rows x windows x order: AR coefficients a_1..a_p, x_t = sum a_k x_(t-k) + e_t"
           : p.output == ArOutput::Power
               ? "rows x windows x bins: one-sided PSD averaged over each bin"
               : "rows x windows x bins: sqrt of the bin-averaged one-sided PSD");
  {
    // Always present, "" for the dimensionless coefficients, so readers need no special case.
    H5::DataSet ds = g.openDataSet("spectra");
    h5::setAttribute(ds, "units", valueUnit);
  }
  writeFloats(g, "noise_variance", s.noiseVariance, {rows, windows});
  describe(g, "noise_variance", f.signalUnit.empty() ? "" : f.signalUnit + "^2",
           "rows x windows: prediction error power sigma_p^2 per sample; 0 for a flat window");
  h5::writeDoubles(g, "bin_centers", s.binCenters);
  describe(g, "bin_centers", "Hz", "centre of each bin (empty for coefficients)");
  h5::writeInt64s(g, "window_start_samples", s.windowStarts);
  describe(g, "window_start_samples", "samples", "first sample of each window, from first_sample");
  std::vector<double> ends;
  for (int64_t w : s.windowStarts) {
    ends.push_back(static_cast<double>(s.firstSample + w + s.windowSamples) / s.sampleRate);
  }
  h5::writeDoubles(g, "window_end_seconds", ends);
  describe(g, "window_end_seconds", "s",
           "end of each window from the recording start (the BCI2000 update time)");
  h5::writeStrings(g, "row_names", f.rowNames);
  h5::writeInt64s(g, "row_channels", toInt64(s.channels));
  describe(g, "row_channels", "",
           "recording channel index of each row (0-based); with a spatial filter the filter "
           "output index instead");
}

void writeSpatialFilter(H5::Group& root, const ArFile& f) {
  const SpatialFilter& b = *f.spatialFilter;
  H5::Group g = root.createGroup("spatial_filter");
  h5::setAttribute(g, "description", b.description);
  h5::setAttribute(g, "spec", f.spatialFilterSpec);
  writeDoublesNd(g, "matrix", b.matrix, {b.outputCount(), b.inputCount()});
  describe(g, "matrix", "", "outputs x inputs, row-major: output = matrix * input");
  h5::writeStrings(g, "input_names", b.inputNames);
  h5::writeStrings(g, "output_names", b.outputNames);
  h5::writeInt64s(g, "input_channels", toInt64(b.inputChannels));
  describe(g, "input_channels", "", "recording channel index of each input column (0-based)");
}

void writeClass(H5::Group& events, const std::string& name, const ClassFeatures& c,
                double sampleRate, const std::string& unit) {
  H5::Group g = events.createGroup(name);
  h5::setAttribute(g, "label", c.label);
  h5::setAttribute(g, "trials", static_cast<int64_t>(c.trials.size()));
  std::vector<double> onset, start;
  std::vector<int64_t> first, samples, annotation;
  for (const TrialSegment& t : c.trials) {
    onset.push_back(t.onsetSeconds);
    first.push_back(t.firstSample);
    samples.push_back(t.samples);
    annotation.push_back(static_cast<int64_t>(t.annotationIndex));
    start.push_back(static_cast<double>(t.firstSample) / sampleRate);
  }
  h5::writeDoubles(g, "onset_seconds", onset);
  describe(g, "onset_seconds", "s", "the annotation's onset, from the recording start");
  h5::writeDoubles(g, "start_seconds", start);
  describe(g, "start_seconds", "s", "first sample of the trial segment / sample rate");
  h5::writeInt64s(g, "first_sample", first);
  h5::writeInt64s(g, "samples", samples);
  h5::writeInt64s(g, "annotation_index", annotation);
  describe(g, "annotation_index", "", "index into the recording's annotations (0-based)");
  h5::writeInt64s(g, "windows", c.windowsPerTrial);
  writeDoublesNd(g, "features", c.values, {c.trials.size(), c.channelCount, c.binCount});
  describe(g, "features", unit, "trials x rows x bins: each trial's bin value, mean over windows");
}

void writeEvents(H5::Group& root, const ArFile& f) {
  const EventR2Result& e = *f.events;
  H5::Group g = root.createGroup("events");
  const std::string unit = arValueUnit(e.output, f.signalUnit);
  h5::setAttribute(g, "class_a", e.classA);
  h5::setAttribute(g, "class_b", e.classB);
  h5::setAttribute(g, "trials_a", static_cast<int64_t>(e.trialsA));
  h5::setAttribute(g, "trials_b", static_cast<int64_t>(e.trialsB));
  h5::setAttribute(g, "output", arOutputName(e.output));
  h5::setAttribute(g, "units", unit);
  h5::setAttribute(g, "sample_rate", e.sampleRate);
  h5::setAttribute(g, "trial_offset_s", f.trialOffsetSeconds);
  h5::setAttribute(g, "trial_length_s", f.trialLengthSeconds);
  h5::writeStrings(g, "row_names", e.rowNames);
  h5::writeInt64s(g, "channels", toInt64(e.channels));
  describe(g, "channels", "", "the selected recording channels (0-based), in selection order");
  h5::writeDoubles(g, "bin_centers", e.binCenters);
  describe(g, "bin_centers", "Hz", "");
  const std::vector<hsize_t> shape = {e.channelCount(), e.binCount()};
  writeDoublesNd(g, "r2", e.r2, shape);
  describe(g, "r2", "", "rows x bins: squared point-biserial correlation of feature and class");
  writeDoublesNd(g, "signed_r2", e.signedR2, shape);
  describe(g, "signed_r2", "", "rows x bins: sign(mean_a - mean_b) * r2");
  writeDoublesNd(g, "mean_a", e.meanA, shape);
  describe(g, "mean_a", unit, "rows x bins: class A's feature averaged over its trials");
  writeDoublesNd(g, "mean_b", e.meanB, shape);
  describe(g, "mean_b", unit, "rows x bins: class B's feature averaged over its trials");
  writeClass(g, "class_a", e.featuresA, e.sampleRate, unit);
  writeClass(g, "class_b", e.featuresB, e.sampleRate, unit);
}

void writeArContents(H5::Group& root, const ArFile& f, JobContext& ctx) {
  h5::setAttribute(root, kSchemaAttribute, kArSchema);
  h5::setAttribute(root, "modescope_version", softwareVersion());
  h5::setAttribute(root, "input_file", f.inputFile);
  writeChannelTable(root, f.channels, ChannelPositions::Store);
  ctx.checkpoint();
  writeSpectra(root, f);
  ctx.checkpoint();
  if (f.spatialFilter) writeSpatialFilter(root, f);
  if (f.events) writeEvents(root, f);
  h5::writeDiagnostics(root, f.diagnostics);
  h5::writeProvenance(root, f.provenance);
  ctx.checkpoint();
}

// ---------------------------------------------------------------------------------------------
// Reading

// The shape of dataset `name` under `g`, which must be of `rank` and of float class.
H5::DataSet floatDataset(const h5::Reader& r, const H5::Group& g, const std::string& name,
                         const std::vector<std::size_t>& expected) {
  const std::string path = h5::childPath(g, name);
  H5::DataSet ds = r.dataset(g, name);
  H5::DataSpace space = ds.getSpace();
  const int rank = space.getSimpleExtentNdims();
  if (rank != static_cast<int>(expected.size())) {
    r.fail(path, "a dataset of rank " + std::to_string(rank),
           "a " + std::to_string(expected.size()) + "-D dataset", kRewriteRemedy);
  }
  std::vector<hsize_t> d(expected.size());
  space.getSimpleExtentDims(d.data());
  std::vector<std::size_t> found(d.begin(), d.end());
  if (found != expected) r.fail(path, dims(found), dims(expected), kRewriteRemedy);
  if (ds.getTypeClass() != H5T_FLOAT) r.fail(path, "non-float values", "floats", kRewriteRemedy);
  return ds;
}

// Dataset `name` (float class, of shape `expected`) read as T (float or double).
template <typename T>
std::vector<T> readFloatArray(const h5::Reader& r, const H5::Group& g, const std::string& name,
                              const std::vector<std::size_t>& expected) {
  H5::DataSet ds = floatDataset(r, g, name, expected);
  std::size_t n = 1;
  for (std::size_t v : expected) n *= v;
  std::vector<T> out(n);
  if (n > 0)
    ds.read(out.data(),
            std::is_same_v<T, float> ? H5::PredType::NATIVE_FLOAT : H5::PredType::NATIVE_DOUBLE);
  return out;
}

std::vector<float> readFloats(const h5::Reader& r, const H5::Group& g, const std::string& name,
                              const std::vector<std::size_t>& expected) {
  return readFloatArray<float>(r, g, name, expected);
}

std::vector<double> readDoublesNd(const h5::Reader& r, const H5::Group& g, const std::string& name,
                                  const std::vector<std::size_t>& expected) {
  return readFloatArray<double>(r, g, name, expected);
}

std::size_t count(const h5::Reader& r, const H5::H5Object& o, const std::string& name,
                  int64_t max = std::numeric_limits<int32_t>::max()) {
  const int64_t v = r.intAttribute(o, name);
  if (v < 0 || v > max) {
    r.fail(h5::childPath(o, "@" + name), std::to_string(v), "0.." + std::to_string(max),
           kRewriteRemedy);
  }
  return static_cast<std::size_t>(v);
}

std::vector<std::size_t> indices(const h5::Reader& r, const H5::Group& g, const std::string& name,
                                 int64_t expected) {
  std::vector<std::size_t> out;
  for (int64_t v : r.int64s(g, name, expected)) {
    if (v < 0) r.fail(h5::childPath(g, name), std::to_string(v), "indices >= 0", kRewriteRemedy);
    out.push_back(static_cast<std::size_t>(v));
  }
  return out;
}

template <typename Parse>
auto parseEnum(const h5::Reader& r, const H5::H5Object& o, const std::string& name, Parse parse) {
  const std::string text = r.stringAttribute(o, name);
  try {
    return parse(text);
  } catch (const InvalidParameterError&) {
    r.fail(h5::childPath(o, "@" + name), "'" + text + "'",
           "a name docs/ar.md lists for '" + name + "'", kRewriteRemedy);
  }
}

void readSpectra(const h5::Reader& r, const H5::Group& root, ArFile& f) {
  H5::Group g = r.group(root, "ar");
  ArSpectrumResult& s = f.spectra;
  BurgArParams& p = s.params;
  s.sampleRate = r.doubleAttribute(g, "sample_rate");
  if (!(s.sampleRate > 0)) {
    r.fail(h5::childPath(g, "@sample_rate"), formatNumber(s.sampleRate), "a rate > 0 Hz",
           kRewriteRemedy);
  }
  s.firstSample = r.intAttribute(g, "first_sample");
  s.windowSamples = r.intAttribute(g, "window_samples");
  s.stepSamples = r.intAttribute(g, "step_samples");
  // Every declared parameter, with the declared default where an older file lacks one.
  p = h5::readParamAttributes(r, g, burgArParamTable(), BurgArParams{});
  f.presetName = r.stringAttribute(g, "preset");
  f.signalUnit = r.stringAttribute(g, "signal_unit");

  f.rowNames = r.strings(g, "row_names");
  const auto rows = static_cast<int64_t>(f.rowNames.size());
  s.channels = indices(r, g, "row_channels", rows);
  s.windowStarts = r.int64s(g, "window_start_samples");
  s.binCenters = r.doubles(g, "bin_centers");
  r.doubles(g, "window_end_seconds", static_cast<int64_t>(s.windowStarts.size()));
  const std::size_t per = s.valuesPerWindow();
  s.values = readFloats(r, g, "spectra", {s.channels.size(), s.windowStarts.size(), per});
  s.noiseVariance = readFloats(r, g, "noise_variance", {s.channels.size(), s.windowStarts.size()});
}

SpatialFilter readSpatialFilter(const h5::Reader& r, const H5::Group& root, ArFile& f) {
  H5::Group g = r.group(root, "spatial_filter");
  SpatialFilter b;
  b.description = r.stringAttribute(g, "description");
  f.spatialFilterSpec = r.stringAttribute(g, "spec");
  b.inputNames = r.strings(g, "input_names");
  b.outputNames = r.strings(g, "output_names");
  b.inputChannels = indices(r, g, "input_channels", static_cast<int64_t>(b.inputNames.size()));
  b.matrix = readDoublesNd(r, g, "matrix", {b.outputNames.size(), b.inputNames.size()});
  return b;
}

ClassFeatures readClass(const h5::Reader& r, const H5::Group& events, const std::string& name,
                        std::size_t rows, std::size_t bins) {
  H5::Group g = r.group(events, name);
  ClassFeatures c;
  c.label = r.stringAttribute(g, "label");
  const auto n = static_cast<int64_t>(count(r, g, "trials"));
  const auto onset = r.doubles(g, "onset_seconds", n);
  const auto first = r.int64s(g, "first_sample", n);
  const auto samples = r.int64s(g, "samples", n);
  const auto annotation = indices(r, g, "annotation_index", n);
  c.windowsPerTrial = r.int64s(g, "windows", n);
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    c.trials.push_back({annotation[k], onset[k], first[k], samples[k]});
  }
  c.channelCount = rows;
  c.binCount = bins;
  c.values = readDoublesNd(r, g, "features", {static_cast<std::size_t>(n), rows, bins});
  return c;
}

EventR2Result readEvents(const h5::Reader& r, const H5::Group& root, ArFile& f) {
  H5::Group g = r.group(root, "events");
  EventR2Result e;
  e.classA = r.stringAttribute(g, "class_a");
  e.classB = r.stringAttribute(g, "class_b");
  e.trialsA = count(r, g, "trials_a");
  e.trialsB = count(r, g, "trials_b");
  e.output = parseEnum(r, g, "output", parseArOutput);
  e.sampleRate = r.doubleAttribute(g, "sample_rate");
  f.trialOffsetSeconds = r.doubleAttribute(g, "trial_offset_s");
  f.trialLengthSeconds = r.doubleAttribute(g, "trial_length_s");
  e.rowNames = r.strings(g, "row_names");
  e.channels = indices(r, g, "channels", -1);
  e.binCenters = r.doubles(g, "bin_centers");
  const std::vector<std::size_t> shape = {e.rowNames.size(), e.binCenters.size()};
  e.r2 = readDoublesNd(r, g, "r2", shape);
  e.signedR2 = readDoublesNd(r, g, "signed_r2", shape);
  e.meanA = readDoublesNd(r, g, "mean_a", shape);
  e.meanB = readDoublesNd(r, g, "mean_b", shape);
  e.featuresA = readClass(r, g, "class_a", shape[0], shape[1]);
  e.featuresB = readClass(r, g, "class_b", shape[0], shape[1]);
  if (e.featuresA.trials.size() != e.trialsA || e.featuresB.trials.size() != e.trialsB) {
    r.fail(h5::childPath(g, "@trials_a"),
           std::to_string(e.trialsA) + " and " + std::to_string(e.trialsB) + " trials",
           "the lengths of class_a and class_b (" + std::to_string(e.featuresA.trials.size()) +
               ", " + std::to_string(e.featuresB.trials.size()) + ")",
           kRewriteRemedy);
  }
  return e;
}

ArFile parseArFile(const h5::Reader& r, const H5::Group& root) {
  checkResultSchema(r, root,
                    {kArSchema, kArSchemaPrefix, kArSchemaVersion,
                     "no schema attribute (not a ModeScope AR result)",
                     "Give a file written by 'modescope-cli ar'",
                     "This is another kind of ModeScope file; give a file written by "
                     "'modescope-cli ar'"});
  ArFile f;
  f.inputFile = r.stringAttribute(root, "input_file", "");
  f.channels = readChannelTable(r, root, ChannelPositions::Store, kRewriteRemedy);
  readSpectra(r, root, f);
  if (r.hasChild(root, "spatial_filter")) f.spatialFilter = readSpatialFilter(r, root, f);
  if (r.hasChild(root, "events")) f.events = readEvents(r, root, f);
  f.diagnostics = h5::readDiagnostics(r, root, /*required=*/true);
  f.provenance = h5::readProvenance(r, root);
  return f;
}

}  // namespace

void writeArFile(const std::string& path, const ArFile& file, JobContext& ctx) {
  checkFile(file);
  writeHdf5FileAtomically(path, "the AR spectra",
                          [&](H5::Group& root) { writeArContents(root, file, ctx); });
  ctx.progress(1.0, "written");
}

bool isArFile(const std::string& path) { return rootSchemaHasPrefix(path, kArSchemaPrefix); }

ArFile readArFile(const std::string& path) {
  return readHdf5FileAs(path,
                        {"file", "a readable ModeScope AR result (docs/ar.md, \"HDF5 file\")",
                         kRewriteRemedy, "/ar/spectra"},
                        parseArFile);
}

}  // namespace modescope
