// The ICA job that the CLI (`modescope-cli ica`) and the GUI run: check the request before any
// sample is read, extract the selection, run extended Infomax on the chosen backend
// (ComputeBackend::infomax: the CPU in double, the GPU on tensor cores) and fill in the
// provenance.
//
// Thread rules: runIcaJob runs on a worker thread; it reads `rec` (whose source is thread-safe)
// and returns a value that the caller owns.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/core/selection.h"
#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_params.h"
#include "engine/io/hdf5_ica.h"

namespace modescope {

struct IcaJobSpec : Selection {  // channels, start, duration
  IcaParams params;
  std::string presetName;                       // recorded in the provenance ("" = none)
  std::string inputFile;                        // recorded in the file ("" = rec.sourcePath)
  int threads = 0;                              // CPU backend threads; <= 0: hardware concurrency
  BackendChoice backend = BackendChoice::Auto;  // used by the overload without a backend
};

struct IcaJobResult {
  std::shared_ptr<IcaFile> file;  // what writeIcaFile stores
  std::string backend;            // BackendInfo::describe(): "CPU, N threads", "GPU: NVIDIA ..."
  bool onGpu = false;
  std::string backendNote;   // why auto fell back to the CPU ("" otherwise)
  double wallSeconds = 0.0;  // reading the selection included
};

// validateIcaParams and the selection (at least 2 channels that exist and share one positive rate,
// start inside the recording, at least 2 samples). Throws InvalidParameterError naming the
// parameter.
void checkIcaJob(const Recording& rec, const IcaJobSpec& spec);

// checkIcaJob, extractBlock, backend.infomax. Progress: reading 0-5 %, ICA 5-100 % ("step k,
// change x"). Throws what those throw (InvalidParameterError for too few samples with the count
// needed, InvalidInputError for NaN/Inf, OutOfDeviceMemoryError, Cancelled).
IcaJobResult runIcaJob(const Recording& rec, const IcaJobSpec& spec, ComputeBackend& backend,
                       JobContext& ctx);
// The same on the backend spec.backend chooses (chooseBackend; the CPU with spec.threads).
// A CUDA request without a usable GPU throws the selection's error.
IcaJobResult runIcaJob(const Recording& rec, const IcaJobSpec& spec, JobContext& ctx);

// Every parameter with its unit, the preset first when there is one.
std::vector<std::pair<std::string, std::string>> icaProvenanceParameters(
    const IcaResult& result, const std::string& presetName);

}  // namespace modescope
