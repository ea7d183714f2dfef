// The component browser's automatic-label controls, above its table: a filter by label, the
// confidence a flag needs, "Mark flagged" (every component flagged at that confidence, of the
// filtered label or any, marked as one undo step), "Thresholds..." (the detectors' thresholds,
// app/gui/ica_flag_thresholds_dialog.h; Run labels the components again) and "Properties..."
// (the current component's properties view, app/gui/ica_properties_view.h). The labels and their
// reasons are in the table's Label column (app/gui/ica_component_model.h).
//
// Thread rules: a GUI-thread widget.
#pragma once

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QPushButton;

namespace modescope {

class IcaResultsPane;

class IcaFlagsBar : public QWidget {
  Q_OBJECT

 public:
  explicit IcaFlagsBar(IcaResultsPane* pane);

  QComboBox* labelFilter() const { return filter_; }
  QDoubleSpinBox* threshold() const { return threshold_; }
  QPushButton* markFlaggedButton() const { return mark_; }
  QPushButton* propertiesButton() const { return properties_; }
  QPushButton* thresholdsButton() const { return thresholds_; }

  // The label the table shows ("" = all).
  QString filteredLabel() const;
  void setFilteredLabel(const QString& label);
  // Marks the flagged components (as the button does); returns how many were newly marked.
  int markFlagged();
  // Opens the properties view of the current component (non-modal; returns it).
  QWidget* showProperties();
  // Opens the thresholds dialog at the labels' thresholds (window-modal, not blocking; returns
  // it); its Run asks the pane to label again (IcaResultsPane::requestFlags).
  class IcaFlagThresholdsDialog* showThresholds();

 private:
  IcaResultsPane* pane_;
  QComboBox* filter_;
  QDoubleSpinBox* threshold_;
  QPushButton* mark_;
  QPushButton* properties_;
  QPushButton* thresholds_;
};

}  // namespace modescope
