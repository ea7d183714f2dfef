// A small pool of host threads for the memory-bound host side of GPU transfers (internal to
// cuda/): copying between the caller's pageable memory and pinned staging buffers, and the
// reference signal of blocks too large for the device. One core copies at ~10 GB/s, less than
// the host-device link carries (~50 GB/s on PCIe 5.0 x16), so the copies are split over several
// cores.
//
// The threads are a WorkerTeam (engine/parallel/worker_team.h) leased for the pool's life; this
// class adds the split of a copy into pieces and the streaming-store copy itself.
//
// Thread rules: run() and copy() are called by one thread at a time (the backend's job thread),
// which takes part in the work; they return when every part is done.
#pragma once

#include <cstddef>
#include <functional>

#include "engine/parallel/worker_team.h"

namespace modescope::cuda {

class HostThreadPool {
 public:
  // `threads` participants including the caller (>= 1): threads - 1 workers are started.
  explicit HostThreadPool(int threads);
  ~HostThreadPool();
  HostThreadPool(const HostThreadPool&) = delete;
  HostThreadPool& operator=(const HostThreadPool&) = delete;

  int threads() const noexcept { return threads_; }

  // fn(part) for every part in [0, parts), spread over the pool and the caller. Rethrows the
  // first exception a part threw (after every part has finished or been skipped: parts not yet
  // started when it was thrown are skipped).
  void run(int parts, const std::function<void(int)>& fn);

  // memcpy of `bytes` (non-overlapping), split into up to threads() contiguous pieces of at least
  // 1 MiB, written with streaming stores where the CPU has them (see the .cpp). The copy is
  // complete and visible to other agents (the DMA engine) when it returns.
  void copy(void* dst, const void* src, std::size_t bytes);

  // The participant count the backend uses: half the hardware threads (memory bandwidth, not
  // cores, limits a copy; the other half stays free for the rest of the program), 1 to 8.
  static int defaultThreads();

 private:
  int threads_;
  TeamLease team_;
};

}  // namespace modescope::cuda
