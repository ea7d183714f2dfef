#include "app/gui/dialog_parts.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QPushButton>

namespace modescope {

RunFooter makeRunFooter(QDialog* dialog, const QString& errorObjectName, bool selectableError) {
  RunFooter f;
  f.error = new QLabel(dialog);
  f.error->setObjectName(errorObjectName);
  f.error->setWordWrap(true);
  f.error->setStyleSheet(QStringLiteral("color: #c01c1c"));
  if (selectableError) f.error->setTextInteractionFlags(Qt::TextSelectableByMouse);
  f.buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
  f.run = f.buttons->button(QDialogButtonBox::Ok);
  f.run->setText(QObject::tr("Run"));
  QObject::connect(f.buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
  QObject::connect(f.buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  return f;
}

void showValidation(QLabel* error, QPushButton* run, const QString& problem) {
  error->setText(problem);
  error->setVisible(!problem.isEmpty());
  run->setEnabled(problem.isEmpty());
}

}  // namespace modescope
