// The shared MEMD driver (memd_sift.h): input checks, the IMF loop with memd.m's stop rules,
// NA-MEMD's noise channels and draws, the average and the result.
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/finite_samples.h"
#include "engine/core/philox.h"
#include "engine/core/text.h"
#include "engine/emd/emd.h"  // kEmdMinSamples, emdNoiseStream
#include "engine/memd/memd_directions.h"
#include "engine/memd/memd_sift.h"
#include "engine/parallel/parallel_for.h"

namespace modescope {
namespace {

// A channel's name for messages: "channel 3 (row 2 of the selection)".
std::string rowName(const SignalBlock& b, std::size_t c) {
  return "channel " + std::to_string(b.channels[c] + 1) + " (row " + std::to_string(c + 1) +
         " of the selection)";
}

double sampleStd(const std::vector<double>& x, std::size_t off, int64_t n) {
  double mean = 0;
  for (int64_t i = 0; i < n; ++i) mean += x[off + static_cast<std::size_t>(i)];
  mean /= static_cast<double>(n);
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = x[off + static_cast<std::size_t>(i)] - mean;
    s += d * d;
  }
  return std::sqrt(s / static_cast<double>(n - 1));
}

double maxAbs(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::fabs(v));
  return m;
}

}  // namespace

void validateMemdInput(const SignalBlock& block, const MemdParams& params) {
  validateMemdParams(params);
  const std::size_t channels = block.channels.size();
  if (channels + static_cast<std::size_t>(params.noiseChannels) < 2 || channels == 0)
    throw InvalidParameterError(
        "channels", std::to_string(channels),
        "at least 2 channels (MEMD decomposes channels together)",
        "select 2 or more channels, add noise channels (NA-MEMD, --noise-channels), or use "
        "`modescope-cli emd` for a single channel");
  if (block.samples < kEmdMinSamples)
    throw InvalidParameterError(
        "samples", std::to_string(block.samples),
        "at least " + std::to_string(kEmdMinSamples) + " samples per channel",
        "select a longer time range (a projection needs at least 3 extrema to be sifted)");
  constexpr int64_t kMaxSamples = int64_t{1} << 29;  // int32 knots, mirrored ones reach ~2n
  if (block.samples > kMaxSamples)
    throw InvalidParameterError("samples", std::to_string(block.samples),
                                "at most " + std::to_string(kMaxSamples) + " samples per channel",
                                "decompose a shorter time range");
  if (block.data.size() != channels * static_cast<std::size_t>(block.samples))
    throw InvalidParameterError(
        "block", std::to_string(block.data.size()) + " samples in all",
        std::to_string(channels) + " channels x " + std::to_string(block.samples) + " samples");
  for (std::size_t c = 0; c < channels; ++c) {
    const float* x = block.channel(c);
    // MEMD's message names the sample alone (sample rate 0: no time).
    requireFiniteSamples(rowName(block, c), x, block.samples, 0.0, {});
    if (std::all_of(x, x + block.samples, [&](float v) { return v == x[0]; }))
      throw InvalidInputError(rowName(block, c), "samples",
                              "a constant signal (every sample is " + formatNumber(x[0]) + ")",
                              "a signal that varies",
                              "exclude the channel: a flat electrode adds nothing to the "
                              "projections and has no scales to align");
  }
  const int dims = static_cast<int>(channels) + params.noiseChannels;
  const MemdSupplied& s = params.supplied;
  if (!s.directions.empty() &&
      s.directions.size() != static_cast<std::size_t>(s.directionCount) * dims)
    throw InvalidParameterError(
        "direction set",
        std::to_string(s.directions.size() / std::max(1, s.directionCount)) + " values per row",
        std::to_string(dims) + " (channels + noise channels)",
        "write one direction per line with one value per channel (docs/memd.md)");
  for (int k = 0; k < s.directionCount && !s.directions.empty(); ++k) {
    double norm = 0;
    for (int j = 0; j < dims; ++j) norm += std::fabs(s.directions[k * dims + j]);
    if (norm == 0)
      throw InvalidParameterError("direction set", "row " + std::to_string(k + 1) + " is zero",
                                  "nonzero directions", "remove the zero row");
  }
  const std::size_t noiseValues = static_cast<std::size_t>(params.ensembleSize) *
                                  static_cast<std::size_t>(params.noiseChannels) *
                                  static_cast<std::size_t>(block.samples);
  if (!s.noise.empty() && s.noise.size() != noiseValues)
    throw InvalidParameterError("noise set", std::to_string(s.noise.size()) + " values",
                                std::to_string(params.ensembleSize) + " draws x " +
                                    std::to_string(params.noiseChannels) + " noise channels x " +
                                    std::to_string(block.samples) + " samples",
                                "write one noise channel per line, draw after draw (docs/memd.md)");
}

MemdModes siftMemd(MemdSiftEngine& engine, const std::vector<double>& x, int64_t n,
                   const std::vector<double>& directions, const MemdParams& params,
                   const JobContext& ctx) {
  MemdModes out;
  engine.load(x, directions);
  ctx.progress(0.0, "IMF 1");
  const double scale = maxAbs(x);
  const int cap = params.stop == MemdStopKind::Fixed ? params.fixedSifts : params.maxSifts;
  for (;;) {
    if (params.maxImfs > 0 && out.imfs >= params.maxImfs) break;
    ctx.checkpoint();
    engine.startImf();
    MemdEnvelopeStats st = engine.envelopeMean(params);
    // memd.m stop_emd: every projection of the residue has fewer than 3 extrema.
    if (std::all_of(st.extrema.begin(), st.extrema.end(), [](int64_t e) { return e < 3; })) break;
    if (st.maxAbs < 1e-10 * scale) break;  // memd.m's forced stop: too small amplitude
    int sCount = 0;
    auto stopNow = [&](const MemdEnvelopeStats& s) {
      if (s.kept == 0) {
        ++out.noDirectionStops;
        return true;
      }
      switch (params.stop) {
        case MemdStopKind::Stop: {
          const bool anyMany =
              std::any_of(s.extrema.begin(), s.extrema.end(), [](int64_t e) { return e > 2; });
          const bool keep = (static_cast<double>(s.aboveSd) / static_cast<double>(n) > params.tol ||
                             s.aboveSd2 > 0) &&
                            anyMany;
          return !keep;
        }
        case MemdStopKind::FixH: {
          bool allFar = true;
          for (std::size_t k = 0; k < s.extrema.size(); ++k)
            allFar = allFar && std::llabs(s.zeroCrossings[k] - s.extrema[k]) > 1;
          if (allFar) {
            sCount = 0;
            return false;
          }
          return ++sCount >= params.sNumber;
        }
        case MemdStopKind::Fixed:
          return false;
      }
      return true;
    };
    bool stop = stopNow(st);
    int nbit = 0;
    while (!stop && nbit < cap) {
      ctx.checkpoint();
      engine.subtractMean();
      ++nbit;
      if (params.stop == MemdStopKind::Fixed && nbit == cap) break;
      st = engine.envelopeMean(params);
      stop = stopNow(st);
    }
    if (!stop && params.stop != MemdStopKind::Fixed) ++out.capReached;
    engine.finishImf();
    out.sifts.push_back(nbit);
    ++out.imfs;
    // The IMF count is not known ahead: about log2(n) is typical.
    const double expected = params.maxImfs > 0 ? params.maxImfs : std::log2(static_cast<double>(n));
    ctx.progress(std::min(0.95, out.imfs / expected),
                 "IMF " + std::to_string(out.imfs) + " (" + std::to_string(nbit) + " sifts)");
  }
  engine.takeRows(out.rows);
  return out;
}

MemdResult runMemd(const SignalBlock& block, const MemdParams& params,
                   const MemdEngineFactory& makeEngine, JobContext& ctx) {
  validateMemdInput(block, params);
  const int channels = static_cast<int>(block.channels.size());
  const int dims = channels + params.noiseChannels;
  const int64_t n = block.samples;
  const auto un = static_cast<std::size_t>(n);
  const int K = memdDirectionCount(params, dims);
  const std::vector<double> directions = params.supplied.directions.empty()
                                             ? hammersleyDirections(dims, K)
                                             : params.supplied.directions;
  const int draws = params.noiseChannels > 0 ? params.ensembleSize : 1;

  std::vector<double> x(static_cast<std::size_t>(dims) * un);
  for (int c = 0; c < channels; ++c)
    std::copy(block.channel(c), block.channel(c) + n,
              x.begin() + static_cast<std::ptrdiff_t>(c * un));
  double meanStd = 0;
  for (int c = 0; c < channels; ++c) meanStd += sampleStd(x, c * un, n);
  meanStd /= channels;

  ctx.progress(0.0, "reserving memory");
  std::unique_ptr<MemdSiftEngine> engine = makeEngine(dims, n, K);
  MemdRows sum;  // rows x channels x n: data channels only
  std::vector<int64_t> siftSum;
  int rows = 0;
  int64_t capReached = 0, noDirection = 0;
  const Philox4x32 gen(params.seed);
  for (int draw = 0; draw < draws; ++draw) {
    for (int j = 0; j < params.noiseChannels; ++j) {
      double* w = x.data() + static_cast<std::size_t>(channels + j) * un;
      if (!params.supplied.noise.empty()) {
        const double* src = params.supplied.noise.data() +
                            (static_cast<std::size_t>(draw) * params.noiseChannels + j) * un;
        std::copy(src, src + n, w);
        continue;
      }
      const uint64_t stream = emdNoiseStream(static_cast<uint64_t>(j), static_cast<uint64_t>(draw));
      int64_t i = 0;
      for (; i + 1 < n; i += 2)
        gen.normalPairDouble(stream, static_cast<uint64_t>(i / 2), w[i], w[i + 1]);
      if (i < n) w[i] = gen.normalDouble(stream, static_cast<uint64_t>(i));
      for (int64_t s = 0; s < n; ++s) w[s] *= params.noiseLevel * meanStd;
    }
    JobContext sub =
        ctx.sub(static_cast<double>(draw) / draws, static_cast<double>(draw + 1) / draws);
    MemdModes modes = siftMemd(*engine, x, n, directions, params, sub);
    capReached += modes.capReached;
    noDirection += modes.noDirectionStops;
    const int r = modes.imfs + 1;
    if (draws == 1) rows = r;
    // Grow the sum to this draw's IMF count (the residue is recomputed below for draws > 1).
    const int imfs = std::max(rows > 0 ? rows - 1 : 0, modes.imfs);
    if (draws > 1 && imfs + 1 > rows) {
      sum.resize(static_cast<std::size_t>(imfs + 1) * channels * un, 0.0);
      siftSum.resize(static_cast<std::size_t>(imfs), 0);
      rows = imfs + 1;
    }
    if (draws == 1) {
      siftSum.assign(modes.sifts.begin(), modes.sifts.end());
      if (dims == channels) {  // no noise channels: the rows are already the sum's layout
        sum = std::move(modes.rows);
        continue;
      }
      sum.resize(static_cast<std::size_t>(r) * channels * un, 0.0);
    }
    const int copyRows = draws == 1 ? r : modes.imfs;  // draws > 1: IMFs only
    for (int k = 0; k < copyRows; ++k)
      for (int c = 0; c < channels; ++c) {
        const double* src = modes.rows.data() + (static_cast<std::size_t>(k) * dims + c) * un;
        double* dst = sum.data() + (static_cast<std::size_t>(k) * channels + c) * un;
        for (std::size_t s = 0; s < un; ++s) dst[s] += src[s];
      }
    if (draws > 1)
      for (int k = 0; k < modes.imfs; ++k) siftSum[static_cast<std::size_t>(k)] += modes.sifts[k];
  }

  MemdResult result;
  result.params = params;
  result.sampleRate = block.sampleRate;
  result.firstSample = block.firstSample;
  result.samples = n;
  result.directions = K;
  result.dims = dims;
  result.directionSet = directions;
  const int imfs = rows - 1;
  for (int k = 0; k < imfs; ++k)
    result.sifts.push_back(static_cast<int>(
        std::lround(static_cast<double>(siftSum[static_cast<std::size_t>(k)]) / draws)));
  result.channels.resize(static_cast<std::size_t>(channels));
  // One channel per item: the rows of a large run are tens of MB to convert (28 ms on one thread
  // for 9 rows x 32 x 30,504, measured with memd_bench --trace on the H200's host).
  const int threads = std::min(8, hardwareThreads());
  parallelFor(
      static_cast<std::size_t>(channels), threads, ctx.sub(0.95, 1.0), "storing the modes", [&] {
        return [&](std::size_t item) {
          const int c = static_cast<int>(item);
          EmdChannelModes& m = result.channels[static_cast<std::size_t>(c)];
          m.channel = block.channels[static_cast<std::size_t>(c)];
          m.rows = rows;
          m.sifts = result.sifts;
          m.data.resize(static_cast<std::size_t>(rows) * un);
          if (draws == 1) {  // the engine's rows as they are, residue included
            for (int k = 0; k < rows; ++k) {
              const double* src = sum.data() + (static_cast<std::size_t>(k) * channels + c) * un;
              std::transform(src, src + n, m.row(k, n),
                             [](double v) { return static_cast<float>(v); });
            }
            return;
          }
          std::vector<double> residue(x.begin() + static_cast<std::ptrdiff_t>(c * un),
                                      x.begin() + static_cast<std::ptrdiff_t>((c + 1) * un));
          for (int k = 0; k < rows; ++k) {
            const double* src = sum.data() + (static_cast<std::size_t>(k) * channels + c) * un;
            float* dst = m.row(k, n);
            if (k == imfs) {  // residue = x - sum of the averaged IMFs
              for (std::size_t s = 0; s < un; ++s) dst[s] = static_cast<float>(residue[s]);
              continue;
            }
            for (std::size_t s = 0; s < un; ++s) {
              const double v = src[s] / draws;
              dst[s] = static_cast<float>(v);
              residue[s] -= v;
            }
          }
        };
      });
  if (capReached > 0)
    result.diagnostics.push_back(
        {Severity::Warning, "memd.capReached",
         std::to_string(capReached) + " IMF extraction(s) stopped at the cap of " +
             std::to_string(params.maxSifts) + " sifts without meeting the stop rule"});
  if (noDirection > 0)
    result.diagnostics.push_back(
        {Severity::Info, "memd.noDirection",
         std::to_string(noDirection) +
             " sifting step(s) ended because no direction's projection had enough extrema for "
             "envelopes (memd.m's mean would be 0)"});
  ctx.progress(1.0, "MEMD done");
  return result;
}

}  // namespace modescope
