// "Analysis > Multivariate EMD (MEMD, NA-MEMD)...": everything a MEMD job needs. A preset that
// fills every field (memdPresets(): memd.m's defaults "rehman-mandic" first), every MemdParams
// field as an editor produced from its declaration (memdParamTable(): range, unit, tooltip with
// its source, enabled only where it applies), the channels (at least 2, one sample rate), the
// time range and backend, and the memory plan of the run (memd_request.h: the CUDA plan against
// the device's memory, or the size of the result on the CPU).
//
// Every change is checked by the job's own check (checkMemdJob: the parameters, the selection
// and the length, in the engine's words); a problem, or a GPU plan that does not fit, is shown
// in red under the form and Run stays disabled until it is fixed.
//
// Thread rules: GUI thread.
#pragma once

#include <QDialog>
#include <cstddef>
#include <memory>
#include <vector>

#include "app/gui/memd_request.h"
#include "engine/core/recording.h"
#include "engine/memd/memd_params.h"
#include "widgets/param_editor.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace modescope {

class ChannelChecklist;
class RangeBackendBox;

class MemdDialog : public QDialog {
  Q_OBJECT

 public:
  // selected: browser-selected channels to preselect (empty: the EEG channels);
  // startSeconds/durationSeconds: the initial range (< 0: to the end). deviceBytes: the memory
  // of the window's CUDA device, 0 when the window computes on the CPU (no GPU plan then).
  MemdDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
             double startSeconds, double durationSeconds, std::size_t deviceBytes,
             QWidget* parent = nullptr);

  MemdRequest request() const;
  MemdParams params() const;
  void setParams(const MemdParams& p);    // fills the fields (the preset combo follows)
  bool applyPreset(const QString& name);  // false when no preset has that name
  QString currentPresetName() const;      // "" for custom
  // The first problem with the fields or the memory plan; "" when Run is possible.
  QString validationMessage() const { return problem_; }
  QString memoryPlanText() const;

  void accept() override;  // refuses while validationMessage() is not empty

 private:
  void onFieldChanged();
  void validate();

  std::shared_ptr<const Recording> recording_;
  std::size_t deviceBytes_ = 0;
  bool filling_ = false;
  QString problem_;

  QComboBox* preset_ = nullptr;
  QLabel* presetNote_ = nullptr;
  ParamEditors<MemdParams> fields_;  // every MemdParams field, from memdParamTable()
  ChannelChecklist* channels_ = nullptr;
  RangeBackendBox* range_ = nullptr;
  QLabel* memoryPlan_ = nullptr;
  QLabel* error_ = nullptr;
  QPushButton* run_ = nullptr;
};

}  // namespace modescope
