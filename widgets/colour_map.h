// Colour mapping for image views of spectra (Hilbert spectrum; later VSS and STFT).
//
// Split in two small parts: ColourScale turns a value into a position t in [0, 1] (linear or
// logarithmic between a low and a high value), ColourMap turns t into a colour through a
// 256-entry table. Both steps are the functions of engine/hht/spectrum_image.h, which the CUDA
// colouring kernel (cuda/spectrum_gl_writer) runs too: spectrumColouring() hands a map and a scale
// to either, so the host image (mapGridToImage) and the GPU-written pixel buffer are the same
// pixels.
//
// Thread rules: plain values; every function is pure and may run on any thread.
#pragma once

#include <QImage>
#include <QRgb>
#include <QString>
#include <array>
#include <cstddef>
#include <vector>

#include "engine/hht/spectrum_image.h"

namespace modescope {

static_assert(sizeof(QRgb) == sizeof(uint32_t), "QRgb tables are passed as uint32_t tables");

class ColourMap {
 public:
  static constexpr int kTableSize = kSpectrumTableSize;

  // A perceptually ordered map (dark blue-violet through teal and green to yellow, monotonic in
  // lightness, readable in greyscale and by most colour-blind readers) interpolated from nine
  // control colours sampled from matplotlib's published viridis map (van der Walt and Smith,
  // 2015). The table is computed here from those points, not copied.
  static ColourMap viridis();
  // Black to white, for print.
  static ColourMap greys();
  // Diverging, for signed maps on a symmetric scale (scalp topographies): dark blue through light
  // blue to white at t = 0.5, then light red to dark red. Symmetric in lightness around the
  // middle, so equal |values| of either sign look equally strong; the table is interpolated from
  // seven control colours chosen here.
  static ColourMap blueWhiteRed();

  // Builds the table by linear interpolation in sRGB between control colours at equal spacing.
  explicit ColourMap(const std::vector<QRgb>& controlPoints, QString name = {});

  const QString& name() const { return name_; }
  // t in [0, 1] (clamped; NaN maps to the first entry).
  QRgb colourAt(double t) const;
  const std::array<QRgb, kTableSize>& table() const { return table_; }

 private:
  std::array<QRgb, kTableSize> table_{};
  QString name_;
};

enum class ColourScaleKind { Linear, Log };

struct ColourScale {
  ColourScaleKind kind = ColourScaleKind::Linear;
  double low = 0.0;   // value at t = 0 (Log: must be > 0)
  double high = 1.0;  // value at t = 1

  // Position of `value` in [0, 1], clamped. Log: values <= low (zero included) give 0.
  double position(double value) const;
  // The inverse of position() for t in [0, 1] (for colour bar ticks).
  double valueAt(double t) const;

  // The usual range for `values` (non-finite entries ignored): Linear [0, max]; Log
  // [max / 10^decades, max] (a spectrum's zeros, where no IMF passed, are below any log range).
  // An empty or all-zero grid gives [0, 1] / [1e-3, 1].
  static ColourScale fit(const float* values, std::size_t count, ColourScaleKind kind,
                         double decades = 3.0);
};

// `map` and `scale` as the engine's colouring (the table points into `map`, which must outlive it).
SpectrumColouring spectrumColouring(const ColourMap& map, const ColourScale& scale);

// The host path: a rows x cols grid, row-major, row 0 at the bottom of the image (row 0 is the
// lowest frequency in spectra), one pixel per cell, RGB32 (renderSpectrumImage's pixels).
QImage mapGridToImage(const float* grid, int rows, int cols, const ColourMap& map,
                      const ColourScale& scale);

}  // namespace modescope
