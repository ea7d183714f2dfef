// PLACEHOLDER owned by the emd-cpu helper: replaced by the real implementation before merge.
#include "engine/core/error.h"
#include "engine/emd/emd.h"

namespace modescope {
EmdResult decomposeCpu(const SignalBlock&, const EmdParams&, int, JobContext&) {
  throw Error("decomposeCpu: not built yet");
}
}  // namespace modescope
