// Internal pieces of the CPU EMD family (not part of the engine's public interface): a small
// worker pool, the per-channel drivers of each method and their shared helpers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/emd/emd_params.h"
#include "engine/emd/sifting.h"
#include "engine/parallel/worker_team.h"

namespace modescope::emd_detail {

// A fixed set of worker threads (the caller's thread is worker 0) with one SiftWorkspace each.
// run() hands out items [0, count) dynamically and returns when all are done; which worker runs
// which item is not deterministic, so callers write each item's result to its own slot and
// combine the slots in item order. The first exception thrown by an item (Cancelled included) is
// rethrown by run() after the remaining items are skipped.
class WorkerPool {
 public:
  WorkerPool(int threads, const JobContext* context);

  int size() const { return static_cast<int>(workspaces_.size()); }
  SiftWorkspace& workspace(int worker) { return workspaces_[static_cast<std::size_t>(worker)]; }
  // Sum of the workspaces' capReached counters.
  int64_t capReached() const;
  void resetCapReached();

  void run(int64_t count, const std::function<void(int64_t item, int worker)>& fn);

 private:
  std::vector<SiftWorkspace> workspaces_;
  TeamLease team_;  // engine/parallel/worker_team.h
};

// Sample standard deviation (N - 1 normaliser, as MATLAB's std), two passes in double.
double sampleStd(const double* x, int64_t n);

// Standard normal white noise w[0..n) of `member` of recording channel `channel` (emd.h).
void whiteNoise(uint64_t seed, uint64_t channel, uint64_t member, int64_t n, double* w);

// The noise modes E_k(w_i) of one channel's ensemble, k = 1..: the rows of emd.m's output for
// w_i (IMFs, then the residue when it is not all zero, as iceemdan.m's modes_white_noise{i}),
// at most maxModes rows (0: all). Computed once per channel, in parallel over the members.
struct NoiseModes {
  int64_t samples = 0;
  std::vector<std::vector<double>> rows;  // per member: modes x samples
  std::vector<std::vector<double>> stds;  // per member: std of each mode
  int modes(int member) const {
    return static_cast<int>(stds[static_cast<std::size_t>(member)].size());
  }
  const double* mode(int member, int k) const {  // k is 1-based, as E_k
    return rows[static_cast<std::size_t>(member)].data() +
           static_cast<std::size_t>(k - 1) * static_cast<std::size_t>(samples);
  }
};
NoiseModes computeNoiseModes(const EmdParams& p, uint64_t channel, int64_t n, int maxModes,
                             WorkerPool& pool);

// What one channel's decomposition produced, before conversion to float rows.
struct ChannelDecomposition {
  int rows = 0;
  std::vector<double> data;  // rows x n
  std::vector<int> sifts;    // rows - 1 entries
  int64_t degenerateMembers = 0;
  int64_t capReached = 0;        // signal extractions that hit maxSifts
  int64_t noiseCapReached = 0;   // noise extractions that hit maxSifts
  int64_t extractions = 0;       // signal extractions run (for the diagnostics' ratio)
  bool imfLimitReached = false;  // an automatic count stopped at imfLimit, not by the residue
};

// Progress of one channel: stage text and fraction of the channel's work done.
using ChannelProgress = std::function<void(double fraction, const std::string& stage)>;

ChannelDecomposition eemdChannel(const double* x, int64_t n, uint64_t channel, const EmdParams& p,
                                 WorkerPool& pool, const ChannelProgress& progress);
ChannelDecomposition ceemdanChannel(const double* x, int64_t n, uint64_t channel,
                                    const EmdParams& p, WorkerPool& pool,
                                    const ChannelProgress& progress);
ChannelDecomposition iceemdanChannel(const double* x, int64_t n, uint64_t channel,
                                     const EmdParams& p, WorkerPool& pool,
                                     const ChannelProgress& progress);

// The number of IMFs EEMD extracts for n samples: maxImfs, or floor(log2 n) - 1 for 0.
int eemdImfCount(const EmdParams& p, int64_t n);

// Throws InvalidParameterError when the noise modes of one channel (modes x members x n doubles)
// would not fit in half of the physical memory, saying how many members would.
void checkEnsembleMemory(const EmdParams& p, int64_t n);

}  // namespace modescope::emd_detail
