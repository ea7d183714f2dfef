// ICA results in HDF5, schema "modescope-ica/1" (docs/hdf5-schema.md, "ICA result files").
#include "engine/io/hdf5_ica.h"

#include <H5Cpp.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
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

constexpr const char* kIcaSchemaPrefix = "modescope-ica/";
constexpr const char* kIcaSchema = "modescope-ica/1";
constexpr int kIcaSchemaVersion = 1;
const char* kRewriteRemedy = "Run 'modescope-cli ica' again to write a new file";

void writeMatrix(H5::Group& g, const std::string& name, const IcaMatrix& m,
                 const std::string& description) {
  const hsize_t dims[2] = {static_cast<hsize_t>(m.rows), static_cast<hsize_t>(m.cols)};
  H5::DataSet ds = g.createDataSet(name, H5::PredType::IEEE_F64LE, H5::DataSpace(2, dims));
  if (!m.values.empty()) ds.write(m.values.data(), H5::PredType::NATIVE_DOUBLE);
  h5::setAttribute(ds, "description", description);
}

void writeDoublesWithUnit(H5::Group& g, const std::string& name, const std::vector<double>& v,
                          const std::string& unit) {
  h5::writeDoubles(g, name, v);
  H5::DataSet ds = g.openDataSet(name);
  h5::setAttribute(ds, "units", unit);
}

void checkShape(const char* what, const IcaMatrix& m, int rows, int cols) {
  if (m.rows != rows || m.cols != cols ||
      m.values.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
    throw InvalidParameterError(what, std::to_string(m.rows) + " x " + std::to_string(m.cols),
                                std::to_string(rows) + " x " + std::to_string(cols),
                                "Write the result the ICA engine returned");
  }
}

void checkFile(const IcaFile& f) {
  const IcaResult& r = f.result;
  const int c = static_cast<int>(f.channels.size());
  const int k = r.components;
  if (c < 1 || k < 1 || k > c) {
    throw InvalidParameterError(
        "ICA result", std::to_string(k) + " components of " + std::to_string(c) + " channels",
        "1 <= components <= channels");
  }
  if (r.channels.size() != f.channels.size() || r.mean.size() != f.channels.size()) {
    throw InvalidParameterError("ICA channel table", std::to_string(f.channels.size()) + " rows",
                                std::to_string(r.channels.size()) + " (the result's channels)");
  }
  checkShape("sphere", r.sphere, k, c);
  checkShape("weights", r.weights, k, k);
  checkShape("unmixing", r.unmixing, k, c);
  checkShape("mixing", r.mixing, c, k);
  const auto kk = static_cast<std::size_t>(k);
  if (r.backProjectedVariance.size() != kk || r.varianceFraction.size() != kk ||
      r.bias.size() != kk || r.signs.size() != kk) {
    throw InvalidParameterError("ICA per-component tables", "lengths that differ",
                                std::to_string(k) + " values each (one per component)");
  }
  if (!(f.sampleRate > 0)) {
    throw InvalidParameterError("sample rate", formatNumber(f.sampleRate) + " Hz", "> 0 Hz");
  }
}

void writeParameters(H5::Group& ica, const IcaResult& r) {
  H5::Group g = ica.createGroup("parameters");
  const IcaParams& p = r.params;
  const ResolvedIcaParams& q = r.resolved;
  h5::setAttribute(g, "description", describeIcaParams(p));
  h5::writeParamAttributes(g, icaParamTable(), p);
  h5::setAttribute(g, "resolved_learning_rate", q.learningRate);
  h5::setAttribute(g, "resolved_block_size", static_cast<int64_t>(q.blockSize));
  h5::setAttribute(g, "resolved_anneal_factor", q.annealFactor);
  h5::setAttribute(g, "resolved_stop_tolerance", q.stopTolerance);
  h5::setAttribute(g, "resolved_components", static_cast<int64_t>(q.components));
  // Units of the attributes above that have one (the others are counts or pure numbers).
  h5::setAttribute(g, "units",
                   "learning_rate: per sample per block update; block_size: samples; anneal_deg: "
                   "degrees; stop_tolerance: squared Frobenius norm of the weight change; "
                   "kurtosis_samples: samples");
}

void writeHistory(H5::Group& ica, const std::vector<IcaStep>& h) {
  H5::Group g = ica.createGroup("history");
  std::vector<int64_t> step;
  std::vector<double> change, angle, lrate;
  std::vector<int32_t> restarted, sub;
  for (const IcaStep& s : h) {
    step.push_back(s.step);
    change.push_back(s.change);
    angle.push_back(s.angleDegrees);
    lrate.push_back(s.learningRate);
    restarted.push_back(s.restartedAfter ? 1 : 0);
    sub.push_back(s.subGaussian);
  }
  h5::writeInt64s(g, "step", step);
  h5::writeDoubles(g, "change", change);
  h5::writeDoubles(g, "angle_deg", angle);
  h5::writeDoubles(g, "learning_rate", lrate);
  h5::writeInt32s(g, "restarted_after", restarted);
  h5::writeInt32s(g, "sub_gaussian", sub);
}

// ---------------------------------------------------------------------------------------------
// Reading

IcaMatrix readMatrix(const h5::Reader& r, const H5::Group& g, const std::string& name, int rows,
                     int cols) {
  const std::string path = h5::childPath(g, name);
  H5::DataSet ds = r.dataset(g, name);
  H5::DataSpace space = ds.getSpace();
  hsize_t dims[2] = {0, 0};
  if (space.getSimpleExtentNdims() != 2) {
    r.fail(path, "a dataset of rank " + std::to_string(space.getSimpleExtentNdims()),
           "a 2-D dataset", kRewriteRemedy);
  }
  space.getSimpleExtentDims(dims);
  if (ds.getTypeClass() != H5T_FLOAT) r.fail(path, "non-float values", "float64", kRewriteRemedy);
  if (static_cast<int64_t>(dims[0]) != rows || static_cast<int64_t>(dims[1]) != cols) {
    r.fail(path, std::to_string(dims[0]) + " x " + std::to_string(dims[1]),
           std::to_string(rows) + " x " + std::to_string(cols), kRewriteRemedy);
  }
  IcaMatrix m(rows, cols);
  if (!m.values.empty()) ds.read(m.values.data(), H5::PredType::NATIVE_DOUBLE);
  return m;
}

int readInt(const h5::Reader& r, const H5::H5Object& o, const std::string& name) {
  const int64_t v = r.intAttribute(o, name);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    r.fail(h5::childPath(o, "@" + name), std::to_string(v), "a 32-bit integer", kRewriteRemedy);
  }
  return static_cast<int>(v);
}

void readParameters(const h5::Reader& r, const H5::Group& ica, IcaResult& res) {
  H5::Group g = r.group(ica, "parameters");
  // Every declared parameter, with the declared default where an older file lacks one.
  res.params = h5::readParamAttributes(r, g, icaParamTable(), IcaParams{});
  res.resolved.learningRate = r.doubleAttribute(g, "resolved_learning_rate");
  res.resolved.blockSize = readInt(r, g, "resolved_block_size");
  res.resolved.annealFactor = r.doubleAttribute(g, "resolved_anneal_factor");
  res.resolved.stopTolerance = r.doubleAttribute(g, "resolved_stop_tolerance");
  res.resolved.components = readInt(r, g, "resolved_components");
}

void readHistory(const h5::Reader& r, const H5::Group& ica, IcaResult& res) {
  H5::Group g = r.group(ica, "history");
  const auto step = r.int64s(g, "step");
  const auto n = static_cast<int64_t>(step.size());
  const auto change = r.doubles(g, "change", n);
  const auto angle = r.doubles(g, "angle_deg", n);
  const auto lrate = r.doubles(g, "learning_rate", n);
  const auto restarted = r.int64s(g, "restarted_after", n);
  const auto sub = r.int64s(g, "sub_gaussian", n);
  for (std::size_t i = 0; i < step.size(); ++i) {
    IcaStep s;
    s.step = static_cast<int>(step[i]);
    s.change = change[i];
    s.angleDegrees = angle[i];
    s.learningRate = lrate[i];
    s.restartedAfter = restarted[i] != 0;
    s.subGaussian = static_cast<int>(sub[i]);
    res.history.push_back(s);
  }
}

void checkSchema(const h5::Reader& r, const H5::Group& root) {
  checkResultSchema(
      r, root,
      {kIcaSchema, kIcaSchemaPrefix, kIcaSchemaVersion,
       "no schema attribute (not a ModeScope ICA result)",
       "Give a file written by 'modescope-cli ica'",
       "This is another kind of ModeScope file; give a file written by 'modescope-cli ica'"});
}

IcaFile parseIcaFile(const h5::Reader& r, const H5::Group& root) {
  checkSchema(r, root);
  IcaFile f;
  f.inputFile = r.stringAttribute(root, "input_file", "");

  f.channels = readChannelTable(r, root, ChannelPositions::Store, kRewriteRemedy);
  const auto c = static_cast<int64_t>(f.channels.size());

  H5::Group g = r.group(root, "ica");
  IcaResult& res = f.result;
  const int cc = static_cast<int>(c);
  res.components = readInt(r, g, "components");
  if (res.components < 1 || res.components > cc) {
    r.fail(h5::childPath(g, "@components"), std::to_string(res.components),
           "1.." + std::to_string(cc) + " (the channel count)", kRewriteRemedy);
  }
  const int k = res.components;
  res.detectedRank = readInt(r, g, "detected_rank");
  f.sampleRate = r.doubleAttribute(g, "sample_rate");
  if (!(f.sampleRate > 0)) {
    r.fail(h5::childPath(g, "@sample_rate"), formatNumber(f.sampleRate), "a rate > 0 Hz",
           kRewriteRemedy);
  }
  f.firstSample = r.intAttribute(g, "first_sample");
  f.samples = r.intAttribute(g, "samples");
  if (f.firstSample < 0 || f.samples < 1) {
    r.fail(h5::childPath(g, "@samples"),
           std::to_string(f.firstSample) + " + " + std::to_string(f.samples),
           "first_sample >= 0 and samples >= 1", kRewriteRemedy);
  }
  res.samples = f.samples;
  res.converged = r.intAttribute(g, "converged") != 0;
  res.stopReason = r.stringAttribute(g, "stop_reason");
  res.steps = readInt(r, g, "steps");
  res.restarts = readInt(r, g, "restarts");
  res.finalLearningRate = r.doubleAttribute(g, "final_learning_rate");
  res.seconds = r.doubleAttribute(g, "seconds");
  for (const auto& ch : f.channels) res.channels.push_back(ch.recordingIndex);
  res.mean = r.doubles(g, "mean", c);
  res.eigenvalues = r.doubles(g, "eigenvalues", c);
  res.sphere = readMatrix(r, g, "sphere", k, cc);
  res.weights = readMatrix(r, g, "weights", k, k);
  res.unmixing = readMatrix(r, g, "unmixing", k, cc);
  res.mixing = readMatrix(r, g, "mixing", cc, k);
  res.bias = r.doubles(g, "bias", k);
  for (int64_t s : r.int64s(g, "signs", k)) res.signs.push_back(static_cast<int>(s));
  res.backProjectedVariance = r.doubles(g, "back_projected_variance", k);
  res.varianceFraction = r.doubles(g, "variance_fraction", k);
  readParameters(r, g, res);
  readHistory(r, g, res);

  res.diagnostics = h5::readDiagnostics(r, root);
  f.provenance = h5::readProvenance(r, root);
  return f;
}

}  // namespace

std::vector<IcaFileChannel> icaFileChannels(const Recording& rec,
                                            const std::vector<std::size_t>& channels) {
  std::vector<IcaFileChannel> out;
  for (std::size_t ch : channels) {
    if (ch >= rec.channelCount()) {
      throw InvalidParameterError("channels", "index " + std::to_string(ch + 1),
                                  "1.." + std::to_string(rec.channelCount()));
    }
    const ChannelInfo& c = rec.channels[ch];
    out.push_back({ch, c.name, c.label, channelTypeName(c.type), c.unit, c.position});
  }
  return out;
}

namespace {

// The whole layout below `root` (a file's root group, or a group of a session file).
void writeIcaContents(H5::Group& root, const IcaFile& f, JobContext& ctx) {
  const IcaResult& r = f.result;
  {
    h5::setAttribute(root, kSchemaAttribute, kIcaSchema);
    h5::setAttribute(root, "modescope_version", softwareVersion());
    h5::setAttribute(root, "input_file", f.inputFile);
    writeChannelTable(root, f.channels, ChannelPositions::Store);
    ctx.checkpoint();
    H5::Group g = root.createGroup("ica");
    h5::setAttribute(g, "components", static_cast<int64_t>(r.components));
    h5::setAttribute(g, "detected_rank", static_cast<int64_t>(r.detectedRank));
    h5::setAttribute(g, "rank_choice",
                     r.params.pcaRank > 0 ? "forced by pca_rank"
                                          : (r.components < static_cast<int>(f.channels.size())
                                                 ? "automatic: PCA reduction to the detected rank"
                                                 : "automatic: full rank"));
    h5::setAttribute(g, "sample_rate", f.sampleRate);
    h5::setAttribute(g, "first_sample", f.firstSample);
    h5::setAttribute(g, "samples", f.samples);
    h5::setAttribute(g, "start_s", f.startSeconds());
    h5::setAttribute(g, "duration_s", static_cast<double>(f.samples) / f.sampleRate);
    h5::setAttribute(g, "converged", static_cast<int64_t>(r.converged ? 1 : 0));
    h5::setAttribute(g, "stop_reason", r.stopReason);
    h5::setAttribute(g, "steps", static_cast<int64_t>(r.steps));
    h5::setAttribute(g, "restarts", static_cast<int64_t>(r.restarts));
    h5::setAttribute(g, "final_learning_rate", r.finalLearningRate);
    h5::setAttribute(g, "seconds", r.seconds);
    const std::string unit = f.channels.front().unit;
    writeDoublesWithUnit(g, "mean", r.mean, unit);
    writeDoublesWithUnit(g, "eigenvalues", r.eigenvalues, unit.empty() ? "" : unit + "^2");
    writeMatrix(g, "sphere", r.sphere, "components x channels, applied to x - mean");
    writeMatrix(g, "weights", r.weights, "components x components (Infomax weights)");
    writeMatrix(g, "unmixing", r.unmixing,
                "components x channels = weights * sphere; activations = unmixing * (x - mean)");
    writeMatrix(g, "mixing", r.mixing,
                "channels x components = pinv(unmixing); columns are the scalp maps");
    h5::writeDoubles(g, "bias", r.bias);
    h5::writeInt32s(g, "signs", std::vector<int32_t>(r.signs.begin(), r.signs.end()));
    writeDoublesWithUnit(g, "back_projected_variance", r.backProjectedVariance,
                         unit.empty() ? "" : unit + "^2");
    writeDoublesWithUnit(g, "variance_fraction", r.varianceFraction, "fraction of total power");
    writeParameters(g, r);
    writeHistory(g, r.history);
    h5::writeDiagnostics(root, r.diagnostics);
    h5::writeProvenance(root, f.provenance);
    ctx.checkpoint();
  }
}

}  // namespace

void writeIcaFile(const std::string& path, const IcaFile& f, JobContext& ctx) {
  checkFile(f);
  writeHdf5FileAtomically(path, "the ICA decomposition",
                          [&](H5::Group& root) { writeIcaContents(root, f, ctx); });
  ctx.progress(1.0, "written");
}

void writeIcaToGroup(const IcaFile& f, H5::Group& group, JobContext& ctx) {
  checkFile(f);
  h5::Lock lock(h5::hdf5Mutex());
  writeIcaContents(group, f, ctx);
}

IcaFile readIcaFromGroup(const H5::Group& group, const std::string& path) {
  h5::Lock lock(h5::hdf5Mutex());
  h5::initialiseHdf5();
  const h5::Reader r(path);
  try {
    return parseIcaFile(r, group);
  } catch (const H5::Exception& e) {
    r.fail(group.getObjName(), "an HDF5 error (" + e.getDetailMsg() + ")",
           "a readable ModeScope ICA result (docs/hdf5-schema.md)", kRewriteRemedy);
  }
}

bool isIcaFile(const std::string& path) { return rootSchemaHasPrefix(path, kIcaSchemaPrefix); }

IcaFile readIcaFile(const std::string& path) {
  return readHdf5FileAs(
      path,
      {"file", "a readable ModeScope ICA result (docs/hdf5-schema.md)", kRewriteRemedy, "/ica"},
      parseIcaFile);
}

}  // namespace modescope
