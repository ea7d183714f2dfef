// The IMF rows of each stage of a batched EMD run (cuda/emd_methods.cu), from the device into the
// host result, while the device goes on with the next stage. Converted on the launching thread,
// the device waited for the host after every stage: the CUPTI timeline (tests/tools/
// cuda_timeline.cpp, H200) showed idle gaps of 0.3-2.2 ms per IMF for one channel of 102,401
// samples and 12-110 ms for 64 channels, about 290 ms of a 2.6 s 64-channel ICEEMDAN run; most of
// it first touches of the growing host rows.
//
// append() queues the copies on the run's stream into one of two page-locked slots and hands the
// conversion to a host thread that waits for them (and spreads the channels over a few threads,
// each channel's row written by one). Conversions run one after the other, in the order the rows
// were appended; append() waits only for the conversion that last read the slot it takes, two
// appends before, so the device does not wait for the host where a conversion takes longer than
// the stage after it. The device rows may be overwritten by work queued after append(): the
// copies come first on the stream.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <future>
#include <new>
#include <utility>
#include <vector>

#include "cuda/device_memory.cuh"
#include "cuda/emd_sifter.cuh"
#include "engine/core/job_context.h"
#include "engine/emd/emd_result.h"
#include "engine/parallel/parallel_for.h"

namespace modescope::cuda {

template <class R>
class ImfRowsDownload {
 public:
  // `out` (one entry per channel by the first append()) must outlive this object; `signals`
  // bounds the members whose sift counts an append() copies (channels x members).
  ImfRowsDownload(std::vector<EmdChannelModes>& out, int channels, std::int64_t n, int signals,
                  cudaStream_t stream)
      : out_(out),
        channels_(channels),
        n_(n),
        stream_(stream),
        slots_{Slot(static_cast<std::size_t>(channels) * static_cast<std::size_t>(n), signals),
               Slot(static_cast<std::size_t>(channels) * static_cast<std::size_t>(n), signals)} {}
  // Waits for the conversions still running (they read the page-locked slots); an error of one
  // was the run's to report through finish().
  ~ImfRowsDownload() {
    if (last_.valid()) last_.wait();
  }
  ImfRowsDownload(const ImfRowsDownload&) = delete;
  ImfRowsDownload& operator=(const ImfRowsDownload&) = delete;

  // Room for `rows` rows per channel of `out` (the rows a run usually gives), so that appending a
  // row seldom copies the ones before it. Only a hint: refused, the rows grow as they come.
  void reserveRows(std::size_t rows) {
    for (auto& m : out_) {
      try {
        m.data.reserve(rows * static_cast<std::size_t>(n_));
      } catch (const std::bad_alloc&) {
      }
    }
  }

  // One row per channel of `rows` (channels x n on the device, standardised units) times
  // scale[c], appended to every channel whose `active` flag is set; withSifts: with the mean sift
  // count of its `members` members that produced an IMF (sifts/status: the sifter's, channels x
  // members).
  void append(const R* rows, const std::vector<std::uint8_t>& active, const int* sifts,
              const int* status, int members, const std::vector<double>& scale) {
    Slot& slot = slots_[next_];
    next_ = (next_ + 1) % kSlots;
    if (slot.converted.valid()) slot.converted.get();  // it reads the slot; rethrows its error
    copyDown(slot.rows.get(), rows, slot.rows.size());
    const bool withSifts = sifts != nullptr;
    const std::size_t memberCount = static_cast<std::size_t>(channels_) * members;
    if (withSifts) {
      copyDown(slot.sifts.get(), sifts, memberCount);
      copyDown(slot.status.get(), status, memberCount);
    }
    slot.copied.record(stream_);
    last_ = std::async(std::launch::async, [this, &slot, before = last_, active, withSifts, members,
                                            scale] {
              // Rows in order: the conversion before first (waited for even where this one
              // fails, so that no conversion runs on once the last has ended); its error stops
              // this one too.
              if (before.valid()) before.wait();
              slot.copied.synchronize();
              if (before.valid()) before.get();
              convert(slot, active, withSifts, members, scale);
            }).share();
    slot.converted = last_;
  }

  // Waits until every appended row is in the result; rethrows what stopped a conversion.
  void finish() {
    if (!last_.valid()) return;
    const std::shared_future<void> last = std::exchange(last_, {});
    for (auto& slot : slots_) slot.converted = {};  // done when the last one is (in order)
    last.get();
  }

 private:
  // Two: one is being converted while the next stage's rows come down into the other.
  static constexpr int kSlots = 2;
  struct Slot {
    Slot(std::size_t values, int signals)
        : rows(values),
          sifts(static_cast<std::size_t>(signals)),
          status(static_cast<std::size_t>(signals)) {}
    PinnedBuffer<R> rows;
    PinnedBuffer<int> sifts, status;
    Event copied;
    std::shared_future<void> converted;  // the conversion that reads it
  };

  template <class T>
  void copyDown(T* dst, const T* src, std::size_t count) {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
  }

  // Channels on several threads: most of a stage's conversion can be first touches of the rows'
  // new pages, and the residue's, the run's last, is waited for. On one thread, the last IMF's
  // took 18.5 ms of a 1.56 s 64-channel ICEEMDAN run with the device idle (it waits to reuse the
  // buffers), and the residue's about as long after the device had finished (cuda_timeline,
  // H200, docs/emd.md).
  void convert(const Slot& slot, const std::vector<std::uint8_t>& active, bool withSifts,
               int members, const std::vector<double>& scale) {
    const int threads = std::min({kConversionThreads, hardwareThreads(), channels_});
    parallelFor(static_cast<std::size_t>(channels_), threads, JobContext{}, "IMF rows",
                [&]() -> std::function<void(std::size_t)> {
                  return [&](std::size_t c) {
                    if (active[c]) convertChannel(slot, c, withSifts, members, scale[c]);
                  };
                });
  }

  // Rows a conversion keeps touched ahead of the row it writes.
  static constexpr std::size_t kRowsTouchedAhead = 2;

  void convertChannel(const Slot& slot, std::size_t c, bool withSifts, int members, double scale) {
    auto& m = out_[c];
    const std::size_t n = static_cast<std::size_t>(n_), at = m.data.size();
    // The next kRowsTouchedAhead rows' pages are touched now (a size up to the capacity and back
    // never reallocates), so that the last conversions, which the host waits for after the
    // device has finished, find theirs in place: first touches took the last IMF's conversion of
    // 64 channels on 8 threads from 3.1 to 4.8 ms (cuda_timeline, H200, docs/emd.md). Touched all
    // at once by the first conversion, one channel's 13 rows of 358,401 samples took it past the
    // next stage, and the device waited 4 ms for it (H200).
    const std::size_t ahead = std::min(m.data.capacity(), at + (1 + kRowsTouchedAhead) * n);
    m.data.resize(std::max(ahead, at + n));
    m.data.resize(at + n);
    const R* src = slot.rows.get() + c * n;
    for (std::size_t t = 0; t < n; ++t) {
      m.data[at + t] = static_cast<float>(static_cast<double>(src[t]) * scale);
    }
    if (withSifts) {
      // Mean over the members that produced an IMF (the CPU's convention).
      double s = 0;
      int produced = 0;
      for (int i = 0; i < members; ++i) {
        const std::size_t b = c * members + i;
        if (slot.status.get()[b] != kSiftDone) continue;
        s += slot.sifts.get()[b];
        ++produced;
      }
      m.sifts.push_back(produced ? static_cast<int>(std::lround(s / produced)) : 0);
    }
  }

  // A few threads, leaving the host's other cores to the application: 8 took the 64-channel
  // case's wait from 18.5 to 4.8 ms (above).
  static constexpr int kConversionThreads = 8;

  std::vector<EmdChannelModes>& out_;
  int channels_;
  std::int64_t n_;
  cudaStream_t stream_;
  Slot slots_[kSlots];
  int next_ = 0;
  std::shared_future<void> last_;  // the last conversion queued (last: joined first)
};

}  // namespace modescope::cuda
