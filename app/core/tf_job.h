// The time-frequency job (docs/time-frequency.md): the selected channels over a time range,
// ComputeBackend::timeFrequency on them (spectrogram or synchrosqueezing, engine/tf/tf_cpu.h),
// then what the user asked to read from the images (ridges and their modes, the reconstructed
// signal) and the Renyi entropy, with the channel table and provenance that the HDF5 file
// (engine/io/hdf5_tf.h) needs, so every front end writes what `modescope-cli tfr` writes.
//
// Thread rules: plain values and re-entrant functions. runTfJob runs on a worker thread and reads
// `rec` (whose source is thread-safe); the backend must not be shared with another job.
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
#include "engine/io/hdf5_tf.h"
#include "engine/tf/tf_analysis.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_readout_params.h"

namespace modescope {

struct TfJobSpec : Selection {  // channels, start, duration
  TfParams params;              // params.rows is ignored (the block holds `channels`)
  TfReadoutParams readout;      // ridges, reconstruction and storage (declared once)
};

// How the readout asks the image to be stored in HDF5.
inline TfStorage tfStorage(const TfReadoutParams& r) {
  return r.complexValues ? TfStorage::Complex : TfStorage::Magnitude;
}

// Every check that needs no samples, with the engine's messages: channels (at least one, known,
// one rate), validateTfParams, the range inside the recording, the window within the selection,
// the rate high enough for the frequency range, the image within spec.params.maxBytes (naming its
// size) when it is held (not for tfJobStreams(spec): the file gets it tile by tile), and
// reconstruction with hop 1 only. Returns the image size in bytes. Throws
// InvalidParameterError.
std::size_t checkTfJob(const Recording& rec, const TfJobSpec& spec);

struct TfJobResult {
  std::shared_ptr<const TfFile> run;  // what writeTfFile takes (method "tfr" provenance)
  std::string backend;                // BackendInfo::describe()
  double wallSeconds = 0.0;
};

// checkTfJob, extractBlock, backend.timeFrequency, ridges, reconstruction, entropy, names.
// Progress: "reading samples" at 0, then the backend's stages. Throws what those throw.
TfJobResult runTfJob(const Recording& rec, const TfJobSpec& spec, ComputeBackend& backend,
                     JobContext& ctx);

// Whether runTfJobToFile serves the spec: nothing is read from the whole image (no ridges, no
// reconstruction), so it can go to the file tile by tile.
inline bool tfJobStreams(const TfJobSpec& spec) {
  return spec.readout.ridges == 0 && !spec.readout.reconstruct;
}

// Refuses a streamed image of `bytes` that the disk holding `path` cannot take (`freeBytes`
// available there): InvalidParameterError naming both sizes and how to shrink the image.
void checkTfFileFits(std::size_t bytes, std::size_t freeBytes, const std::string& path);

// The job for a file when tfJobStreams(spec): the image goes from the backend to `path` tile by
// tile (ComputeBackend::timeFrequencyTiles, writeTfFileStreamed) and is never held, so its size
// is bounded by the disk (checkTfFileFits against the free space where `path` goes), not by
// spec.params.maxBytes (the CPU holds one channel's image within it). The Renyi entropies are
// summed from the tiles. Returns the run with the grid and everything but the image (result.values
// empty). A failure or cancel leaves no file. Throws what runTfJob throws and what
// writeTfFileStreamed throws.
TfJobResult runTfJobToFile(const Recording& rec, const TfJobSpec& spec, ComputeBackend& backend,
                           const std::string& path, TfStorage storage, JobContext& ctx);

// The provenance parameter list: the declared parameters (tfParamTable().describe), then what
// the run resolved (ran.*: sigma, grid, ridges).
std::vector<std::pair<std::string, std::string>> tfProvenanceParameters(const TfResult& r,
                                                                        const TfJobSpec& spec);

}  // namespace modescope
