// EMD-family results in HDF5, schema "modescope-emd/1" (docs/hdf5-schema.md, "EMD result
// files"): the modes of every decomposed channel, the decomposition's parameters, the optional
// Hilbert-Huang transform (spectrum, marginal, per-IMF mean frequency and energy, optionally the
// instantaneous amplitude and frequency) and the provenance. `modescope-cli emd` writes it; the
// GUI opens it as a result.
//
// Thread rules: both functions take the process-wide HDF5 lock (engine/io/hdf5_util.h); call
// them from any one thread at a time per file.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"
#include "engine/hht/hht.h"

namespace modescope {

// What a reader needs to know about a decomposed channel without the recording at hand.
struct EmdFileChannel {
  std::size_t recordingIndex = 0;  // 0-based channel index in the input recording
  std::string name;                // normalised name ("Cz")
  std::string label;               // as stored in the input file ("EEG Cz-REF")
  std::string unit;                // physical unit of the modes ("uV")
  std::string group;               // HDF5 group name under /emd and /hht ("Cz")
};

struct EmdFile {
  std::string inputFile;      // the recording the modes came from ("" for generated data)
  double startSeconds = 0.0;  // firstSample / sampleRate
  std::vector<EmdFileChannel> channels;  // parallel to modes.channels
  EmdResult modes;                       // provenance included
  std::optional<HhtResult> hht;          // when the file holds a Hilbert-Huang transform
};

// Writes `modes` (and `hht` when not null) to `path`, atomically (a temporary name in the same
// folder, renamed when complete: a failure or a cancel leaves nothing under `path`). `rec` is the
// recording the modes were computed from: it gives every channel's name, label and unit, and must
// hold every modes.channels[i].channel. `hht`, when given, must come from these modes (same
// channels in the same order, same sample count). Progress over the rows written; Cancelled
// between rows. Throws OutputError (cannot create or write the file), InvalidParameterError
// (inconsistent arguments), Cancelled.
void writeEmdFile(const std::string& path, const Recording& rec, const EmdResult& modes,
                  const HhtResult* hht, JobContext& ctx);

// True if `path` is an HDF5 file whose root says modescope_schema = "modescope-emd/<n>".
bool isEmdFile(const std::string& path);

// Reads a whole file written by writeEmdFile into memory. Throws InvalidInputError naming the
// file and the object for a missing, non-HDF5, damaged or foreign file, a newer schema version,
// and shapes that disagree (rows x samples, spectrum bins, table lengths).
EmdFile readEmdFile(const std::string& path);

}  // namespace modescope
