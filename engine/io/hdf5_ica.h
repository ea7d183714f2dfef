// Infomax ICA results in HDF5, schema "modescope-ica/1" (docs/hdf5-schema.md, "ICA result
// files"): the channel table, the model (mean, sphere, weights, unmixing, mixing), the variance
// each component accounts for, the rank and how it was chosen, the convergence history, every
// parameter, the selection it was computed on, diagnostics and provenance. `modescope-cli ica`
// writes it; `modescope-cli ica-apply` (and the GUI) read it back. Activations are not stored:
// they are unmixing * (x - mean) of the recording named in the file.
//
// Thread rules: both functions take the process-wide HDF5 lock (engine/io/hdf5_util.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_result.h"
#include "engine/io/hdf5_channel_table.h"

namespace H5 {
class Group;
}

namespace modescope {

// A channel the decomposition was computed on (the shared channel table, with positions).
using IcaFileChannel = ResultFileChannel;

struct IcaFile {
  std::string inputFile;    // the recording ("" for generated data)
  double sampleRate = 0.0;  // Hz
  int64_t firstSample = 0;  // selection start in the recording, samples
  int64_t samples = 0;      // selection length, samples (== result.samples)
  double startSeconds() const {
    return sampleRate > 0 ? static_cast<double>(firstSample) / sampleRate : 0.0;
  }
  std::vector<IcaFileChannel> channels;  // parallel to result.channels / the mixing rows
  IcaResult result;  // params, resolved values, history and diagnostics included
  Provenance provenance;
};

// The channel table of `channels` in `rec` (names, labels, types, units, positions).
std::vector<IcaFileChannel> icaFileChannels(const Recording& rec,
                                            const std::vector<std::size_t>& channels);

// Writes `file` to `path` atomically (a failure or a cancel leaves nothing there). Throws
// InvalidParameterError when the shapes disagree (channel table vs. mixing rows, sphere r x C,
// weights r x r, ...), OutputError when the file cannot be written, Cancelled.
void writeIcaFile(const std::string& path, const IcaFile& file, JobContext& ctx);

// The same layout inside `group` of another file (a session keeps its decompositions this way).
// The caller's file handles errors (H5::Exception); shapes are checked as writeIcaFile does.
void writeIcaToGroup(const IcaFile& file, H5::Group& group, JobContext& ctx);
// Reads a group written by writeIcaToGroup; `path` names the file in errors (InvalidInputError).
IcaFile readIcaFromGroup(const H5::Group& group, const std::string& path);

// True if `path` is an HDF5 file whose root says modescope_schema = "modescope-ica/<n>".
bool isIcaFile(const std::string& path);

// Reads a file written by writeIcaFile. Throws InvalidInputError naming the file and the object
// for a missing, non-HDF5, damaged or foreign file, a newer schema version, and shapes that
// disagree.
IcaFile readIcaFile(const std::string& path);

}  // namespace modescope
