// The shared MEMD driver (memd.h gives the procedure): what a backend provides is one
// MemdSiftEngine, which keeps the residue r and the candidate m where it computes and runs
// envelopeMean on them; the IMF loop, the stop decisions, NA-MEMD's noise channels and the
// ensemble average are written once here, so both backends decide alike.
//
// Thread rules: a MemdSiftEngine belongs to one driver call.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/memd/memd.h"

namespace modescope {

// What one envelopeMean found (per direction, and over the samples for the 'stop' rule).
struct MemdEnvelopeStats {
  std::vector<int64_t> extrema;        // per direction: maxima + minima of the projection
  std::vector<int64_t> zeroCrossings;  // per direction
  int kept = 0;                        // directions whose envelopes entered the mean
  int64_t aboveSd = 0;                 // samples with sigma > sd
  int64_t aboveSd2 = 0;                // samples with sigma > sd2
  double maxAbs = 0;                   // max |m| over channels and samples
};

class MemdSiftEngine {
 public:
  virtual ~MemdSiftEngine() = default;
  // r = x (dims x n, channel-major) and the directions (K x dims, row-major).
  virtual void load(const std::vector<double>& x, const std::vector<double>& directions) = 0;
  virtual void startImf() = 0;  // m = r
  // mean and amp of m over the directions; the statistics with params' sd/sd2.
  virtual MemdEnvelopeStats envelopeMean(const MemdParams& params) = 0;
  virtual void subtractMean() = 0;                       // m -= mean
  virtual void finishImf(std::vector<double>& imf) = 0;  // imf = m (dims x n); r -= m
  virtual void residue(std::vector<double>& out) = 0;    // out = r
};

// One multivariate decomposition of x (dims x n): rows (imfs + 1) x dims x n (IMF-major), the
// sift count per IMF, and how many IMFs ended at the sift cap.
struct MemdModes {
  int imfs = 0;
  std::vector<double> rows;
  std::vector<int> sifts;
  int64_t capReached = 0;
  int64_t noDirectionStops = 0;  // sifts that stopped because no direction was kept
};
MemdModes siftMemd(MemdSiftEngine& engine, const std::vector<double>& x, int dims, int64_t n,
                   const std::vector<double>& directions, const MemdParams& params,
                   const JobContext& ctx);

// Makes a backend's engine for dims x n signals and K directions (the backend plans memory here
// and throws OutOfDeviceMemoryError before any work when it cannot).
using MemdEngineFactory =
    std::function<std::unique_ptr<MemdSiftEngine>(int dims, int64_t n, int directions)>;

// The whole method: checks, directions, NA-MEMD noise and draws, the average, the result with
// data channels only.
MemdResult runMemd(const SignalBlock& block, const MemdParams& params,
                   const MemdEngineFactory& makeEngine, JobContext& ctx);

}  // namespace modescope
