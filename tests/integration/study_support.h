// Shared by the study tests (study_*_test.cpp, tests/gpu/study_gpu_test.cpp): a small BIDS
// dataset of synthetic recordings, a pipeline small enough for a 2-core CI machine, and readers
// for the files a study writes. Header-only, in modescope::study_support.
#pragma once

#include <dirent.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/cli_support.h"

namespace modescope::study_support {

namespace fs = std::filesystem;
using cli_support::RunResult;

inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void writeText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A synthetic recording (`channels` of the 10-20 set, 256 Hz) at `path` (EDF for .edf).
inline void synthRecording(const std::string& path, int channels, int seconds, int seed) {
  fs::create_directories(fs::path(path).parent_path());
  const RunResult r = cli_support::runCli(
      {"synth", "-o", path, "--channels", std::to_string(channels), "--duration",
       std::to_string(seconds), "--seed", std::to_string(seed), "-q"});
  ASSERT_EQ(r.exitCode, 0) << cli_support::describe(r);
}

// ds/sub-0S/ses-1/eeg/sub-0S_ses-1_task-rest_run-R_eeg.edf for each subject and run, plus a
// task-other recording of sub-01 that the task filter leaves out. `extension` ".h5" makes HDF5
// recordings, for builds without EDFlib (the GPU machine's).
inline void makeBids(const std::string& root, int subjects, int runs, int seconds = 8,
                     const std::string& extension = ".edf") {
  writeText(root + "/dataset_description.json", R"({"Name": "synthetic", "BIDSVersion": "1.9.0"})");
  int seed = 1;
  for (int s = 1; s <= subjects; ++s) {
    const std::string sub = "sub-0" + std::to_string(s);
    for (int r = 1; r <= runs; ++r) {
      const std::string name =
          sub + "_ses-1_task-rest_run-" + std::to_string(r) + "_eeg" + extension;
      synthRecording(root + "/" + sub + "/ses-1/eeg/" + name, 4, seconds, seed++);
      writeText(root + "/" + sub + "/ses-1/eeg/" + sub + "_ses-1_task-rest_run-" +
                    std::to_string(r) + "_eeg.json",
                R"({"SamplingFrequency": 256})");
    }
  }
  synthRecording(root + "/sub-01/ses-1/eeg/sub-01_ses-1_task-other_eeg" + extension, 4, seconds,
                 99);
}

// A filter step, then ICEEMDAN of two channels: a few tenths of a second per recording.
inline const char* kPipeline = R"({
  "modescope_pipeline": 1,
  "description": "high-pass, then ICEEMDAN of channels 1 and 2",
  "steps": [
    {"step": "filter", "filters": ["highpass:1"]},
    {"step": "emd", "preset": "iceemdan-colominas", "channels": [1, 2], "duration": 4,
     "params": {"ensembleSize": 4, "seed": 7, "stop.kind": "fixed", "stop.fixedSifts": 5}}
  ]
})";

// The state field of a task's status file ("" when there is none).
inline std::string taskState(const std::string& root, int index) {
  char name[32];
  std::snprintf(name, sizeof name, "task-%04d.json", index);
  const std::string text = readText(root + "/study/status/" + name);
  const auto at = text.find("\"state\": \"");
  if (at == std::string::npos) return {};
  const auto from = at + 10;
  return text.substr(from, text.find('"', from) - from);
}

// Waits until task `index` is running and returns the pid of its `modescope-cli run` child
// (0 when it did not come within `limit`).
inline int runChildOfTask(const std::string& root, int index,
                          std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char name[32];
  std::snprintf(name, sizeof name, "task-%04d.json", index);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string text = readText(root + "/study/status/" + name);
    const auto at = text.find("\"pid\": ");
    if (text.find("\"state\": \"running\"") != std::string::npos && at != std::string::npos) {
      const int pid = std::atoi(text.c_str() + at + 7);
      const std::string kids =
          readText("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
      if (!kids.empty()) return std::atoi(kids.c_str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

}  // namespace modescope::study_support
