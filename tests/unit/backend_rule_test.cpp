// backendForRun (app/core/gpu_backend.h), the one backend-choice rule of a method run in the
// window and on the command line: an own choice makes a backend for the run with its CPU thread
// count, none takes the session's backend, and none without a session backend is refused.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "app/core/gpu_backend.h"
#include "engine/core/error.h"

namespace modescope {
namespace {

TEST(BackendRule, AnOwnCpuChoiceMakesABackendWithItsThreadCount) {
  std::string note = "left over";
  const std::shared_ptr<ComputeBackend> session = chooseBackend(BackendChoice::Cpu, nullptr, 1);
  const std::shared_ptr<ComputeBackend> b =
      backendForRun(BackendChoice::Cpu, session, &note, /*cpuThreads=*/3);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b, session) << "an own choice makes the run its own backend";
  EXPECT_EQ(b->info().kind, BackendKind::Cpu);
  EXPECT_EQ(b->info().threads, 3);
  EXPECT_EQ(b->info().describe(), "CPU, 3 threads");
  EXPECT_TRUE(note.empty()) << "a CPU asked for is no fallback: " << note;
}

TEST(BackendRule, NoOwnChoiceTakesTheSessionBackend) {
  const std::shared_ptr<ComputeBackend> session = chooseBackend(BackendChoice::Cpu, nullptr, 2);
  EXPECT_EQ(backendForRun(std::nullopt, session), session);
  EXPECT_THROW(backendForRun(std::nullopt, nullptr), DeviceError);
}

TEST(BackendRule, AnOwnAutoChoiceSaysWhyItRunsOnTheCpu) {
  std::string note;
  const std::shared_ptr<ComputeBackend> b =
      backendForRun(BackendChoice::Auto, nullptr, &note, /*cpuThreads=*/2);
  ASSERT_NE(b, nullptr);
  if (b->info().kind == BackendKind::Cuda) {
    EXPECT_TRUE(note.empty()) << note;  // a GPU machine: no fallback to explain
    return;
  }
  EXPECT_EQ(b->info().threads, 2) << "the fallback CPU keeps the run's thread count";
  // A build with CUDA on a machine without a usable GPU says why; a CPU-only build has no GPU to
  // fall back from (selectBackend's note then says that the build has none, or nothing).
  if (gpuFactory() != nullptr) {
    EXPECT_FALSE(note.empty());
  }
  // The reason travels with the backend, so each result's provenance (describe()) records it.
  EXPECT_FALSE(b->info().fallback.empty());
  EXPECT_NE(b->info().describe().find(b->info().fallback), std::string::npos)
      << b->info().describe();
}

std::unique_ptr<ComputeBackend> noGpu(std::string& reason) {
  reason = "no CUDA device found";
  return nullptr;
}

TEST(BackendRule, AFallbackIsPartOfTheBackendsDescription) {
  std::string note;
  const auto fellBack = selectBackend(BackendChoice::Auto, noGpu, &note, 2);
  EXPECT_EQ(fellBack->info().fallback, "no usable GPU (no CUDA device found)");
  EXPECT_EQ(fellBack->info().describe(),
            "CPU, 2 threads (auto: no usable GPU (no CUDA device found))");
  EXPECT_EQ(note, "no usable GPU (no CUDA device found); computing on the CPU");
  const auto asked = selectBackend(BackendChoice::Cpu, noGpu, &note, 2);
  EXPECT_TRUE(asked->info().fallback.empty()) << "a CPU asked for is no fallback";
  EXPECT_EQ(asked->info().describe(), "CPU, 2 threads");
}

}  // namespace
}  // namespace modescope
