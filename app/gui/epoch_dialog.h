// Analysis > Epochs and averages...: the event types to epoch around (each a condition, with its
// count), the channels, the epoch parameters (their editors made from epochParamTable(), so the
// ranges, units and help are the CLI's) and the difference waves, for runEpochJob
// (app/core/epoch_job.h). The engine's own validation message shows under the form and keeps OK
// disabled while the parameters are wrong.
//
// Thread rules: GUI thread.
#pragma once

#include <QDialog>
#include <memory>
#include <vector>

#include "app/core/epoch_job.h"
#include "widgets/param_editor.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QDialogButtonBox;

namespace modescope {

class ChannelChecklist;

class EpochDialog : public QDialog {
  Q_OBJECT

 public:
  // `userAnnotations`: the session's marks, offered as event types with the file's, and their
  // "bad" ones honoured as bad segments. `selected`: channels checked at the start.
  EpochDialog(std::shared_ptr<const Recording> recording, std::vector<Annotation> userAnnotations,
              const std::vector<int>& selected, QWidget* parent = nullptr);

  EpochJobSpec spec() const;
  void setEventTypes(const std::vector<std::string>& types);  // checks exactly these
  void setParams(const EpochParams& p);
  void setDifferences(const QString& text);  // "T1-T2, T2-T1"
  QString problem() const;                   // "" when OK is possible
  // The bad segments honoured (the file's and the bad-marks dock's) and how many of the checked
  // types' epochs they reject with the current window: "2 bad segments (1 marked, 1 in the
  // file): 3 of 45 epochs overlap them and are rejected".
  QString badSegmentText() const;

 private:
  void revalidate();
  void updateBadSegmentText(const EpochJobSpec& s);

  std::shared_ptr<const Recording> recording_;
  std::vector<Annotation> user_;
  QListWidget* types_ = nullptr;
  ChannelChecklist* channels_ = nullptr;
  ParamEditors<EpochParams> editors_;
  QLineEdit* differences_ = nullptr;
  QLabel* problem_ = nullptr;
  QLabel* badSegments_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace modescope
