#include "widgets/colour_map.h"

#include <algorithm>
#include <cmath>

namespace modescope {

ColourMap ColourMap::viridis() {
  // viridis at t = 0, 1/8, ..., 1 (sRGB). Nine points keep the interpolation error below about
  // two levels per channel, invisible in a spectrum.
  static const std::vector<QRgb> points = {
      qRgb(68, 1, 84),    qRgb(72, 40, 120),  qRgb(62, 73, 137),
      qRgb(49, 104, 142), qRgb(38, 130, 142), qRgb(31, 158, 137),
      qRgb(53, 183, 121), qRgb(110, 206, 88), qRgb(253, 231, 37)};
  return ColourMap(points, QStringLiteral("viridis"));
}

ColourMap ColourMap::greys() {
  return ColourMap({qRgb(0, 0, 0), qRgb(255, 255, 255)}, QStringLiteral("greys"));
}

ColourMap ColourMap::blueWhiteRed() {
  // Mirror pairs have about the same lightness (dark ~25 %, mid ~55 %, light ~80 %), white in the
  // middle so a zero value reads as "nothing there".
  static const std::vector<QRgb> points = {
      qRgb(24, 50, 132),   qRgb(60, 120, 200), qRgb(170, 205, 235), qRgb(255, 255, 255),
      qRgb(245, 185, 160), qRgb(215, 80, 60),  qRgb(125, 15, 25)};
  return ColourMap(points, QStringLiteral("blue-white-red"));
}

ColourMap::ColourMap(const std::vector<QRgb>& controlPoints, QString name)
    : name_(std::move(name)) {
  const std::vector<QRgb> pts =
      controlPoints.size() >= 2
          ? controlPoints
          : std::vector<QRgb>(2, controlPoints.empty() ? qRgb(0, 0, 0) : controlPoints.front());
  const int segments = static_cast<int>(pts.size()) - 1;
  for (int i = 0; i < kTableSize; ++i) {
    const double x = static_cast<double>(i) / (kTableSize - 1) * segments;
    const int s = std::min(static_cast<int>(x), segments - 1);
    const double f = x - s;
    auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
    const QRgb a = pts[static_cast<std::size_t>(s)], b = pts[static_cast<std::size_t>(s) + 1];
    table_[static_cast<std::size_t>(i)] =
        qRgb(mix(qRed(a), qRed(b)), mix(qGreen(a), qGreen(b)), mix(qBlue(a), qBlue(b)));
  }
}

QRgb ColourMap::colourAt(double t) const {
  return table_[static_cast<std::size_t>(spectrumTableIndex(t))];
}

double ColourScale::position(double value) const {
  return spectrumPosition(value, kind == ColourScaleKind::Log, low, high);
}

double ColourScale::valueAt(double t) const {
  t = std::clamp(t, 0.0, 1.0);
  if (kind == ColourScaleKind::Log) return low * std::pow(high / low, t);
  return low + (high - low) * t;
}

ColourScale ColourScale::fit(const float* values, std::size_t count, ColourScaleKind kind,
                             double decades) {
  double top = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    if (std::isfinite(values[i])) top = std::max(top, static_cast<double>(values[i]));
  }
  if (!(top > 0.0)) top = 1.0;
  ColourScale s;
  s.kind = kind;
  s.high = top;
  s.low = kind == ColourScaleKind::Log ? top / std::pow(10.0, std::max(decades, 0.1)) : 0.0;
  return s;
}

SpectrumColouring spectrumColouring(const ColourMap& map, const ColourScale& scale) {
  SpectrumColouring c;
  c.logScale = scale.kind == ColourScaleKind::Log;
  c.low = scale.low;
  c.high = scale.high;
  c.table = map.table().data();
  return c;
}

QImage mapGridToImage(const float* grid, int rows, int cols, const ColourMap& map,
                      const ColourScale& scale) {
  if (rows <= 0 || cols <= 0 || !grid) return {};
  QImage image(cols, rows, QImage::Format_RGB32);
  if (image.isNull()) return {};  // too large to allocate
  // 32-bit scan lines are never padded, so the image is the contiguous pixel array the shared
  // renderer writes.
  renderSpectrumImage(grid, rows, cols, spectrumColouring(map, scale),
                      reinterpret_cast<uint32_t*>(image.bits()));
  return image;
}

}  // namespace modescope
