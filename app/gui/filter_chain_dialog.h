// Navigate > Display filter chain: a high-pass, a low-pass and a notch together (each optional),
// with the chain's gain drawn as it is edited (FilterResponseView), for the browser's display
// (only what is drawn changes; Process > Filter makes a filtered recording).
#pragma once

#include <QDialog>
#include <vector>

#include "engine/dsp/preprocess.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;

namespace modescope {

class FilterResponseView;

class FilterChainDialog : public QDialog {
  Q_OBJECT

 public:
  // `sampleRate`: the rate the response is drawn for (the recording's EEG rate).
  FilterChainDialog(const std::vector<FilterSpec>& chain, double sampleRate,
                    QWidget* parent = nullptr);

  // High-pass, low-pass, notch, in that order, those ticked.
  std::vector<FilterSpec> chain() const;
  void setChain(const std::vector<FilterSpec>& chain);
  FilterResponseView* response() const { return response_; }
  QCheckBox* highPassBox() const { return highOn_; }
  QCheckBox* lowPassBox() const { return lowOn_; }
  QCheckBox* notchBox() const { return notchOn_; }
  QDoubleSpinBox* highPassEdit() const { return highHz_; }
  QDoubleSpinBox* lowPassEdit() const { return lowHz_; }

 private:
  void refresh();

  double sampleRate_ = 0.0;
  QCheckBox* highOn_ = nullptr;
  QCheckBox* lowOn_ = nullptr;
  QCheckBox* notchOn_ = nullptr;
  QDoubleSpinBox* highHz_ = nullptr;
  QDoubleSpinBox* lowHz_ = nullptr;
  QComboBox* notchHz_ = nullptr;
  QCheckBox* harmonics_ = nullptr;
  FilterResponseView* response_ = nullptr;
};

}  // namespace modescope
