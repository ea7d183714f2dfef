// Single-signal EMD sifting in double precision on the CPU: the building blocks of the CPU
// reference (emd_cpu.cpp) on top of the shared primitives (sift_primitives.h). Each function
// follows emd.m (Rilling and Flandrin, 2007) step for step, as the procedure in emd.h writes it;
// the CUDA backend mirrors the same steps, so keep them literal.
//
// Thread rules: the functions are reentrant; a SiftWorkspace belongs to one thread at a time (one
// per worker, reused across calls so a worker allocates once).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/emd/emd_params.h"
#include "engine/emd/sift_primitives.h"

namespace modescope {

// Reusable buffers of one thread's sifting. Grown on demand, never shrunk.
struct SiftWorkspace {
  std::vector<uint8_t> flags;       // extremum flag per sample
  std::vector<int32_t> imax, imin;  // extremum sample indices, ascending
  std::vector<int32_t> knotT;       // one envelope's knots (mirrored ones included)
  std::vector<double> knotY, slopes, work;
  std::vector<int32_t> knotT2;  // the other envelope's knots
  std::vector<double> knotY2, slopes2;
  std::vector<double> mean;               // mean envelope of the current candidate
  std::vector<double> residue;            // EMD's running residue (empiricalModes)
  std::vector<double> scratch, scratch2;  // free for the callers' per-member signals
  // When set, extractImf() calls context->checkpoint() before every sifting iteration, so a
  // cancel takes effect within one iteration (throws Cancelled).
  const JobContext* context = nullptr;
  // Counters a caller may read after extractImf()/empiricalModes() (never reset by them):
  int64_t capReached = 0;  // extractions that stopped at maxSifts (Rilling/SNumber) unconverged
};

// The mean envelope of x[0..n) and the statistics of emd.m's stop tests:
// extrema (classifyRun over run starts), zero crossings, mirrored boundaries (NBSYM 2), the
// not-a-knot spline slopes of both envelopes, their values at every sample, mean = (U + L) / 2,
// and the counts of samples whose stopRatio exceeds rule.threshold1 / rule.threshold2.
// Returns false (mean all zero, stats.envelopeFailed, extremum and zero-crossing counts still
// filled) when x has fewer than 3 extrema or mirrorBoundaries fails (emd.m's catch branch).
// mean: n values. n < 2^31.
bool envelopeMean(const double* x, int64_t n, const StopRule& rule, double* mean,
                  sift::SiftStats& stats, SiftWorkspace& ws);

// One IMF of y[0..n) (emd.m's inner loop, see emd.h):
//   m = y; stats = envelopes(m)
//   if m has < 3 extrema, or max|m| < 1e-10 max|y|: return -1 (no IMF; imf holds y)
//   nbit = 0
//   while !stopSifting(stats) and nbit < cap: m -= mean; ++nbit; (if nbit < cap) envelopes(m)
//   imf = m; return nbit
// cap = rule.fixedSifts for FixedSifts (whose stop test only stops on an envelope failure),
// rule.maxSifts otherwise. The stop test is evaluated on each candidate before it is updated; the
// last update is not followed by an envelope when nbit reaches the cap. 0 means y already is an
// IMF by the stop rule. imf: n values (may not alias y). Increments ws.capReached when a Rilling
// or S-number extraction ends at the cap without meeting its stop test.
int extractImf(const double* y, int64_t n, const StopRule& rule, double* imf, SiftWorkspace& ws);

// EMD of x[0..n) (emd.m's outer loop): IMFs until the residue has fewer than 3 extrema, or
// max|residue| < 1e-10 max|x| (emd.m's forced stop), or maxImfs IMFs (0: automaticImfLimit(n),
// emd_params.h).
// rows receives (K + 1) x n values, row-major: IMF 1..K then the residue (possibly all zero).
// sifts receives K sift counts. Returns K.
int empiricalModes(const double* x, int64_t n, const StopRule& rule, int maxImfs,
                   std::vector<double>& rows, std::vector<int>& sifts, SiftWorkspace& ws);

}  // namespace modescope
