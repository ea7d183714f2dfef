// Re-referencing on the device (cuda_preprocess.cuh): batches of columns (time) over the rows the
// plan touches, since every output sample needs every source row at the same time.
#include <algorithm>
#include <string>
#include <vector>

#include "cuda/cuda_preprocess.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/preprocess_kernels.cuh"
#include "engine/core/error.h"

namespace modescope::cuda {
namespace {

void checkInputs(const SignalBlock& block, const ReferencePlan& plan) {
  const std::size_t rows = block.channels.size();
  const std::size_t expected = rows * static_cast<std::size_t>(std::max<int64_t>(block.samples, 0));
  if (block.samples < 0 || block.data.size() != expected) {
    throw InvalidParameterError("signal block", std::to_string(block.data.size()) + " samples",
                                std::to_string(expected) + " (channels x samples)",
                                "Build blocks with extractBlock()");
  }
  if (plan.sources.size() != plan.weights.size()) {
    throw InvalidParameterError("reference plan",
                                std::to_string(plan.sources.size()) + " sources and " +
                                    std::to_string(plan.weights.size()) + " weights",
                                "one weight per source", "Build plans with planReference()");
  }
  for (const auto* list : {&plan.sources, &plan.targets}) {
    for (std::size_t r : *list) {
      if (r >= rows) {
        throw InvalidParameterError("reference plan", "row " + std::to_string(r),
                                    "a row below " + std::to_string(rows) +
                                        " (the block's channel count)",
                                    "Build plans with planReference() for this block");
      }
    }
  }
}

// Calls fn(firstBlockRow, count) for each run of consecutive rows in a sorted, unique list.
template <class F>
void forEachRun(const std::vector<std::size_t>& sorted, F fn) {
  std::size_t i = 0;
  while (i < sorted.size()) {
    std::size_t j = i + 1;
    while (j < sorted.size() && sorted[j] == sorted[j - 1] + 1) ++j;
    fn(sorted[i], j - i);
    i = j;
  }
}

}  // namespace

void referenceOnDevice(SignalBlock& block, const ReferencePlan& plan, JobContext& ctx,
                       cudaStream_t stream) {
  checkInputs(block, plan);
  const std::int64_t n = block.samples;
  if (plan.targets.empty() || n == 0) return;
  ctx.checkpoint();

  // The rows the plan touches, sorted; compact[blockRow] is the row's place on the device.
  std::vector<std::size_t> involved(plan.sources);
  involved.insert(involved.end(), plan.targets.begin(), plan.targets.end());
  std::sort(involved.begin(), involved.end());
  involved.erase(std::unique(involved.begin(), involved.end()), involved.end());
  std::vector<std::size_t> targets(plan.targets);
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  std::vector<int> compact(block.channels.size(), -1);
  for (std::size_t i = 0; i < involved.size(); ++i) compact[involved[i]] = static_cast<int>(i);

  std::vector<int> hostSources, hostTargets;
  for (std::size_t r : plan.sources) hostSources.push_back(compact[r]);
  for (std::size_t r : targets) hostTargets.push_back(compact[r]);
  DeviceBuffer<int> sources(hostSources.size()), targetRows(hostTargets.size());
  DeviceBuffer<double> weights(plan.weights.size());
  if (!hostSources.empty()) {
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(sources.get(), hostSources.data(), sources.bytes(),
                                       cudaMemcpyHostToDevice, stream));
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(weights.get(), plan.weights.data(), weights.bytes(),
                                       cudaMemcpyHostToDevice, stream));
  }
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(targetRows.get(), hostTargets.data(), targetRows.bytes(),
                                     cudaMemcpyHostToDevice, stream));

  const std::int64_t height = static_cast<std::int64_t>(involved.size());
  const std::size_t perColumn = static_cast<std::size_t>(height) * sizeof(float);
  const std::size_t usable = usableDeviceBytes();
  if (perColumn > usable) {
    throw OutOfDeviceMemoryError("re-referencing needs " + std::to_string(perColumn) +
                                 " bytes of GPU memory per sample, more than the free memory. "
                                 "Close other GPU programs or use --backend cpu");
  }
  const std::int64_t columns = std::min<std::int64_t>(
      {n, static_cast<std::int64_t>(usable / perColumn),
       std::max<std::int64_t>(1, batchSampleBudget() / height)});
  DeviceBuffer<float> data(static_cast<std::size_t>(height * columns));
  const std::size_t hostPitch = static_cast<std::size_t>(n) * sizeof(float);
  const std::size_t devicePitch = static_cast<std::size_t>(columns) * sizeof(float);

  for (std::int64_t t0 = 0; t0 < n; t0 += columns) {
    ctx.checkpoint();
    const std::int64_t len = std::min(columns, n - t0);
    const std::size_t width = static_cast<std::size_t>(len) * sizeof(float);
    // Runs of consecutive block rows are consecutive on the device: one 2-D copy per run.
    forEachRun(involved, [&](std::size_t first, std::size_t count) {
      MODESCOPE_CUDA_TRY(cudaMemcpy2DAsync(data.get() + compact[first] * columns, devicePitch,
                                           block.channel(first) + t0, hostPitch, width, count,
                                           cudaMemcpyHostToDevice, stream));
    });
    launchApplyReference(data.get(), columns, len, sources.get(), weights.get(),
                         static_cast<int>(hostSources.size()), targetRows.get(),
                         static_cast<int>(hostTargets.size()), stream);
    forEachRun(targets, [&](std::size_t first, std::size_t count) {
      MODESCOPE_CUDA_TRY(cudaMemcpy2DAsync(block.channel(first) + t0, hostPitch,
                                           data.get() + compact[first] * columns, devicePitch,
                                           width, count, cudaMemcpyDeviceToHost, stream));
    });
    MODESCOPE_CUDA_TRY(cudaStreamSynchronize(stream));
    ctx.progress(static_cast<double>(t0 + len) / static_cast<double>(n),
                 "re-referencing on the GPU");
  }
  ctx.checkpoint();
}

}  // namespace modescope::cuda
