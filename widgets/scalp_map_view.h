// The 2-D scalp topography EEG users know (EEGLAB topoplot, MNE plot_topomap): the field
// interpolated by spherical splines (engine/montage/scalp_interpolation.h) on a grid inside the
// head outline, with nose and ears, electrode dots, contour lines, a symmetric colour scale
// (-max|v| .. +max|v|, diverging blue-white-red) and a colour bar with the unit. Draws any
// channel-space vector: a column of an ICA mixing matrix, an r^2 row at one frequency, a band
// power. Channels without a known position are listed under the map ("not shown: X1, X2"), never
// silently dropped.
//
// Compact mode (for grids of thumbnails): no colour bar and no labels, the title above the head,
// a red frame when the map is marked (an artifact component).
//
// Thread rules: GUI thread only. Interpolation runs in setMap (tens of ms for 64 channels at the
// default grid); the spline fit is cached while the channel set is unchanged.
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "engine/core/recording.h"

class QPainter;

namespace modescope {

class ScalpMapView : public QWidget {
  Q_OBJECT

 public:
  explicit ScalpMapView(QWidget* parent = nullptr);
  ~ScalpMapView() override;

  // values[i] belongs to channels[i]. `unit` labels the colour bar ("uV", "r^2", "a.u.").
  void setMap(const std::vector<ChannelInfo>& channels, const std::vector<double>& values,
              const QString& title, const QString& unit = {});
  void clear();

  void setCompact(bool compact);
  void setMarked(bool marked);
  void setShowElectrodeLabels(bool show);
  void setShowContours(bool show);
  // Symmetric scale (default, for signed maps) or min..max with a sequential map (r^2, power).
  void setSymmetricScale(bool symmetric);

  QStringList unmappedChannels() const;
  // Paints the whole figure into `painter` over `area` (the widget, PNG/SVG/PDF export).
  void render(QPainter& painter, const QRect& area) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void clicked();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace modescope
