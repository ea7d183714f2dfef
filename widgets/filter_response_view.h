// The gain of a display filter (or chain) against frequency, 0 to Nyquist, in dB: what the
// filter does to each frequency, drawn from the very kernel the browser applies (designFirChain,
// firGainDb in engine/dsp/fir_chain.h). A design that does not fit the rate shows its reason.
#pragma once

#include <QWidget>
#include <vector>

#include "engine/dsp/preprocess.h"

namespace modescope {

class FilterResponseView : public QWidget {
  Q_OBJECT

 public:
  static constexpr double kFloorDb = -80.0;  // the lower edge of the plot

  explicit FilterResponseView(QWidget* parent = nullptr);

  // Designs the chain at `sampleRate` and shows its gain; an empty chain shows 0 dB throughout.
  void setChain(const std::vector<FilterSpec>& chain, double sampleRate);
  // The drawn curve: frequencies (Hz) and gains (dB), 512 points from 0 to Nyquist.
  const std::vector<double>& frequencies() const { return frequencies_; }
  const std::vector<double>& gainsDb() const { return gains_; }
  QString message() const { return message_; }  // why there is no curve ("" when there is)
  QString description() const { return description_; }
  // Widget position of (frequency, gain), for tests.
  QPointF positionFor(double hz, double db) const;

  QSize sizeHint() const override { return {480, 220}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QRectF plotArea() const;

  double nyquist_ = 0.0;
  std::vector<double> frequencies_, gains_;
  QString message_, description_;
};

}  // namespace modescope
