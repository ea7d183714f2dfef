// Time-frequency results in HDF5, schema "modescope-tf/1" (docs/time-frequency.md, "File
// schema"): the parameters, the grid (frequencies, column times), the channel table, the image of
// every channel (magnitudes |T| as float32 by default, or the complex values on request), the
// Renyi entropy per channel, and when asked the ridges, their modes and the reconstructed signal,
// with diagnostics and provenance. `modescope-cli tfr` writes it; h5py reads it.
//
// Thread rules: the functions take the process-wide HDF5 lock (engine/io/hdf5_util.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/io/hdf5_channel_table.h"
#include "engine/tf/tf_result.h"
#include "engine/tf/tf_tiles.h"

namespace modescope {

enum class TfStorage {
  Magnitude,  // "magnitude": C x T x K float32, |T|
  Complex,    // "values": C x T x K compound {r, i} float32 (h5py reads complex64)
};

struct TfFile {
  std::string inputFile;
  std::vector<ResultFileChannel> channels;  // image order
  TfResult result;
  std::vector<double> renyiEntropy;  // per channel, alpha = 3 (bits)
  // Optional: per channel R ridges of T image rows (C x R x T), their modes (C x R x T) and the
  // reconstructed signal (C x T). Empty when not asked for.
  std::vector<std::vector<std::vector<int>>> ridges;
  std::vector<std::vector<std::vector<double>>> ridgeModes;
  int ridgeHalfWidth = 0;
  std::vector<std::vector<double>> reconstruction;
  Provenance provenance;
};

// The bytes the image will take in the file (before HDF5's few KiB of metadata).
std::size_t tfFileImageBytes(const TfResult& r, TfStorage storage);

// Writes `file` to `path` atomically (a failure or a cancel leaves nothing there). Throws
// InvalidParameterError when shapes disagree, OutputError when the file cannot be written,
// Cancelled (checked between channels).
void writeTfFile(const std::string& path, const TfFile& file, TfStorage storage, JobContext& ctx);

// Writes a file whose image arrives tile by tile and is never held (64 channels x 10 minutes at
// hop 1 is 20 GB of magnitudes): `file` has the grid (result.values empty), the channel table and
// no ridges or reconstruction; stream(sink) runs the transform (ComputeBackend::
// timeFrequencyTiles with the storage's values), each tile written where it belongs as it comes,
// and before it returns fills file.renyiEntropy (one per channel), result.diagnostics and the
// provenance, which are written after it. Atomic as writeTfFile: a failure, a cancel or a throw of
// `stream` leaves nothing at `path`. Throws as writeTfFile.
void writeTfFileStreamed(const std::string& path, TfFile& file, TfStorage storage,
                         const std::function<void(const TfTileSink&)>& stream, JobContext& ctx);

// True if `path` is an HDF5 file whose root says modescope_schema = "modescope-tf/<n>".
bool isTfFile(const std::string& path);

}  // namespace modescope
