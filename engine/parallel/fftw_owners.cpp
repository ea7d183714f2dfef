#include "engine/parallel/fftw_owners.h"

namespace modescope {

std::mutex& fftwPlannerMutex() {
  static std::mutex m;
  return m;
}

}  // namespace modescope
