// The properties view of one independent component (EEGLAB pop_prop, MNE ICA.plot_properties):
// the scalp map; the activation's power spectrum (dB, 1-80 Hz); an epoch image - the activation
// across consecutive segments (the flags' segment length), or across epochs around the events of
// one annotation text - with the rows' average under it and the variance the component accounts
// for in each row beside it; and every detector's rule, features, thresholds, verdict and
// confidence (engine/ica/ica_flags.h). Computed from the pane's recording and decomposition
// when it opens (engine/ica/ica_component_properties.h).
//
// Thread rules: a GUI-thread dialog.
#pragma once

#include <QDialog>
#include <vector>

#include "engine/ica/ica_component_properties.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace modescope {

class IcaResultsPane;
class ScalpMapView;

class IcaPropertiesView : public QDialog {
  Q_OBJECT

 public:
  IcaPropertiesView(IcaResultsPane* pane, int component);

  int component() const { return component_; }
  const IcaComponentProperties& properties() const { return properties_; }
  QComboBox* rowsChoice() const { return rows_; }
  QTableWidget* featureTable() const { return features_; }
  ScalpMapView* map() const { return map_; }
  // "" = consecutive segments; else the annotation text whose onsets centre the epochs.
  void setRows(const QString& annotation);

 private:
  void compute(const QString& annotation);

  IcaResultsPane* pane_;
  int component_;
  std::vector<float> activation_;
  std::vector<float> channels_;  // the decomposed channels over the range, row-major
  std::vector<double> means_;
  IcaComponentProperties properties_;
  QComboBox* rows_ = nullptr;
  QTableWidget* features_ = nullptr;
  ScalpMapView* map_ = nullptr;
  QWidget* spectrum_ = nullptr;
  QWidget* image_ = nullptr;
  QLabel* heading_ = nullptr;
};

}  // namespace modescope
