// The "Time range and backend" group of the processing dialogs (decompose, ICA): start and
// duration in seconds with "to the end", and the backend ("As in the Compute menu", Auto, CPU,
// CUDA). Object names (tests find the fields by them): "start", "duration", "toEnd", "backend",
// and "rangeTruncated" (the note shown when start + duration ends after the recording).
//
// Thread rules: GUI thread.
#pragma once

#include <QGroupBox>
#include <optional>

#include "app/core/selection.h"
#include "engine/compute/backend.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace modescope {

class ChannelChecklist;

class RangeBackendBox : public QGroupBox {
  Q_OBJECT

 public:
  // `recordingSeconds` bounds both fields; durationSeconds < 0 starts with "to the end".
  // The tooltips say what the range is for ("the decomposed range").
  RangeBackendBox(double recordingSeconds, double startSeconds, double durationSeconds,
                  const QString& startTip, const QString& durationTip, QWidget* parent = nullptr);

  double startSeconds() const;
  double durationSeconds() const;                // < 0: to the end
  std::optional<BackendChoice> backend() const;  // nullopt: the Compute menu's choice
  void setBackendToolTip(const QString& tip);
  // What a dialog's request() reads: `channels`' checked channels, this range and backend.
  RequestSelection selection(const ChannelChecklist& channels) const;

 signals:
  void changed();  // any field

 private:
  QDoubleSpinBox* start_ = nullptr;
  QDoubleSpinBox* duration_ = nullptr;
  QCheckBox* toEnd_ = nullptr;
  QComboBox* backend_ = nullptr;
  QLabel* truncated_ = nullptr;  // what a range ending after the recording becomes
};

}  // namespace modescope
