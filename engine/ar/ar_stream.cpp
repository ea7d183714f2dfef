// Configuration checks shared by every backend's openArStream (contract in ar_stream.h).
#include "engine/ar/ar_stream.h"

#include <string>

#include "engine/core/error.h"

namespace modescope {

void validateArStreamConfig(const ArStreamConfig& config) {
  validateBurgArParams(config.params, config.sampleRate);
  if (config.params.output == ArOutput::Coefficients)
    throw InvalidParameterError("output", "coefficients", "power or amplitude",
                                "a live stream feeds spectra and band-power maps; choose power or "
                                "amplitude (coefficients are available from the offline AR run)");
  if (!config.filter) {
    if (config.channels == 0)
      throw InvalidParameterError("channels", "0", "at least one channel per pushed block",
                                  "select the channels to stream or give a spatial filter");
    return;
  }
  const SpatialFilter& f = *config.filter;
  if (f.outputCount() == 0 || f.inputCount() == 0)
    throw InvalidParameterError("spatial filter",
                                std::to_string(f.outputCount()) + " outputs x " +
                                    std::to_string(f.inputCount()) + " inputs",
                                "at least one output and one input",
                                "build the filter over a channel selection");
  if (f.matrix.size() != f.outputCount() * f.inputCount())
    throw InvalidParameterError(
        "spatial filter matrix", std::to_string(f.matrix.size()) + " weights",
        std::to_string(f.outputCount()) + " outputs x " + std::to_string(f.inputCount()) +
            " inputs = " + std::to_string(f.outputCount() * f.inputCount()) + " weights",
        "rebuild or reload the filter: its matrix does not match its channel names");
}

}  // namespace modescope
