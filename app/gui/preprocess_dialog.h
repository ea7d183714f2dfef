// "Process > Filter and re-reference...": what preprocess() needs (engine/dsp/preprocess.h):
// a pass-band filter, an optional mains notch, a reference, the channels, the time range and
// the backend. The result opens as a derived recording.
#pragma once

#include <QDialog>
#include <memory>
#include <optional>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/recording.h"
#include "engine/dsp/preprocess.h"

class QComboBox;
class QCheckBox;
class QDoubleSpinBox;

namespace modescope {

class ChannelChecklist;
class FilterSpecEditor;

struct PreprocessRequest {
  PreprocessSpec spec;
  std::vector<std::size_t> channels;  // indices into the recording
  double startSeconds = 0.0;
  double durationSeconds = -1.0;  // < 0: to the end
  // nullopt: the backend chosen in the Compute menu.
  std::optional<BackendChoice> backend;
};

class PreprocessDialog : public QDialog {
  Q_OBJECT

 public:
  // selected: channels selected in the browser (full-recording indices) to preselect; when empty,
  // the EEG channels are preselected.
  PreprocessDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
                   QWidget* parent = nullptr);
  PreprocessRequest request() const;

  void accept() override;  // refuses (with a message) an empty channel list or nothing to do

 private:
  std::shared_ptr<const Recording> recording_;
  FilterSpecEditor* filter_ = nullptr;
  QComboBox* notch_ = nullptr;
  QComboBox* reference_ = nullptr;
  QComboBox* referenceChannel_ = nullptr;
  ChannelChecklist* channels_ = nullptr;
  QDoubleSpinBox* start_ = nullptr;
  QDoubleSpinBox* duration_ = nullptr;
  QCheckBox* toEnd_ = nullptr;
  QComboBox* backend_ = nullptr;
};

}  // namespace modescope
