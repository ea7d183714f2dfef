// Opening and saving recordings: the one entry point the GUI and the CLI use.
//
// Reading: EDF/EDF+/BDF/BDF+ through EDFlib (strict, paged: samples are read on demand). When
// EDFlib refuses a file that our own header check finds readable, or for formats EDFlib does not
// read (GDF, BrainVision, ...), BioSig converts it in a child process with a time limit (BioSig
// can crash or hang on damaged input; see docs/readers.md) into a temporary ModeScope HDF5 file,
// which is then read. The user is told, as a diagnostic, what was non-compliant. HDF5 files in
// the ModeScope schema (docs/hdf5-schema.md) are read directly.
//
// Writing: HDF5 (ModeScope schema) or EDF+/BDF+ (EDFlib), always to a temporary name in the
// target's folder first and renamed on success, so a failed write leaves nothing that looks
// complete.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"

namespace modescope {

struct OpenOptions {
  // Allow the BioSig child-process fallback.
  bool allowFallback = true;
  // Time limit for the fallback child; a hang past it is reported as unreadable.
  double fallbackTimeoutSeconds = 60.0;
  // The executable that runs the fallback (`modescope-cli biosig-import IN OUT`); "" = the
  // modescope-cli next to the running executable, then $MODESCOPE_CLI, then PATH.
  std::string helperExecutable;
  // Check the samples' plausibility (sample_plausibility.h) and add its warnings to the
  // recording's diagnostics: reads up to 16 Mi samples.
  bool checkSamples = true;
};

// Opens any supported file. Throws InvalidInputError naming the file, the field, what was found
// and what was expected. Never crashes on damaged input.
std::shared_ptr<const Recording> openRecording(const std::string& path,
                                               const OpenOptions& options = {});

enum class OutputFormat { Hdf5, EdfPlus, BdfPlus };
// From the extension: .h5/.hdf5 -> Hdf5, .edf -> EdfPlus, .bdf -> BdfPlus; else
// InvalidParameterError.
OutputFormat outputFormatForPath(const std::string& path);

// Writes all channels and annotations of `rec`. EDF+/BDF+ need one sample rate per data record
// layout (mixed rates are kept when each rate is a whole number of samples per record).
// Reports progress and honours cancellation (the temporary file is removed).
void writeRecording(const Recording& rec, const std::string& path, OutputFormat format,
                    const Provenance& provenance, JobContext& ctx);

// Human-readable list for --help and the README: "EDF, EDF+, BDF, BDF+ (EDFlib); GDF, ...".
std::vector<std::string> supportedInputFormats();

}  // namespace modescope
