// A line plot of several curves over one x axis, for the epoch views (ERP per condition with
// confidence bands, butterfly, difference waves) and the channel power spectrum: each curve with
// an optional shaded band (low/high per point), its colour and width, a legend, a linear or
// logarithmic y axis (log: non-positive values are left out of the line), vertical markers
// (time 0, a chosen time) and a click that reports the x under the mouse.
//
// Thread rules: GUI thread only.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

namespace modescope {

struct PlotCurve {
  QString name;  // legend text; "" = not in the legend (butterfly traces)
  std::vector<double> x, y;
  std::vector<double> bandLow, bandHigh;  // empty, or one per point (NaN: no band there)
  QColor colour;
  double width = 1.5;
};

class CurvePlot : public QWidget {
  Q_OBJECT

 public:
  explicit CurvePlot(QWidget* parent = nullptr);

  void setCurves(std::vector<PlotCurve> curves);
  const std::vector<PlotCurve>& curves() const { return curves_; }
  void setLabels(const QString& title, const QString& xLabel, const QString& yLabel);
  void setLogY(bool on);
  bool logY() const { return logY_; }
  // Draws the y axis upside down (EEG's negative-up convention); off by default.
  void setInvertY(bool on);
  void setMarkers(std::vector<double> xs);  // dashed vertical lines
  void setMessage(const QString& text);     // shown instead of an empty plot

  // The plot's data ranges (for tests): x over all curves, y including the bands.
  double xMin() const { return xMin_; }
  double xMax() const { return xMax_; }
  double yMin() const { return yMin_; }
  double yMax() const { return yMax_; }
  QRectF plotRect() const;
  double xOf(double x) const;
  double yOf(double y) const;

  void render(QPainter& painter, const QRect& area) const;
  QSize sizeHint() const override { return {520, 300}; }
  QSize minimumSizeHint() const override { return {220, 140}; }

 signals:
  void clicked(double x);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  void updateRanges();
  QRectF plotRectIn(const QRect& area) const;
  double mapY(double y, const QRectF& r) const;

  std::vector<PlotCurve> curves_;
  std::vector<double> markers_;
  QString title_, xLabel_, yLabel_, message_;
  bool logY_ = false, invertY_ = false;
  double xMin_ = 0, xMax_ = 1, yMin_ = 0, yMax_ = 1;
};

}  // namespace modescope
