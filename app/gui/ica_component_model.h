// The component browser's table: one row per independent component with its number, the variance
// it accounts for, the kurtosis of its activation, its |correlation| with the EOG and ECG
// channels (app/core/ica_metrics.h), the automatic label with its confidence (eye, heart,
// muscle, line, channel or brain; engine/ica/ica_flags.h; the reasons on hover) and the artifact
// mark. Filtered by label through kLabelRole. Sorted through a QSortFilterProxyModel
// on kSortRole (numbers, not texts): "|r| EOG" descending puts the blink components first.
//
// Thread rules: GUI thread.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "app/core/ica_metrics.h"

namespace modescope {

class IcaComponentModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kMarkColumn,
    kComponentColumn,
    kVarianceColumn,
    kKurtosisColumn,
    kEogColumn,
    kEcgColumn,
    kLabelColumn,
    kColumnCount
  };
  static constexpr int kSortRole = Qt::UserRole + 1;
  // The label's name ("eye", ..., "brain") on kLabelColumn, for filtering.
  static constexpr int kLabelRole = Qt::UserRole + 2;

  // `eogNames` names the channels the EOG column correlates with (for the header tooltip).
  IcaComponentModel(IcaComponentSummary summary, QStringList eogNames, QStringList ecgNames,
                    QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;

  const IcaComponentSummary& summary() const { return summary_; }
  bool isMarked(int component) const;
  void setMarked(int component, bool marked);  // emits dataChanged, not markToggled
  std::vector<int> markedComponents() const;   // ascending
  // Components labelled an artifact with at least this confidence; `label` "" = any artifact.
  std::vector<int> flaggedComponents(double minConfidence, const QString& label = {}) const;
  // New flags (the detectors run again at other thresholds): the Label column shows them.
  void setFlags(IcaFlags flags);

 signals:
  // The user checked or unchecked a row's mark box.
  void markToggled(int component, bool marked);

 private:
  QVariant labelData(int component, int role) const;

  IcaComponentSummary summary_;
  QStringList eogNames_, ecgNames_;
  std::vector<bool> marked_;
};

}  // namespace modescope
