// Table model over a recording's annotations (onset, duration, text) and the user's own
// (session marks): the file's rows first, then the user's, which show in bold with a "yours"
// tooltip; the filter model sorts all by onset. Both can be edited through
// app/gui/annotation_workflow.h (the file's as corrections kept in the session).
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
  // Index into the user's annotations (setUserAnnotations), or -1 for one of the file's.
  static constexpr int kUserIndexRole = Qt::UserRole + 1;
  // Index into the file's annotations (setAnnotations), or -1 for one of the user's.
  static constexpr int kFileIndexRole = Qt::UserRole + 2;

  explicit AnnotationModel(QObject* parent = nullptr);

  // Replaces all rows (annotations are expected sorted by onset, as Recording keeps them).
  void setAnnotations(std::vector<Annotation> annotations);
  // The user's annotations, shown after the file's.
  void setUserAnnotations(std::vector<Annotation> annotations);
  const Annotation& annotation(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<Annotation> annotations_, user_;
};

// Case-insensitive text filter over AnnotationModel's text column. An empty pattern shows all.
class AnnotationFilterModel : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit AnnotationFilterModel(QObject* parent = nullptr);
  // Onset in seconds of a proxy row.
  double onsetAt(int proxyRow) const;
  // The user annotation index of a proxy row, -1 for a file annotation or no row.
  int userIndexAt(int proxyRow) const;
  // The file annotation index of a proxy row, -1 for a user annotation or no row.
  int fileIndexAt(int proxyRow) const;

 public slots:
  void setFilterText(const QString& text);
};

}  // namespace modescope
