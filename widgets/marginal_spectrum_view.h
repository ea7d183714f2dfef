// The marginal Hilbert spectrum h(f) = integral over time of H(f, t) (engine/hht/hht.h) as a line
// through the bin centres, with optional logarithmic frequency and value axes and optional
// markers at the IMFs' mean frequencies.
//
// Thread rules: a GUI-thread widget.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

namespace modescope {

struct MarginalSpectrum {
  std::vector<double> frequencyEdges;  // bins + 1, Hz, ascending
  std::vector<double> values;          // bins
  QString valueUnit;                   // e.g. "uV s" or "uV^2 s"
  QString quantity;                    // "Amplitude" / "Energy"
  // Optional: labelled vertical markers (e.g. "IMF 2" at its mean frequency).
  std::vector<std::pair<double, QString>> markers;

  bool valid() const { return !values.empty() && frequencyEdges.size() == values.size() + 1; }
};

class MarginalSpectrumView : public QWidget {
  Q_OBJECT

 public:
  explicit MarginalSpectrumView(QWidget* parent = nullptr);

  void setSpectrum(MarginalSpectrum spectrum);
  const MarginalSpectrum& spectrum() const { return spectrum_; }
  void setLogFrequency(bool on);
  void setLogValues(bool on);
  bool logFrequency() const { return logFrequency_; }
  bool logValues() const { return logValues_; }

  // The data -> widget mapping of the current axes (for tests): x of a frequency, y of a value.
  QRectF plotRect() const;
  double xOf(double hz) const;
  double yOf(double value) const;

  void renderTo(QPainter& painter, const QRect& area) const;
  bool exportImage(const QString& path, QString* error = nullptr) const;

  QSize sizeHint() const override { return {420, 240}; }
  QSize minimumSizeHint() const override { return {200, 120}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  struct Axes;
  Axes axesIn(const QRect& area) const;

  MarginalSpectrum spectrum_;
  bool logFrequency_ = false;
  bool logValues_ = false;
};

}  // namespace modescope
