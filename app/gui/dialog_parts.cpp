#include "app/gui/dialog_parts.h"

#include <QBoxLayout>
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

void layOutMethodDialog(QDialog* dialog, const std::vector<std::vector<QWidget*>>& columns,
                        QWidget* channels, const std::vector<QWidget*>& below) {
  auto* row = new QHBoxLayout;
  for (const std::vector<QWidget*>& column : columns) {
    auto* box = new QVBoxLayout;
    for (QWidget* w : column) box->addWidget(w);
    box->addStretch(1);
    row->addLayout(box);
  }
  row->addWidget(channels, 1);
  auto* layout = new QVBoxLayout(dialog);
  layout->addLayout(row, 1);
  for (QWidget* w : below) layout->addWidget(w);
}

}  // namespace modescope
