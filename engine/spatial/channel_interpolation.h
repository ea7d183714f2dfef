// Interpolation of bad EEG channels by spherical splines (Perrin, Pernier, Bertrand and Echallier
// 1989), as MNE-Python's interpolate_bads (mne/channels/interpolation.py,
// _make_interpolation_matrix) and EEGLAB's eeg_interp(..., 'spherical') compute it: the good
// channels' values are fitted with the spline of engine/montage/scalp_interpolation.h
// (V(r) = c0 + sum_i c_i g(cos(r, r_i)), [G + lambda I, 1; 1^T, 0] [c; c0] = [v; 0]) and the
// field is read at the bad channels' positions. The map from good to bad channels is one matrix
// W (bad x good), so the interpolation is a SpatialFilter with the good channels as inputs and
// the bad ones as outputs: the CPU backend applies it in double, the CUDA backend as one SGEMM
// (ComputeBackend::spatialFilter); nothing here is written twice.
//
// Defaults are MNE's: m = 4 ("stiffness"), 50 Legendre terms, lambda = 1e-5 added to G's diagonal
// ("alpha"), positions normalised onto the unit sphere. MNE inverts the bordered matrix with a
// pseudo-inverse (scipy.linalg.pinv); with lambda = 1e-5 the matrix is far from singular
// (condition ~1e5 for 64 10-10 sites), so the pseudo-inverse equals the inverse that the LU solve
// of SphericalSpline computes. EEGLAB's spheric_spline uses 7 terms and no regularisation: set
// terms = 7 and lambda = 0 to follow it.
//
// Thread rules: plain values and pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/core/recording.h"
#include "engine/method/param_table.h"
#include "engine/spatial/spatial_filter.h"

namespace modescope {

struct SplineInterpolationParams {
  int order = 4;         // m of g(x): Perrin et al. and MNE's stiffness
  int terms = 50;        // Legendre terms of g(x): MNE's n_legendre_terms
  double lambda = 1e-5;  // added to G's diagonal: MNE's alpha
};

// The declarations (engine/method/param_table.h): CLI options --order, --terms, --lambda.
const ParamTable<SplineInterpolationParams>& splineInterpolationParamTable();
// Throws InvalidParameterError naming the key, the value found and the allowed range.
void validateSplineInterpolationParams(const SplineInterpolationParams& p);

// What will be interpolated from what. `filter` is bound (inputChannels = sources) and its outputs
// are named after the bad channels, in the order of `bad`.
struct ChannelInterpolationPlan {
  std::vector<std::size_t> bad;      // recording indices whose samples are replaced
  std::vector<std::size_t> sources;  // recording indices of the good channels used
  double sampleRate = 0.0;           // shared by all of them
  SplineInterpolationParams params;
  SpatialFilter filter;
};

// The sources are MNE's: every EEG channel with a position that is neither in `bad` nor flagged
// bad (ChannelInfo::bad) and has the bad channels' sample rate (channels of other types, without
// positions or at other rates are not used). `alsoExcluded` are further channels marked bad that
// are neither sources nor interpolated (e.g. bad channels without a position that the caller leaves
// as they are). Throws InvalidParameterError ("bad channels") for an empty or repeated list or an
// index out of range; naming every bad channel that has no position (remedy: set a montage or load
// a position file) or mixes sample rates; when fewer than 3 good EEG channels with positions
// remain.
ChannelInterpolationPlan planChannelInterpolation(
    const std::vector<ChannelInfo>& channels, const std::vector<std::size_t>& bad,
    const SplineInterpolationParams& params = {},
    const std::vector<std::size_t>& alsoExcluded = {});

// The interpolation matrix W alone (rows: `to`, columns: `from`), row-major to.size() x
// from.size(): value(to[r]) = sum_c W[r * from.size() + c] value(from[c]). Positions need not be
// unit length. Throws what SphericalSpline throws (fewer than 3 sources, coincident positions).
std::vector<double> splineInterpolationMatrix(const std::vector<Position3>& from,
                                              const std::vector<Position3>& to,
                                              const SplineInterpolationParams& params = {});

}  // namespace modescope
