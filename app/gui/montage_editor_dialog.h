// The montage editor: a table of derivations ("label", "expression" such as "Fp1 - F7" or
// "C3 - 0.25*F3 - 0.25*P3 - 0.25*T7 - 0.25*Cz"), started from a preset (the 10-20 double banana,
// the transverse chains, average, linked mastoids, Hjorth Laplacian) or from a montage file, and
// saved as one (engine/io/montage_file.h; format in docs/montages.md). Rows whose expression does
// not parse or names a channel the recording lacks are listed under the table as they are typed.
#pragma once

#include <QDialog>
#include <memory>

#include "engine/core/recording.h"
#include "engine/montage/derivations.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace modescope {

class MontageEditorDialog : public QDialog {
  Q_OBJECT

 public:
  // `recording` (may be null) names the channels the rows are checked against and feeds the
  // presets that depend on it (average, mastoids, Laplacian).
  explicit MontageEditorDialog(std::shared_ptr<const Recording> recording,
                               QWidget* parent = nullptr);

  void setMontage(const DerivationMontage& montage);
  // The table as a montage; false with *error naming the first bad row.
  bool montage(DerivationMontage* out, QString* error = nullptr) const;
  // Replaces the table by a preset ("Double banana (longitudinal)", ...: presetNames()).
  bool usePreset(const QString& name, QString* error = nullptr);
  static QStringList presetNames();
  bool loadFile(const QString& path, QString* error = nullptr);
  bool saveFile(const QString& path, QString* error = nullptr) const;
  // The problems listed under the table ("" when every row is fine).
  QString problems() const;
  QTableWidget* table() const { return table_; }

 private:
  void addRow(const QString& label, const QString& expression);
  void checkRows();
  void chooseAndLoad();
  void chooseAndSave();

  std::shared_ptr<const Recording> recording_;
  QLineEdit* name_ = nullptr;
  QTableWidget* table_ = nullptr;
  QComboBox* preset_ = nullptr;
  QLabel* problems_ = nullptr;
};

}  // namespace modescope
