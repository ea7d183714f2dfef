// The decomposition job of "Analysis > Decompose (EMD family)": what the dialog asks for, what
// the job returns, and the function the engine thread runs (cut the block, decompose, Hilbert-
// Huang transform, provenance). Kept apart from the widgets so it can be tested with any backend.
//
// Thread rules: runDecomposition runs on the engine thread; the values are plain.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_params.h"
#include "engine/emd/emd_result.h"
#include "engine/hht/hht.h"

namespace modescope {

struct DecomposeRequest {
  EmdParams params;
  HhtParams hht;
  std::vector<std::size_t> channels;  // indices into the recording
  double startSeconds = 0.0;
  double durationSeconds = -1.0;         // < 0: to the end
  std::optional<BackendChoice> backend;  // nullopt: the Compute menu's choice
  std::string presetName;                // "" when the fields differ from every preset
};

// The job's result (JobOutcome::result): the modes and their Hilbert-Huang transform.
struct DecompositionOutcome {
  std::shared_ptr<const EmdResult> modes;
  std::shared_ptr<const HhtResult> hht;
};

// Fraction of the job's progress bar given to the decomposition (the HHT is one FFT pass per
// IMF, far cheaper than sifting an ensemble).
constexpr double kDecomposeProgressShare = 0.9;

// Cuts the request's block out of `rec`, runs backend.decompose() and backend.hilbertHuang(),
// and fills the modes' provenance (method "emd", every parameter with its unit, the backend, the
// input file, the selection). Throws what extractBlock and the backend throw; Cancelled at the
// backend's checkpoints and between the stages.
DecompositionOutcome runDecomposition(const Recording& rec, const DecomposeRequest& request,
                                      ComputeBackend& backend, JobContext& ctx,
                                      const std::string& inputFile);

// "ICEEMDAN of Cz, O1 (10 s from 5 s)" for job titles and tabs.
std::string describeDecomposition(const Recording& rec, const DecomposeRequest& request);

}  // namespace modescope
