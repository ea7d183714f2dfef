// The event types of a recording (the distinct annotation texts, the file's and the user's) with
// their counts and colours (widgets/annotation_colours.h): the list the Events dock shows and the
// epoch dialog offers as conditions. Types in first-onset order.
//
// Thread rules: GUI thread only.
#pragma once

#include <QAbstractTableModel>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

class EventTypeModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { TypeColumn = 0, CountColumn, UserCountColumn, ColumnCount };

  explicit EventTypeModel(QObject* parent = nullptr);

  // Rebuilds the list and gives new types a colour.
  void setAnnotations(const std::vector<Annotation>& file, const std::vector<Annotation>& user);
  std::string type(int row) const { return rows_.at(static_cast<std::size_t>(row)).type; }
  int count(int row) const { return rows_.at(static_cast<std::size_t>(row)).count; }
  int rowOf(const std::string& type) const;  // -1 when absent
  // Tells the views the colours changed (after setAnnotationColour).
  void coloursChanged();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    std::string type;
    int count = 0;      // all
    int userCount = 0;  // the user's
  };
  std::vector<Row> rows_;
};

}  // namespace modescope
