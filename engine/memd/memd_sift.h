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
#include <new>
#include <utility>
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

// A vector whose resize() leaves new values uninitialised: the modes of a run are tens of MB,
// written right after by several threads. Zeroing them first, on one thread, took about 20 ms of
// a 130 ms run at 9 rows x 32 x 30,504 (memd_bench --trace on the H200's host, docs/memd.md).
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using MemdRows = std::vector<double, UninitializedAllocator<double>>;

class MemdSiftEngine {
 public:
  virtual ~MemdSiftEngine() = default;
  // r = x (dims x n, channel-major) and the directions (K x dims, row-major).
  virtual void load(const std::vector<double>& x, const std::vector<double>& directions) = 0;
  virtual void startImf() = 0;  // m = r
  // mean and amp of m over the directions; the statistics with params' sd/sd2.
  virtual MemdEnvelopeStats envelopeMean(const MemdParams& params) = 0;
  virtual void subtractMean() = 0;  // m -= mean
  // m is the next IMF: r -= m. The engine keeps the IMF until takeRows, so that a device engine
  // copies the IMFs back after the last one instead of stalling the sifts after every IMF.
  virtual void finishImf() = 0;
  // Appends the IMFs in the order finished, then r: (IMFs + 1) x dims x n values. The engine
  // then holds no IMF (the next load starts a new decomposition).
  virtual void takeRows(MemdRows& rows) = 0;
};

// One multivariate decomposition of x (dims x n): rows (imfs + 1) x dims x n (IMF-major), the
// sift count per IMF, and how many IMFs ended at the sift cap.
struct MemdModes {
  int imfs = 0;
  MemdRows rows;
  std::vector<int> sifts;
  int64_t capReached = 0;
  int64_t noDirectionStops = 0;  // sifts that stopped because no direction was kept
};
MemdModes siftMemd(MemdSiftEngine& engine, const std::vector<double>& x, int64_t n,
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
