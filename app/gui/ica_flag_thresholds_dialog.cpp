#include "app/gui/ica_flag_thresholds_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/dialog_parts.h"
#include "engine/core/error.h"

namespace modescope {

IcaFlagThresholdsDialog::IcaFlagThresholdsDialog(const IcaFlagParams& current, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Automatic flag thresholds"));
  setObjectName(QStringLiteral("icaFlagThresholdsDialog"));
  auto* intro = new QLabel(
      tr("The detectors' thresholds and bands (docs/ica.md, \"Automatic flags\"). Run labels "
         "every component again with these values; the session history records them, so an "
         "exported pipeline's ica step repeats them. Hover a field for its source."),
      this);
  intro->setWordWrap(true);

  // One row per declared field, in the table's order (eye, heart, muscle, line, channel,
  // segments), labelled by the declaration.
  const ParamTable<IcaFlagParams>& table = icaFlagParamTable();
  auto* form = new QWidget;
  auto* layout = new QFormLayout(form);
  fields_.build(table, form, QStringLiteral("icaFlag"));
  for (const auto& f : table.fields())
    layout->addRow(QString::fromStdString(f.decl.label) + QLatin1Char(':'),
                   fields_.editor(f.decl.key));
  // Nineteen rows do not fit a small screen: they scroll, the footer stays.
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(form);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumWidth(form->sizeHint().width() + 24);
  scroll->setMinimumHeight(std::min(form->sizeHint().height(), 520));

  RunFooter footer = makeRunFooter(this, QStringLiteral("icaFlagThresholdsError"), true);
  error_ = footer.error;
  run_ = footer.run;
  QPushButton* defaults = footer.buttons->addButton(QDialogButtonBox::RestoreDefaults);
  defaults->setObjectName(QStringLiteral("icaFlagThresholdsDefaults"));
  defaults->setToolTip(tr("The published defaults (MNE 1.3, ADJUST's automatic thresholds)"));
  connect(defaults, &QPushButton::clicked, this, [this] { setParams(IcaFlagParams{}); });

  auto* top = new QVBoxLayout(this);
  top->addWidget(intro);
  top->addWidget(scroll, 1);
  top->addWidget(error_);
  top->addWidget(footer.buttons);

  setParams(current);
  fields_.onChanged(this, [this] { validate(); });
  validate();
}

void IcaFlagThresholdsDialog::setParams(const IcaFlagParams& p) {
  fields_.set(p);
  validate();
}

void IcaFlagThresholdsDialog::validate() {
  const IcaFlagParams p = fields_.get();
  QString problem = fields_.problem(p);
  if (problem.isEmpty()) {
    try {
      validateIcaFlagParams(p);
    } catch (const InvalidParameterError& e) {
      problem = QString::fromUtf8(e.what());
    }
  }
  showValidation(error_, run_, problem);
}

}  // namespace modescope
