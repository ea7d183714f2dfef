// PLACEHOLDER owned by the hht helper: replaced by the real implementation before merge.
#include "cuda/cuda_hht.h"
#include "engine/core/error.h"

namespace modescope::cuda {
HhtResult hilbertHuangGpu(const EmdResult&, const HhtParams&, JobContext&) {
  throw Error("hilbertHuangGpu: not built yet");
}
}  // namespace modescope::cuda
