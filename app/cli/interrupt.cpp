#include "app/cli/interrupt.h"

#include <signal.h>

#include <atomic>

namespace modescope::cli {
namespace {

// Lock-free, so touching it from a signal handler is allowed.
std::atomic<bool> gInterrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

struct sigaction gPreviousInt, gPreviousTerm;

extern "C" void onInterrupt(int) { gInterrupted.store(true, std::memory_order_relaxed); }

}  // namespace

InterruptGuard::InterruptGuard() {
  gInterrupted.store(false);
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &sa, &gPreviousInt);
  sigaction(SIGTERM, &sa, &gPreviousTerm);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &gPreviousInt, nullptr);
  sigaction(SIGTERM, &gPreviousTerm, nullptr);
}

bool InterruptGuard::requested() noexcept { return gInterrupted.load(std::memory_order_relaxed); }

}  // namespace modescope::cli
