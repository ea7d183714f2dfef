// The entropy-matrix job of "Analysis > Entropy matrices (Cross-ApEn / SampEn)" (docs/entropy.md,
// "In the window"): the selected channels over a time range, cut into epochs, and
// ComputeBackend::entropyMatrices on them (docs/entropy.md), with the channel table, selection and
// provenance that the HDF5 file (engine/io/hdf5_entropy.h) and the views need, so a GUI run exports
// exactly what `modescope-cli xapen` writes.
//
// Thread rules: plain values and re-entrant functions. runEntropyJob runs on a worker thread and
// reads `rec` (whose source is thread-safe); the backend must not be shared with another job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/core/selection.h"
#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/entropy/entropy_params.h"
#include "engine/io/hdf5_entropy.h"

namespace modescope {

struct EntropyJobSpec : Selection {  // channels, start, duration
  // measure, m, r, SD convention, bias and epochSamples (N in samples; 0: the whole selection).
  // params.rows is ignored (the block holds exactly `channels`).
  EntropyParams params;
};

// Samples of the selection at the channels' rate (what extractBlock would read); 0 when the
// channels or the range are unusable.
int64_t entropySelectionSamples(const Recording& rec, const EntropyJobSpec& spec);
// Epochs the spec gives: floor(selection / N), 1 for N = 0, 0 when unusable.
int64_t entropyEpochCount(const Recording& rec, const EntropyJobSpec& spec);

// Every check that needs no samples, with the engine's messages: channels (at least one, known,
// one rate, at most kEntropyMaxChannels), validateEntropyParams, the range inside the recording,
// the epoch not longer than the selection (and, for a whole-selection epoch, within the engine's
// limits), epochs x channels^2 within kEntropyMaxEntries. Throws InvalidParameterError.
void checkEntropyJob(const Recording& rec, const EntropyJobSpec& spec);

// Refusals that name the channel (the engine knows only rows): a NaN/Inf sample
// (InvalidInputError with the channel, sample and time) or a channel constant over the whole
// selection (InvalidParameterError: leave it out).
// `cliInput` non-empty: `modescope-cli xapen`'s wording: the input is `cliInput` (named in the
// constant-channel message too, a study has several) and the remedies say "with --channels".
void checkEntropyBlock(const Recording& rec, const SignalBlock& block,
                       const std::string& cliInput = {});

// The 0-based epochs of N = epochSamples samples (0: one epoch of all) from `firstSample` that
// overlap a bad segment of `rec` (engine/core/bad_marks.h).
std::vector<int64_t> badSegmentEpochs(const Recording& rec, int64_t firstSample, int64_t samples,
                                      double sampleRate, int64_t epochSamples);
// How many of the spec's epochs overlap a bad segment (what the dialog tells before running).
int64_t entropyBadSegmentEpochCount(const Recording& rec, const EntropyJobSpec& spec);

// The epochs of `block` (params.epochSamples each, from its first sample) that overlap a bad
// segment of `rec`, removed when params.excludeBadSegments: the kept epochs are joined in order,
// the unused tail dropped. The matrices of the kept epochs are then exactly those the whole block
// gives for them (epochs are disjoint, z-scored one by one, and no template crosses an epoch
// boundary). Returns the provenance lines ("ran.badSegments"): how many epochs were left out and
// which (1-based), or that the segments were kept. `keptStarts` (filled when epochs were
// removed): the kept epochs' first samples relative to the original block, for the result's
// epochStarts. Throws InvalidParameterError when every epoch overlaps a bad segment, or when the
// whole selection is one epoch (epochSamples 0) and overlaps one: a shorter epoch lets the
// overlapping ones go.
std::vector<std::pair<std::string, std::string>> excludeBadSegmentEpochs(
    const Recording& rec, SignalBlock& block, const EntropyParams& params,
    std::vector<int64_t>* keptStarts = nullptr);

struct EntropyJobResult {
  // One recording as the HDF5 writer takes it: channel table, selection, the result (named
  // channels) and provenance (method "xapen").
  std::shared_ptr<const EntropyFileRecording> run;
  std::string backend;  // BackendInfo::describe()
  double wallSeconds = 0.0;
};

// checkEntropyJob, extractBlock, checkEntropyBlock, backend.entropyMatrices, names. Progress:
// "reading samples" at 0, then the backend's stages. Throws what those throw (Cancelled too).
EntropyJobResult runEntropyJob(const Recording& rec, const EntropyJobSpec& spec,
                               ComputeBackend& backend, JobContext& ctx);

// "Cross-ApEn m=1 r=0.2, 8 channels, 4 x 256 samples" style one-line description (`epochs` and
// the resolved N from the result when known, else from the spec).
std::string describeEntropyJob(const EntropyParams& params, std::size_t channels, int64_t epochs,
                               int64_t epochSamples);

// The provenance parameter list of a result (as `modescope-cli xapen` records it).
std::vector<std::pair<std::string, std::string>> entropyProvenanceParameters(
    const EntropyMatrixResult& r);

}  // namespace modescope
