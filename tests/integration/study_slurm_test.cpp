// `modescope-cli study --executor slurm` (docs/study.md): the batch script (array, %K, GPUs,
// partition, time, memory from options and a profile), the message without Slurm, and a real
// run on a one-machine Slurm started by tests/tools/slurm_localhost.sh (munged, slurmctld,
// slurmd on localhost): a small study on the CPU backend, one array task killed on purpose
// (scancel), then `study retry` resubmits only that index. Skips loudly, with the reason, only
// where the daemons cannot start.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "tests/integration/study_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::Child;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;
using namespace study_support;

const std::string kFixture = std::string(MODESCOPE_SOURCE_DIR) + "/tests/tools/slurm_localhost.sh";

class StudySlurmTest : public cli_support::TempDirTest {
 protected:
  StudySlurmTest() : TempDirTest("modescope-study-slurm") {}
};

TEST_F(StudySlurmTest, DryRunWritesTheArrayScriptFromOptionsAndProfile) {
  for (int i = 1; i <= 4; ++i) synthRecording(path("r" + std::to_string(i) + ".h5"), 4, 4, i);
  writeText(path("p.json"), kPipeline);
  writeText(path("profile.json"),
            R"({"partition": "gpu", "time": "02:00:00", "mem": "8G", "gpus_per_task": 1,
                "max_parallel": 3, "extra": ["--qos=short"]})");
  const RunResult r = runCli({"study",
                              path("p.json"),
                              "--input",
                              path("r1.h5"),
                              "--input",
                              path("r2.h5"),
                              "--input",
                              path("r3.h5"),
                              "--input",
                              path("r4.h5"),
                              "-o",
                              path("out"),
                              "--executor",
                              "slurm",
                              "--slurm-profile",
                              path("profile.json"),
                              "--max-parallel",
                              "2",
                              "--time",
                              "00:30:00",
                              "--dry-run"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const std::string script = readText(path("out/study/slurm/array-1.sbatch"));
  EXPECT_NE(script.find("#SBATCH --array=0-3%2\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --gres=gpu:1\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=gpu\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --time=00:30:00\n"), std::string::npos)
      << "options win: " << script;
  EXPECT_NE(script.find("#SBATCH --mem=8G\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --qos=short\n"), std::string::npos) << script;
  EXPECT_NE(script.find("study task '" + path("out") + "' --index \"$SLURM_ARRAY_TASK_ID\""),
            std::string::npos)
      << script;
  EXPECT_EQ(taskState(path("out"), 0), "") << "a dry run runs nothing";

  writeText(path("bad-profile.json"), R"({"partition": 3})");
  const RunResult bad =
      runCli({"study", path("p.json"), "--input", path("r1.h5"), "-o", path("out"), "--executor",
              "slurm", "--slurm-profile", path("bad-profile.json"), "--dry-run"});
  EXPECT_EQ(bad.exitCode, 2) << describe(bad);
  EXPECT_NE(bad.err.find("partition"), std::string::npos) << bad.err;
}

TEST_F(StudySlurmTest, WithoutSlurmItSaysHowToInstallOrRunLocally) {
  synthRecording(path("r1.h5"), 4, 4, 1);
  writeText(path("p.json"), kPipeline);
  const std::string oldPath = getenv("PATH") ? getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);
  const RunResult r = runCli({"study", path("p.json"), "--input", path("r1.h5"), "-o", path("out"),
                              "--executor", "slurm"});
  setenv("PATH", oldPath.c_str(), 1);
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("sbatch is not on PATH"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("apt-get install"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--executor local"), std::string::npos) << r.err;
}

TEST_F(StudySlurmTest, RealSlurmRunsTheArrayAndRetryResubmitsOnlyTheKilledTask) {
  const std::string slurm = path("slurm");
  const RunResult start = Child({"start", slurm}, kFixture).finish(std::chrono::seconds(60));
  if (start.exitCode == 77) GTEST_SKIP() << "no local Slurm: " << start.err;
  ASSERT_EQ(start.exitCode, 0) << describe(start);
  setenv("SLURM_CONF", (slurm + "/slurm.conf").c_str(), 1);
  struct Stop {
    std::string dir;
    ~Stop() {
      Child({"stop", dir}, kFixture).finish(std::chrono::seconds(30));
      unsetenv("SLURM_CONF");
    }
  } stop{slurm};

  // Task 1 is heavy, so it is still running when it is cancelled; the others are quick.
  synthRecording(path("r0.h5"), 4, 4, 1);
  synthRecording(path("r1.h5"), 4, 120, 2);
  synthRecording(path("r2.h5"), 4, 4, 3);
  writeText(path("p.json"), R"({
    "modescope_pipeline": 1,
    "steps": [{"step": "emd", "preset": "iceemdan-colominas", "channels": [1, 2],
               "params": {"ensembleSize": 4, "seed": 3, "stop.kind": "fixed",
                          "stop.fixedSifts": 5}}]})");
  const std::vector<std::string> inputs = {"--input",     path("r0.h5"), "--input",
                                           path("r1.h5"), "--input",     path("r2.h5")};
  std::vector<std::string> cmd = {"study",  path("p.json"), "-o",    path("out"),      "--backend",
                                  "cpu",    "--executor",   "slurm", "--max-parallel", "2",
                                  "--poll", "0.5"};
  cmd.insert(cmd.end(), inputs.begin(), inputs.end());
  Child study(cmd);
  ASSERT_TRUE(study.waitForStderr("array-1.sbatch)", std::chrono::seconds(60)))
      << "no submission: " << study.stderrSoFar();
  ASSERT_GT(runChildOfTask(path("out"), 1, std::chrono::seconds(120)), 0)
      << "task 1 never ran under Slurm: " << study.stderrSoFar();
  const std::string job = [&] {
    const std::string s = study.stderrSoFar();
    const auto at = s.find("submitted Slurm job ");
    return at == std::string::npos ? std::string()
                                   : s.substr(at + 20, s.find(' ', at + 20) - at - 20);
  }();
  ASSERT_FALSE(job.empty()) << study.stderrSoFar();
  const RunResult cancel = Child({job + "_1"}, "/usr/bin/scancel").finish();
  ASSERT_EQ(cancel.exitCode, 0) << describe(cancel);
  const RunResult r = study.finish(std::chrono::seconds(240));
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_EQ(taskState(path("out"), 0), "done") << describe(r);
  EXPECT_EQ(taskState(path("out"), 2), "done") << describe(r);
  const std::string killed = taskState(path("out"), 1);
  EXPECT_TRUE(killed == "failed" || killed == "interrupted") << killed;
  EXPECT_NE(readText(path("out/study/status/task-0001.json")).find(job + "_1"), std::string::npos)
      << readText(path("out/study/status/task-0001.json"));

  // The retry submits only index 1 (a quick recording now, so the test stays short).
  synthRecording(path("r1.h5"), 4, 4, 2);
  const RunResult retry =
      runCli({"study", "retry", path("out"), "--executor", "slurm", "--poll", "0.5"});
  ASSERT_EQ(retry.exitCode, 0) << describe(retry);
  const std::string script = readText(path("out/study/slurm/array-2.sbatch"));
  EXPECT_NE(script.find("#SBATCH --array=1\n"), std::string::npos) << script;
  for (int t = 0; t < 3; ++t) EXPECT_EQ(taskState(path("out"), t), "done") << t;
  EXPECT_NE(readText(path("out/study/status/task-0001.json")).find("\"executor\": \"slurm\""),
            std::string::npos);
}

}  // namespace
}  // namespace modescope
