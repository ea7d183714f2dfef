// Pieces the method dialogs share (EMD decompose, ICA, AR, entropy): the preset combo ("Custom"
// then one item per named preset), its follow-up when a field changes (the preset the fields
// equal, or Custom, and the note under it), and the footer (the red validation message and the
// Run / Cancel buttons).
//
// Thread rules: GUI thread.
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QString>
#include <cstddef>
#include <vector>

class QDialog;
class QDialogButtonBox;
class QPushButton;

namespace modescope {

// `w` with object name `name` (tests find it) and tooltip `tip`.
template <class W>
W* named(W* w, const char* name, const QString& tip) {
  w->setObjectName(QLatin1String(name));
  w->setToolTip(tip);
  return w;
}

// Adds "Custom" (data "") and, per preset, its name (data: the name; tooltip: its description).
// `Presets`: a range of structs with std::string name and description.
template <class Presets>
void addPresetItems(QComboBox* combo, const Presets& presets) {
  combo->addItem(QObject::tr("Custom"), QString());
  for (const auto& p : presets) {
    combo->addItem(QString::fromStdString(p.name), QString::fromStdString(p.name));
    combo->setItemData(combo->count() - 1, QString::fromStdString(p.description), Qt::ToolTipRole);
  }
}

// The combo index of the first preset that `matches(preset)` accepts (1-based, after Custom);
// 0 when none does.
template <class Presets, class Matches>
int matchingPresetIndex(const Presets& presets, Matches matches) {
  int index = 1;
  for (const auto& p : presets) {
    if (matches(p)) return index;
    ++index;
  }
  return 0;
}

// Selects `match` in `combo` without emitting its signals (the fields stay as the user set them)
// and shows that preset's description in `note`, or `customNote` for 0.
template <class Presets>
void showPresetMatch(QComboBox* combo, QLabel* note, const Presets& presets, int match,
                     const QString& customNote) {
  {
    const QSignalBlocker block(combo);
    combo->setCurrentIndex(match);
  }
  note->setText(
      match > 0 ? QString::fromStdString(presets[static_cast<std::size_t>(match - 1)].description)
                : customNote);
}

struct RunFooter {
  QLabel* error = nullptr;              // the validation message (red, word-wrapped)
  QPushButton* run = nullptr;           // the Ok button, labelled "Run"
  QDialogButtonBox* buttons = nullptr;  // Run and Cancel, wired to accept() / reject()
};

// Builds the footer of `dialog`; `errorObjectName` names the message label (tests find it),
// `selectableError` lets the user select and copy its text.
RunFooter makeRunFooter(QDialog* dialog, const QString& errorObjectName, bool selectableError);

// Shows `problem` in `error` (hidden when empty) and enables `run` only without one.
void showValidation(QLabel* error, QPushButton* run, const QString& problem);

// The method dialogs' layout: parameter columns side by side (each column's widgets top down,
// then a stretch), the channel checklist taking the rest of the width, and `below` (messages,
// the footer) underneath.
void layOutMethodDialog(QDialog* dialog, const std::vector<std::vector<QWidget*>>& columns,
                        QWidget* channels, const std::vector<QWidget*>& below);

}  // namespace modescope
