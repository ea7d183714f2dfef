// The IMF rows of each stage of a batched EMD run (cuda/emd_methods.cu), from the device into the
// host result, while the device goes on with the next stage. Converted on the launching thread,
// the device waited for the host after every stage: the CUPTI timeline (tests/tools/
// cuda_timeline.cpp, H200) showed idle gaps of 0.3-2.2 ms per IMF for one channel of 102,401
// samples and 12-110 ms for 64 channels, about 290 ms of a 2.6 s 64-channel ICEEMDAN run; most of
// it first touches of the growing host rows.
//
// append() queues the copies on the run's stream into one of two page-locked slots and hands the
// conversion to the download's host thread, which waits for them and converts the rows in the
// order they were appended (spread over the download's few threads in chunks of a row). append()
// waits only for the conversion that last read the slot it takes, two appends before, so the device
// does not wait for the host where a conversion takes longer than the stage after it. One thread
// for the whole run: a thread per append (std::async), the residue's conversion started 0.4 ms
// after the last IMF's had ended, joining that thread, with the device done (host timestamps, H200,
// docs/emd.md). The device rows may be overwritten by work queued after append(): the copies come
// first on the stream.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <iterator>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/device_memory.cuh"
#include "cuda/emd_sifter.cuh"
#include "cuda/host_thread_pool.h"
#include "engine/emd/emd_result.h"

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
               Slot(static_cast<std::size_t>(channels) * static_cast<std::size_t>(n), signals)} {
    converter_ = std::thread([this] { convertQueued(); });
  }
  // Lets the conversions queued finish (they read the page-locked slots; an error of one was the
  // run's to report through finish()), then ends the thread.
  ~ImfRowsDownload() {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      closing_ = true;
    }
    changed_.notify_all();
    converter_.join();
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
  // members). Rethrows what stopped an earlier conversion.
  void append(const R* rows, const std::vector<std::uint8_t>& active, const int* sifts,
              const int* status, int members, const std::vector<double>& scale) {
    Slot& slot = slots_[next_];
    next_ = (next_ + 1) % kSlots;
    {
      std::unique_lock<std::mutex> hold(lock_);
      changed_.wait(hold, [&] { return !slot.queued || error_; });  // it reads the slot
      if (error_) std::rethrow_exception(error_);
    }
    copyDown(slot.rows.get(), rows, slot.rows.size());
    const bool withSifts = sifts != nullptr;
    const std::size_t memberCount = static_cast<std::size_t>(channels_) * members;
    if (withSifts) {
      copyDown(slot.sifts.get(), sifts, memberCount);
      copyDown(slot.status.get(), status, memberCount);
    }
    slot.copied.record(stream_);
    {
      const std::lock_guard<std::mutex> hold(lock_);
      queue_.push_back({&slot, active, withSifts, members, scale});
      slot.queued = true;
    }
    changed_.notify_all();
  }

  // Waits until every appended row is in the result; rethrows what stopped a conversion.
  void finish() {
    std::unique_lock<std::mutex> hold(lock_);
    changed_.wait(hold, [&] { return !anyQueued() || error_; });
    if (error_) std::rethrow_exception(error_);
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
    bool queued = false;  // a conversion that reads it is queued or running (guarded by lock_)
  };
  struct Conversion {
    Slot* slot;
    std::vector<std::uint8_t> active;
    bool withSifts;
    int members;
    std::vector<double> scale;
  };

  template <class T>
  void copyDown(T* dst, const T* src, std::size_t count) {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
  }

  // The thread's loop: the queued conversions in order, until the download closes with none left.
  // After an error the later ones are dropped (the run stops with it).
  void convertQueued() {
    std::unique_lock<std::mutex> hold(lock_);
    for (;;) {
      changed_.wait(hold, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) return;
      Conversion next = std::move(queue_.front());
      queue_.pop_front();
      const bool failed = error_ != nullptr;
      hold.unlock();
      std::exception_ptr error;
      try {
        next.slot->copied.synchronize();
        if (!failed) convert(next);
      } catch (...) {
        error = std::current_exception();
      }
      hold.lock();
      if (error && !error_) error_ = error;
      next.slot->queued = false;
      changed_.notify_all();
    }
  }

  // A slot's conversion is queued or running (under lock_).
  bool anyQueued() const {
    return std::any_of(std::begin(slots_), std::end(slots_),
                       [](const Slot& s) { return s.queued; });
  }

  // Every active channel's row made room for here (and the pages ahead touched), then filled in
  // chunks of kConversionChunk samples over the download's threads: one channel's row on one
  // thread took 0.4 ms of 358,401 samples, and the last two rows are waited for after the device
  // has finished.
  void convert(const Conversion& job) {
    const std::size_t n = static_cast<std::size_t>(n_);
    std::vector<std::size_t> channels, at;
    for (std::size_t c = 0; c < static_cast<std::size_t>(channels_); ++c) {
      if (!job.active[c]) continue;
      channels.push_back(c);
      at.push_back(makeRoom(out_[c]));
    }
    const std::size_t chunks = (n + kConversionChunk - 1) / kConversionChunk;
    const std::size_t items = channels.size() * chunks;
    threads_.run(static_cast<int>(items), [&](int item) {
      const std::size_t k = static_cast<std::size_t>(item) / chunks;
      const std::size_t first = (static_cast<std::size_t>(item) % chunks) * kConversionChunk;
      const std::size_t c = channels[k], last = std::min(n, first + kConversionChunk);
      const R* src = job.slot->rows.get() + c * n;
      float* dst = out_[c].data.data() + at[k];
      const double scale = job.scale[c];
      for (std::size_t t = first; t < last; ++t) {
        dst[t] = static_cast<float>(static_cast<double>(src[t]) * scale);
      }
    });
    if (!job.withSifts) return;
    for (std::size_t c : channels) {
      // Mean over the members that produced an IMF (the CPU's convention).
      double s = 0;
      int produced = 0;
      for (int i = 0; i < job.members; ++i) {
        const std::size_t b = c * job.members + i;
        if (job.slot->status.get()[b] != kSiftDone) continue;
        s += job.slot->sifts.get()[b];
        ++produced;
      }
      out_[c].sifts.push_back(produced ? static_cast<int>(std::lround(s / produced)) : 0);
    }
  }

  // Rows a conversion keeps touched ahead of the row it writes.
  static constexpr std::size_t kRowsTouchedAhead = 2;

  // A row more in m.data (where the conversion writes it); returns where it starts. The next
  // kRowsTouchedAhead rows' pages are touched now (a size up to the capacity and back never
  // reallocates), so that the last conversions, which the host waits for after the device has
  // finished, find theirs in place: first touches took the last IMF's conversion of 64 channels
  // on 8 threads from 3.1 to 4.8 ms (cuda_timeline, H200, docs/emd.md). Touched all at once by the
  // first conversion, one channel's 13 rows of 358,401 samples took it past the next stage, and
  // the device waited 4 ms for it (H200).
  std::size_t makeRoom(EmdChannelModes& m) const {
    const std::size_t n = static_cast<std::size_t>(n_), at = m.data.size();
    const std::size_t ahead = std::min(m.data.capacity(), at + (1 + kRowsTouchedAhead) * n);
    m.data.resize(std::max(ahead, at + n));
    m.data.resize(at + n);
    return at;
  }

  // A few threads, leaving the host's other cores to the application: 8 took the 64-channel
  // case's wait from 18.5 to 4.8 ms (docs/emd.md). Leased once for the run, used by the
  // conversion thread alone.
  static constexpr int kConversionThreads = 8;
  static constexpr std::size_t kConversionChunk = std::size_t{1} << 16;

  std::vector<EmdChannelModes>& out_;
  int channels_;
  std::int64_t n_;
  cudaStream_t stream_;
  Slot slots_[kSlots];
  int next_ = 0;
  std::mutex lock_;
  std::condition_variable changed_;
  std::deque<Conversion> queue_;  // appended, not yet taken by the thread
  bool closing_ = false;          // the destructor waits for the thread
  std::exception_ptr error_;      // what stopped a conversion first
  HostThreadPool threads_{std::min(kConversionThreads, hardwareThreads())};
  std::thread converter_;  // last: started when the rest is ready
};

}  // namespace modescope::cuda
