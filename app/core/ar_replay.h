// Live replay of a recording through the streamed BCI features (docs/ar.md, "Live replay"): the
// recording is read block by block (default 50 ms), each block is pushed into an ArStream
// (engine/ar/ar_stream.h: spatial filter, then Burg AR spectra of the latest window of every
// output), and every block reports its replay time, the wall-clock latency of the push, the spectra
// and the power in one band per output (e.g. 8-12 Hz mu).
//
// Two layers:
//  - ArReplay: the synchronous core (read, push, band power); no clock, no thread. The benchmark
//    and tests drive it directly.
//  - ArReplayRunner: a worker thread that paces ArReplay against the wall clock at a speed (1x,
//    2x, 4x, or as fast as possible), with play/pause/seek. A block that finishes after the next
//    block was due is late: it is still delivered and counted (never dropped silently).
//
// Thread rules: ArReplay is used by one thread at a time. ArReplayRunner's methods are called
// from one controlling thread (the GUI thread); its callbacks run on the runner's own thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/ar/ar_stream.h"
#include "engine/compute/backend.h"
#include "engine/core/recording.h"

namespace modescope {

struct ArReplayConfig {
  // Recording channels pushed, in this order, when `filter` is null (then they are also the
  // outputs). With a filter they are ignored: the filter's bound inputChannels are read.
  std::vector<std::size_t> channels;
  std::shared_ptr<const SpatialFilter> filter;  // bound (inputChannels filled), or null
  BurgArParams params;                          // window, order, bins; Power or Amplitude
  double blockSeconds = 0.05;                   // block length; rounded to whole samples, >= 1
  double bandLowHz = 8.0;                       // band for the band power: the bins whose
  double bandHighHz = 12.0;                     // centres lie in [low, high] (Hz)
};

struct ArReplayFrame {
  int64_t block = 0;          // blocks read since the replay opened (seek does not reset it)
  int64_t endSample = 0;      // recording sample just after this block
  double replayTime = 0.0;    // s: the block's end in the recording (the update time)
  double latencyMs = 0.0;     // wall clock of the push (filter + spectra)
  bool ready = false;         // a full window has been seen since the last seek
  bool late = false;          // set by the runner: finished after the next block was due
  std::vector<float> values;  // outputs x bins (as ArStreamUpdate), empty when not ready
  // Per output: the mean power of the bins in the band (unit^2/Hz; Amplitude bins are squared
  // back to power first). Empty when not ready.
  std::vector<double> bandPower;
  std::size_t flatOutputs = 0;
};

class ArReplay {
 public:
  // Opens a stream on `backend` (which must outlive this object). Throws InvalidParameterError for
  // an empty selection, mixed sample rates, an unbound filter, a block below one sample, a band
  // with no bin centre inside (the message lists the centres), or what openArStream throws.
  ArReplay(std::shared_ptr<const Recording> recording, ArReplayConfig config,
           ComputeBackend& backend);

  const ArReplayConfig& config() const { return config_; }
  double sampleRate() const { return sampleRate_; }
  int64_t blockSamples() const { return blockSamples_; }
  int64_t windowSamples() const { return windowSamples_; }
  int64_t totalSamples() const { return totalSamples_; }
  double duration() const { return static_cast<double>(totalSamples_) / sampleRate_; }
  const std::vector<double>& binCenters() const { return stream_->binCenters(); }
  std::vector<std::size_t> bandBins() const { return bandBins_; }
  std::size_t outputCount() const { return stream_->outputCount(); }
  // One ChannelInfo per output for labels and scalp maps: the recording channel when the output
  // is a channel re-referenced in place (no filter, CAR, Laplacians: same name as input k),
  // otherwise the output name without a position (a user matrix's components).
  const std::vector<ChannelInfo>& outputChannels() const { return outputs_; }

  // Recording position (s) of the next block.
  double position() const { return static_cast<double>(next_) / sampleRate_; }
  bool atEnd() const { return next_ >= totalSamples_; }
  // Moves to `seconds` (clamped to the recording, rounded to a sample): resets the stream and
  // pushes the window before that point unreported, so the first block after a seek is already
  // ready (except at the very start of the recording).
  void seek(double seconds);
  // Reads and pushes the next block (the last may be shorter); nullopt at the end. Throws what
  // the stream throws (a NaN in the recording: InvalidInputError naming the row and sample).
  std::optional<ArReplayFrame> step();

 private:
  void readInputs(int64_t first, int64_t count, std::vector<float>& out) const;

  std::shared_ptr<const Recording> recording_;
  ArReplayConfig config_;
  std::vector<std::size_t> inputs_;  // recording channels, push row order
  std::vector<ChannelInfo> outputs_;
  std::unique_ptr<ArStream> stream_;
  std::vector<std::size_t> bandBins_;
  double sampleRate_ = 0.0;
  int64_t blockSamples_ = 1, windowSamples_ = 1, totalSamples_ = 0, next_ = 0, blocks_ = 0;
  std::vector<float> buffer_;
};

// Latency and rate statistics of a replay (Welford for mean and sd, so it runs forever).
struct ArReplayStats {
  int64_t blocks = 0;   // blocks processed
  int64_t updates = 0;  // ready blocks (spectra produced)
  int64_t late = 0;     // blocks finished after the next block was due
  double lastMs = 0.0, meanMs = 0.0, maxMs = 0.0, sdMs = 0.0;  // push latency
  double playingSeconds = 0.0;  // wall time spent playing (pauses excluded)
  double updatesPerSecond() const {
    return playingSeconds > 0 ? static_cast<double>(updates) / playingSeconds : 0.0;
  }
  void add(const ArReplayFrame& f);
  // One line for a status bar: "latency 0.41 ms (mean 0.38, max 1.20, sd 0.05) | 80.0 updates/s |
  // late 0".
  std::string describe() const;

 private:
  double m2_ = 0.0;  // Welford's sum of squared deviations
};

class ArReplayRunner {
 public:
  // Called on the runner's thread: every block, with the stats including it.
  using FrameSink = std::function<void(const ArReplayFrame&, const ArReplayStats&)>;
  // Called on the runner's thread when a block fails (the replay pauses) or the end is reached.
  using ErrorSink = std::function<void(const std::string& message)>;
  using EndSink = std::function<void()>;

  // Starts paused. Speed 1 (real time).
  ArReplayRunner(std::unique_ptr<ArReplay> replay, FrameSink onFrame, ErrorSink onError = {},
                 EndSink onEnd = {});
  ~ArReplayRunner();  // stops and joins the thread
  ArReplayRunner(const ArReplayRunner&) = delete;
  ArReplayRunner& operator=(const ArReplayRunner&) = delete;

  void play();
  void pause();
  bool playing() const;
  // Speed factor against the recording's time: 1, 2, 4, ...; <= 0 or infinite: as fast as
  // possible (no pacing, no block is ever late).
  void setSpeed(double speed);
  double speed() const;
  // Asynchronous: the next block the runner processes starts at `seconds`. Stats restart.
  void seek(double seconds);
  void resetStats();
  ArReplayStats stats() const;
  // Recording position (s) of the next block.
  double position() const;
  const ArReplay& replay() const { return *replay_; }

 private:
  void run(std::stop_token stop);

  std::unique_ptr<ArReplay> replay_;
  FrameSink onFrame_;
  ErrorSink onError_;
  EndSink onEnd_;
  mutable std::mutex m_;
  std::condition_variable_any wake_;
  bool playing_ = false;
  double speed_ = 1.0;
  std::optional<double> seekTo_;
  bool reanchor_ = true;  // restart the pacing clock at the next block
  bool resetStats_ = false;
  ArReplayStats stats_;
  // Playing wall time: closed play intervals plus the open one since playStart_.
  double playedSeconds_ = 0.0;
  std::chrono::steady_clock::time_point playStart_;
  std::atomic<double> position_{0.0};
  std::jthread thread_;  // last: started after every member above exists
};

// Parses a speed for the CLI/GUI: "1", "2x", "4x", "max" (-> 0). Throws InvalidParameterError.
double parseReplaySpeed(const std::string& text);

}  // namespace modescope
