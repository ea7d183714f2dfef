// "Analysis > Decompose (EMD family)...": everything a decomposition job needs. The method
// (EMD, EEMD, CEEMDAN, ICEEMDAN), a preset that fills every field, every EmdParams field with
// its unit and a tooltip naming its source, the channels (one sample rate), the time range, the
// backend, and the Hilbert spectrum's grid (engine/emd/emd_params.h, engine/hht/hht.h).
//
// Fields are checked on every change by the engine's own validator (validateEmdParams, injected
// so tests need not depend on its implementation) and a few selection checks; the first problem
// is shown in red under the form, in the engine's words, and Run stays disabled until it is fixed.
//
// Thread rules: GUI thread.
#pragma once

#include <QDialog>
#include <functional>
#include <memory>
#include <vector>

#include "app/gui/emd_job.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_params.h"
#include "widgets/param_editor.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace modescope {

class ChannelChecklist;
class RangeBackendBox;

// Throws an Error (usually InvalidParameterError) whose what() is shown to the user.
using EmdParamsValidator = std::function<void(const EmdParams&)>;

class DecomposeDialog : public QDialog {
  Q_OBJECT

 public:
  // selected: browser-selected channels (full-recording indices) to preselect; when empty, the EEG
  // channels are. startSeconds/durationSeconds: the initial range (durationSeconds < 0: to the
  // end). presets: what the preset combo offers (normally emdPresets()); the one named
  // "iceemdan-colominas", else the first, fills the fields at start.
  DecomposeDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
                  double startSeconds, double durationSeconds, std::vector<EmdPreset> presets,
                  EmdParamsValidator validator, QWidget* parent = nullptr);

  DecomposeRequest request() const;
  EmdParams params() const;
  HhtParams hhtParams() const;
  void setParams(const EmdParams& p);     // fills the fields (the preset combo follows)
  bool applyPreset(const QString& name);  // false when no preset has that name
  QString currentPresetName() const;      // "" for custom
  // The first problem with the fields, in the engine's words; "" when Run is possible.
  QString validationMessage() const { return problem_; }

  void accept() override;  // refuses while validationMessage() is not empty

 private:
  QGroupBox* makeStopRuleBox(const std::string& key, QWidget* parent);
  void onFieldChanged();
  void updateEnabled();
  void validate();
  double selectionSampleRate() const;  // 0 when none selected or mixed

  std::shared_ptr<const Recording> recording_;
  std::vector<EmdPreset> presets_;
  EmdParamsValidator validator_;
  bool filling_ = false;
  QString problem_;

  QComboBox* method_ = nullptr;
  QComboBox* preset_ = nullptr;
  QLabel* presetNote_ = nullptr;
  ParamEditors<EmdParams> fields_;     // every EmdParams field, from emdParamTable()
  ParamEditors<HhtParams> hhtFields_;  // the Hilbert spectrum fields, from hhtParamTable()
  ChannelChecklist* channels_ = nullptr;
  RangeBackendBox* range_ = nullptr;  // time range and backend (app/gui/range_backend_box.h)
  QLabel* error_ = nullptr;
  QPushButton* run_ = nullptr;
};

}  // namespace modescope
