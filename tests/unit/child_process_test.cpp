// The child-process runner that isolates BioSig: exit codes, crashes, hangs and stderr capture,
// with /bin/sh as the child (its behaviour is known without our code).
#include "engine/io/child_process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>

namespace modescope {
namespace {

TEST(ChildProcess, ExitCodeAndStderr) {
  const auto r = runChildProcess("/bin/sh", {"-c", "echo out; echo 'bad header' >&2; exit 3"}, 10);
  EXPECT_EQ(r.outcome, ChildResult::Outcome::Exited);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.stderrText, "bad header\n");  // stdout is not captured
}

TEST(ChildProcess, CrashIsReportedWithTheSignal) {
  const auto r = runChildProcess("/bin/sh", {"-c", "kill -SEGV $$"}, 10);
  EXPECT_EQ(r.outcome, ChildResult::Outcome::Crashed);
  EXPECT_EQ(r.signal, SIGSEGV);
}

TEST(ChildProcess, HangIsKilledAtTheTimeLimit) {
  const auto t0 = std::chrono::steady_clock::now();
  // The grandchild (sleep) holds stderr open too; the whole process group must go.
  const auto r = runChildProcess("/bin/sh", {"-c", "sleep 30 & sleep 30"}, 0.5);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.outcome, ChildResult::Outcome::TimedOut);
  EXPECT_LT(s, 5.0);  // 0.5 s limit plus process start and kill; far below the 30 s sleep
}

TEST(ChildProcess, MissingExecutableCannotStart) {
  const auto r = runChildProcess("/nonexistent/modescope-cli", {"biosig-import"}, 5);
  EXPECT_EQ(r.outcome, ChildResult::Outcome::CouldNotStart);
  EXPECT_NE(r.stderrText.find("No such file"), std::string::npos) << r.stderrText;
}

TEST(ChildProcess, PathSearchForBareNames) {
  const auto r = runChildProcess("sh", {"-c", "exit 0"}, 5);
  EXPECT_EQ(r.outcome, ChildResult::Outcome::Exited);
  EXPECT_EQ(r.exitCode, 0);
}

TEST(ChildProcess, LongStderrKeepsTheTail) {
  const auto r = runChildProcess(
      "/bin/sh",
      {"-c", "i=0; while [ $i -lt 3000 ]; do echo line$i >&2; i=$((i+1)); done; echo END >&2"}, 20);
  EXPECT_EQ(r.outcome, ChildResult::Outcome::Exited);
  EXPECT_LE(r.stderrText.size(), 8u * 1024u);
  EXPECT_EQ(r.stderrText.substr(r.stderrText.size() - 4), "END\n");
}

TEST(ChildProcess, ExecutableDirIsAbsolute) {
  const std::string d = currentExecutableDir();
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0], '/');
}

}  // namespace
}  // namespace modescope
