// The one EMD-family decomposition job, run by the CLI (`modescope-cli emd`) and by the GUI's
// "Analysis > Decompose (EMD family)" (through app/gui/emd_job.h, which only maps the dialog's
// request onto EmdJobSpec): cut the selection out of the recording, decompose it on the chosen
// backend, optionally compute its Hilbert-Huang transform, and record the provenance. No Qt.
//
// Thread rules: runEmdJob runs on the engine thread (it is long); the backend must not be used
// by another job meanwhile. The other functions are pure.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/core/selection.h"
#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_params.h"
#include "engine/emd/emd_result.h"
#include "engine/hht/hht.h"

namespace modescope {

struct EmdJobSpec : Selection {  // channels, start, duration
  EmdParams params;
  std::string presetName;  // the preset the parameters started from ("" = none), for provenance
  std::optional<HhtParams> hht;  // the Hilbert-Huang transform too, when set
  std::string inputFile;         // for provenance; "" = rec.sourcePath
};

struct EmdJobResult {
  std::shared_ptr<const EmdResult> modes;  // provenance filled
  std::shared_ptr<const HhtResult> hht;    // null when spec.hht was not set
  double decomposeSeconds = 0.0;           // wall time of backend.decompose
  double hhtSeconds = 0.0;                 // wall time of backend.hilbertHuang
  double wallSeconds = 0.0;                // the whole job (reading the selection included)
  std::string backend;                     // backend.info().describe()
};

// Checks what can be checked before reading any samples: validateEmdParams, the selection
// (channels exist and share one rate, the range lies inside the recording) and the HHT
// parameters that do not need the modes (bins >= 1, 0 <= fMin < fMax <= Nyquist, log scale with
// fMin > 0, edges that leave samples). Throws InvalidParameterError naming the parameter.
void checkEmdJob(const Recording& rec, const EmdJobSpec& spec);

// The point of the job's progress bar where the decomposition ends and the Hilbert-Huang
// transform starts (the HHT is one FFT pass per IMF, far cheaper than sifting an ensemble).
constexpr double kEmdJobDecomposeEnd = 0.9;

// checkEmdJob, extractBlock, backend.decompose, then backend.hilbertHuang when spec.hht is set.
// Progress: reading 0-5 %, decomposition 5-90 % (5-100 % without HHT), HHT 90-100 %. Throws
// what those throw (InvalidParameterError, InvalidInputError for NaN/Inf or constant channels,
// OutOfDeviceMemoryError, DeviceError, Cancelled).
EmdJobResult runEmdJob(const Recording& rec, const EmdJobSpec& spec, ComputeBackend& backend,
                       JobContext& ctx);

// The provenance's parameter list: every parameter with its unit ("noise_std" -> "0.2 x std(x)",
// "hht_f_max" -> "80 Hz"), the preset first when there is one.
std::vector<std::pair<std::string, std::string>> emdProvenanceParameters(
    const EmdParams& params, const std::string& presetName, const HhtParams* hht);

}  // namespace modescope
