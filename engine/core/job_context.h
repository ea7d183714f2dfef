// What every long computation receives: a stop token and a progress sink. Algorithms call
// checkpoint() between chunks (a chunk is ~100 ms of work at most), so a cancel takes effect within
// a fraction of a second; checkpoint() throws Cancelled and RAII releases host and device memory on
// the way out.
#pragma once

#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

#include "engine/core/error.h"

namespace modescope {

// fraction in [0, 1]; stage is a short human text ("filtering 12/64 channels").
using ProgressSink = std::function<void(double fraction, std::string_view stage)>;

class JobContext {
 public:
  JobContext() = default;
  JobContext(std::stop_token stop, ProgressSink sink)
      : stop_(std::move(stop)), sink_(std::move(sink)) {}

  bool stopRequested() const noexcept { return stop_.stop_requested(); }
  void checkpoint() const {
    if (stop_.stop_requested()) throw Cancelled();
  }
  // Reports progress of this (sub)task; fraction is mapped into the parent's [begin, end].
  void progress(double fraction, std::string_view stage) const {
    if (sink_) sink_(begin_ + (end_ - begin_) * clamp01(fraction), stage);
  }
  // A context whose progress 0..1 covers [begin, end] of this one (nested stages).
  JobContext sub(double begin, double end) const {
    JobContext c = *this;
    c.begin_ = begin_ + (end_ - begin_) * begin;
    c.end_ = begin_ + (end_ - begin_) * end;
    return c;
  }
  std::stop_token stopToken() const { return stop_; }

 private:
  static double clamp01(double f) { return f < 0 ? 0 : f > 1 ? 1 : f; }
  std::stop_token stop_;
  ProgressSink sink_;
  double begin_ = 0.0, end_ = 1.0;
};

}  // namespace modescope
