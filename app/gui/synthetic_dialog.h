// "New synthetic recording...": the generator's parameters (engine/synth/synthetic_eeg.h).
#pragma once

#include <QDialog>

#include "engine/synth/synthetic_eeg.h"

class QSpinBox;
class QDoubleSpinBox;
class QComboBox;

namespace modescope {

class SyntheticDialog : public QDialog {
  Q_OBJECT

 public:
  explicit SyntheticDialog(QWidget* parent = nullptr);
  SynthParams params() const;
  void setParams(const SynthParams& params);

 private:
  QSpinBox* channels_ = nullptr;
  QDoubleSpinBox* rate_ = nullptr;
  QDoubleSpinBox* duration_ = nullptr;
  QSpinBox* sources_ = nullptr;
  QComboBox* mixing_ = nullptr;
  QComboBox* lineNoise_ = nullptr;
  QDoubleSpinBox* lineNoiseAmplitude_ = nullptr;
  QDoubleSpinBox* blinks_ = nullptr;
  QDoubleSpinBox* bursts_ = nullptr;
  QDoubleSpinBox* background_ = nullptr;
  QSpinBox* seed_ = nullptr;
};

}  // namespace modescope
