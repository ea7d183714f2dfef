// Multivariate EMD (Rehman and Mandic 2010, memd.m) and noise-assisted MEMD on the CPU, and the
// procedure both backends follow (docs/memd.md):
//
//   X: dims = channels (+ noise channels) rows of n samples; D: K directions (memd_directions.h).
//   r = X
//   while some direction's projection r.d_k has >= 3 extrema, and fewer than maxImfs IMFs:
//     m = r; E = envelopeMean(m)
//     if max|m| < 1e-10 max|X|: stop (memd.m's forced stop)
//     nbit = 0
//     while !stop(E) and nbit < cap: m -= E.mean; E = envelopeMean(m); ++nbit
//     IMF = m; r -= m
//   rows: IMF 1..K, then r.
// envelopeMean(m), redone every sift: for every direction d_k, the projection y = m.d_k; its
// extrema (plateaus collapse to their middle, engine/emd/sift_primitives.h); fewer than 3 extrema
// (or too few to mirror) leaves the direction out; else the extrema are mirrored at both ends
// (NBSYM 2, decided on y) and every channel of m is splined (not-a-knot) through its own values
// at those knots: all channels of a direction share the knots. mean = average over the directions
// kept of (U + L) / 2; amp = average of |U - L| / 2 (norm over channels). No direction kept:
// mean = 0, and sifting stops (memd.m would sift on unchanged; docs/memd.md).
// stop rules (memd_params.h): 'stop' with sigma = |mean| / amp (memd.m divides only when no amp
// is 0, and so does this), 'fix_h', fixed count (cap = fixedSifts; the envelope after the last
// sift is not computed).
// NA-MEMD: noise channel j of draw i = noiseLevel * (mean std of the data channels) *
// Philox(seed).normal(stream (j << 20) | i), or the supplied noise; the noise rows are dropped;
// with several draws the IMFs are averaged per index (a draw with fewer IMFs contributes zeros)
// and the residue is X - sum of the averaged IMFs.
//
// Errors: InvalidParameterError (parameters; fewer than 2 channels without noise channels; too
// few samples; a direction set of the wrong width), InvalidInputError (NaN/Inf, a flat channel),
// Cancelled between sifts.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"  // EmdChannelModes
#include "engine/memd/memd_params.h"

namespace modescope {

struct MemdResult {
  MemdParams params;  // as run (supplied data included)
  double sampleRate = 0.0;
  int64_t firstSample = 0;
  int64_t samples = 0;
  int directions = 0;                // K used
  int dims = 0;                      // channels + noise channels
  std::vector<double> directionSet;  // K x dims, row-major: the directions used
  // Data channels only, in the block's order; every channel has the same rows (IMF k is one
  // scale on every channel: mode alignment).
  std::vector<EmdChannelModes> channels;
  std::vector<int> sifts;  // per IMF (mean over draws, rounded)
  Diagnostics diagnostics;
  Provenance provenance;
  int imfCount() const { return channels.empty() ? 0 : channels.front().imfCount(); }
};

// Rejects what no backend can decompose, with the errors above.
void validateMemdInput(const SignalBlock& block, const MemdParams& params);

// The CPU reference (double, directions in parallel). threads <= 0: all hardware threads.
MemdResult memdCpu(const SignalBlock& block, const MemdParams& params, int threads,
                   JobContext& ctx);

}  // namespace modescope
