// The IMF rows of each stage of a batched EMD run (cuda/emd_methods.cu), from the device into the
// host result, while the device goes on with the next stage. Converted on the launching thread,
// the device waited for the host after every stage: the CUPTI timeline (tests/tools/
// cuda_timeline.cpp, H200) showed idle gaps of 0.3-2.2 ms per IMF for one channel of 102,401
// samples and 12-110 ms for 64 channels, about 290 ms of a 2.6 s 64-channel ICEEMDAN run; most of
// it first touches of the growing host rows.
//
// append() queues the copies on the run's stream into page-locked buffers and hands the
// conversion to a host thread that waits for them (and spreads the channels over a few threads,
// each channel's row written by one); the next append() (and finish()) waits for that thread
// first, so one stage's rows are in flight at a time and out_ is touched by one conversion at a
// time. The device rows may be overwritten by work queued after append(): the copies come first
// on the stream.
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
        rows_(static_cast<std::size_t>(channels) * static_cast<std::size_t>(n)),
        sifts_(static_cast<std::size_t>(signals)),
        status_(static_cast<std::size_t>(signals)) {}
  // Waits for a conversion still running (it reads the page-locked buffers); its error, if any,
  // was the run's to report through finish().
  ~ImfRowsDownload() {
    if (converting_.valid()) converting_.wait();
  }
  ImfRowsDownload(const ImfRowsDownload&) = delete;
  ImfRowsDownload& operator=(const ImfRowsDownload&) = delete;

  // Room for `rows` rows per channel of `out` (the rows a run usually gives), so that appending a
  // row seldom copies the ones before it, and so that the first stage's conversion can touch the
  // pages of all of them (convertChannel). Only a hint: refused, the rows grow as they come.
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
    finish();  // the page-locked buffers are reused
    copyDown(rows_.get(), rows, rows_.size());
    const bool withSifts = sifts != nullptr;
    const std::size_t memberCount = static_cast<std::size_t>(channels_) * members;
    if (withSifts) {
      copyDown(sifts_.get(), sifts, memberCount);
      copyDown(status_.get(), status, memberCount);
    }
    copied_.record(stream_);
    converting_ = std::async(std::launch::async, [this, active, withSifts, members, scale] {
      copied_.synchronize();
      convert(active, withSifts, members, scale);
    });
  }

  // Waits until every appended row is in the result; rethrows what stopped a conversion.
  void finish() {
    if (converting_.valid()) converting_.get();
  }

 private:
  template <class T>
  void copyDown(T* dst, const T* src, std::size_t count) {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
  }

  // Channels on several threads: most of a stage's conversion is first touches of the rows'
  // new pages, and the residue's, the run's last, is waited for. On one thread, the last IMF's
  // took 18.5 ms of a 1.56 s 64-channel ICEEMDAN run with the device idle (it waits to reuse the
  // buffers), and the residue's about as long after the device had finished (cuda_timeline,
  // H200, docs/emd.md).
  void convert(const std::vector<std::uint8_t>& active, bool withSifts, int members,
               const std::vector<double>& scale) {
    const int threads = std::min({kConversionThreads, hardwareThreads(), channels_});
    parallelFor(static_cast<std::size_t>(channels_), threads, JobContext{}, "IMF rows",
                [&]() -> std::function<void(std::size_t)> {
                  return [&](std::size_t c) {
                    if (active[c]) convertChannel(c, withSifts, members, scale[c]);
                  };
                });
  }

  void convertChannel(std::size_t c, bool withSifts, int members, double scale) {
    auto& m = out_[c];
    const std::size_t at = m.data.size();
    // The first stage's conversion, which the device does not wait for, touches every page the
    // rows have room for (reserveRows), so that the last stages' conversions,
    // which it does wait for, find their pages in place: a size up to the capacity and back
    // never reallocates. The last IMF's conversion, 64 channels on 8 threads, took 4.8 ms with
    // first touches and 3.1 ms without (cuda_timeline, H200, docs/emd.md).
    if (at == 0) {
      m.data.resize(m.data.capacity());
      m.data.resize(0);
    }
    m.data.resize(at + static_cast<std::size_t>(n_));
    const R* src = rows_.get() + c * static_cast<std::size_t>(n_);
    for (std::int64_t t = 0; t < n_; ++t) {
      m.data[at + t] = static_cast<float>(static_cast<double>(src[t]) * scale);
    }
    if (withSifts) {
      // Mean over the members that produced an IMF (the CPU's convention).
      double s = 0;
      int produced = 0;
      for (int i = 0; i < members; ++i) {
        const std::size_t b = c * members + i;
        if (status_.get()[b] != kSiftDone) continue;
        s += sifts_.get()[b];
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
  PinnedBuffer<R> rows_;
  PinnedBuffer<int> sifts_, status_;
  Event copied_;
  std::future<void> converting_;  // last: joined before the buffers it reads are freed
};

}  // namespace modescope::cuda
