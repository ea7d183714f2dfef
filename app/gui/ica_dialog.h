// "Analysis > Independent components (Infomax ICA)...": everything the ICA job needs. A preset
// (eeglab-runica, mne-infomax) that fills every field, the fields users change (extended rule,
// learning rate, block size, maximum steps, stop tolerance, PCA rank, seed) with units and
// sources in their tooltips, the channels (EEG without the bad ones by default), the time range
// and the backend (engine/ica/ica_params.h, app/core/ica_job.h).
//
// The rank the run will use is proposed from the selected data (engine/ica/ica_rank.h) and shown
// under the PCA-rank field, with the samples ICA needs for it (icaSampleRequirement). Every change
// is checked with the job's own checks (checkIcaJob); the first problem shows in red and Run stays
// disabled until it is fixed.
//
// Thread rules: GUI thread.
#pragma once

#include <QDialog>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/ica_request.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_params.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace modescope {

class ChannelChecklist;
class RangeBackendBox;

class IcaDialog : public QDialog {
  Q_OBJECT

 public:
  // selected: channels checked at the start (recording indices; empty: the EEG channels).
  // durationSeconds < 0: to the end. menuBackend: what "As in the Compute menu" means (checks).
  IcaDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
            double startSeconds, double durationSeconds, BackendChoice menuBackend,
            QWidget* parent = nullptr);

  IcaRequest request() const;
  IcaParams params() const;
  void setParams(const IcaParams& p);     // fills the fields (the preset combo follows)
  bool applyPreset(const QString& name);  // false when no preset has that name
  QString currentPresetName() const;      // "" for custom
  QString validationMessage() const { return problem_; }
  // The rank proposal for the current selection (recomputed shortly after a change; call
  // updateRankProposal() to have it at once). nullopt when the selection cannot be read.
  std::optional<int> proposedRank() const { return proposedRank_; }
  QString rankProposalText() const;
  void updateRankProposal();

  void accept() override;  // refuses while validationMessage() is not empty

 private:
  void onFieldChanged();
  void validate();
  IcaGpuMath currentGpuMath() const;

  std::shared_ptr<const Recording> recording_;
  BackendChoice menuBackend_;
  IcaParams base_;  // the preset the fields started from: supplies the fields not shown
  bool filling_ = false;
  QString problem_;
  std::optional<int> proposedRank_;

  QComboBox* preset_ = nullptr;
  QLabel* presetNote_ = nullptr;
  QCheckBox* extended_ = nullptr;
  QDoubleSpinBox* learningRate_ = nullptr;
  QSpinBox* blockSize_ = nullptr;
  QSpinBox* maxSteps_ = nullptr;
  QLineEdit* stopTolerance_ = nullptr;
  QSpinBox* pcaRank_ = nullptr;
  QLabel* rankNote_ = nullptr;
  QLineEdit* seed_ = nullptr;
  QComboBox* gpuMath_ = nullptr;  // IcaParams::gpuMath: not part of a preset
  // The fields shown, each an editor from icaParamTable(), by key.
  std::vector<std::pair<std::string, QWidget*>> shownFields() const;
  ChannelChecklist* channels_ = nullptr;
  RangeBackendBox* range_ = nullptr;
  QLabel* error_ = nullptr;
  QPushButton* run_ = nullptr;
  QTimer* rankTimer_ = nullptr;
};

}  // namespace modescope
