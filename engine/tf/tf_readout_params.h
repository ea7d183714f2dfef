// What a time-frequency run reads from its images and how it stores them, declared once
// (engine/method/param_table.h): `modescope-cli tfr`'s options, the pipeline step's "readout"
// object (docs/pipelines.md) and the HDF5 provenance come from this table.
//
// Thread rules: plain values; the table is built once and read-only.
#pragma once

#include "engine/method/param_table.h"
#include "engine/tf/tf_analysis.h"

namespace modescope {

// At most this many ridges per channel: each costs one pass over the image, and EEG rarely has
// more than a few concurrent rhythms worth following.
inline constexpr int kTfMaxRidges = 16;
// At most this many bins either side of a ridge belong to its mode.
inline constexpr int kTfMaxRidgeHalfWidth = 64;

struct TfReadoutParams {
  int ridges = 0;              // ridges per channel to extract (0: none)
  TfRidgeParams ridge;         // penalty and half-width; ridge.count is `ridges`
  bool reconstruct = false;    // keep the signal reconstructed from the image (hop 1 only)
  bool complexValues = false;  // store the complex values instead of |T|
};

const ParamTable<TfReadoutParams>& tfReadoutParamTable();

// The ridge parameters with their count set from `ridges`.
TfRidgeParams tfRidgeRequest(const TfReadoutParams& r);

}  // namespace modescope
