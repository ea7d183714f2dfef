// Colouring of spectrum images (the Hilbert spectrum view; later VSS and STFT views), written once
// for the host path (widgets/colour_map, a QImage) and the CUDA-OpenGL path
// (cuda/spectrum_gl_writer: a kernel writes the pixels straight into a GL pixel buffer), so both
// draw the same pixels.
//
// A value v becomes a position t in [0, 1]: Linear t = (v - low) / (high - low); Log
// t = ln(v / low) / ln(high / low), and v <= low (zero included) gives 0; non-finite v or t gives
// 0; t is clamped to [0, 1]. t picks entry round(t x 255) of a 256-entry colour table (0xAARRGGBB,
// Qt's QRgb layout, which is B, G, R, A in memory on little-endian machines: OpenGL's GL_BGRA).
//
// Thread rules: pure functions.
#pragma once

#include <math.h>
#include <stdint.h>

#include "engine/core/philox.h"  // MODESCOPE_HOST_DEVICE

namespace modescope {

constexpr int kSpectrumTableSize = 256;

struct SpectrumColouring {
  bool logScale = false;
  double low = 0.0;                 // value at t = 0 (log: > 0)
  double high = 1.0;                // value at t = 1
  const uint32_t* table = nullptr;  // kSpectrumTableSize entries
};

MODESCOPE_HOST_DEVICE inline double spectrumPosition(double value, bool logScale, double low,
                                                     double high) {
  if (!isfinite(value)) return 0.0;
  double t;
  if (logScale) {
    if (!(value > low) || !(low > 0.0)) return 0.0;
    t = log(value / low) / log(high / low);
  } else {
    t = (value - low) / (high - low);
  }
  if (!isfinite(t) || !(t > 0.0)) return 0.0;
  return t < 1.0 ? t : 1.0;
}

// Table index for position t (NaN and t <= 0: 0; t >= 1: the last entry).
MODESCOPE_HOST_DEVICE inline int spectrumTableIndex(double t) {
  if (!(t > 0.0)) return 0;
  if (t >= 1.0) return kSpectrumTableSize - 1;
  return static_cast<int>(t * (kSpectrumTableSize - 1) + 0.5);
}

MODESCOPE_HOST_DEVICE inline uint32_t spectrumColour(float value, const SpectrumColouring& c,
                                                     const uint32_t* table) {
  return table[spectrumTableIndex(spectrumPosition(value, c.logScale, c.low, c.high))];
}

// The host reference: a rows x cols grid (row-major, row 0 = lowest frequency) into rows x cols
// pixels, top image row first (grid row rows - 1), one pixel per cell.
void renderSpectrumImage(const float* grid, int rows, int cols, const SpectrumColouring& colouring,
                         uint32_t* pixels);

}  // namespace modescope
