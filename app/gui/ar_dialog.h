// "Analysis > Event-related spectra (AR)...": everything the event-related AR job needs
// (app/core/ar_job.h): a Burg AR preset (bci2000, wilson2009) that fills every BurgArParams field,
// the fields themselves (order, window and step in seconds or samples, detrending, bin range,
// width, evaluations and grid, power or amplitude: editors produced from burgArParamTable(), so
// their ranges, units and help are the engine's), the two classes (the recording's annotation
// texts; T1 vs T2 on the demo), the trial offset and length (default: each annotation's own
// duration), the spatial filter (none, common average reference, small or large surface
// Laplacian with equal or inverse-distance weights, a user matrix file), the channels, the range
// the trials must lie in, and the backend.
//
// Every change is checked with the job's own checks (checkArJob: the AR parameters at the
// channels' rate, the classes, the trial length against the window, the spatial filter, e.g.
// channels without positions for a Laplacian); the first problem shows in red and Run stays
// disabled until it is fixed.
//
// Thread rules: GUI thread.
#pragma once

#include <QDialog>
#include <memory>
#include <optional>
#include <vector>

#include "app/core/ar_job.h"
#include "engine/compute/backend.h"
#include "engine/core/recording.h"
#include "widgets/param_editor.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace modescope {

class ChannelChecklist;
class RangeBackendBox;

struct ArRequest {
  ArJobSpec spec;
  std::optional<BackendChoice> backend;  // nullopt: the Compute menu's choice
};

// The classes the dialog offers first: "T1" and "T2" when the recording has both (the PhysioNet
// motor task), else the two most frequent annotation texts. Empty strings when there are fewer.
std::pair<std::string, std::string> defaultArClasses(const Recording& rec);

class ArDialog : public QDialog {
  Q_OBJECT

 public:
  // selected: channels checked at the start (recording indices; empty: the EEG channels).
  ArDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
           QWidget* parent = nullptr);

  ArRequest request() const;
  BurgArParams params() const;
  void setParams(const BurgArParams& p);  // fills the fields (the preset combo follows)
  bool applyPreset(const QString& name);  // false when no preset has that name
  QString currentPresetName() const;      // "" for custom
  // Fields tests and callers set directly.
  void setClasses(const QString& a, const QString& b);
  void setSpatialFilter(ArSpatialFilterKind kind, const QString& matrixPath = {});
  void setTrialWindow(double offsetSeconds, double lengthSeconds);
  QString validationMessage() const { return problem_; }

  void accept() override;  // refuses while validationMessage() is not empty

 private:
  void onFieldChanged();
  void validate();

  std::shared_ptr<const Recording> recording_;
  bool filling_ = false;
  QString problem_;

  QComboBox* preset_ = nullptr;
  QLabel* presetNote_ = nullptr;
  ParamEditors<BurgArParams> fields_;  // every BurgArParams field, from burgArParamTable()
  QComboBox* classA_ = nullptr;
  QComboBox* classB_ = nullptr;
  QLabel* classNote_ = nullptr;
  QDoubleSpinBox* offset_ = nullptr;
  QDoubleSpinBox* length_ = nullptr;
  QComboBox* filter_ = nullptr;
  QComboBox* weighting_ = nullptr;
  QLineEdit* matrixPath_ = nullptr;
  QToolButton* browse_ = nullptr;
  ChannelChecklist* channels_ = nullptr;
  RangeBackendBox* range_ = nullptr;
  QLabel* error_ = nullptr;
  QPushButton* run_ = nullptr;
};

}  // namespace modescope
