#include "engine/epochs/epoch_spectra.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/dsp/welch.h"

namespace modescope {
namespace {

// Bins kept: up to maxFrequency (0: all, to Nyquist).
std::size_t keptBins(const WelchSpectrum& w, double maxFrequency) {
  if (!(maxFrequency > 0)) return w.power.size();
  const auto k = static_cast<std::size_t>(std::floor(maxFrequency / w.binHz + 1e-9)) + 1;
  return std::min(k, w.power.size());
}

void addSeries(ChannelSpectra& out, const std::vector<WelchSpectrum>& rows, double maxFrequency) {
  if (rows.empty()) return;
  const std::size_t K = keptBins(rows.front(), maxFrequency);
  if (out.power.empty()) {
    out.binHz = rows.front().binHz;
    out.segmentLength = rows.front().segmentLength;
    out.segmentsPerSeries = rows.front().segments;
    out.power.assign(rows.size(), std::vector<double>(K, 0.0));
  }
  for (std::size_t c = 0; c < rows.size(); ++c)
    for (std::size_t k = 0; k < K; ++k) out.power[c][k] += rows[c].power[k];
  ++out.series;
}

void finish(ChannelSpectra& out) {
  const std::size_t K = out.power.empty() ? 0 : out.power.front().size();
  out.meanPower.assign(K, 0.0);
  for (auto& row : out.power)
    for (std::size_t k = 0; k < K; ++k) {
      row[k] /= std::max(out.series, 1);
      out.meanPower[k] += row[k] / static_cast<double>(out.power.size());
    }
}

}  // namespace

ChannelSpectra blockSpectra(const Recording& rec, const SignalBlock& block,
                            const SpectrumParams& p) {
  spectrumParamTable().validate(p);
  ChannelSpectra out;
  for (std::size_t c : block.channels) out.channels.push_back(rec.channels.at(c).name);
  addSeries(out,
            welchSpectra(block.data.data(), static_cast<int>(block.channels.size()), block.samples,
                         block.sampleRate, p.segmentLength),
            p.maxFrequency);
  finish(out);
  return out;
}

ChannelSpectra epochSpectra(const EpochSet& set, const SpectrumParams& p) {
  spectrumParamTable().validate(p);
  if (set.epochCount() == 0)
    throw InvalidParameterError("epochs", "none", "at least one kept epoch for a spectrum");
  ChannelSpectra out;
  out.channels = set.channelNames;
  for (std::size_t e = 0; e < set.epochCount(); ++e)
    addSeries(out,
              welchSpectra(set.epoch(e), static_cast<int>(set.channelCount()), set.samples,
                           set.sampleRate, p.segmentLength),
              p.maxFrequency);
  finish(out);
  return out;
}

}  // namespace modescope
