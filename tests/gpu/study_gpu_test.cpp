// `modescope-cli study` on the GPU with the local executor (docs/study.md): one worker per GPU
// (CUDA_VISIBLE_DEVICES), every task on the CUDA backend (the sidecars say so), and the IMF
// counts equal to the same pipeline run on each recording alone with --backend cuda. Skips loudly
// without a GPU or a CUDA build.
//
// Throughput for docs/study.md on the GPU machine (the same study as the CPU figure there):
//   for N in 1 2 3 4 5 6 7 8; do mkdir -p ds/sub-0$N/eeg; modescope-cli synth
//     -o ds/sub-0$N/eeg/sub-0${N}_task-rest_eeg.h5 --channels 19 --duration 60 --seed $N -q; done
//   (one line), with p.json the pipeline of docs/study.md, "Throughput", then
//   /usr/bin/time modescope-cli study p.json --bids ds --backend cuda   # recordings/h =
//   8*3600/wall
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "engine/io/hdf5_emd.h"
#include "tests/gpu/gpu_test_support.h"
#include "tests/integration/study_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;
using namespace study_support;

class StudyGpuTest : public cli_support::TempDirTest {
 protected:
  StudyGpuTest() : TempDirTest("modescope-study-gpu") {}
};

TEST_F(StudyGpuTest, LocalExecutorRunsEveryRecordingOnTheGpu) {
  std::string why;
  if (!gpu_test::gpuBackend(why)) GTEST_SKIP() << "GPU test skipped: " << why;
  const std::string ds = path("ds");
  makeBids(ds, 2, 2, 30, ".h5");  // HDF5: the GPU machine's build has no EDFlib
  writeText(path("p.json"), kPipeline);
  const RunResult r =
      runCli({"study", path("p.json"), "--bids", ds, "--task", "rest", "--backend", "cuda"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.err.find("GPU worker(s)"), std::string::npos) << r.err;
  const std::string out = ds + "/derivatives/modescope";
  const std::string rec = "sub-01/ses-1/eeg/sub-01_ses-1_task-rest_run-1";
  const std::string sidecar = readText(out + "/" + rec + "_desc-p_imf.json");
  EXPECT_NE(sidecar.find("\"Kind\": \"cuda\""), std::string::npos) << sidecar;
  const std::string status = readText(out + "/study/status/task-0000.json");
  EXPECT_EQ(status.find("\"gpu\": \"\""), std::string::npos)
      << "the worker had CUDA_VISIBLE_DEVICES set: " << status;

  const RunResult alone = runCli({"run", path("p.json"), "--input", ds + "/" + rec + "_eeg.h5",
                                  "-o", path("alone"), "--backend", "cuda", "-q"});
  ASSERT_EQ(alone.exitCode, 0) << describe(alone);
  const EmdFile a = readEmdFile(out + "/" + rec + "_desc-p_imf.h5");
  const EmdFile b = readEmdFile(path("alone/02-emd.h5"));
  ASSERT_EQ(a.modes.channels.size(), b.modes.channels.size());
  for (std::size_t c = 0; c < a.modes.channels.size(); ++c)
    EXPECT_EQ(a.modes.channels[c].rows, b.modes.channels[c].rows) << c;
}

}  // namespace
}  // namespace modescope
