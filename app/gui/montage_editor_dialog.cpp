#include "app/gui/montage_editor_dialog.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "engine/core/error.h"
#include "engine/io/montage_file.h"

namespace modescope {
namespace {

// The expression part of a derivation's line in the montage file ("Fp1 - F7").
QString expressionText(const Derivation& d) {
  const std::string line = formatMontageText({"", {d}});
  const auto colon = line.rfind(':');  // the last line is "label: expression"
  const auto end = line.find('\n', colon);
  return QString::fromStdString(line.substr(colon + 1, end - colon - 1)).trimmed();
}

}  // namespace

MontageEditorDialog::MontageEditorDialog(std::shared_ptr<const Recording> recording,
                                         QWidget* parent)
    : QDialog(parent), recording_(std::move(recording)) {
  setObjectName(QStringLiteral("montageEditor"));
  setWindowTitle(tr("Montage editor"));
  setProperty("helpTopic", QStringLiteral("montages.md#The montage editor"));
  name_ = new QLineEdit(this);
  name_->setObjectName(QStringLiteral("montageName"));
  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("montagePreset"));
  preset_->addItems(presetNames());
  auto* use = new QPushButton(tr("Start from it"), this);
  connect(use, &QPushButton::clicked, this, [this] {
    QString error;
    if (!usePreset(preset_->currentText(), &error))
      QMessageBox::warning(this, windowTitle(), error);
  });
  table_ = new QTableWidget(0, 2, this);
  table_->setObjectName(QStringLiteral("montageTable"));
  table_->setHorizontalHeaderLabels({tr("Label"), tr("Expression (channels joined by + or -)")});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setColumnWidth(0, 120);
  connect(table_, &QTableWidget::itemChanged, this, &MontageEditorDialog::checkRows);
  auto* add = new QPushButton(tr("Add row"), this);
  connect(add, &QPushButton::clicked, this, [this] {
    addRow(QStringLiteral("new"), QString());
    table_->editItem(table_->item(table_->rowCount() - 1, 1));
  });
  auto* remove = new QPushButton(tr("Remove row"), this);
  connect(remove, &QPushButton::clicked, this, [this] {
    const int r = table_->currentRow();
    if (r >= 0) table_->removeRow(r);
    checkRows();
  });
  auto* load = new QPushButton(tr("Load..."), this);
  connect(load, &QPushButton::clicked, this, &MontageEditorDialog::chooseAndLoad);
  auto* save = new QPushButton(tr("Save..."), this);
  connect(save, &QPushButton::clicked, this, &MontageEditorDialog::chooseAndSave);
  problems_ = new QLabel(this);
  problems_->setObjectName(QStringLiteral("montageProblems"));
  problems_->setWordWrap(true);
  problems_->setStyleSheet(QStringLiteral("color: #9a3b00"));

  auto* form = new QFormLayout;
  form->addRow(tr("Name:"), name_);
  auto* presetRow = new QHBoxLayout;
  presetRow->addWidget(preset_, 1);
  presetRow->addWidget(use);
  form->addRow(tr("Preset:"), presetRow);
  auto* rowButtons = new QHBoxLayout;
  for (QPushButton* b : {add, remove, load, save}) rowButtons->addWidget(b);
  rowButtons->addStretch(1);
  auto* buttons = new QDialogButtonBox(
      QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::Help, this);
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    QString error;
    DerivationMontage m;
    if (montage(&m, &error)) {
      accept();
    } else {
      QMessageBox::warning(this, windowTitle(), error);
    }
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(buttons, &QDialogButtonBox::helpRequested, this, [this] {
    // The same as F1 (help_browser.cpp's filter).
    QKeyEvent f1(QEvent::KeyPress, Qt::Key_F1, Qt::NoModifier);
    QCoreApplication::sendEvent(this, &f1);
  });
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(table_, 1);
  layout->addLayout(rowButtons);
  layout->addWidget(problems_);
  layout->addWidget(buttons);
  resize(620, 560);
  usePreset(presetNames().front());
}

QStringList MontageEditorDialog::presetNames() {
  return {tr("Double banana (longitudinal)"),
          tr("Transverse bipolar"),
          tr("Average reference"),
          tr("Linked mastoids"),
          tr("Laplacian (Hjorth, 4 neighbours)"),
          tr("Empty")};
}

bool MontageEditorDialog::usePreset(const QString& name, QString* error) {
  const QStringList names = presetNames();
  const int i = names.indexOf(name);
  DerivationMontage m;
  try {
    switch (i) {
      case 0:
        m = longitudinalBipolar1020();
        break;
      case 1:
        m = transverseBipolar1020();
        break;
      case 5:
        m.name = "My montage";
        break;
      default:
        if (!recording_) {
          if (error)
            *error = tr("\"%1\" is made from the recording's channels: open one first.").arg(name);
          return false;
        }
        m = i == 2   ? averageDerivations(*recording_)
            : i == 3 ? linkedMastoidDerivations(*recording_)
                     : laplacianDerivations(*recording_, 4);
    }
  } catch (const Error& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  if (i < 0) {
    if (error) *error = tr("No preset \"%1\".").arg(name);
    return false;
  }
  setMontage(m);
  return true;
}

void MontageEditorDialog::addRow(const QString& label, const QString& expression) {
  const QSignalBlocker block(table_);
  const int r = table_->rowCount();
  table_->insertRow(r);
  table_->setItem(r, 0, new QTableWidgetItem(label));
  table_->setItem(r, 1, new QTableWidgetItem(expression));
}

void MontageEditorDialog::setMontage(const DerivationMontage& montage) {
  name_->setText(QString::fromStdString(montage.name));
  table_->setRowCount(0);
  for (const Derivation& d : montage.rows)
    addRow(QString::fromStdString(d.label), expressionText(d));
  checkRows();
}

bool MontageEditorDialog::montage(DerivationMontage* out, QString* error) const {
  DerivationMontage m;
  m.name = name_->text().trimmed().toStdString();
  for (int r = 0; r < table_->rowCount(); ++r) {
    const QString label = table_->item(r, 0) ? table_->item(r, 0)->text().trimmed() : QString();
    const QString expr = table_->item(r, 1) ? table_->item(r, 1)->text().trimmed() : QString();
    try {
      QString safeLabel = label.isEmpty() ? QStringLiteral("?") : label;
      safeLabel.remove(QLatin1Char(':'));  // the file's separator
      const auto one = parseMontageText(safeLabel.toStdString() + ": " + expr.toStdString(),
                                        "row " + std::to_string(r + 1));
      m.rows.push_back(one.rows.front());
    } catch (const Error& e) {
      if (error) *error = tr("Row %1 (%2): %3").arg(r + 1).arg(label, QString::fromUtf8(e.what()));
      return false;
    }
  }
  if (m.rows.empty()) {
    if (error) *error = tr("The montage has no rows; add one or start from a preset.");
    return false;
  }
  *out = std::move(m);
  return true;
}

QString MontageEditorDialog::problems() const { return problems_->text(); }

void MontageEditorDialog::checkRows() {
  QStringList lines;
  DerivationMontage m;
  QString error;
  if (!montage(&m, &error)) {
    lines << error;
  } else if (recording_) {
    std::vector<std::string> skipped;
    derivedRecording(recording_, m, &skipped);
    for (const auto& s : skipped) lines << tr("Not shown: %1").arg(QString::fromStdString(s));
  }
  problems_->setText(lines.join(QLatin1Char('\n')));
}

bool MontageEditorDialog::loadFile(const QString& path, QString* error) {
  try {
    setMontage(readMontageFile(path.toStdString()));
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

bool MontageEditorDialog::saveFile(const QString& path, QString* error) const {
  DerivationMontage m;
  if (!montage(&m, error)) return false;
  try {
    writeMontageFile(m, path.toStdString());
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

void MontageEditorDialog::chooseAndLoad() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Load montage"), QString(),
                                                    tr("Montages (*.montage *.txt)"));
  if (path.isEmpty()) return;
  QString error;
  if (!loadFile(path, &error)) QMessageBox::warning(this, tr("Load montage"), error);
}

void MontageEditorDialog::chooseAndSave() {
  QString path =
      QFileDialog::getSaveFileName(this, tr("Save montage"), QString(), tr("Montages (*.montage)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(QLatin1String(".montage"))) path += QStringLiteral(".montage");
  QString error;
  if (!saveFile(path, &error)) QMessageBox::warning(this, tr("Save montage"), error);
}

}  // namespace modescope
