// PLACEHOLDER owned by the hht helper: replaced by the real implementation before merge.
#include "engine/hht/hht_cpu.h"

#include "engine/core/error.h"

namespace modescope {
HhtResult hilbertHuangCpu(const EmdResult&, const HhtParams&, int, JobContext&) {
  throw Error("hilbertHuangCpu: not built yet");
}
}  // namespace modescope
