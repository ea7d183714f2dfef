// The 2-D scalp topography EEG users know (EEGLAB topoplot, MNE plot_topomap): the field
// interpolated by spherical splines (engine/montage/scalp_interpolation.h) on a grid inside the
// head outline, with nose and ears, electrode dots, contour lines, a symmetric colour scale
// (-max|v| .. +max|v|, diverging blue-white-red) and a colour bar with the unit. Draws any
// channel-space vector: a column of an ICA mixing matrix, an r^2 row at one frequency, a band
// power. Channels without a known position are listed under the map ("not shown: X1, X2"), never
// silently dropped.
//
// The head circle is the 10-20 ring (Fpz, T8, Oz, T7), as in EEGLAB; when electrodes lie below
// it (the lower 10-05 rows, T9/T10/Iz) the map reaches out to them beyond the circle.
//
// Compact mode (for grids of thumbnails): no colour bar and no labels, the title above the head,
// a red frame when the map is marked (an artifact component); the channels not shown are in the
// tooltip (ScalpMapGrid lists them once above the grid).
//
// Thread rules: GUI thread only. Interpolation runs in setMap (a few ms for 64 channels at the
// default grid once the fit exists; the first map of a channel set also fits the spline, ~30 ms);
// the spline fit is cached while the channel set is unchanged, and shared between views (see
// sharedScalpInterpolator). Painting uses a colour image cached until the next setMap or resize.
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "engine/core/recording.h"
#include "engine/montage/scalp_interpolation.h"

class QPainter;
class QPen;
class QPointF;
class QPaintDevice;

namespace modescope {

// Cells per side of the interpolation grid (EEGLAB's GRID_SCALE).
constexpr int kScalpGridSize = 67;

// The interpolator for an electrode set at `size` cells, from a small cache shared by all views
// (the last few electrode sets), so a grid of views of one decomposition fits the spline once.
// Throws InvalidParameterError as SphericalSpline does (fewer than 3 positions, duplicates).
// GUI thread only.
// headPolarDegrees: the layout's head circle (ScalpLayout::headPolarDegrees).
std::shared_ptr<const ScalpGridInterpolator> sharedScalpInterpolator(
    const std::vector<Position3>& positions, double headPolarDegrees = kHeadCirclePolarDegrees,
    int size = kScalpGridSize);

// Draws the head outline of the 2-D layout (the head circle at the 10-20 ring, nose, ears) with
// `pen`: the circle has radius `scale` pixels around `centre`, the nose points up. Shared with
// widgets/connectivity_scalp_view.h. The drawing reaches kHeadOutlineReach disc units (the nose).
constexpr double kHeadOutlineReach = 1.11;
void drawHeadOutline(QPainter& painter, const QPointF& centre, double scale, const QPen& pen);

class ScalpMapView : public QWidget {
  Q_OBJECT

 public:
  explicit ScalpMapView(QWidget* parent = nullptr);
  ~ScalpMapView() override;

  // values[i] belongs to channels[i]. `unit` labels the colour bar ("uV", "r^2", "a.u.").
  // Channels without a position, or with a non-finite value, are listed as not shown. When the
  // map cannot be drawn (values.size() != channels.size(), fewer than 3 channels with positions,
  // two at the same place) the view shows why instead of a map (message()); nothing throws.
  void setMap(const std::vector<ChannelInfo>& channels, const std::vector<double>& values,
              const QString& title, const QString& unit = {});
  // The same with the interpolation done by the caller (ScalpMapGrid: one product for all maps):
  // `layout` = scalpLayout(channels), `mappedValues` one per layout.mapped entry (all finite),
  // `grid` interpolated for layout.positions.
  void setInterpolated(const std::vector<ChannelInfo>& channels, const ScalpLayout& layout,
                       const std::vector<double>& mappedValues, ScalpGrid grid,
                       const QString& title, const QString& unit = {});
  void clear();

  void setCompact(bool compact);
  bool isCompact() const;
  void setMarked(bool marked);
  bool isMarked() const;
  // The current map of a grid: a frame in the palette's highlight colour.
  void setHighlighted(bool highlighted);
  bool isHighlighted() const;
  void setShowElectrodeLabels(bool show);
  void setShowContours(bool show);
  // Symmetric scale (default, for signed maps) or min..max with a sequential map (r^2, power).
  void setSymmetricScale(bool symmetric);
  // A symmetric scale of -halfRange..+halfRange shared by several maps (a series over time);
  // 0 (the default) = each map's own max|v|. Values beyond it take the bar's end colours.
  void setSymmetricRange(double halfRange);

  QString title() const;
  QStringList unmappedChannels() const;
  // Why no map is drawn ("" when one is).
  QString message() const;
  // The colour scale's ends (-max|v|, +max|v| when symmetric); (0, 0) without a map.
  double scaleLow() const;
  double scaleHigh() const;
  // The contour levels drawn (empty when contours are off or there is no map).
  std::vector<double> contourLevels() const;
  // Where the disc point (x, y) (head circle radius 1, y toward the nose; projectToDisc) is drawn
  // when the figure fills `area` (the widget's rect() when left out): for hit tests and tests.
  QPointF pixelForDisc(double x, double y, const QRect& area = {}) const;

  // Paints the whole figure into `painter` over `area` (the widget, PNG/SVG/PDF export).
  void render(QPainter& painter, const QRect& area) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void clicked();
  void doubleClicked();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  void rebuild();
  struct Geometry;
  Geometry geometry(const QRect& area, const QPaintDevice* device) const;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace modescope
