// Progress on stderr for long subcommands.
//
// Bar mode (stderr is a terminal, no --quiet): one line redrawn in place with a bar, the
// percentage, the stage text and the elapsed time, at most 10 times a second.
// Lines mode (stderr is a file or pipe, no --quiet): one plain line whenever the stage changes
// (stage texts that differ only in their numbers, like "filtering 3/64", count as one stage), so
// logs stay free of carriage returns.
// Off (--quiet): nothing.
//
// update() may be called from the engine thread, tick() and finish() from the main thread.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>

namespace modescope::cli {

class ProgressDisplay {
 public:
  enum class Mode { Off, Bar, Lines };
  // Bar when stderr is a terminal, else Lines; Off when quiet.
  static Mode modeFor(bool quiet);

  ProgressDisplay(Mode mode, std::string title);
  ~ProgressDisplay();  // finish()

  void update(double fraction, std::string_view stage);
  void tick();    // redraws the clock in Bar mode
  void finish();  // clears the bar line; idempotent
  // Prints a line (not in Off mode) without garbling the bar, which is redrawn below it.
  void message(std::string_view text);

 private:
  void drawLocked(bool force);
  static std::string stageKey(std::string_view stage);

  Mode mode_;
  std::string title_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_, lastDraw_{};
  double fraction_ = 0.0;
  std::string stage_, lastKey_;
  bool drawn_ = false, finished_ = false;
};

}  // namespace modescope::cli
