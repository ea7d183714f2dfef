// Live replay driver (contract in ar_replay.h).
#include "app/core/ar_replay.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <utility>

#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

using Clock = std::chrono::steady_clock;

double secondsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ArReplay

ArReplay::ArReplay(std::shared_ptr<const Recording> recording, ArReplayConfig config,
                   ComputeBackend& backend)
    : recording_(std::move(recording)), config_(std::move(config)) {
  const Recording& rec = *recording_;
  if (config_.filter) {
    const SpatialFilter& f = *config_.filter;
    if (f.inputChannels.size() != f.inputCount() || f.inputCount() == 0)
      throw InvalidParameterError("spatial filter inputs",
                                  std::to_string(f.inputChannels.size()) + " bound channels",
                                  std::to_string(f.inputCount()) + " (one per input column)",
                                  "bind the filter to the recording's channels first");
    inputs_ = f.inputChannels;
  } else {
    inputs_ = config_.channels;
  }
  // The whole recording is replayed: the one selection check gives its rate and the samples
  // every input channel has.
  const CheckedSelection whole =
      checkSelection(rec, Selection{inputs_, 0.0, -1.0}, {1, "", "choose the channels to replay"});
  sampleRate_ = whole.sampleRate;
  totalSamples_ = whole.samples;
  if (!std::isfinite(config_.blockSeconds) || config_.blockSeconds <= 0 ||
      std::llround(config_.blockSeconds * sampleRate_) < 1)
    throw InvalidParameterError("block length", formatNumber(config_.blockSeconds) + " s",
                                "at least one sample (" + formatNumber(1.0 / sampleRate_) + " s)",
                                "use a longer block, e.g. 0.05 s");
  blockSamples_ = std::llround(config_.blockSeconds * sampleRate_);

  ArStreamConfig sc;
  sc.filter = config_.filter;
  sc.channels = inputs_.size();
  sc.params = config_.params;
  sc.sampleRate = sampleRate_;
  stream_ = backend.openArStream(sc);
  windowSamples_ = resolveArLengths(config_.params, sampleRate_).windowSamples;

  const std::vector<double>& centers = stream_->binCenters();
  for (std::size_t b = 0; b < centers.size(); ++b)
    if (centers[b] >= config_.bandLowHz - 1e-9 && centers[b] <= config_.bandHighHz + 1e-9)
      bandBins_.push_back(b);
  if (bandBins_.empty()) {
    std::string list;
    for (std::size_t b = 0; b < centers.size(); ++b)
      list += (b ? ", " : "") + formatNumber(centers[b]);
    throw InvalidParameterError(
        "band", formatNumber(config_.bandLowHz) + "-" + formatNumber(config_.bandHighHz) + " Hz",
        "a band holding at least one bin centre (" + list + " Hz)",
        "widen the band or change the bins");
  }

  // Outputs: channels re-referenced in place keep their recording channel (and its position).
  if (config_.filter) {
    const SpatialFilter& f = *config_.filter;
    for (std::size_t k = 0; k < f.outputCount(); ++k) {
      if (f.outputCount() == f.inputCount() && f.outputNames[k] == f.inputNames[k]) {
        outputs_.push_back(rec.channels[f.inputChannels[k]]);
      } else {
        ChannelInfo info;
        info.label = info.name = f.outputNames[k];
        info.type = ChannelType::EEG;
        info.unit = rec.channels[inputs_.front()].unit;
        info.sampleRate = sampleRate_;
        info.sampleCount = totalSamples_;
        outputs_.push_back(std::move(info));
      }
    }
  } else {
    for (std::size_t c : inputs_) outputs_.push_back(rec.channels[c]);
  }
}

void ArReplay::readInputs(int64_t first, int64_t count, std::vector<float>& out) const {
  out.resize(inputs_.size() * static_cast<std::size_t>(count));
  for (std::size_t r = 0; r < inputs_.size(); ++r)
    recording_->source->read(inputs_[r], first, count,
                             out.data() + r * static_cast<std::size_t>(count));
}

void ArReplay::seek(double seconds) {
  const double s = std::isfinite(seconds) ? seconds : 0.0;
  next_ = std::clamp<int64_t>(std::llround(s * sampleRate_), 0, totalSamples_);
  stream_->reset();
  const int64_t start = std::max<int64_t>(0, next_ - windowSamples_);
  if (next_ > start) {
    readInputs(start, next_ - start, buffer_);
    stream_->push(buffer_.data(), next_ - start);
  }
}

std::optional<ArReplayFrame> ArReplay::step() {
  if (atEnd()) return std::nullopt;
  const int64_t count = std::min(blockSamples_, totalSamples_ - next_);
  readInputs(next_, count, buffer_);
  const Clock::time_point t0 = Clock::now();
  ArStreamUpdate u = stream_->push(buffer_.data(), count);
  const Clock::time_point t1 = Clock::now();
  next_ += count;

  ArReplayFrame f;
  f.block = blocks_++;
  f.endSample = next_;
  f.replayTime = static_cast<double>(next_) / sampleRate_;
  f.latencyMs = 1e3 * secondsBetween(t0, t1);
  f.ready = u.ready;
  f.flatOutputs = u.flatOutputs;
  if (u.ready) {
    const std::size_t bins = stream_->binCount();
    const bool amplitude = config_.params.output == ArOutput::Amplitude;
    f.bandPower.assign(stream_->outputCount(), 0.0);
    for (std::size_t o = 0; o < f.bandPower.size(); ++o) {
      double sum = 0.0;
      for (std::size_t b : bandBins_) {
        const double v = u.values[o * bins + b];
        sum += amplitude ? v * v : v;
      }
      f.bandPower[o] = sum / static_cast<double>(bandBins_.size());
    }
    f.values = std::move(u.values);
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// ArReplayStats

void ArReplayStats::add(const ArReplayFrame& f) {
  ++blocks;
  if (f.ready) ++updates;
  if (f.late) ++late;
  lastMs = f.latencyMs;
  maxMs = std::max(maxMs, f.latencyMs);
  const double delta = f.latencyMs - meanMs;
  meanMs += delta / static_cast<double>(blocks);
  m2_ += delta * (f.latencyMs - meanMs);
  sdMs = blocks > 1 ? std::sqrt(m2_ / static_cast<double>(blocks - 1)) : 0.0;
}

std::string ArReplayStats::describe() const {
  return "latency " + fixed(lastMs, 2) + " ms (mean " + fixed(meanMs, 2) + ", max " +
         fixed(maxMs, 2) + ", jitter sd " + fixed(sdMs, 2) + ") | " + fixed(updatesPerSecond(), 1) +
         " updates/s | late blocks " + std::to_string(late);
}

// ---------------------------------------------------------------------------------------------
// ArReplayRunner

ArReplayRunner::ArReplayRunner(std::unique_ptr<ArReplay> replay, FrameSink onFrame,
                               ErrorSink onError, EndSink onEnd)
    : replay_(std::move(replay)),
      onFrame_(std::move(onFrame)),
      onError_(std::move(onError)),
      onEnd_(std::move(onEnd)) {
  position_ = replay_->position();
  thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

ArReplayRunner::~ArReplayRunner() {
  thread_.request_stop();
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ArReplayRunner::play() {
  {
    std::lock_guard lock(m_);
    if (playing_) return;
    // Play at the end starts over (position_, not replay_: the runner's thread owns replay_).
    if (position_.load() >= replay_->duration() && !seekTo_) seekTo_ = 0.0;
    playing_ = true;
    playStart_ = Clock::now();
    reanchor_ = true;
  }
  wake_.notify_all();
}

void ArReplayRunner::pause() {
  {
    std::lock_guard lock(m_);
    if (!playing_) return;
    playing_ = false;
    playedSeconds_ += secondsBetween(playStart_, Clock::now());
  }
  wake_.notify_all();
}

bool ArReplayRunner::playing() const {
  std::lock_guard lock(m_);
  return playing_;
}

void ArReplayRunner::setSpeed(double speed) {
  {
    std::lock_guard lock(m_);
    speed_ = std::isfinite(speed) && speed > 0 ? speed : 0.0;
    reanchor_ = true;
  }
  wake_.notify_all();
}

double ArReplayRunner::speed() const {
  std::lock_guard lock(m_);
  return speed_;
}

void ArReplayRunner::seek(double seconds) {
  {
    std::lock_guard lock(m_);
    seekTo_ = seconds;
  }
  wake_.notify_all();
}

void ArReplayRunner::resetStats() {
  std::lock_guard lock(m_);
  resetStats_ = true;
}

ArReplayStats ArReplayRunner::stats() const {
  std::lock_guard lock(m_);
  ArReplayStats s = stats_;
  s.playingSeconds = playedSeconds_ + (playing_ ? secondsBetween(playStart_, Clock::now()) : 0.0);
  return s;
}

double ArReplayRunner::position() const { return position_.load(); }

void ArReplayRunner::run(std::stop_token stop) {
  Clock::time_point anchor;
  int64_t sinceAnchor = 0;
  for (;;) {
    std::unique_lock lock(m_);
    wake_.wait(lock, stop, [&] { return playing_ || seekTo_.has_value() || resetStats_; });
    if (stop.stop_requested()) return;
    if (resetStats_ || seekTo_) {
      stats_ = {};
      playedSeconds_ = 0.0;
      playStart_ = Clock::now();
      resetStats_ = false;
    }
    if (seekTo_) {
      const double to = *seekTo_;
      seekTo_.reset();
      reanchor_ = true;
      lock.unlock();
      try {
        replay_->seek(to);
      } catch (const std::exception& e) {
        {
          std::lock_guard relock(m_);
          playing_ = false;
        }
        if (onError_) onError_(e.what());
      }
      position_ = replay_->position();
      continue;
    }
    if (!playing_) continue;
    const double speed = speed_;
    if (reanchor_) {
      reanchor_ = false;
      anchor = Clock::now();
      sinceAnchor = 0;
    }
    // A block's samples exist once its last sample was "recorded": block k after the anchor is
    // due at anchor + (k + 1) period; it is late when its result comes after block k + 1 was due.
    const bool paced = speed > 0;
    const auto period = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(paced ? replay_->config().blockSeconds / speed : 0.0));
    const Clock::time_point due = anchor + (sinceAnchor + 1) * period;
    if (paced && Clock::now() < due) {
      // Sleep until due unless paused, sought, re-paced or stopped meanwhile.
      const bool interrupted = wake_.wait_until(
          lock, stop, due, [&] { return !playing_ || seekTo_.has_value() || reanchor_; });
      if (interrupted || stop.stop_requested()) continue;
    }
    lock.unlock();

    std::optional<ArReplayFrame> frame;
    try {
      frame = replay_->step();
    } catch (const std::exception& e) {
      pause();
      if (onError_) onError_(e.what());
      continue;
    }
    position_ = replay_->position();
    if (!frame) {
      pause();
      if (onEnd_) onEnd_();
      continue;
    }
    frame->late = paced && Clock::now() > due + period;
    ++sinceAnchor;
    ArReplayStats snapshot;
    {
      std::lock_guard relock(m_);
      stats_.add(*frame);
      snapshot = stats_;
      snapshot.playingSeconds =
          playedSeconds_ + (playing_ ? secondsBetween(playStart_, Clock::now()) : 0.0);
    }
    if (onFrame_) onFrame_(*frame, snapshot);
  }
}

double parseReplaySpeed(const std::string& text) {
  std::string t = trim(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "max" || t == "fastest" || t == "as fast as possible") return 0.0;
  if (!t.empty() && t.back() == 'x') t.pop_back();
  try {
    std::size_t used = 0;
    const double v = std::stod(t, &used);
    if (used == t.size() && std::isfinite(v) && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw InvalidParameterError("speed", "'" + text + "'", "a positive factor (1, 2x, 4x) or 'max'",
                              "use 1x for real time");
}

}  // namespace modescope
