// Parameters of multivariate EMD (MEMD, Rehman and Mandic 2010, the reference memd.m) and of
// noise-assisted MEMD (NA-MEMD, Rehman and Mandic 2011 / ur Rehman et al. 2013: white-noise
// channels added to the data, decomposed with it, and dropped from the output). Defaults follow
// memd.m; docs/memd.md lists every parameter with its source.
//
// Thread rules: plain values; validateMemdParams() and the preset functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/emd/emd_params.h"  // GpuPrecision
#include "engine/method/param_table.h"

namespace modescope {

// How sifting decides that the multivariate candidate is an IMF (memd.m's two criteria, plus the
// fixed count of the thesis's GPU code).
enum class MemdStopKind {
  // memd.m 'stop' [sd sd2 tol]: sigma(t) = |mean envelope(t)| / amplitude(t) over the channels;
  // sift while (fraction(sigma > sd) > tol or any(sigma > sd2)) and some direction has > 2
  // extrema; at most maxSifts sifts.
  Stop,
  // memd.m 'fix_h' n: stop once some direction has |#zero crossings - #extrema| <= 1 for n
  // consecutive sifts; at most maxSifts sifts.
  FixH,
  // Exactly fixedSifts sifts per IMF (the thesis's GPU runs: 10).
  Fixed,
};

// Data the user supplies instead of generating it (not parameters: not in the table).
struct MemdSupplied {
  // Direction vectors, row-major: directionCount rows of (channels + noise channels) values.
  // Empty = memd.m's Hammersley set. Rows need not be unit length (only the sign pattern of the
  // projection matters for its extrema), but none may be zero.
  std::vector<double> directions;
  int directionCount = 0;
  // NA-MEMD noise, row-major: ensembleSize x noiseChannels rows of `samples` values, used as
  // given (already scaled). Empty = Philox noise from `seed`.
  std::vector<double> noise;
};

struct MemdParams {
  int directions = 0;  // K; 0 = automatic: max(64, 2 x channels) (channels incl. noise channels)
  MemdStopKind stop = MemdStopKind::Stop;
  double sd = 0.075;        // memd.m stop_vec(1)
  double sd2 = 0.75;        // memd.m stop_vec(2)
  double tol = 0.075;       // memd.m stop_vec(3)
  int maxSifts = 1000;      // memd.m MAXITERATIONS
  int sNumber = 2;          // memd.m 'fix_h' n_iter
  int fixedSifts = 10;      // Fixed
  int maxImfs = 0;          // IMFs before the residue; 0 = until every projection has < 3 extrema
  int noiseChannels = 0;    // NA-MEMD: white-noise channels added; 0 = plain MEMD
  double noiseLevel = 0.1;  // their std relative to the mean std of the data channels
  int ensembleSize = 1;     // NA-MEMD noise draws whose IMFs are averaged
  uint64_t seed = 1;        // Philox key of the noise
  GpuPrecision gpuPrecision = GpuPrecision::Float32;
  MemdSupplied supplied;
};

// "rehman-mandic": memd.m's defaults ('stop' [0.075 0.75 0.075], at most 1000 sifts, automatic
// directions and IMF count); "rehman-mandic-fix-h": memd.m 'fix_h' 2; "na-memd": 4 noise
// channels at 0.1 x std, one draw; "thesis-gpu": 10 fixed sifts, 8 IMFs (the published GPU code's
// benchmark). Every preset sets every field.
const std::vector<ParamPreset<MemdParams>>& memdPresets();
// Throws InvalidParameterError naming the known presets when `name` is unknown.
MemdParams memdPreset(const std::string& name);

// Every MemdParams field declared once (memd_param_table.cpp).
const ParamTable<MemdParams>& memdParamTable();

// Throws InvalidParameterError for a field outside its declared range, sd > sd2, or a supplied
// direction/noise set of the wrong shape.
void validateMemdParams(const MemdParams& p);

const char* memdStopName(MemdStopKind k);  // "stop", "fix_h", "fixed"
// "stop 0.075/0.75/0.075, at most 1000 sifts" / "fix_h 2, at most 1000 sifts" / "10 fixed sifts"
std::string describeMemdStop(const MemdParams& p);

// The direction count a run uses for `dims` = channels + noise channels.
int memdDirectionCount(const MemdParams& p, int dims);

constexpr int kMemdMaxDirections = 65536;
constexpr int kMemdMaxNoiseChannels = 1024;
constexpr int kMemdMaxEnsemble = 4096;

}  // namespace modescope
