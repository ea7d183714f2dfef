// The CPU ArStream (engine/ar/ar_stream.h gives the procedure): the spatial filter accumulated in
// double, a ring of the last N filtered float samples per output, then per output the window of
// ar_spectrum.h step 3 (flat check on the float samples, arDetrend, burg, arBinValues) in double.
//
// Outputs are spread over a WorkerTeam of `threads` workers (the calling thread is one of them;
// engine/parallel/worker_team.h) that the stream leases for its whole life: a 50 ms block of 64
// channels is about a millisecond of work, so the stream keeps its team and wakes it per push
// rather than leasing one per push as parallelFor does.
// tests/bench/ar_replay_bench.cpp compares the two (its "offline/block" rows); on the shared
// 2-core machine the difference is within the noise of the other load (docs/ar.md, Live replay).
//
// Thread rules: as ArStream; the stream holds its team as long as it lives.
#pragma once

#include <memory>

#include "engine/ar/ar_stream.h"

namespace modescope {

// threads <= 0: hardware concurrency. Throws InvalidParameterError as validateArStreamConfig.
std::unique_ptr<ArStream> makeCpuArStream(const ArStreamConfig& config, int threads);

}  // namespace modescope
