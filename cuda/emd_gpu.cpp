// PLACEHOLDER (lead): replaced by the real implementation.
#include "cuda/cuda_emd.h"
#include "engine/core/error.h"

namespace modescope::cuda {
EmdResult decomposeGpu(const SignalBlock&, const EmdParams&, JobContext&) {
  throw Error("decomposeGpu: not built yet");
}
}  // namespace modescope::cuda
