// The CPU reference of the EMD family (emd.h): input checks, the channel loop, progress,
// diagnostics and the conversion of the double-precision modes to float rows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/core/error.h"
#include "engine/core/finite_samples.h"
#include "engine/core/text.h"
#include "engine/emd/emd.h"
#include "engine/emd/emd_internal.h"
#include "engine/emd/sifting.h"
#include "engine/parallel/worker_team.h"

namespace modescope {
namespace {

using emd_detail::ChannelDecomposition;
using emd_detail::WorkerPool;

std::string channelName(const SignalBlock& block, std::size_t c) {
  return "channel " + std::to_string(block.channels[c]);
}

const char* methodTitle(EmdMethod m) {
  switch (m) {
    case EmdMethod::Emd:
      return "EMD";
    case EmdMethod::Eemd:
      return "EEMD";
    case EmdMethod::Ceemdan:
      return "CEEMDAN";
    case EmdMethod::Iceemdan:
      return "ICEEMDAN";
  }
  return "EMD";
}

std::string channelList(const std::vector<std::size_t>& channels) {
  std::string s;
  for (std::size_t i = 0; i < channels.size() && i < 8; ++i)
    s += (i ? ", " : "") + std::to_string(channels[i]);
  if (channels.size() > 8) s += ", ...";
  return s;
}

}  // namespace

Diagnostic imfLimitDiagnostic(int limit, const std::vector<std::size_t>& channels) {
  return {Severity::Warning, "emd.imfLimitReached",
          "the automatic IMF count stopped at its limit of " + std::to_string(limit) +
              " IMFs (floor(log2 N) + 6) while the residue still had an IMF (channels " +
              channelList(channels) +
              "); in float32 the last IMFs are then rounding noise: use float64, or set maxImfs"};
}

void validateEmdInput(const SignalBlock& block, const EmdParams& params) {
  validateEmdParams(params);
  if (block.channels.empty())
    throw InvalidParameterError("channels", "none", "at least one channel",
                                "select the channels to decompose");
  if (block.samples < kEmdMinSamples)
    throw InvalidParameterError(
        "samples", std::to_string(block.samples),
        "at least " + std::to_string(kEmdMinSamples) + " samples per channel",
        "select a longer time range (a signal needs at least 3 extrema to be sifted)");
  // Knot positions are int32 and mirrored ones reach about 2n.
  constexpr int64_t kMaxSamples = int64_t{1} << 29;
  if (block.samples > kMaxSamples)
    throw InvalidParameterError("samples", std::to_string(block.samples),
                                "at most " + std::to_string(kMaxSamples) + " samples per channel",
                                "decompose a shorter time range");
  if (block.data.size() != block.channels.size() * static_cast<std::size_t>(block.samples))
    throw InvalidParameterError("block", std::to_string(block.data.size()) + " samples in all",
                                std::to_string(block.channels.size()) + " channels x " +
                                    std::to_string(block.samples) + " samples");
  for (std::size_t c = 0; c < block.channels.size(); ++c) {
    const float* x = block.channel(c);
    requireFiniteSamples(channelName(block, c), x, block.samples, block.sampleRate, "block");
    if (std::all_of(x, x + block.samples, [&](float v) { return v == x[0]; }))
      throw InvalidInputError(channelName(block, c), "samples",
                              "a constant signal (every sample is " + formatNumber(x[0]) + ")",
                              "a signal that varies",
                              "exclude the channel: a flat or disconnected electrode has nothing "
                              "to decompose");
  }
}

EmdResult decomposeCpu(const SignalBlock& block, const EmdParams& params, int threads,
                       JobContext& ctx) {
  validateEmdInput(block, params);
  emd_detail::checkEnsembleMemory(params, block.samples);
  threads = threadsOrAll(threads);

  const int64_t n = block.samples;
  const auto un = static_cast<std::size_t>(n);
  const std::size_t channels = block.channels.size();
  EmdResult result;
  result.params = params;
  result.sampleRate = block.sampleRate;
  result.firstSample = block.firstSample;
  result.samples = n;
  result.channels.resize(channels);

  WorkerPool pool(threads, &ctx);
  std::vector<ChannelDecomposition> parts(channels);
  const char* title = methodTitle(params.method);
  ctx.progress(0, std::string(title) + " starting");
  ctx.checkpoint();

  auto toDouble = [&](std::size_t c) {
    const float* f = block.channel(c);
    return std::vector<double>(f, f + n);
  };

  if (params.method == EmdMethod::Emd) {
    // One channel per item; batches of a few items per worker so progress moves.
    const auto batch = static_cast<std::size_t>(pool.size()) * 2;
    for (std::size_t start = 0; start < channels; start += batch) {
      const std::size_t count = std::min(batch, channels - start);
      pool.run(static_cast<int64_t>(count), [&](int64_t item, int worker) {
        const std::size_t c = start + static_cast<std::size_t>(item);
        SiftWorkspace& ws = pool.workspace(worker);
        const int64_t capBefore = ws.capReached;
        const std::vector<double> x = toDouble(c);
        ChannelDecomposition& d = parts[c];
        const int k = empiricalModes(x.data(), n, params.stop, params.maxImfs, d.data, d.sifts, ws);
        d.rows = k + 1;
        d.extractions = k;
        d.imfLimitReached = params.maxImfs == 0 && k == automaticImfLimit(n);
        d.capReached = ws.capReached - capBefore;
      });
      ctx.progress(static_cast<double>(start + count) / static_cast<double>(channels),
                   std::string(title) + " channel " + std::to_string(start + count) + "/" +
                       std::to_string(channels));
    }
  } else {
    for (std::size_t c = 0; c < channels; ++c) {
      const std::string prefix = std::string(title) + " channel " + std::to_string(c + 1) + "/" +
                                 std::to_string(channels) + ", ";
      const emd_detail::ChannelProgress progress = [&](double f, const std::string& stage) {
        ctx.checkpoint();
        ctx.progress((static_cast<double>(c) + f) / static_cast<double>(channels), prefix + stage);
      };
      const std::vector<double> x = toDouble(c);
      const uint64_t ch = block.channels[c];
      switch (params.method) {
        case EmdMethod::Eemd:
          parts[c] = emd_detail::eemdChannel(x.data(), n, ch, params, pool, progress);
          break;
        case EmdMethod::Ceemdan:
          parts[c] = emd_detail::ceemdanChannel(x.data(), n, ch, params, pool, progress);
          break;
        default:
          parts[c] = emd_detail::iceemdanChannel(x.data(), n, ch, params, pool, progress);
          break;
      }
    }
  }

  // Float rows and diagnostics.
  int64_t capReached = 0, noiseCap = 0, degenerate = 0, extractions = 0;
  std::vector<std::size_t> capChannels, degenerateChannels, limitChannels;
  for (std::size_t c = 0; c < channels; ++c) {
    ChannelDecomposition& d = parts[c];
    EmdChannelModes& m = result.channels[c];
    m.channel = block.channels[c];
    m.rows = d.rows;
    m.data.resize(static_cast<std::size_t>(d.rows) * un);
    std::transform(d.data.begin(), d.data.begin() + static_cast<std::ptrdiff_t>(m.data.size()),
                   m.data.begin(), [](double v) { return static_cast<float>(v); });
    m.sifts = d.sifts;
    m.degenerateMembers = d.degenerateMembers;
    capReached += d.capReached;
    noiseCap += d.noiseCapReached;
    degenerate += d.degenerateMembers;
    extractions += d.extractions;
    if (d.capReached > 0) capChannels.push_back(block.channels[c]);
    if (d.degenerateMembers > 0) degenerateChannels.push_back(block.channels[c]);
    if (d.imfLimitReached) limitChannels.push_back(block.channels[c]);
    std::vector<double>().swap(d.data);
  }
  if (capReached > 0)
    result.diagnostics.push_back(
        {Severity::Warning, "emd.siftCapReached",
         std::to_string(capReached) + " of " + std::to_string(extractions) +
             " IMF extractions stopped at the cap of " + std::to_string(params.stop.maxSifts) +
             " sifts before the stop rule was met (channels " + channelList(capChannels) +
             "); raise maxSifts or use a fixed sift count"});
  if (noiseCap > 0)
    result.diagnostics.push_back({Severity::Info, "emd.noiseSiftCapReached",
                                  std::to_string(noiseCap) +
                                      " IMF extractions of the noise realizations stopped at the "
                                      "cap of " +
                                      std::to_string(params.noiseStop.maxSifts) + " sifts"});
  if (degenerate > 0)
    result.diagnostics.push_back({Severity::Info, "emd.degenerateMembers",
                                  std::to_string(degenerate) +
                                      " ensemble member stages had fewer than 3 extrema, so no IMF "
                                      "could be extracted from them (channels " +
                                      channelList(degenerateChannels) + ")"});
  if (!limitChannels.empty()) {
    result.diagnostics.push_back(imfLimitDiagnostic(automaticImfLimit(n), limitChannels));
  }
  ctx.progress(1, std::string(title) + " done");
  return result;
}

}  // namespace modescope
