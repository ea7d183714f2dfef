// Epochs and their averages in HDF5, schema "modescope-epochs/1" (docs/epochs.md): what
// `modescope-cli epoch` and `average` write.
//
//   /@modescope_schema = "modescope-epochs/1", input_file, sample_rate, confidence_z
//   /parameters/@...           every EpochParams field (engine/epochs/epoch_params.h)
//   /channels, /units          C names and units;  /conditions  K event types
//   /times                     S seconds relative to the event
//   /epochs                    E x C x S float32, baseline-corrected (absent with epochs omitted)
//   /epoch_condition, /epoch_onset   E condition indices and event onsets (s)
//   /log/onset, condition, fate, channel, peak_to_peak   every event considered, and why dropped
//   /averages/mean, standard_error   K x C x S float64; /averages/count  K epochs each
//   /differences/<i>/@name, mean, standard_error   C x S float64 (A - B)
//   /provenance
//
// Thread rules: takes the HDF5 lock itself (writeHdf5FileAtomically).
#pragma once

#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/epochs/epoch_average.h"
#include "engine/epochs/epochs.h"

namespace modescope {

struct EpochFile {
  std::string inputFile;
  EpochSet set;
  bool writeEpochs = true;  // false: the averages only (`average`)
  EpochAverages averages;
  std::vector<DifferenceWave> differences;
  Provenance provenance;
};

// Atomic: the file appears complete or not at all. Throws OutputError, Cancelled.
void writeEpochFile(const std::string& path, const EpochFile& file, JobContext& ctx);

bool isEpochFile(const std::string& path);

}  // namespace modescope
