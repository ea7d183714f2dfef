// What a stage's member statuses tell the run's diagnostics (cuda/emd_methods.cu): members that
// gave no IMF, and whether a member reached the sift cap. The statuses are copied into
// page-locked buffers behind the stage's sifting and counted when the next stage queues its own,
// not at once: copied into pageable memory and waited for, each stage's statuses drained the
// stream, and the device idled while the host counted and queued the next launches (one of the
// five such waits per ICEEMDAN stage; cuda_timeline, H200, docs/emd.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuda/device_memory.cuh"
#include "cuda/emd_sifter.cuh"

namespace modescope::cuda {

class StageStatusTally {
 public:
  // `signals`: the most members a stage has; `stream`: the run's.
  StageStatusTally(int signals, cudaStream_t stream)
      : stream_(stream),
        status_(static_cast<std::size_t>(signals)),
        sifts_(static_cast<std::size_t>(signals)) {}
  // Waits for a copy still in flight into the page-locked buffers before they are freed (its
  // error, if any, is the run's to report).
  ~StageStatusTally() { cudaEventSynchronize(copied_.get()); }
  StageStatusTally(const StageStatusTally&) = delete;
  StageStatusTally& operator=(const StageStatusTally&) = delete;

  // Queues the copy of `count` members' statuses (and their sift counts when cap > 0: a member
  // that finished with at least `cap` sifts reached the cap) behind the work on the stream.
  // countDegenerate[c] (channels of `members` members each; empty: none): whether channel c's
  // members without an IMF are counted as degenerate. The tally before it is counted first.
  void queue(const int* status, const int* sifts, int count, int members, int cap,
             std::vector<std::uint8_t> countDegenerate) {
    settle();
    copyDown(status_.get(), status, count);
    if (cap > 0) copyDown(sifts_.get(), sifts, count);
    copied_.record(stream_);
    pending_ = Pending{count, members, cap, std::move(countDegenerate)};
    hasPending_ = true;
  }

  // Counts the queued statuses (waiting for their copy); the run calls it before it reports.
  void settle() {
    if (!hasPending_) return;
    hasPending_ = false;
    copied_.synchronize();
    const Pending& p = pending_;
    for (int b = 0; b < p.count; ++b) {
      const int st = status_.get()[b];
      if (p.cap > 0 && st == kSiftDone && sifts_.get()[b] >= p.cap) capReached_ = true;
      if (!p.countDegenerate.empty() && p.countDegenerate[b / p.members] && st == kSiftNoImf) {
        ++degenerate_;
      }
    }
  }

  std::int64_t degenerate() const { return degenerate_; }
  bool capReached() const { return capReached_; }

 private:
  struct Pending {
    int count = 0, members = 1, cap = 0;
    std::vector<std::uint8_t> countDegenerate;
  };

  void copyDown(int* dst, const int* src, int count) {
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(count) * sizeof(int),
                                       cudaMemcpyDeviceToHost, stream_));
  }

  cudaStream_t stream_;
  PinnedBuffer<int> status_, sifts_;
  Event copied_;
  Pending pending_;
  bool hasPending_ = false;
  std::int64_t degenerate_ = 0;
  bool capReached_ = false;
};

}  // namespace modescope::cuda
