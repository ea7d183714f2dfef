// Entropy-matrix results in HDF5, schema "modescope-entropy/1" (docs/entropy.md, "File schema").
#include "engine/io/hdf5_entropy.h"

#include <H5Cpp.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_diagnostics.h"
#include "engine/io/hdf5_ica.h"
#include "engine/io/hdf5_params.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"

namespace modescope {
namespace {

constexpr const char* kEntropySchemaPrefix = "modescope-entropy/";
constexpr const char* kEntropySchema = "modescope-entropy/1";
constexpr int kEntropySchemaVersion = 1;
const char* kRewriteRemedy = "Run 'modescope-cli xapen' again to write a new file";
const char* kOrientation =
    "[u][v] = entropy of target channel v given template channel u, Cross-ApEn(v||u): row = "
    "template channel (u), column = target channel (v); not symmetric for ApEn";

std::string indexName(std::size_t k) {
  std::string s = std::to_string(k);
  return std::string(s.size() < 4 ? 4 - s.size() : 0, '0') + s;
}

template <typename T>
void writeArray(H5::Group& g, const std::string& name, const std::vector<hsize_t>& dims,
                const std::vector<T>& values, const H5::PredType& fileType,
                const H5::PredType& memType, const std::string& description) {
  H5::DataSet ds =
      g.createDataSet(name, fileType, H5::DataSpace(static_cast<int>(dims.size()), dims.data()));
  if (!values.empty()) ds.write(values.data(), memType);
  if (!description.empty()) h5::setAttribute(ds, "description", description);
}

void writeDoubles(H5::Group& g, const std::string& name, const std::vector<hsize_t>& dims,
                  const std::vector<double>& v, const std::string& description) {
  writeArray(g, name, dims, v, H5::PredType::IEEE_F64LE, H5::PredType::NATIVE_DOUBLE, description);
}

void writeInts(H5::Group& g, const std::string& name, const std::vector<hsize_t>& dims,
               const std::vector<int32_t>& v, const std::string& description) {
  writeArray(g, name, dims, v, H5::PredType::STD_I32LE, H5::PredType::NATIVE_INT32, description);
}

bool sameParams(const EntropyParams& a, const EntropyParams& b) {
  return a.measure == b.measure && a.m == b.m && a.r == b.r && a.sd == b.sd &&
         a.epochSamples == b.epochSamples && a.bias == b.bias;
}

void checkFile(const EntropyFile& f) {
  if (f.recordings.empty())
    throw InvalidParameterError("recordings", "none", "at least one recording");
  for (std::size_t k = 0; k < f.recordings.size(); ++k) {
    const EntropyFileRecording& rec = f.recordings[k];
    const EntropyMatrixResult& r = rec.result;
    const std::size_t c = r.channelCount(), e = r.epochCount();
    const std::string who = "recording " + std::to_string(k + 1) + " (" + rec.inputFile + ")";
    if (c < 1 || e < 1 || rec.channels.size() != c || r.epochValues.size() != e * c * c ||
        r.average.size() != c * c || r.averageEpochs.size() != c * c ||
        r.constantEpochs.size() != e * c)
      throw InvalidParameterError(who, "matrices of inconsistent shape",
                                  "epochs x channels x channels, channels x channels",
                                  "write the result the entropy engine returned");
    if (!sameParams(r.params, f.recordings.front().result.params))
      throw InvalidParameterError(who, "parameters other than recording 1's",
                                  "one parameter set for the whole study",
                                  "compute every recording with the same m, r, epoch and bias");
    if (!(r.sampleRate > 0))
      throw InvalidParameterError("sample rate", formatNumber(r.sampleRate) + " Hz", "> 0 Hz");
  }
  for (const EntropyGroupMean& g : f.groups) {
    const std::size_t c = g.channelNames.size();
    if (g.mean.size() != c * c || g.count.size() != c * c || g.members.empty())
      throw InvalidParameterError("group '" + g.label + "'", "a mean of inconsistent shape",
                                  "channels x channels over >= 1 recording");
    for (std::size_t m : g.members)
      if (m >= f.recordings.size())
        throw InvalidParameterError("group '" + g.label + "'", "member " + std::to_string(m),
                                    "an index below " + std::to_string(f.recordings.size()));
  }
}

void writeParameters(H5::Group& root, const EntropyParams& p) {
  H5::Group g = root.createGroup("parameters");
  h5::writeParamAttributes(g, entropyParamTable(), p);
  h5::setAttribute(g, "r_units",
                   "SD of each series, per epoch (series z-scored by own mean and SD)");
  h5::setAttribute(g, "bias_applies",
                   static_cast<int64_t>(p.measure == EntropyMeasure::ApproximateEntropy ? 1 : 0));
  h5::setAttribute(g, "match_rule", "Chebyshev distance d <= r (inclusive), natural log");
}

void writeRecording(H5::Group& parent, const std::string& name, const EntropyFileRecording& rec) {
  const EntropyMatrixResult& r = rec.result;
  const hsize_t c = r.channelCount(), e = r.epochCount();
  H5::Group g = parent.createGroup(name);
  h5::setAttribute(g, "input_file", rec.inputFile);
  h5::setAttribute(g, "group", rec.group);
  h5::setAttribute(g, "sample_rate", r.sampleRate);
  h5::setAttribute(g, "first_sample", r.firstSample);
  h5::setAttribute(g, "start_s", static_cast<double>(r.firstSample) / r.sampleRate);
  h5::setAttribute(g, "selection_samples", rec.selectionSamples);
  h5::setAttribute(g, "epoch_samples", r.epochSamples);
  h5::setAttribute(g, "epoch_s", static_cast<double>(r.epochSamples) / r.sampleRate);
  h5::setAttribute(g, "epochs", static_cast<int64_t>(e));
  writeChannelTable(g, rec.channels, ChannelPositions::Omit);
  writeDoubles(g, "epoch_matrices", {e, c, c}, r.epochValues,
               std::string("epochs x template channel u x target channel v; ") + kOrientation +
                   "; NaN: undefined (SampEn) or a constant channel in that epoch");
  std::vector<int64_t> starts;
  for (int64_t s : r.epochStarts) starts.push_back(r.firstSample + s);
  h5::writeInt64s(g, "epoch_start", starts);
  H5::DataSet es = g.openDataSet("epoch_start");
  h5::setAttribute(es, "units", "samples from the recording start");
  writeDoubles(g, "average", {c, c}, r.average,
               std::string("mean over the epochs with a finite value; ") + kOrientation);
  writeInts(g, "average_epochs", {c, c}, r.averageEpochs, "epochs in each average entry");
  std::vector<double> diag;
  for (std::size_t i = 0; i < c; ++i) diag.push_back(r.channelEntropy(i));
  writeDoubles(g, "channel_entropy", {c}, diag,
               "ApEn / SampEn of each channel: the diagonal of the average");
  writeInts(g, "constant_epochs", {e, c},
            std::vector<int32_t>(r.constantEpochs.begin(), r.constantEpochs.end()),
            "1 where the channel is constant (SD = 0) in that epoch");
  h5::writeDiagnostics(g, r.diagnostics);
  h5::writeProvenance(g, rec.provenance);
}

void writeContents(H5::Group& root, const EntropyFile& f, JobContext& ctx) {
  h5::setAttribute(root, kSchemaAttribute, kEntropySchema);
  h5::setAttribute(root, "modescope_version", softwareVersion());
  h5::setAttribute(root, "orientation", kOrientation);
  h5::setAttribute(root, "recording_count", static_cast<int64_t>(f.recordings.size()));
  writeParameters(root, f.recordings.front().result.params);
  H5::Group recs = root.createGroup("recordings");
  for (std::size_t k = 0; k < f.recordings.size(); ++k) {
    writeRecording(recs, indexName(k), f.recordings[k]);
    ctx.checkpoint();
  }
  H5::Group groups = root.createGroup("groups");
  for (std::size_t k = 0; k < f.groups.size(); ++k) {
    const EntropyGroupMean& gm = f.groups[k];
    const hsize_t c = gm.channelNames.size();
    H5::Group g = groups.createGroup(indexName(k));
    h5::setAttribute(g, "label", gm.label);
    std::vector<int64_t> members(gm.members.begin(), gm.members.end());
    h5::writeInt64s(g, "members", members);
    h5::writeStrings(g, "channel_names", gm.channelNames);
    writeDoubles(g, "mean", {c, c}, gm.mean,
                 std::string("mean of the members' averages (NaN skipped); ") + kOrientation);
    writeInts(g, "count", {c, c}, gm.count, "members with a finite average in each entry");
  }
}

// ---- reading ----

template <typename T>
std::vector<T> readArray(const h5::Reader& r, const H5::Group& g, const std::string& name,
                         const std::vector<hsize_t>& expected, const H5::PredType& memType) {
  const std::string path = h5::childPath(g, name);
  H5::DataSet ds = r.dataset(g, name);
  H5::DataSpace space = ds.getSpace();
  const int rank = space.getSimpleExtentNdims();
  if (rank != static_cast<int>(expected.size()))
    r.fail(path, "a dataset of rank " + std::to_string(rank),
           "rank " + std::to_string(expected.size()), kRewriteRemedy);
  std::vector<hsize_t> dims(expected.size());
  if (rank > 0) space.getSimpleExtentDims(dims.data());
  std::size_t total = 1;
  std::string found, want;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    found += (i ? " x " : "") + std::to_string(dims[i]);
    want += (i ? " x " : "") + std::to_string(expected[i]);
    total *= expected[i];
  }
  if (dims != expected) r.fail(path, found, want, kRewriteRemedy);
  std::vector<T> out(total);
  if (total > 0) ds.read(out.data(), memType);
  return out;
}

EntropyParams readParameters(const h5::Reader& r, const H5::Group& root) {
  H5::Group g = r.group(root, "parameters");
  // Every declared parameter, with the declared default where an older file lacks one.
  return h5::readParamAttributes(r, g, entropyParamTable(), EntropyParams{});
}

EntropyFileRecording readRecording(const h5::Reader& r, const H5::Group& g,
                                   const EntropyParams& params) {
  EntropyFileRecording rec;
  rec.inputFile = r.stringAttribute(g, "input_file", "");
  rec.group = r.stringAttribute(g, "group", "");
  rec.selectionSamples = r.intAttribute(g, "selection_samples");
  EntropyMatrixResult& res = rec.result;
  res.params = params;
  res.sampleRate = r.doubleAttribute(g, "sample_rate");
  if (!(res.sampleRate > 0))
    r.fail(h5::childPath(g, "@sample_rate"), formatNumber(res.sampleRate), "a rate > 0 Hz",
           kRewriteRemedy);
  res.firstSample = r.intAttribute(g, "first_sample");
  res.epochSamples = r.intAttribute(g, "epoch_samples");
  const int64_t epochs = r.intAttribute(g, "epochs");
  if (epochs < 1 || res.epochSamples < entropyMinimumEpoch(params.m))
    r.fail(h5::childPath(g, "@epochs"),
           std::to_string(epochs) + " epochs of " + std::to_string(res.epochSamples) + " samples",
           ">= 1 epoch of >= m + 2 samples", kRewriteRemedy);
  rec.channels = readChannelTable(r, g, ChannelPositions::Omit, kRewriteRemedy);
  const auto c = static_cast<int64_t>(rec.channels.size());
  for (std::size_t i = 0; i < rec.channels.size(); ++i) {
    res.channels.push_back(rec.channels[i].recordingIndex);
    res.params.rows.push_back(i);
    res.channelNames.push_back(rec.channels[i].name);
  }
  const auto uc = static_cast<hsize_t>(c), ue = static_cast<hsize_t>(epochs);
  const auto starts = r.int64s(g, "epoch_start", epochs);
  for (int64_t s : starts) res.epochStarts.push_back(s - res.firstSample);
  res.epochValues =
      readArray<double>(r, g, "epoch_matrices", {ue, uc, uc}, H5::PredType::NATIVE_DOUBLE);
  res.average = readArray<double>(r, g, "average", {uc, uc}, H5::PredType::NATIVE_DOUBLE);
  res.averageEpochs =
      readArray<int32_t>(r, g, "average_epochs", {uc, uc}, H5::PredType::NATIVE_INT32);
  for (int32_t v :
       readArray<int32_t>(r, g, "constant_epochs", {ue, uc}, H5::PredType::NATIVE_INT32))
    res.constantEpochs.push_back(v != 0 ? 1 : 0);
  res.diagnostics = h5::readDiagnostics(r, g);
  rec.provenance = h5::readProvenance(r, g);
  return rec;
}

EntropyFile parseEntropyFile(const h5::Reader& r, const H5::Group& root) {
  checkResultSchema(
      r, root,
      {kEntropySchema, kEntropySchemaPrefix, kEntropySchemaVersion,
       "no schema attribute (not a ModeScope entropy result)",
       "Give a file written by 'modescope-cli xapen'",
       "This is another kind of ModeScope file; give a file written by 'modescope-cli xapen'"});
  const EntropyParams params = readParameters(r, root);
  EntropyFile f;
  H5::Group recs = r.group(root, "recordings");
  const int64_t count = r.intAttribute(root, "recording_count");
  if (count < 1) r.fail("/@recording_count", std::to_string(count), ">= 1", kRewriteRemedy);
  for (int64_t k = 0; k < count; ++k)
    f.recordings.push_back(
        readRecording(r, r.group(recs, indexName(static_cast<std::size_t>(k))), params));
  if (r.hasChild(root, "groups")) {
    H5::Group groups = r.group(root, "groups");
    for (std::size_t k = 0; r.hasChild(groups, indexName(k)); ++k) {
      H5::Group g = r.group(groups, indexName(k));
      EntropyGroupMean gm;
      gm.label = r.stringAttribute(g, "label");
      for (int64_t m : r.int64s(g, "members")) {
        if (m < 0 || m >= count)
          r.fail(h5::childPath(g, "members"), std::to_string(m), "0.." + std::to_string(count - 1),
                 kRewriteRemedy);
        gm.members.push_back(static_cast<std::size_t>(m));
      }
      gm.channelNames = r.strings(g, "channel_names");
      const auto c = static_cast<hsize_t>(gm.channelNames.size());
      gm.mean = readArray<double>(r, g, "mean", {c, c}, H5::PredType::NATIVE_DOUBLE);
      gm.count = readArray<int32_t>(r, g, "count", {c, c}, H5::PredType::NATIVE_INT32);
      f.groups.push_back(std::move(gm));
    }
  }
  return f;
}

}  // namespace

std::vector<EntropyFileChannel> entropyFileChannels(const Recording& rec,
                                                    const std::vector<std::size_t>& channels) {
  // The ICA file's channel table, without the positions this schema does not store.
  std::vector<EntropyFileChannel> out = icaFileChannels(rec, channels);
  for (EntropyFileChannel& c : out) c.position.reset();
  return out;
}

std::vector<EntropyGroupMean> entropyGroupMeans(
    const std::vector<EntropyFileRecording>& recordings) {
  std::vector<EntropyGroupMean> out;
  for (std::size_t k = 0; k < recordings.size(); ++k) {
    const EntropyFileRecording& rec = recordings[k];
    if (rec.group.empty()) continue;
    std::vector<std::string> names;
    for (const EntropyFileChannel& ch : rec.channels) names.push_back(ch.name);
    EntropyGroupMean* g = nullptr;
    for (EntropyGroupMean& x : out)
      if (x.label == rec.group) g = &x;
    if (!g) {
      out.push_back({rec.group,
                     {},
                     names,
                     std::vector<double>(names.size() * names.size(), 0.0),
                     std::vector<int32_t>(names.size() * names.size(), 0)});
      g = &out.back();
    }
    if (names != g->channelNames)
      throw InvalidParameterError(
          "group '" + rec.group + "'",
          rec.inputFile + " has channels other than " +
              recordings[g->members.empty() ? k : g->members.front()].inputFile,
          "the same channels in the same order in every recording of a group",
          "select the channels by name with --channels");
    g->members.push_back(k);
    const std::vector<double>& avg = rec.result.average;
    if (avg.size() != g->mean.size())
      throw InvalidParameterError("group '" + rec.group + "'", "an average of another shape",
                                  "channels x channels");
    for (std::size_t i = 0; i < avg.size(); ++i)
      if (std::isfinite(avg[i])) {
        g->mean[i] += avg[i];
        ++g->count[i];
      }
  }
  for (EntropyGroupMean& g : out)
    for (std::size_t i = 0; i < g.mean.size(); ++i)
      g.mean[i] =
          g.count[i] > 0 ? g.mean[i] / g.count[i] : std::numeric_limits<double>::quiet_NaN();
  return out;
}

void writeEntropyFile(const std::string& path, const EntropyFile& f, JobContext& ctx) {
  checkFile(f);
  writeHdf5FileAtomically(path, "the entropy matrices",
                          [&](H5::Group& root) { writeContents(root, f, ctx); });
  ctx.progress(1.0, "written");
}

bool isEntropyFile(const std::string& path) {
  return rootSchemaHasPrefix(path, kEntropySchemaPrefix);
}

EntropyFile readEntropyFile(const std::string& path) {
  return readHdf5FileAs(path,
                        {"file", "a readable ModeScope entropy result (docs/entropy.md)",
                         kRewriteRemedy, "/recordings"},
                        parseEntropyFile);
}

}  // namespace modescope
