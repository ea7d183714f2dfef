#include "app/cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "app/cli/args.h"

namespace modescope::cli {
namespace {

constexpr auto kMinRedraw = std::chrono::milliseconds(100);

std::size_t terminalWidth() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

std::string clock(std::chrono::steady_clock::duration d) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)s / 3600,
                  (long long)s / 60 % 60, (long long)s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", (long long)s / 60, (long long)s % 60);
  return buf;
}

// Cuts a UTF-8 string to at most `columns` code points without splitting a sequence.
std::string fitColumns(const std::string& s, std::size_t columns) {
  std::size_t cols = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (cols == columns) break;
      ++cols;
    }
  }
  return s.substr(0, i);
}

}  // namespace

ProgressDisplay::Mode ProgressDisplay::modeFor(bool quiet) {
  if (quiet) return Mode::Off;
  return isatty(STDERR_FILENO) ? Mode::Bar : Mode::Lines;
}

ProgressDisplay::ProgressDisplay(Mode mode, std::string title)
    : mode_(mode), title_(std::move(title)), start_(std::chrono::steady_clock::now()) {}

ProgressDisplay::~ProgressDisplay() { finish(); }

std::string ProgressDisplay::stageKey(std::string_view stage) {
  std::string key;
  for (char c : stage) {
    if (!std::isdigit(static_cast<unsigned char>(c))) key += c;
  }
  return key;
}

void ProgressDisplay::update(double fraction, std::string_view stage) {
  if (mode_ == Mode::Off) return;
  std::lock_guard lock(mutex_);
  if (finished_) return;
  fraction_ = std::clamp(fraction, 0.0, 1.0);
  stage_ = stage;
  if (mode_ == Mode::Lines) {
    std::string key = stageKey(stage);
    if (key == lastKey_) return;
    lastKey_ = std::move(key);
    std::fprintf(stderr, "%s: %s: %s (%d%%)\n", kProgram, title_.c_str(), stage_.c_str(),
                 static_cast<int>(std::floor(fraction_ * 100)));
    std::fflush(stderr);
    return;
  }
  drawLocked(false);
}

void ProgressDisplay::tick() {
  if (mode_ != Mode::Bar) return;
  std::lock_guard lock(mutex_);
  if (!finished_) drawLocked(false);
}

void ProgressDisplay::drawLocked(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && drawn_ && now - lastDraw_ < kMinRedraw) return;
  lastDraw_ = now;
  drawn_ = true;
  const std::size_t width = terminalWidth() - 1;  // never touch the last column (no auto-wrap)
  constexpr std::size_t kBar = 24;
  const auto filled = static_cast<std::size_t>(std::floor(fraction_ * kBar));
  std::string text =
      title_ + " [" + std::string(filled, '#') + std::string(kBar - filled, '-') + "] ";
  char pct[8];
  std::snprintf(pct, sizeof pct, "%3d%%", static_cast<int>(std::floor(fraction_ * 100)));
  text += pct;
  text += "  " + clock(now - start_) + "  " + stage_;
  text = fitColumns(text, width);
  // \r back to column 0, \x1b[K clears what a longer previous line left.
  std::fprintf(stderr, "\r%s\x1b[K", text.c_str());
  std::fflush(stderr);
}

void ProgressDisplay::message(std::string_view text) {
  if (mode_ == Mode::Off) return;
  std::lock_guard lock(mutex_);
  if (mode_ == Mode::Bar && drawn_) std::fputs("\r\x1b[K", stderr);
  std::fprintf(stderr, "%.*s\n", static_cast<int>(text.size()), text.data());
  if (mode_ == Mode::Bar && drawn_ && !finished_) drawLocked(true);
  std::fflush(stderr);
}

void ProgressDisplay::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (mode_ == Mode::Bar && drawn_) {
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
  }
}

}  // namespace modescope::cli
