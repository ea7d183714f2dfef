// "Analysis > Entropy matrices (Cross-ApEn / SampEn)...": everything the entropy-matrix job needs
// (app/core/entropy_job.h, docs/entropy.md): the measure (ApEn / Cross-ApEn or SampEn /
// cross-SampEn), the template length m, the tolerance r in SD units, the SD convention of the
// z-scores, the epoch length in seconds or samples (or the whole selection) with the epoch count
// it gives, the ln(0) correction of Cross-ApEn ("bias"), the channels, the time range and the
// backend. The parameters' editors are produced from entropyParamTable() (range, unit, help); the
// epoch may also be typed in seconds, converted at the selection's rate.
//
// Every change is checked with the job's own checks (checkEntropyJob, i.e. the engine's
// validateEntropyParams and the selection limits); the first problem shows in red and Run stays
// disabled until it is fixed.
//
// Thread rules: GUI thread.
#pragma once

#include <QDialog>
#include <memory>
#include <optional>
#include <vector>

#include "app/core/entropy_job.h"
#include "engine/compute/backend.h"
#include "engine/core/recording.h"
#include "widgets/param_editor.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace modescope {

class ChannelChecklist;
class RangeBackendBox;

struct EntropyRequest {
  EntropyJobSpec spec;
  std::optional<BackendChoice> backend;  // nullopt: the Compute menu's choice
};

// The epoch-length field's units.
enum class EntropyEpochUnit { Samples, Seconds, WholeSelection };

class EntropyDialog : public QDialog {
  Q_OBJECT

 public:
  // selected: channels checked at the start (recording indices; empty: the EEG channels).
  EntropyDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
                QWidget* parent = nullptr);

  EntropyRequest request() const;
  // Fields tests and callers set directly (each revalidates). setParams ignores rows and
  // epochSamples; the epoch is set with setEpoch.
  void setParams(const EntropyParams& p);
  void setEpoch(double value, EntropyEpochUnit unit);
  void setChannels(const std::vector<std::size_t>& channels);  // exactly these checked
  QString validationMessage() const { return problem_; }
  // "4 epochs of 256 samples (1.6 s); 12 samples left over" under the epoch field.
  QString epochCountText() const;

  void accept() override;  // refuses while validationMessage() is not empty

 private:
  void validate();
  int64_t epochSamples() const;

  std::shared_ptr<const Recording> recording_;
  QString problem_;
  bool filling_ = false;

  ParamEditors<EntropyParams> fields_;      // every declared field, from entropyParamTable()
  QSpinBox* epoch_ = nullptr;               // fields_'s epoch editor, in samples
  QDoubleSpinBox* epochSeconds_ = nullptr;  // the same length in seconds (dialog only)
  QComboBox* epochUnit_ = nullptr;
  QLabel* epochCount_ = nullptr;
  ChannelChecklist* channels_ = nullptr;
  RangeBackendBox* range_ = nullptr;
  QLabel* error_ = nullptr;
  QPushButton* run_ = nullptr;
};

}  // namespace modescope
