#include "app/cli/job.h"

#include "app/cli/common.h"
#include "app/cli/interrupt.h"
#include "app/core/job_runner.h"

namespace modescope::cli {

JobOutcome runCliJob(const std::string& title, JobFunction fn, ProgressDisplay& display) {
  InterruptGuard guard;
  JobWaitHooks hooks;
  hooks.progress = [&display](double f, std::string_view stage) { display.update(f, stage); };
  bool announced = false;
  hooks.shouldCancel = [&] {
    if (!InterruptGuard::requested()) return false;
    if (!announced) {
      announced = true;
      display.message(std::string(kProgram) + ": cancelling (Ctrl-C again to stop at once)");
    }
    return true;
  };
  hooks.tick = [&display] { display.tick(); };
  bool cancelRequested = false;
  JobOutcome out = runJobAndWait(title, std::move(fn), hooks, &cancelRequested);
  display.finish();
  if ((cancelRequested || InterruptGuard::requested()) && out.state != JobState::Succeeded) {
    out.state = JobState::Cancelled;
    out.exitCode = 130;
    out.message = "cancelled by the user; no output was written";
  }
  return out;
}

int reportOutcome(const JobOutcome& outcome) {
  switch (outcome.state) {
    case JobState::Succeeded:
      return 0;
    case JobState::Cancelled:
      printNote(outcome.message);
      return 130;
    default:
      break;
  }
  printError(outcome.message);
  return outcome.exitCode != 0 ? outcome.exitCode : 1;
}

}  // namespace modescope::cli
