// The epoch and average job (docs/epochs.md): epochs of the selected channels around the chosen
// event types (engine/epochs/epochs.h), their averages per condition on the backend
// (ComputeBackend::averageEpochs) and the difference waves asked for, with provenance, so every
// front end writes what `modescope-cli epoch` and `average` write (engine/io/hdf5_epochs.h).
//
// Thread rules: runEpochJob runs on a worker thread and reads `rec` through its thread-safe
// source; the backend must not be shared with another job.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/io/hdf5_epochs.h"

namespace modescope {

struct EpochJobSpec {
  EpochSpec epochs;  // epochs.badSegments: segments marked besides the "bad" annotations
  std::vector<std::string> differences;  // "A-B" each
  bool keepEpochs = true;                // false: the file holds the averages only
};

struct EpochJobResult {
  std::shared_ptr<const EpochFile> file;
  std::string backend;
  double wallSeconds = 0.0;
  std::size_t badSegments = 0;  // honoured: the recording's and the spec's, each counted once
};

// The recording's "bad" annotations joined with spec.epochs.badSegments, then extractEpochs,
// averageEpochs and the differences. Throws what those throw.
EpochJobResult runEpochJob(const Recording& rec, const EpochJobSpec& spec, ComputeBackend& backend,
                           JobContext& ctx);

// One line per condition: "T1: 21 epochs kept of 23 (2 peak-to-peak)".
std::vector<std::string> epochSummaryLines(const EpochSet& set);

}  // namespace modescope
