// `modescope-cli study` with the local executor (docs/study.md): BIDS input and Derivatives
// output, results bit-identical to `run` on each recording alone, resume and redo, isolated
// faults (damaged file, crash, timeout, Ctrl-C) and `study retry`.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/io/hdf5_emd.h"
#include "tests/integration/study_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::Child;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;
using namespace study_support;

template <typename T>
bool sameBytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

long long mtimeNs(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

class StudyLocalTest : public cli_support::TempDirTest {
 protected:
  StudyLocalTest() : TempDirTest("modescope-study") {}
  std::string pipeline(const std::string& name, const std::string& text) {
    writeText(path(name), text);
    return path(name);
  }
};

TEST_F(StudyLocalTest, BidsStudyWritesDerivativesEqualToRunningEachRecordingAlone) {
  const std::string ds = path("ds");
  makeBids(ds, 2, 2);
  const std::string p = pipeline("hp-emd.json", kPipeline);
  const std::vector<std::string> cmd = {"study",  p,    "--bids",    ds,    "--task",    "rest",
                                        "--desc", "hp", "--backend", "cpu", "--workers", "2"};
  const RunResult r = runCli(cmd);
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.err.find("[4/4]"), std::string::npos) << "whole-study progress: " << r.err;
  const std::string out = ds + "/derivatives/modescope";

  const std::string dd = readText(out + "/dataset_description.json");
  EXPECT_NE(dd.find("\"DatasetType\": \"derivative\""), std::string::npos) << dd;
  EXPECT_NE(dd.find("\"GeneratedBy\""), std::string::npos) << dd;
  EXPECT_NE(dd.find("\"Version\""), std::string::npos) << dd;
  EXPECT_NE(dd.find("\"raw\": \"../..\""), std::string::npos) << dd;

  const std::string folder = out + "/sub-02/ses-1/eeg/";
  const std::string stem = "sub-02_ses-1_task-rest_run-1_desc-hp_";
  ASSERT_TRUE(fs::exists(folder + stem + "eeg.h5"));
  ASSERT_TRUE(fs::exists(folder + stem + "imf.h5"));
  const std::string filterSidecar = readText(folder + stem + "eeg.json");
  EXPECT_NE(
      filterSidecar.find("\"bids:raw:sub-02/ses-1/eeg/sub-02_ses-1_task-rest_run-1_eeg.edf\""),
      std::string::npos)
      << filterSidecar;
  const std::string emdSidecar = readText(folder + stem + "imf.json");
  EXPECT_NE(emdSidecar.find("\"bids::sub-02/ses-1/eeg/" + stem + "eeg.h5\""), std::string::npos)
      << "the EMD step read the filter step's output: " << emdSidecar;
  EXPECT_NE(emdSidecar.find("\"Backend\""), std::string::npos) << emdSidecar;
  EXPECT_NE(emdSidecar.find("\"Parameters\""), std::string::npos) << emdSidecar;
  EXPECT_NE(emdSidecar.find("\"ParameterHash\""), std::string::npos) << emdSidecar;
  EXPECT_FALSE(fs::exists(out + "/sub-01/ses-1/eeg/sub-01_ses-1_task-other_desc-hp_imf.h5"))
      << "--task rest leaves task-other out";
  EXPECT_TRUE(fs::exists(out + "/study/report.html"));

  // Each result equals `run` on that recording alone, bit for bit (CPU backend).
  for (const char* rec : {"sub-01/ses-1/eeg/sub-01_ses-1_task-rest_run-2",
                          "sub-02/ses-1/eeg/sub-02_ses-1_task-rest_run-1"}) {
    const std::string alone = path(std::string("alone-") + std::to_string(rec[5]));
    const RunResult a = runCli(
        {"run", p, "--input", ds + "/" + rec + "_eeg.edf", "-o", alone, "--backend", "cpu", "-q"});
    ASSERT_EQ(a.exitCode, 0) << describe(a);
    const std::string mine = out + "/" + rec + "_desc-hp_imf.h5";
    const EmdFile x = readEmdFile(mine);
    const EmdFile y = readEmdFile(alone + "/02-emd.h5");
    ASSERT_EQ(x.modes.channels.size(), 2u);
    ASSERT_EQ(y.modes.channels.size(), 2u);
    for (std::size_t c = 0; c < 2; ++c) {
      EXPECT_EQ(x.modes.channels[c].rows, y.modes.channels[c].rows);
      EXPECT_TRUE(sameBytes(x.modes.channels[c].data, y.modes.channels[c].data))
          << rec << " channel " << c;
    }
    EXPECT_EQ(x.modes.provenance.parameters, y.modes.provenance.parameters);
  }

  // The same command again: everything is complete and identical, nothing runs.
  const std::string status0 = out + "/study/status/task-0000.json";
  const long long before = mtimeNs(status0);
  const RunResult again = runCli(cmd);
  ASSERT_EQ(again.exitCode, 0) << describe(again);
  EXPECT_NE(again.err.find("4 already done"), std::string::npos) << again.err;
  EXPECT_EQ(mtimeNs(status0), before);

  // A changed parameter redoes every task, and only the changed hash counts.
  std::string changed = kPipeline;
  changed.replace(changed.find("\"seed\": 7"), 9, "\"seed\": 8");
  writeText(p, changed);
  const RunResult redo = runCli(cmd);
  ASSERT_EQ(redo.exitCode, 0) << describe(redo);
  EXPECT_NE(redo.err.find("0 already done"), std::string::npos) << redo.err;
  EXPECT_NE(mtimeNs(status0), before);
}

TEST_F(StudyLocalTest, DamagedRecordingFailsAloneAndRetryRunsOnlyIt) {
  for (int i = 1; i <= 3; ++i) synthRecording(path("rec" + std::to_string(i) + ".h5"), 4, 8, i);
  // An EDF whose header is cut short.
  writeText(path("broken.edf"), "0       patient                                   ");
  writeText(path("list.txt"), "# three good, one damaged\nrec1.h5\nbroken.edf\nrec2.h5\nrec3.h5\n");
  const std::string p = pipeline("p.json", kPipeline);
  const RunResult r = runCli({"study", p, "--inputs", path("list.txt"), "-o", path("out"),
                              "--backend", "cpu", "--workers", "2"});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_NE(r.out.find("3 of 4 recordings done, 1 failed"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("failed: rec-broken:"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("study retry"), std::string::npos) << describe(r);
  EXPECT_EQ(taskState(path("out"), 1), "failed");
  const std::string status = readText(path("out/study/status/task-0001.json"));
  EXPECT_NE(status.find("broken.edf"), std::string::npos) << "the reader's message: " << status;
  for (int t : {0, 2, 3}) EXPECT_EQ(taskState(path("out"), t), "done") << t;
  EXPECT_TRUE(fs::exists(path("out/rec-rec1_desc-p_imf.h5")));
  EXPECT_FALSE(fs::exists(path("out/rec-broken_desc-p_imf.h5")));

  const RunResult st = runCli({"study", "status", path("out")});
  EXPECT_EQ(st.exitCode, 0) << describe(st);
  EXPECT_NE(st.out.find("3 of 4 done, 1 failed"), std::string::npos) << st.out;

  // Repaired, the retry runs it and nothing else.
  synthRecording(path("broken.edf"), 4, 8, 9);
  const long long good = mtimeNs(path("out/study/status/task-0000.json"));
  const RunResult retry = runCli({"study", "retry", path("out"), "--workers", "2"});
  ASSERT_EQ(retry.exitCode, 0) << describe(retry);
  EXPECT_NE(retry.err.find("retrying 1 failed task(s): 1"), std::string::npos) << retry.err;
  EXPECT_EQ(taskState(path("out"), 1), "done");
  EXPECT_EQ(mtimeNs(path("out/study/status/task-0000.json")), good);
  EXPECT_TRUE(fs::exists(path("out/rec-broken_desc-p_imf.h5")));
}

// Heavy enough that a task is still running when the test acts on it.
const char* kSlowPipeline = R"({
  "modescope_pipeline": 1,
  "steps": [
    {"step": "emd", "preset": "iceemdan-colominas", "channels": [1, 2],
     "params": {"ensembleSize": 40, "seed": 7, "stop.kind": "fixed", "stop.fixedSifts": 20}}
  ]
})";

TEST_F(StudyLocalTest, CrashAndTimeoutAreRecordedAndTheStudyGoesOn) {
  synthRecording(path("a.h5"), 4, 60, 1);
  synthRecording(path("b.h5"), 4, 4, 2);
  const std::string p = pipeline("slow.json", kSlowPipeline);
  Child study({"study", p, "--input", path("a.h5"), "--input", path("b.h5"), "-o", path("out"),
               "--backend", "cpu", "--workers", "1"});
  const int victim = runChildOfTask(path("out"), 0);
  ASSERT_GT(victim, 0) << "task 0 never ran: " << study.stderrSoFar();
  ::kill(victim, SIGKILL);  // a crash of the recording's process
  const RunResult r = study.finish();
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_EQ(taskState(path("out"), 0), "failed");
  EXPECT_NE(readText(path("out/study/status/task-0000.json")).find("killed by signal 9"),
            std::string::npos)
      << readText(path("out/study/status/task-0000.json"));
  EXPECT_EQ(taskState(path("out"), 1), "done") << "the study went on after the crash";
  EXPECT_FALSE(fs::exists(path("out/rec-a_desc-slow_imf.h5")));

  const RunResult t = runCli({"study", p, "--input", path("a.h5"), "-o", path("out2"), "--backend",
                              "cpu", "--timeout", "0.3"});
  EXPECT_EQ(t.exitCode, 2) << describe(t);
  EXPECT_NE(readText(path("out2/study/status/task-0000.json")).find("timed out after"),
            std::string::npos);
}

TEST_F(StudyLocalTest, InterruptedStudyResumesWithNothingHalfDone) {
  for (int i = 1; i <= 3; ++i) synthRecording(path("r" + std::to_string(i) + ".h5"), 4, 12, i);
  const std::string p = pipeline("slow.json", kSlowPipeline);
  const std::vector<std::string> cmd = {
      "study",       p,    "--input",   path("r1.h5"), "--input", path("r2.h5"), "--input",
      path("r3.h5"), "-o", path("out"), "--backend",   "cpu"};
  Child study(cmd);
  ASSERT_GT(runChildOfTask(path("out"), 0), 0) << study.stderrSoFar();
  const RunResult r = study.interrupt();
  EXPECT_EQ(r.exitCode, 130) << describe(r);
  EXPECT_NE(r.err.find("run the same command again to resume"), std::string::npos) << r.err;
  EXPECT_EQ(taskState(path("out"), 0), "interrupted");
  EXPECT_FALSE(fs::exists(path("out/rec-r1_desc-slow_imf.h5")));

  const RunResult resumed = runCli(cmd);
  ASSERT_EQ(resumed.exitCode, 0) << describe(resumed);
  for (int t = 0; t < 3; ++t) EXPECT_EQ(taskState(path("out"), t), "done");
  for (const auto& e : fs::recursive_directory_iterator(path("out")))
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
}

TEST_F(StudyLocalTest, BadInputIsRefusedBeforeAnythingRuns) {
  const std::string ds = path("ds");
  makeBids(ds, 1, 1);
  std::string bad = kPipeline;
  bad.replace(bad.find("\"ensembleSize\": 4"), 17, "\"ensembleSize\": 0");
  const RunResult r = runCli({"study", pipeline("bad.json", bad), "--bids", ds});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_NE(r.err.find("step 2 (emd), field params.ensembleSize"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(ds + "/derivatives")) << "nothing is written for a bad pipeline";

  const RunResult nosub =
      runCli({"study", pipeline("p.json", kPipeline), "--bids", ds, "--subject", "07"});
  EXPECT_EQ(nosub.exitCode, 2) << describe(nosub);
  EXPECT_NE(nosub.err.find("no recording with subject 07"), std::string::npos) << nosub.err;
  EXPECT_NE(nosub.err.find("subjects 01"), std::string::npos)
      << "lists what is there: " << nosub.err;

  const RunResult nobids = runCli({"study", path("p.json"), "--bids", path("nothing")});
  EXPECT_EQ(nobids.exitCode, 2) << describe(nobids);
  EXPECT_NE(nobids.err.find("BIDS root"), std::string::npos) << nobids.err;

  // A full disk: a 1 MiB file system for the output.
  const std::string small = path("small");
  fs::create_directories(small);
  if (std::system(("mount -t tmpfs -o size=1m tmpfs '" + small + "' 2>/dev/null").c_str()) != 0) {
    std::fprintf(stderr, "NOTE: full-disk case skipped: cannot mount a tmpfs here (needs root)\n");
    return;
  }
  const RunResult full =
      runCli({"study", path("p.json"), "--bids", ds, "-o", small + "/out", "--backend", "cpu"});
  std::system(("umount '" + small + "'").c_str());
  EXPECT_EQ(full.exitCode, 2) << describe(full);
  EXPECT_NE(full.err.find("the disk is full"), std::string::npos) << full.err;
}

}  // namespace
}  // namespace modescope
