// The 3-D scalp map (docs/scalp-3d.md): the electrodes on a head-shaped surface and the field
// interpolated over it by spherical splines (engine/montage/scalp_interpolation.h), rotatable and
// zoomable with the mouse. It draws the same channel-space vectors as the 2-D ScalpMapView (a
// column of an ICA mixing matrix, an r^2 row, a band power); the two views show the same field,
// because the spline is evaluated at each surface vertex's unit-sphere direction.
//
// What is drawn: a head (an ellipsoid longer front-back than wide, flattened below the
// nasion-inion plane, cut and capped below the lowest electrode; widgets/head_surface.h) with a
// nose and ears for orientation; every vertex coloured by the field on a symmetric diverging scale
// (-max|v| .. +max|v|, blue-white-red); a colour bar with the unit; the electrodes as small dark
// spheres; optional electrode labels (only those on the side facing the camera); the title; the
// channels without a position named at the bottom ("not shown (no position): X1, X2"), never
// silently dropped.
//
// Mouse: left drag rotates (trackball), right drag or the wheel zooms, middle drag pans, a
// double click or the R / Home key resets the view (front-left, from above).
//
// VTK 9.1 renders into this QOpenGLWidget through vtkGenericOpenGLRenderWindow; VTK's own Qt
// module is never used (Debian builds it for Qt 5). The widget asks for an OpenGL 3.2 core
// context for itself only (setFormat); the application's default format is left alone.
// Needs a real OpenGL context: under Xvfb use the xcb platform (GLX, Mesa llvmpipe); Qt 6.4's
// offscreen platform has none.
//
// The view is built only when ModeScope is configured with MODESCOPE_VTK=ON (the default, needs
// libvtk9-dev). Code that embeds it checks MODESCOPE_HAVE_VTK (a public definition of the
// modescope_widgets target) or kHaveScalp3dView and shows scalp3dUnavailableMessage() otherwise.
//
// Thread rules: GUI thread only. The first setMap for an electrode set fits the spline and builds
// its interpolation matrix at the head's 12,801 vertices (measured on a 2-core machine: 43 ms for
// 64 channels, 180 ms for 256; 8 bytes x vertices x channels of memory, 6.5 MB for 64). Later
// maps on the same electrodes (the components of one ICA) are one matrix-vector product, under
// 1 ms for 64 channels, plus the frame (about 20 ms with Mesa llvmpipe).
#pragma once

#include <QString>

#ifndef MODESCOPE_HAVE_VTK
#define MODESCOPE_HAVE_VTK 0
#endif

namespace modescope {

inline constexpr bool kHaveScalp3dView = MODESCOPE_HAVE_VTK != 0;

// The sentence to show in place of the 3-D view when this build has none.
inline QString scalp3dUnavailableMessage() {
  return QStringLiteral(
      "The 3-D scalp view is not part of this build: ModeScope was configured with "
      "MODESCOPE_VTK=OFF. Install VTK 9 (apt-get install libvtk9-dev) and configure again with "
      "-DMODESCOPE_VTK=ON.");
}

}  // namespace modescope

#if MODESCOPE_HAVE_VTK

#include <QImage>
#include <QOpenGLWidget>
#include <QStringList>
#include <memory>
#include <vector>

#include "engine/core/recording.h"

class QPainter;

namespace modescope {

class Scalp3dView : public QOpenGLWidget {
  Q_OBJECT

 public:
  explicit Scalp3dView(QWidget* parent = nullptr);
  ~Scalp3dView() override;

  // values[i] belongs to channels[i]; channels without a position are listed, not drawn. `unit`
  // titles the colour bar ("uV", "a.u."). Problems the view cannot draw (sizes differ, a value
  // is not finite, fewer than 3 positioned channels, two electrodes at one place) are shown as a
  // message in the view and returned by message(); the head is then drawn uncoloured.
  void setMap(const std::vector<ChannelInfo>& channels, const std::vector<double>& values,
              const QString& title, const QString& unit = {});
  // Back to the uncoloured head without electrodes, title or message.
  void clear();

  // Names of the channels of the last setMap that have no position (in channel order).
  QStringList unmappedChannels() const;
  // The reason the last setMap drew no field, or empty.
  QString message() const;
  // Half-range of the symmetric colour scale: the map spans [-colourLimit, +colourLimit]
  // (max |value| over the electrodes and the interpolated surface; 0 without a map).
  double colourLimit() const;

  // Electrode labels (channel names) next to the electrodes that face the camera. Default off.
  void setShowElectrodeLabels(bool show);
  bool showElectrodeLabels() const;

  // The default view: from the front-left and above, the whole head in view.
  void resetCamera();
  // Turns the camera about the focal point: first about the head's vertical axis (azimuth,
  // degrees, counter-clockwise seen from above: 90 moves a camera in front of the head to its
  // right side, 180 behind it), then up over the head about the screen's horizontal axis
  // (elevation, degrees; vtkCamera::Elevation).
  void rotateCamera(double azimuthDegrees, double elevationDegrees);

  // The rendered frame at device pixels (QOpenGLWidget::grabFramebuffer): for PNG export and
  // tests. Renders first if needed; a null image when there is no OpenGL context.
  QImage grabImage();
  // Paints the rendered frame scaled into `area` (exportView: PNG, or SVG/PDF with the frame as
  // an embedded image). Non-const: it renders.
  void render(QPainter& painter, const QRect& area);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void initializeGL() override;
  void resizeGL(int width, int height) override;
  void paintGL() override;

  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void enterEvent(QEnterEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private slots:
  void releaseGl();  // the context is about to be destroyed (reparenting, closing)

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace modescope

#endif  // MODESCOPE_HAVE_VTK
