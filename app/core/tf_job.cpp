#include "app/core/tf_job.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_ica.h"
#include "engine/tf/tf_plan.h"

namespace modescope {
namespace {

using Clock = std::chrono::steady_clock;

// The input file and the channel table of a time-frequency file (no positions: the file has no
// scalp maps).
void nameTfFile(TfFile& file, const Recording& rec) {
  file.inputFile = rec.sourcePath;
  file.channels = icaFileChannels(rec, file.result.channels);
  for (ResultFileChannel& ch : file.channels) ch.position.reset();
}

// The "tfr" provenance of a run that took `wallSeconds`.
void stampTfFile(TfFile& file, const Recording& rec, const TfJobSpec& spec,
                 const std::string& backend, double wallSeconds) {
  Provenance& prov = file.provenance;
  prov.method = "tfr";
  prov.parameters = tfProvenanceParameters(file.result, spec);
  stampJobProvenance(prov, backend, rec.sourcePath, rec, spec.channels, spec.startSeconds,
                     spec.durationSeconds, wallSeconds);
}

}  // namespace

std::size_t checkTfJob(const Recording& rec, const TfJobSpec& spec) {
  const auto [fs, n] = checkSelection(rec, spec, {1, "", "select the channels to transform"});
  validateTfParams(spec.params);
  if (spec.params.windowLength > n)
    throw InvalidParameterError("windowLength",
                                std::to_string(spec.params.windowLength) + " samples",
                                "at most the selection's " + std::to_string(n) + " samples (" +
                                    formatNumber(static_cast<double>(n) / fs) + " s)",
                                "shorten the window or select a longer range");
  if (spec.params.maxFrequency > fs / 2)
    throw InvalidParameterError("maxFrequency", formatNumber(spec.params.maxFrequency) + " Hz",
                                "at most the Nyquist frequency, " + formatNumber(fs / 2) +
                                    " Hz at " + formatNumber(fs) + " Hz",
                                "the sampling rate is too low for this range: it needs at least " +
                                    formatNumber(2 * spec.params.maxFrequency) +
                                    " Hz; lower --fmax");
  tfReadoutParamTable().validate(spec.readout);
  if (spec.readout.reconstruct && spec.params.hop != 1)
    throw InvalidParameterError("hop", std::to_string(spec.params.hop) + " samples",
                                "1 sample to reconstruct the signal",
                                "use hop 1 with reconstruct, or leave reconstruct off");
  const std::size_t bytes = tfOutputBytes(spec.params, fs, spec.channels.size(), n);
  // A streamed image (tfJobStreams: the file gets it tile by tile) is bounded by the disk
  // (checkTfFileFits), not by memory.
  if (!tfJobStreams(spec) && bytes > spec.params.maxBytes)
    throw InvalidParameterError(
        "output size", formatByteSize(static_cast<double>(bytes)),
        "at most " + formatByteSize(static_cast<double>(spec.params.maxBytes)) + " in memory",
        "raise --hop, narrow --fmin/--fmax, lower --fft, or select fewer channels or a shorter "
        "range");
  return bytes;
}

std::vector<std::pair<std::string, std::string>> tfProvenanceParameters(const TfResult& r,
                                                                        const TfJobSpec& spec) {
  std::vector<std::pair<std::string, std::string>> v = tfParamTable().describe(r.params);
  if (r.sigma > 0) v.emplace_back("ran.sigma", formatNumber(r.sigma) + " samples");
  v.emplace_back("ran.grid", std::to_string(r.columns) + " columns x " + std::to_string(r.bins) +
                                 " bins (" + formatNumber(r.frequency(0)) + "-" +
                                 formatNumber(r.frequency(r.bins - 1)) + " Hz, " +
                                 formatNumber(r.binHz()) + " Hz per bin)");
  for (auto& [key, value] : tfReadoutParamTable().describe(spec.readout))
    v.emplace_back("readout." + key, value);
  return v;
}

TfJobResult runTfJob(const Recording& rec, const TfJobSpec& spec, ComputeBackend& backend,
                     JobContext& ctx) {
  const auto t0 = Clock::now();
  ctx.progress(0.0, "reading samples");
  checkTfJob(rec, spec);
  const SignalBlock block =
      extractBlock(rec, spec.channels, spec.startSeconds, spec.durationSeconds);
  ctx.checkpoint();
  TfParams params = spec.params;
  params.rows.clear();
  TfJobResult out;
  out.backend = backend.info().describe();
  auto file = std::make_shared<TfFile>();
  JobContext work = ctx.sub(0.02, 0.95);
  file->result = backend.timeFrequency(block, params, work);
  const TfResult& r = file->result;
  const std::size_t c = r.channelCount();
  for (std::size_t k = 0; k < c; ++k) {
    ctx.checkpoint();
    // A flat channel has no distribution to measure: NaN rather than a refusal of the whole run.
    bool flat = true;
    for (int64_t t = 0; t < r.columns && flat; ++t)
      for (int q = 0; q < r.bins && flat; ++q) flat = r.column(k, t)[q] == std::complex<float>();
    file->renyiEntropy.push_back(flat ? std::nan("") : tfRenyiEntropy(r, k));
    if (spec.readout.reconstruct) file->reconstruction.push_back(tfReconstruct(r, k));
    if (spec.readout.ridges > 0) {
      const TfRidgeParams rp = tfRidgeRequest(spec.readout);
      file->ridges.push_back(tfRidges(r, k, rp));
      std::vector<std::vector<double>> modes;
      for (const auto& ridge : file->ridges.back())
        modes.push_back(tfReconstructRidge(r, k, ridge, rp.halfWidth));
      file->ridgeModes.push_back(std::move(modes));
      file->ridgeHalfWidth = rp.halfWidth;
    }
  }
  nameTfFile(*file, rec);
  out.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  stampTfFile(*file, rec, spec, out.backend, out.wallSeconds);
  out.run = std::move(file);
  ctx.progress(1.0, "time-frequency");
  return out;
}

void checkTfFileFits(std::size_t bytes, std::size_t freeBytes, const std::string& path) {
  // HDF5's metadata and the grid are a few KiB to MiB besides the image.
  constexpr std::size_t kMargin = std::size_t{64} << 20;
  if (bytes + kMargin <= freeBytes) return;
  throw InvalidParameterError(
      "output size", formatByteSize(static_cast<double>(bytes)),
      "at most the " + formatByteSize(static_cast<double>(freeBytes)) + " free where " + path +
          " goes",
      "raise --hop, narrow --fmin/--fmax, lower --fft, select fewer channels or a shorter "
      "range, or write to a disk with more room");
}

TfJobResult runTfJobToFile(const Recording& rec, const TfJobSpec& spec, ComputeBackend& backend,
                           const std::string& path, TfStorage storage, JobContext& ctx) {
  const auto t0 = Clock::now();
  ctx.progress(0.0, "reading samples");
  if (!tfJobStreams(spec))
    throw InvalidParameterError("readout", "ridges or reconstruction",
                                "neither (they read the whole image)", "use runTfJob");
  const std::size_t complexBytes = checkTfJob(rec, spec);
  {
    std::error_code error;
    const std::filesystem::path where = std::filesystem::absolute(path).parent_path();
    const std::filesystem::space_info space = std::filesystem::space(where, error);
    if (!error)
      checkTfFileFits(storage == TfStorage::Complex ? complexBytes : complexBytes / 2,
                      static_cast<std::size_t>(space.available), where.string());
  }
  const SignalBlock block =
      extractBlock(rec, spec.channels, spec.startSeconds, spec.durationSeconds);
  ctx.checkpoint();
  TfParams params = spec.params;
  params.rows.clear();
  TfJobResult out;
  out.backend = backend.info().describe();
  auto file = std::make_shared<TfFile>();
  file->result = makeTfResult(planTfStreamed(block, params), block, false);
  nameTfFile(*file, rec);
  const TfTileValues values =
      storage == TfStorage::Complex ? TfTileValues::Complex : TfTileValues::Magnitude;
  JobContext work = ctx.sub(0.02, 0.98);
  writeTfFileStreamed(
      path, *file, storage,
      [&](const TfTileSink& write) {
        std::vector<TfRenyiSums> renyi(file->result.channelCount());
        const TfResult grid = backend.timeFrequencyTiles(
            block, params, values,
            [&](const TfTile& t) {
              const std::size_t n = static_cast<std::size_t>(t.columns) * t.bins;
              if (t.magnitude)
                renyi[t.channel].add(t.magnitude, n);
              else
                renyi[t.channel].add(t.values, n);
              write(t);
            },
            work);
        file->result.diagnostics = grid.diagnostics;
        for (const TfRenyiSums& sums : renyi) file->renyiEntropy.push_back(sums.entropy());
        out.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
        stampTfFile(*file, rec, spec, out.backend, out.wallSeconds);
      },
      ctx);
  out.run = std::move(file);
  ctx.progress(1.0, "time-frequency");
  return out;
}

}  // namespace modescope
