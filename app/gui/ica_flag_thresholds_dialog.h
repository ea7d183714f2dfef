// The component browser's "Thresholds..." dialog: every threshold and band of the automatic ICA
// flags (engine/ica/ica_flags_params.h), one editor per field of icaFlagParamTable() in the
// table's order, labelled, ranged and explained by its declaration (widgets/param_editor.h), so
// the window accepts exactly what `ica-flags` and a pipeline's "flags" object accept. "Restore
// Defaults" puts back the published defaults; Run is enabled only for values the table accepts.
// The component browser runs the detectors again with params() (IcaResultsPane::flagsRequested)
// and the session history records them.
//
// Thread rules: GUI thread.
#pragma once

#include <QDialog>

#include "engine/ica/ica_flags_params.h"
#include "widgets/param_editor.h"

class QLabel;
class QPushButton;

namespace modescope {

class IcaFlagThresholdsDialog : public QDialog {
  Q_OBJECT

 public:
  explicit IcaFlagThresholdsDialog(const IcaFlagParams& current, QWidget* parent = nullptr);

  IcaFlagParams params() const { return fields_.get(); }
  void setParams(const IcaFlagParams& p);
  // The editor of a field (tests): objectName "icaFlag" + the key ("icaFlagEogZThreshold").
  QWidget* editor(const std::string& key) const { return fields_.editor(key); }
  QLabel* errorLabel() const { return error_; }
  QPushButton* runButton() const { return run_; }

 private:
  void validate();

  ParamEditors<IcaFlagParams> fields_;
  QLabel* error_ = nullptr;
  QPushButton* run_ = nullptr;
};

}  // namespace modescope
