// Edits one FilterSpec: kind (none, band-pass, high-pass, low-pass, optionally notch), edges in
// Hz, notch frequency and harmonics. Used by the custom display filter and the Process dialog.
#pragma once

#include <QWidget>
#include <optional>

#include "engine/dsp/preprocess.h"

class QComboBox;
class QDoubleSpinBox;
class QCheckBox;

namespace modescope {

class FilterSpecEditor : public QWidget {
  Q_OBJECT

 public:
  // allowNotch: offer "Notch" as a kind (the Process dialog has its own notch row instead).
  explicit FilterSpecEditor(bool allowNotch, QWidget* parent = nullptr);

  // nullopt when the kind is "None".
  std::optional<FilterSpec> spec() const;
  void setSpec(const std::optional<FilterSpec>& spec);
  // Caps the edge spin boxes just below Nyquist (sampleRate / 2) of the data to be filtered.
  void setNyquist(double hz);

 signals:
  void changed();

 private:
  void updateEnabled();

  QComboBox* kind_ = nullptr;
  QDoubleSpinBox* low_ = nullptr;
  QDoubleSpinBox* high_ = nullptr;
  QComboBox* notch_ = nullptr;
  QCheckBox* harmonics_ = nullptr;
};

}  // namespace modescope
