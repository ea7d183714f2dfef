// Parameter rules and the grid both Hilbert-Huang backends share (hht.h).
#include "engine/hht/hht.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

void checkModes(const EmdResult& modes) {
  if (!(std::isfinite(modes.sampleRate) && modes.sampleRate > 0.0)) {
    throw InvalidParameterError("modes", "sample rate " + formatNumber(modes.sampleRate) + " Hz",
                                "a finite rate above 0 Hz",
                                "Pass the EmdResult a decomposition returned");
  }
  if (modes.samples < 2) {
    throw InvalidParameterError("modes", std::to_string(modes.samples) + " samples",
                                "at least 2 samples (a frequency needs two phases)",
                                "Decompose a longer time range");
  }
  const auto n = static_cast<std::size_t>(modes.samples);
  for (const auto& ch : modes.channels) {
    if (ch.rows < 0 || ch.data.size() != static_cast<std::size_t>(ch.rows) * n) {
      throw InvalidParameterError(
          "modes",
          "channel " + std::to_string(ch.channel) + ": " + std::to_string(ch.data.size()) +
              " values for " + std::to_string(ch.rows) + " rows",
          "rows x samples = " + std::to_string(static_cast<std::size_t>(std::max(ch.rows, 0)) * n),
          "Pass the EmdResult a decomposition returned");
    }
    for (std::size_t i = 0; i < ch.data.size(); ++i) {
      if (!std::isfinite(ch.data[i])) {
        throw InvalidParameterError("modes",
                                    "a non-finite value in channel " + std::to_string(ch.channel) +
                                        ", row " + std::to_string(i / n) + ", sample " +
                                        std::to_string(i % n),
                                    "finite IMFs", "Decompose a signal without NaN or Inf samples");
      }
    }
  }
}

}  // namespace

int64_t hhtEdgeSamples(double edgeSeconds, double sampleRate) {
  const double e = edgeSeconds * sampleRate;
  if (!(e > 0.0)) return 0;
  if (e >= 9.0e18) return INT64_MAX;
  return std::llround(e);
}

void checkHhtForBlock(const HhtParams& p, double sampleRate, int64_t samples) {
  hhtParamTable().validate(p);
  const double nyquist = sampleRate / 2.0;
  if (p.fMax > nyquist) {
    throw InvalidParameterError(
        "fMax", formatNumber(p.fMax) + " Hz",
        "0 (Nyquist) or a frequency up to the Nyquist frequency " + formatNumber(nyquist) + " Hz",
        "Use 0 for the Nyquist frequency");
  }
  const double fMax = p.fMax == 0.0 ? nyquist : p.fMax;
  if (p.fMin >= fMax) {
    throw InvalidParameterError("fMin", formatNumber(p.fMin) + " Hz",
                                "less than the highest frequency " + formatNumber(fMax) + " Hz",
                                "Lower fMin or raise fMax");
  }
  if (p.timeBins > samples) {
    throw InvalidParameterError(
        "timeBins", std::to_string(p.timeBins),
        "0 (automatic) or 1 .. " + std::to_string(samples) +
            " (the block's samples: a column needs a sample)",
        "Use 0 for min(samples, " + std::to_string(kHhtDefaultMaxTimeBins) + ") columns");
  }
  const int64_t edge = hhtEdgeSamples(p.edgeSeconds, sampleRate);
  if (edge > (samples - 1) / 2) {  // at least one sample must remain
    throw InvalidParameterError(
        "edgeSeconds", formatNumber(p.edgeSeconds) + " s (" + std::to_string(edge) + " samples)",
        "less than half the block: " +
            formatNumber(static_cast<double>(samples) / 2.0 / sampleRate) + " s",
        "Shorten the edges or decompose a longer time range");
  }
}

void validateHhtParams(const HhtParams& p, const EmdResult& modes) {
  checkModes(modes);
  checkHhtForBlock(p, modes.sampleRate, modes.samples);
  int maxImfs = 0;
  for (const auto& ch : modes.channels) maxImfs = std::max(maxImfs, ch.imfCount());
  std::vector<int> rows = p.imfs;
  std::sort(rows.begin(), rows.end());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= maxImfs) {
      throw InvalidParameterError("imfs", "row " + std::to_string(rows[i]),
                                  maxImfs > 0
                                      ? "an IMF row 0 .. " + std::to_string(maxImfs - 1) +
                                            " (0-based; the residue is not an IMF)"
                                      : std::string("an IMF row, but no channel has an IMF"),
                                  "Leave the list empty for every IMF");
    }
    if (i > 0 && rows[i] == rows[i - 1]) {
      throw InvalidParameterError("imfs", "row " + std::to_string(rows[i]) + " listed twice",
                                  "each row at most once", "Remove the duplicate");
    }
  }
}

HhtParams resolveHhtParams(const HhtParams& p, const EmdResult& modes) {
  HhtParams r = p;
  if (r.fMax == 0.0) r.fMax = modes.sampleRate / 2.0;
  if (r.timeBins == 0) {
    r.timeBins = static_cast<int>(std::min<int64_t>(modes.samples, kHhtDefaultMaxTimeBins));
  }
  return r;
}

std::vector<double> hhtFrequencyEdges(const HhtParams& resolved) {
  const int bins = std::max(resolved.frequencyBins, 0);
  std::vector<double> e(static_cast<std::size_t>(bins) + 1);
  const double lo = resolved.fMin, hi = resolved.fMax;
  for (int k = 0; k <= bins; ++k) {
    const double u = static_cast<double>(k) / bins;
    e[k] = resolved.logFrequency ? lo * std::exp(u * std::log(hi / lo)) : lo + u * (hi - lo);
  }
  // The ends exactly as asked (exp/log round-off would move them by an ulp).
  e.front() = lo;
  e.back() = hi;
  return e;
}

std::vector<int64_t> hhtTimeEdges(const HhtParams& resolved, int64_t samples) {
  const int64_t bins = std::max(resolved.timeBins, 0);
  std::vector<int64_t> e(static_cast<std::size_t>(bins) + 1);
  if (bins == 0) return e;
  for (int64_t j = 0; j <= bins; ++j) {
    // j * samples can overflow int64 only beyond 3e9 columns x 3e9 samples: not reachable.
    e[static_cast<std::size_t>(j)] = j * samples / bins;
  }
  return e;
}

HhtResult prepareHhtResult(const EmdResult& modes, const HhtParams& requested) {
  HhtResult result;
  result.params = resolveHhtParams(requested, modes);
  result.sampleRate = modes.sampleRate;
  result.firstSample = modes.firstSample;
  result.samples = modes.samples;
  result.frequencyEdges = hhtFrequencyEdges(result.params);
  result.timeEdges = hhtTimeEdges(result.params, modes.samples);
  const int bins = result.params.frequencyBins;
  const int cols = result.params.timeBins;
  const auto n = static_cast<std::size_t>(modes.samples);
  std::vector<int> wanted = result.params.imfs;
  std::sort(wanted.begin(), wanted.end());
  std::size_t skipped = 0;
  result.channels.resize(modes.channels.size());
  for (std::size_t c = 0; c < modes.channels.size(); ++c) {
    const auto& in = modes.channels[c];
    auto& out = result.channels[c];
    out.channel = in.channel;
    std::vector<int> rows;
    if (wanted.empty()) {
      for (int k = 0; k < in.imfCount(); ++k) rows.push_back(k);
    } else {
      for (int k : wanted) {
        if (k < in.imfCount()) {
          rows.push_back(k);
        } else {
          ++skipped;
        }
      }
    }
    for (int k : rows) {
      HhtImf imf;
      imf.row = k;
      if (result.params.keepInstantaneous) {
        imf.amplitude.resize(n);
        imf.frequencyHz.resize(n);
      }
      out.imfs.push_back(std::move(imf));
    }
    out.spectrum.assign(static_cast<std::size_t>(bins) * static_cast<std::size_t>(cols), 0.0f);
    out.marginal.assign(static_cast<std::size_t>(bins), 0.0);
  }
  if (skipped > 0) {
    result.diagnostics.push_back(
        {Severity::Info, "hht.rowsSkipped",
         std::to_string(skipped) +
             " requested IMF row(s) were skipped in channels that have fewer IMFs"});
  }
  return result;
}

}  // namespace modescope
