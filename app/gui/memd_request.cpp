#include "app/gui/memd_request.h"

#include <algorithm>
#include <cmath>

#include "app/core/channel_selection.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/memd/memd_memory.h"

namespace modescope {
namespace {

// cuda/memd_gpu.cpp budgets this fraction of the free device memory.
constexpr double kUsableDeviceFraction = 0.85;

}  // namespace

MemdJobSpec toJobSpec(const MemdRequest& request, const std::string& inputFile) {
  MemdJobSpec spec;
  static_cast<Selection&>(spec) = request;  // channels and range
  spec.params = request.params;
  spec.presetName = request.presetName;
  spec.inputFile = inputFile;
  return spec;
}

std::string describeMemd(const Recording& rec, const MemdRequest& request) {
  return std::string(request.params.noiseChannels > 0 ? "NA-MEMD" : "MEMD") + " of " +
         describeChannels(rec, request.channels) + " (" +
         describeTimeRange(request.startSeconds, request.durationSeconds) + ")";
}

HhtParams memdViewHhtParams() {
  HhtParams h;  // 0 Hz .. Nyquist, 256 linear bins, automatic time bins, amplitude
  h.keepInstantaneous = true;
  return h;
}

int64_t memdRequestSamples(const Recording& rec, const MemdRequest& request) {
  if (request.channels.empty() || request.channels.front() >= rec.channelCount()) return 0;
  const ChannelInfo& c = rec.channels[request.channels.front()];
  const double available =
      std::max(0.0, static_cast<double>(c.sampleCount) / c.sampleRate - request.startSeconds);
  const double seconds =
      request.durationSeconds < 0 ? available : std::min(available, request.durationSeconds);
  return static_cast<int64_t>(std::floor(seconds * c.sampleRate));
}

MemdMemoryPlan memdMemoryPlan(const MemdParams& params, int channels, int64_t samples,
                              std::size_t deviceBytes) {
  MemdMemoryPlan plan;
  if (channels <= 0 || samples <= 0) return plan;
  const int dims = channels + params.noiseChannels;
  const int directions = memdDirectionCount(params, dims);
  if (deviceBytes > 0) {
    const int valueBytes = params.gpuPrecision == GpuPrecision::Float64 ? 8 : 4;
    const double budget = kUsableDeviceFraction * static_cast<double>(deviceBytes);
    try {
      const MemdDevicePlan p = planMemdDevice(dims, samples, directions, valueBytes, budget);
      plan.text = "GPU memory: " + formatByteSize(static_cast<double>(p.totalBytes)) + " of " +
                  formatByteSize(budget) + " usable (" + std::to_string(directions) +
                  " directions, " + std::to_string(p.chunk) + " at a time, " +
                  std::to_string(dims) + " channels incl. noise x " + std::to_string(samples) +
                  " samples)";
    } catch (const OutOfDeviceMemoryError& e) {
      plan.refused = true;
      plan.text = e.what();
    }
    return plan;
  }
  // The automatic IMF count is about log2(n) (a dyadic filter bank, Flandrin et al. 2004).
  const int rows =
      (params.maxImfs > 0 ? params.maxImfs : static_cast<int>(std::log2(double(samples)))) + 1;
  const double modes = double(channels) * rows * double(samples) * sizeof(float);
  const double instantaneous = 2.0 * modes;  // amplitude and frequency per sample and IMF
  const double spectra = double(channels) * 256.0 *
                         double(std::min<int64_t>(samples, kHhtDefaultMaxTimeBins)) * sizeof(float);
  plan.text = "CPU: the result takes about " + formatByteSize(modes + instantaneous + spectra) +
              " (" + std::to_string(directions) + " directions, about " + std::to_string(rows - 1) +
              " IMFs + residue per channel)";
  return plan;
}

}  // namespace modescope
