// renderSpectrumImage (spectrum_image.h): the host path of the spectrum colouring.
#include "engine/hht/spectrum_image.h"

#include <cstddef>

namespace modescope {

void renderSpectrumImage(const float* grid, int rows, int cols, const SpectrumColouring& colouring,
                         uint32_t* pixels) {
  for (int r = 0; r < rows; ++r) {
    const float* src = grid + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
    uint32_t* line =
        pixels + static_cast<std::size_t>(rows - 1 - r) * static_cast<std::size_t>(cols);
    for (int c = 0; c < cols; ++c) line[c] = spectrumColour(src[c], colouring, colouring.table);
  }
}

}  // namespace modescope
