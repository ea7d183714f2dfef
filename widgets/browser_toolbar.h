// The browser's tool bar: page length, amplitude (uV per division) with zoom buttons, montage,
// display filter and page navigation. It drives whichever SignalBrowser is current (the main
// window switches it with the tabs) and follows that browser's viewChanged.
#pragma once

#include <QPointer>
#include <QToolBar>
#include <optional>
#include <vector>

#include "engine/dsp/preprocess.h"

class QComboBox;
class QDoubleSpinBox;
class QAction;

namespace modescope {

class SignalBrowser;

class BrowserToolbar : public QToolBar {
  Q_OBJECT

 public:
  static const std::vector<double>& pageLengths();  // 1, 2, 5, 10, 20, 30, 60 s

  explicit BrowserToolbar(QWidget* parent = nullptr);

  // The browser the controls act on; nullptr disables them.
  void setBrowser(SignalBrowser* browser);
  SignalBrowser* browser() const;

  QComboBox* pageLengthCombo() const { return pageLength_; }
  QDoubleSpinBox* amplitudeSpin() const { return amplitude_; }
  QComboBox* montageCombo() const { return montage_; }
  QComboBox* filterCombo() const { return filter_; }

  // Applies montage/filter combo entries programmatically (what the user's choice does).
  void chooseMontage(const ReferenceSpec& spec);
  void chooseDisplayFilter(const std::optional<FilterSpec>& spec);

  // Short labels used in the combos ("Average", "Reference: Cz", "Band-pass 1-40 Hz").
  static QString montageLabel(const ReferenceSpec& spec);
  static QString filterLabel(const std::optional<FilterSpec>& spec);

 public slots:
  // Pulls page length, amplitude, montage and filter from the browser into the controls.
  void syncFromBrowser();

 private:
  void onMontageActivated(int index);
  void onFilterActivated(int index);
  int montageIndexFor(const ReferenceSpec& spec);
  int filterIndexFor(const std::optional<FilterSpec>& spec);
  QString chooseReferenceChannel();
  // false when the user cancelled; *spec = nullopt means "no filter".
  bool askCustomFilter(std::optional<FilterSpec>* spec);

  QPointer<SignalBrowser> browser_;
  QMetaObject::Connection viewConnection_;
  QComboBox* pageLength_ = nullptr;
  QDoubleSpinBox* amplitude_ = nullptr;
  QComboBox* montage_ = nullptr;
  QComboBox* filter_ = nullptr;
  std::vector<ReferenceSpec> montages_;             // parallel to montage_ items except "..."
  std::vector<std::optional<FilterSpec>> filters_;  // parallel to filter_ items except "..."
  int montageChooserIndex_ = -1, filterChooserIndex_ = -1;
  int lastMontageIndex_ = 0, lastFilterIndex_ = 0;
  QList<QAction*> browserActions_;
};

}  // namespace modescope
