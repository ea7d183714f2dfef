#include "engine/compute/backend.h"

#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {

std::string BackendInfo::describe() const {
  if (kind == BackendKind::Cuda) {
    char mem[32];
    std::snprintf(mem, sizeof mem, "%.1f GiB",
                  static_cast<double>(memoryBytes) / (1024.0 * 1024 * 1024));
    return "GPU: " + deviceName + ", " + mem;
  }
  const std::string cpu =
      "CPU, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  return fallback.empty() ? cpu : cpu + " (auto: " + fallback + ")";
}

ArSpectrumResult ComputeBackend::filteredArSpectra(const SpatialFilter* filter,
                                                   const SignalBlock& block,
                                                   const BurgArParams& params, JobContext& ctx) {
  if (filter == nullptr) return arSpectra(block, params, ctx);
  const SignalBlock filtered = spatialFilter(*filter, block, ctx);
  return arSpectra(filtered, params, ctx);
}

void ComputeBackend::applyPipeline(SignalBlock& block, const ReferencePlan* reference,
                                   const std::vector<FirKernel>& filters, JobContext& ctx) {
  const bool referenced = reference != nullptr && !reference->targets.empty();
  const std::size_t stages = filters.size() + (referenced ? 1 : 0);
  std::size_t stage = 0;
  // Each stage gets an equal share of the progress range.
  auto next = [&]() {
    const double a = static_cast<double>(stage) / static_cast<double>(stages);
    const double b = static_cast<double>(stage + 1) / static_cast<double>(stages);
    ++stage;
    return ctx.sub(a, b);
  };
  if (referenced) {
    JobContext c = next();
    c.progress(0.0, "re-referencing");
    applyReference(block, *reference, c);
  }
  for (const auto& k : filters) {
    JobContext c = next();
    c.progress(0.0, k.description.empty() ? std::string("filtering") : k.description);
    applyFir(block, k, c);
  }
  ctx.checkpoint();
}

std::unique_ptr<ComputeBackend> selectBackend(BackendChoice choice, GpuBackendFactory gpu,
                                              std::string* note, int cpuThreads) {
  if (choice == BackendChoice::Cpu) return makeCpuBackend(cpuThreads);
  std::string reason = "this build has no CUDA backend";
  if (gpu) {
    if (auto b = gpu(reason)) return b;
  }
  if (choice == BackendChoice::Cuda) {
    throw DeviceError("the CUDA backend was requested but is not available: " + reason +
                      ". Use --backend cpu (or 'CPU' in the backend menu)");
  }
  const std::string fallback = "no usable GPU (" + reason + ")";
  if (note) *note = fallback + "; computing on the CPU";
  return makeCpuBackend(cpuThreads, fallback);
}

BackendChoice parseBackendChoice(const std::string& text) {
  if (equalsIgnoreCase(text, "auto")) return BackendChoice::Auto;
  if (equalsIgnoreCase(text, "cpu")) return BackendChoice::Cpu;
  if (equalsIgnoreCase(text, "cuda") || equalsIgnoreCase(text, "gpu")) return BackendChoice::Cuda;
  throw InvalidParameterError("backend", "'" + text + "'", "auto, cpu or cuda");
}

}  // namespace modescope
