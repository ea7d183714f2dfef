// What "Analysis > Multivariate EMD (MEMD, NA-MEMD)" asks for, how it maps onto the one MEMD job
// (app/core/memd_job.h: runMemdJob, the same checks and provenance as `modescope-cli memd`), and
// the memory plan shown before a run (engine/memd/memd_memory.h). Nothing here decomposes.
//
// Thread rules: plain values and pure functions, usable on any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/core/memd_job.h"
#include "app/core/selection.h"
#include "engine/compute/backend.h"
#include "engine/core/recording.h"
#include "engine/hht/hht.h"
#include "engine/memd/memd_params.h"

namespace modescope {

struct MemdRequest : RequestSelection {  // channels, range, backend
  MemdParams params;
  std::string presetName;  // "" when the fields differ from every preset
};

// The job spec runMemdJob takes; `inputFile` goes into the provenance ("" = the recording's
// source path).
MemdJobSpec toJobSpec(const MemdRequest& request, const std::string& inputFile);

// "MEMD of Fz, Cz, Pz (4 s from 0 s)" / "NA-MEMD of ..." for job titles and tabs.
std::string describeMemd(const Recording& rec, const MemdRequest& request);

// The Hilbert-Huang transform the window computes after every MEMD run (not part of the memd
// pipeline step, so it is fixed): every IMF, 256 linear bins from 0 Hz to Nyquist, the automatic
// time grid, amplitude, instantaneous series kept (the per-channel IMF stack draws them).
HhtParams memdViewHhtParams();

// The samples of the request's range on `rec` (its first channel's rate); 0 when no channel.
int64_t memdRequestSamples(const Recording& rec, const MemdRequest& request);

// What a run needs before it starts. On a GPU (deviceBytes > 0, the device's memory) the CUDA
// plan of engine/memd/memd_memory.h at 85 % of it (as cuda/memd_gpu.cpp budgets free memory);
// `refused` when not even one direction fits, `text` then the planner's own message (how many
// samples or channels would fit). On the CPU (deviceBytes == 0) the size of the result (every
// channel's IMFs, the Hilbert spectra and instantaneous series the window keeps); never refused
// here: host memory is the operating system's to refuse.
struct MemdMemoryPlan {
  bool refused = false;
  std::string text;
};
MemdMemoryPlan memdMemoryPlan(const MemdParams& params, int channels, int64_t samples,
                              std::size_t deviceBytes);

}  // namespace modescope
