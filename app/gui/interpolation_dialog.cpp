#include "app/gui/interpolation_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "app/core/channel_selection.h"
#include "app/gui/dialog_parts.h"
#include "engine/core/error.h"

namespace modescope {

InterpolationDialog::InterpolationDialog(std::shared_ptr<const Recording> recording,
                                         std::vector<std::size_t> bad, QWidget* parent)
    : QDialog(parent), recording_(std::move(recording)), bad_(std::move(bad)) {
  setWindowTitle(tr("Interpolate bad channels"));
  setObjectName(QStringLiteral("interpolationDialog"));
  setProperty("helpTopic", QStringLiteral("bad-channels.md#Interpolation"));
  auto* what = new QLabel(
      tr("Replace %1 by the spherical-spline interpolation of the good EEG channels (Perrin et "
         "al. 1989, as MNE's interpolate_bads). The defaults are MNE's; EEGLAB's eeg_interp "
         "takes 7 terms and lambda 0, which may leave the system singular here.")
          .arg(QString::fromStdString(describeChannels(*recording_, bad_))),
      this);
  what->setObjectName(QStringLiteral("interpolationChannels"));
  what->setWordWrap(true);
  auto* form = new QFormLayout;
  editors_.build(splineInterpolationParamTable(), this, QStringLiteral("spline"));
  for (const auto& f : splineInterpolationParamTable().fields())
    form->addRow(QString::fromStdString(f.decl.label) + QLatin1Char(':'),
                 editors_.editor(f.decl.key));
  editors_.set(SplineInterpolationParams{});
  const RunFooter footer = makeRunFooter(this, QStringLiteral("interpolationError"), true);
  error_ = footer.error;
  run_ = footer.run;
  run_->setText(tr("Interpolate"));
  auto* layout = new QVBoxLayout(this);
  // Room for the three-line explanation and a three-line message of the engine (word-wrapped
  // labels do not make a dialog grow by themselves).
  setMinimumSize(500, 330);
  layout->addWidget(what);
  layout->addLayout(form);
  layout->addWidget(error_);
  layout->addWidget(footer.buttons);
  editors_.onChanged(this, [this] { validate(); });
  validate();
}

SplineInterpolationParams InterpolationDialog::params() const { return editors_.get(); }

void InterpolationDialog::setParams(const SplineInterpolationParams& p) {
  editors_.set(p);
  validate();
}

QString InterpolationDialog::problem() const { return problem_; }

void InterpolationDialog::accept() {
  validate();
  if (problem_.isEmpty()) QDialog::accept();
}

void InterpolationDialog::validate() {
  const SplineInterpolationParams p = editors_.get();
  QString problem = editors_.problem(p);
  if (problem.isEmpty()) {
    try {
      validateSplineInterpolationParams(p);
      planChannelInterpolation(recording_->channels, bad_, p);
    } catch (const Error& e) {
      problem = QString::fromUtf8(e.what());
    }
  }
  problem_ = problem;
  showValidation(error_, run_, problem);
}

}  // namespace modescope
