// "Process > Filter and re-reference...": what preprocess() needs (engine/dsp/preprocess.h):
// a pass-band filter, an optional mains notch, a reference, the channels, the time range and
// the backend. The result opens as a derived recording.
#pragma once

#include <QDialog>
#include <memory>
#include <optional>
#include <vector>

#include "app/core/selection.h"
#include "engine/compute/backend.h"
#include "engine/core/recording.h"
#include "engine/dsp/preprocess.h"

class QComboBox;

namespace modescope {

class ChannelChecklist;
class FilterSpecEditor;
class RangeBackendBox;

struct PreprocessRequest : RequestSelection {  // channels, range, backend
  PreprocessSpec spec;
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
  RangeBackendBox* range_ = nullptr;  // time range and backend (app/gui/range_backend_box.h)
};

}  // namespace modescope
