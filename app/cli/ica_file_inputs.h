// What `ica-flags` and `ica-apply` share: the decomposition read from its file with the recording
// it was computed on, and the automatic flags of it (from the detectors or a components.tsv).
//
// Thread rules: called on the CLI job's thread (runCliJob).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_flags.h"
#include "engine/io/hdf5_ica.h"

namespace modescope::cli {

struct IcaWithRecording {
  IcaFile ica;
  std::string input;  // the recording opened
  std::shared_ptr<const Recording> recording;
};

// Reads `icaPath` and opens `input`, or when that is empty the recording the ICA file names
// (UsageError when it names none). Progress "reading ICA.h5"; a checkpoint after opening.
IcaWithRecording readIcaWithRecording(const std::string& icaPath, const std::string& input,
                                      JobContext& ctx);

// Refuses (InvalidParameterError on --output) an output that would replace the ICA file.
void refuseOutputOverIcaFile(const std::string& output, const std::string& icaPath);

// The flags of `loaded`: read from `tsvPath` when given (ours or mne-icalabel's), else the
// detectors run at `params`.
IcaFlags icaFlagsOf(const IcaWithRecording& loaded, const std::optional<std::string>& tsvPath,
                    const IcaFlagParams& params, JobContext& ctx);

}  // namespace modescope::cli
