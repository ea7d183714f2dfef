// Epoch files, schema "modescope-epochs/1" (hdf5_epochs.h).
#include "engine/io/hdf5_epochs.h"

#include <H5Cpp.h>

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/epochs/epoch_params.h"
#include "engine/io/hdf5_params.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"

namespace modescope {
namespace {

constexpr const char* kEpochSchemaPrefix = "modescope-epochs/";
constexpr const char* kEpochSchema = "modescope-epochs/1";

template <class T>
void writeArray(H5::Group& g, const std::string& name, const std::vector<hsize_t>& dims,
                const T* values, const H5::PredType& fileType, const H5::PredType& memType,
                const std::string& description) {
  H5::DataSet ds =
      g.createDataSet(name, fileType, H5::DataSpace(static_cast<int>(dims.size()), dims.data()));
  h5::setAttribute(ds, "description", description);
  hsize_t total = 1;
  for (hsize_t d : dims) total *= d;
  if (total > 0) ds.write(values, memType);
}

void writeContents(H5::Group& root, const EpochFile& f, JobContext& ctx) {
  const EpochSet& s = f.set;
  const hsize_t E = s.epochCount(), C = s.channelCount(), S = static_cast<hsize_t>(s.samples),
                K = s.conditions.size();
  h5::setAttribute(root, kSchemaAttribute, kEpochSchema);
  h5::setAttribute(root, "modescope_version", softwareVersion());
  h5::setAttribute(root, "input_file", f.inputFile);
  h5::setAttribute(root, "sample_rate", s.sampleRate);
  h5::setAttribute(root, "first_offset_samples", s.window.first);
  h5::setAttribute(root, "confidence_z", confidenceZ(s.params.confidence));
  H5::Group params = root.createGroup("parameters");
  h5::writeParamAttributes(params, epochParamTable(), s.params);
  h5::writeStrings(root, "channels", s.channelNames);
  h5::writeStrings(root, "units", s.units);
  h5::writeStrings(root, "conditions", s.conditions);
  std::vector<double> times;
  for (int64_t i = 0; i < s.samples; ++i) times.push_back(s.time(i));
  h5::writeDoubles(root, "times", times);
  if (f.writeEpochs) {
    writeArray(root, "epochs", {E, C, S}, s.data.data(), H5::PredType::IEEE_F32LE,
               H5::PredType::NATIVE_FLOAT,
               "epochs x channels x samples, baseline-corrected, in the channels' units");
    ctx.checkpoint();
  }
  h5::writeInt32s(root, "epoch_condition",
                  std::vector<int32_t>(s.condition.begin(), s.condition.end()));
  h5::writeDoubles(root, "epoch_onset", s.onset);

  H5::Group log = root.createGroup("log");
  std::vector<double> onset, p2p;
  std::vector<int32_t> condition;
  std::vector<std::string> fate, channel;
  for (const EpochLogEntry& e : s.log) {
    onset.push_back(e.onset);
    condition.push_back(e.condition);
    fate.push_back(epochFateName(e.fate));
    channel.push_back(e.channel);
    p2p.push_back(e.peakToPeak);
  }
  h5::writeDoubles(log, "onset", onset);
  h5::writeInt32s(log, "condition", condition);
  h5::writeStrings(log, "fate", fate);
  h5::writeStrings(log, "channel", channel);
  h5::writeDoubles(log, "peak_to_peak", p2p);

  const EpochAverages& a = f.averages;
  H5::Group avg = root.createGroup("averages");
  writeArray(avg, "mean", {K, C, S}, a.mean.data(), H5::PredType::IEEE_F64LE,
             H5::PredType::NATIVE_DOUBLE,
             "conditions x channels x samples: the mean of the epochs");
  writeArray(avg, "standard_error", {K, C, S}, a.standardError.data(), H5::PredType::IEEE_F64LE,
             H5::PredType::NATIVE_DOUBLE,
             "conditions x channels x samples: sample standard deviation / sqrt(count); NaN "
             "below 2 epochs");
  h5::writeInt64s(avg, "count", a.counts);

  if (!f.differences.empty()) {
    H5::Group diffs = root.createGroup("differences");
    h5::setAttribute(diffs, "count", static_cast<int64_t>(f.differences.size()));
    for (std::size_t i = 0; i < f.differences.size(); ++i) {
      const DifferenceWave& d = f.differences[i];
      H5::Group g = diffs.createGroup(std::to_string(i));
      h5::setAttribute(g, "name", d.name);
      h5::setAttribute(g, "minuend", d.minuend);
      h5::setAttribute(g, "subtrahend", d.subtrahend);
      writeArray(g, "mean", {C, S}, d.mean.data(), H5::PredType::IEEE_F64LE,
                 H5::PredType::NATIVE_DOUBLE, "channels x samples: mean A - mean B");
      writeArray(g, "standard_error", {C, S}, d.standardError.data(), H5::PredType::IEEE_F64LE,
                 H5::PredType::NATIVE_DOUBLE, "channels x samples: sqrt(SE_A^2 + SE_B^2)");
    }
  }
  h5::writeProvenance(root, f.provenance);
}

}  // namespace

void writeEpochFile(const std::string& path, const EpochFile& file, JobContext& ctx) {
  const EpochSet& s = file.set;
  const std::size_t cells = s.channelCount() * static_cast<std::size_t>(s.samples);
  if (s.data.size() != s.epochCount() * cells ||
      file.averages.mean.size() != s.conditions.size() * cells)
    throw InvalidParameterError("epoch file", "arrays of inconsistent shape",
                                "epochs and averages of the set's channels and samples",
                                "write the result the engine returned");
  writeHdf5FileAtomically(path, "the epochs",
                          [&](H5::Group& root) { writeContents(root, file, ctx); });
  ctx.progress(1.0, "written");
}

bool isEpochFile(const std::string& path) { return rootSchemaHasPrefix(path, kEpochSchemaPrefix); }

}  // namespace modescope
