// Burg AR spectra and event-related r^2 maps in HDF5, schema "modescope-ar/1" (docs/ar.md,
// "HDF5 file"): the selected channels, the spatial filter when one was applied, the
// sliding-window spectra (channels x windows x bins, or x order for coefficients) with the
// prediction error power, and, when two event classes were compared, the r^2 / signed r^2 and
// per-class mean maps (rows x bins) with every trial's onset and features; diagnostics and
// provenance. `modescope-cli ar` writes it; tests and the GUI read it back.
//
// Thread rules: every function takes the process-wide HDF5 lock (engine/io/hdf5_util.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/ar/ar_result.h"
#include "engine/ar/event_features.h"
#include "engine/core/diagnostics.h"
#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/io/hdf5_ica.h"
#include "engine/spatial/spatial_filter.h"

namespace modescope {

// The channel table is the ICA file's (recording index, name, label, type, unit, position).
using ArFileChannel = IcaFileChannel;

struct ArFile {
  std::string inputFile;                // the recording ("" for generated data)
  std::vector<ArFileChannel> channels;  // the selected recording channels, in selection order
  std::string signalUnit;               // unit of the selected channels' samples ("uV")
  std::string presetName;               // the preset the parameters started from ("" = none)

  // The spatial filter applied before the spectra (inputs bound to recording channels), and how
  // it was asked for ("car", "small-laplacian, equal weights", "file m.csv"); absent: none.
  std::optional<SpatialFilter> spatialFilter;
  std::string spatialFilterSpec;

  // One name per spectra row: the channels' names, or the filter's output names.
  std::vector<std::string> rowNames;
  // The spectra of the selection (sampleRate, windowSamples, stepSamples, firstSample in the
  // recording, windowStarts, binCenters, values, noiseVariance, params). `channels` holds the
  // recording indices of the rows, or 0..C_out-1 when a spatial filter made the rows. Its
  // `diagnostics` are not stored separately (see `diagnostics` below).
  ArSpectrumResult spectra;

  // The event comparison when two classes were given. Its `diagnostics` are not stored
  // separately either. Trial onsets and first samples are from the recording start.
  std::optional<EventR2Result> events;
  double trialOffsetSeconds = 0.0;  // EventFeatureOptions::offsetSeconds used
  double trialLengthSeconds = 0.0;  // EventFeatureOptions::lengthSeconds used (<= 0: durations)

  Diagnostics diagnostics;  // everything noticed: spectra, events, the command
  Provenance provenance;
};

// Writes `file` to `path` atomically (a failure or a cancel leaves nothing there). Throws
// InvalidParameterError when shapes disagree (values vs rows x windows x values per window, row
// names vs rows, noise variance, filter matrix vs its names, r^2 maps vs rows x bins, trial
// features vs trials x rows x bins), OutputError when the file cannot be written, Cancelled.
void writeArFile(const std::string& path, const ArFile& file, JobContext& ctx);

// True if `path` is an HDF5 file whose root says modescope_schema = "modescope-ar/<n>".
bool isArFile(const std::string& path);

// Reads a file written by writeArFile. Throws InvalidInputError naming the file and the object
// for a missing, non-HDF5, damaged or foreign file, a newer schema version, shapes that
// disagree and unknown enum names.
ArFile readArFile(const std::string& path);

}  // namespace modescope
