// The one MEMD / NA-MEMD job, run by the CLI (`modescope-cli memd`) and by pipelines (step
// "memd"): cut the selection out of the recording, decompose all its channels together on the
// chosen backend, and record the provenance (parameters from memdParamTable().describe()). No Qt.
//
// Thread rules: runMemdJob runs on the engine thread; the backend must not be used by another job
// meanwhile. checkMemdJob is pure.
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
#include "engine/memd/memd.h"

namespace modescope {

struct MemdJobSpec : Selection {  // channels, start, duration
  MemdParams params;
  std::string presetName;     // for provenance ("" = none)
  std::string inputFile;      // for provenance; "" = rec.sourcePath
  std::string directionFile;  // for provenance when the directions were supplied
  std::string noiseFile;      // for provenance when the noise was supplied
};

struct MemdJobResult {
  std::shared_ptr<const MemdResult> modes;  // provenance filled
  double decomposeSeconds = 0.0;
  double wallSeconds = 0.0;
  std::string backend;  // backend.info().describe()
};

// What can be checked before reading samples: the parameters, the selection (channels exist,
// share one rate, at least 2 without noise channels), and the length. Throws
// InvalidParameterError naming the parameter.
void checkMemdJob(const Recording& rec, const MemdJobSpec& spec);

// checkMemdJob, extractBlock, backend.memd. Progress: reading 0-5 %, decomposition 5-100 %.
MemdJobResult runMemdJob(const Recording& rec, const MemdJobSpec& spec, ComputeBackend& backend,
                         JobContext& ctx);

// The modes as an EmdResult (a copy), for what the EMD family's tools take: IMF cleaning
// (imf_reconstruction.h), the Hilbert-Huang transform. The method is recorded in provenance.
EmdResult memdModesAsEmd(const MemdResult& modes);

// Provenance parameters: the preset, every applicable declaration, then what the run resolved
// (ran.directions, ran.channels with noise, ran.imfs) and the supplied files.
std::vector<std::pair<std::string, std::string>> memdProvenanceParameters(const MemdJobSpec& spec,
                                                                          const MemdResult* result);

}  // namespace modescope
