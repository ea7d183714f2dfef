#include "widgets/event_type_model.h"

#include <algorithm>
#include <map>

#include "widgets/annotation_colours.h"

namespace modescope {

EventTypeModel::EventTypeModel(QObject* parent) : QAbstractTableModel(parent) {}

void EventTypeModel::setAnnotations(const std::vector<Annotation>& file,
                                    const std::vector<Annotation>& user) {
  // First onset of each type over both lists, then counts.
  std::map<std::string, std::size_t> where;
  std::vector<std::pair<double, Row>> found;
  auto add = [&](const Annotation& a, bool mine) {
    auto [it, inserted] = where.emplace(a.text, found.size());
    if (inserted) found.push_back({a.onset, Row{a.text, 0, 0}});
    auto& [onset, row] = found[it->second];
    onset = std::min(onset, a.onset);
    ++row.count;
    row.userCount += mine ? 1 : 0;
  };
  for (const Annotation& a : file) add(a, false);
  for (const Annotation& a : user) add(a, true);
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  beginResetModel();
  rows_.clear();
  std::vector<std::string> types;
  for (auto& [onset, row] : found) {
    types.push_back(row.type);
    rows_.push_back(std::move(row));
  }
  assignAnnotationColours(types);
  endResetModel();
}

int EventTypeModel::rowOf(const std::string& type) const {
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].type == type) return static_cast<int>(i);
  return -1;
}

void EventTypeModel::coloursChanged() {
  if (!rows_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, 0), {Qt::DecorationRole});
}

int EventTypeModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int EventTypeModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventTypeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& r = rows_[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case TypeColumn:
        return r.type.empty() ? tr("(no text)") : QString::fromStdString(r.type);
      case CountColumn:
        return r.count;
      case UserCountColumn:
        return r.userCount;
      default:
        return {};
    }
  }
  if (role == Qt::DecorationRole && index.column() == TypeColumn) return annotationColour(r.type);
  if (role == Qt::ToolTipRole && index.column() == TypeColumn)
    return tr("Double-click to change the colour of '%1'").arg(QString::fromStdString(r.type));
  if (role == Qt::TextAlignmentRole && index.column() != TypeColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant EventTypeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case TypeColumn:
      return tr("Event type");
    case CountColumn:
      return tr("Count");
    case UserCountColumn:
      return tr("Yours");
    default:
      return {};
  }
}

}  // namespace modescope
