// Ensemble noise of the CPU EMD family: Philox white noise with emd.h's stream numbering, the
// noise modes E_k(w_i) and the up-front memory check.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/philox.h"
#include "engine/core/text.h"
#include "engine/emd/emd.h"
#include "engine/emd/emd_internal.h"

namespace modescope::emd_detail {

double sampleStd(const double* x, int64_t n) {
  if (n < 2) return 0.0;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const double mean = sum / static_cast<double>(n);
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += (x[i] - mean) * (x[i] - mean);
  return std::sqrt(ss / static_cast<double>(n - 1));
}

void whiteNoise(uint64_t seed, uint64_t channel, uint64_t member, int64_t n, double* w) {
  const Philox4x32 gen(seed);
  const uint64_t stream = emdNoiseStream(channel, member);
  // normalPairDouble gives draws 2m and 2m+1 of the stream from one Box-Muller step: the same
  // numbers as normalDouble(stream, 2m) and normalDouble(stream, 2m+1).
  int64_t i = 0;
  for (; i + 1 < n; i += 2)
    gen.normalPairDouble(stream, static_cast<uint64_t>(i / 2), w[i], w[i + 1]);
  if (i < n) w[i] = gen.normalDouble(stream, static_cast<uint64_t>(i));
}

NoiseModes computeNoiseModes(const EmdParams& p, uint64_t channel, int64_t n, int maxModes,
                             WorkerPool& pool) {
  NoiseModes out;
  out.samples = n;
  const auto members = static_cast<std::size_t>(p.ensembleSize);
  out.rows.resize(members);
  out.stds.resize(members);
  const auto un = static_cast<std::size_t>(n);
  pool.run(p.ensembleSize, [&](int64_t i, int worker) {
    SiftWorkspace& ws = pool.workspace(worker);
    std::vector<double> w(un);
    whiteNoise(p.seed, channel, static_cast<uint64_t>(i), n, w.data());
    std::vector<double> rows;
    std::vector<int> sifts;
    // The first maxModes rows of the full EMD are those of the EMD capped at maxModes IMFs.
    const int k = empiricalModes(w.data(), n, p.noiseStop, maxModes, rows, sifts, ws);
    int count = k;
    bool residueNonzero = false;
    for (std::size_t s = 0; s < un; ++s)
      residueNonzero |= rows[static_cast<std::size_t>(k) * un + s] != 0;
    if (residueNonzero) ++count;  // emd.m appends the residue only when any(r)
    if (maxModes > 0) count = std::min(count, maxModes);
    rows.resize(static_cast<std::size_t>(count) * un);
    std::vector<double> stds(static_cast<std::size_t>(count));
    for (int m = 0; m < count; ++m)
      stds[static_cast<std::size_t>(m)] =
          sampleStd(rows.data() + static_cast<std::size_t>(m) * un, n);
    out.rows[static_cast<std::size_t>(i)] = std::move(rows);
    out.stds[static_cast<std::size_t>(i)] = std::move(stds);
  });
  return out;
}

int eemdImfCount(const EmdParams& p, int64_t n) {
  if (p.maxImfs > 0) return p.maxImfs;
  const int log2n = static_cast<int>(std::floor(std::log2(static_cast<double>(n))));
  return std::max(1, log2n - 1);
}

void checkEnsembleMemory(const EmdParams& p, int64_t n) {
  if (p.method != EmdMethod::Ceemdan && p.method != EmdMethod::Iceemdan) return;
  // Noise modes per member: maxImfs when given (ICEEMDAN uses E_1..E_K, CEEMDAN fewer), else
  // about log2(n) for white noise (one IMF per octave) plus the residue.
  const int modes = p.maxImfs > 0
                        ? p.maxImfs
                        : static_cast<int>(std::floor(std::log2(static_cast<double>(n)))) + 1;
  const double perMember = static_cast<double>(modes) * static_cast<double>(n) * 8.0;
  const double needed = perMember * p.ensembleSize;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0) return;  // unknown: let the allocation decide
  const double budget = 0.5 * static_cast<double>(pages) * static_cast<double>(pageSize);
  if (needed <= budget) return;
  const auto fit = static_cast<int64_t>(budget / perMember);
  throw InvalidParameterError(
      "ensembleSize", std::to_string(p.ensembleSize),
      "at most " + std::to_string(fit) + " members for " + std::to_string(n) +
          " samples (the noise modes, " + std::to_string(modes) + " x members x samples doubles, " +
          formatNumber(needed / 1073741824.0) + " GiB, must fit in half of the " +
          formatNumber(2 * budget / 1073741824.0) + " GiB of memory)",
      "use fewer members, a shorter time range, or fewer IMFs (maxImfs)");
}

}  // namespace modescope::emd_detail
