// Entropy-matrix results (ApEn / Cross-ApEn, SampEn / cross-SampEn) in HDF5, schema
// "modescope-entropy/1" (docs/entropy.md, "File schema"): the parameters (bias used included),
// then per recording of a study its channel table, per-epoch ordered matrices, their average,
// diagnostics and provenance, and per study group the mean of its recordings' averages.
// `modescope-cli xapen` writes it; the GUI and h5py read it.
//
// Orientation everywhere: [u][v] = Cross-ApEn(v||u), row = template channel u, column = target
// channel v (entropy_result.h). HDF5 datasets are C-ordered, so h5py's m[u, v] is that entry.
//
// Thread rules: the functions take the process-wide HDF5 lock (engine/io/hdf5_util.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/entropy/entropy_result.h"
#include "engine/io/hdf5_channel_table.h"

namespace modescope {

// A channel of the matrix (the shared channel table; this schema stores no positions, so
// `position` stays empty).
using EntropyFileChannel = ResultFileChannel;

// One recording of a study. result.channelNames is parallel to `channels` (names).
struct EntropyFileRecording {
  std::string inputFile;
  std::string group;                         // study group label ("" when the study has no groups)
  std::vector<EntropyFileChannel> channels;  // matrix order
  int64_t selectionSamples = 0;              // samples of the selection the epochs were cut from
  EntropyMatrixResult result;  // params, epochs, matrices, average and diagnostics (no counts)
  Provenance provenance;
};

// The mean over a group's recordings of their average matrices (NaN-skipping per entry).
struct EntropyGroupMean {
  std::string label;
  std::vector<std::size_t> members;  // indices into EntropyFile::recordings
  std::vector<std::string> channelNames;
  std::vector<double> mean;    // C x C, row = template channel
  std::vector<int32_t> count;  // C x C: recordings with a finite average there
};

struct EntropyFile {
  std::vector<EntropyFileRecording> recordings;  // at least one; all with equal parameters
  std::vector<EntropyGroupMean> groups;          // empty unless the study has group labels
};

// The channel table of `channels` in `rec`.
std::vector<EntropyFileChannel> entropyFileChannels(const Recording& rec,
                                                    const std::vector<std::size_t>& channels);

// Group means of the recordings with a non-empty group label, groups in first-seen order.
// Throws InvalidParameterError when a group's recordings differ in channel names (or order):
// remedy, select the same channels by name in every recording.
std::vector<EntropyGroupMean> entropyGroupMeans(
    const std::vector<EntropyFileRecording>& recordings);

// Writes `file` to `path` atomically (a failure or a cancel leaves nothing there). Throws
// InvalidParameterError when shapes disagree or recordings differ in parameters, OutputError
// when the file cannot be written, Cancelled.
void writeEntropyFile(const std::string& path, const EntropyFile& file, JobContext& ctx);

// True if `path` is an HDF5 file whose root says modescope_schema = "modescope-entropy/<n>".
bool isEntropyFile(const std::string& path);

// Reads a file written by writeEntropyFile. Throws InvalidInputError naming the file and the
// object for a missing, non-HDF5, damaged or foreign file, a newer schema, and bad shapes.
EntropyFile readEntropyFile(const std::string& path);

}  // namespace modescope
