// Table model over a recording's annotations (onset, duration, text).
//
// Built for 10,000+ rows: data() is O(1) per cell and the rows are kept as one vector, so a
// QTableView with fixed row heights scrolls without delay. Filtering by text is done by
// AnnotationFilterModel below (case-insensitive substring on the text column).
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

class AnnotationModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { OnsetColumn = 0, DurationColumn, TextColumn, ColumnCount };
  // Qt::UserRole on any column gives the onset in seconds as a double.
  static constexpr int kOnsetRole = Qt::UserRole;

  explicit AnnotationModel(QObject* parent = nullptr);

  // Replaces all rows (annotations are expected sorted by onset, as Recording keeps them).
  void setAnnotations(std::vector<Annotation> annotations);
  const Annotation& annotation(int row) const { return annotations_.at(static_cast<size_t>(row)); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<Annotation> annotations_;
};

// Case-insensitive text filter over AnnotationModel's text column. An empty pattern shows all.
class AnnotationFilterModel : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit AnnotationFilterModel(QObject* parent = nullptr);
  // Onset in seconds of a proxy row.
  double onsetAt(int proxyRow) const;

 public slots:
  void setFilterText(const QString& text);
};

}  // namespace modescope
