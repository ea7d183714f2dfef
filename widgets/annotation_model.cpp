#include "widgets/annotation_model.h"

#include <QFont>

#include "widgets/time_format.h"

namespace modescope {

AnnotationModel::AnnotationModel(QObject* parent) : QAbstractTableModel(parent) {}

void AnnotationModel::setAnnotations(std::vector<Annotation> annotations) {
  beginResetModel();
  annotations_ = std::move(annotations);
  endResetModel();
}

void AnnotationModel::setUserAnnotations(std::vector<Annotation> annotations) {
  beginResetModel();
  user_ = std::move(annotations);
  endResetModel();
}

const Annotation& AnnotationModel::annotation(int row) const {
  const auto r = static_cast<size_t>(row);
  return r < annotations_.size() ? annotations_.at(r) : user_.at(r - annotations_.size());
}

int AnnotationModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(annotations_.size() + user_.size());
}

int AnnotationModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant AnnotationModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Annotation& a = annotation(index.row());
  const int userIndex = index.row() - static_cast<int>(annotations_.size());
  if (role == kOnsetRole) return a.onset;
  if (role == kUserIndexRole) return userIndex;
  if (role == kFileIndexRole) return userIndex >= 0 ? -1 : index.row();
  if (role == Qt::FontRole && userIndex >= 0) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case OnsetColumn:
        return formatClock(a.onset);
      case DurationColumn:
        return formatDurationSeconds(a.duration);
      case TextColumn:
        return QString::fromStdString(a.text);
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    const QString text = QString::fromStdString(a.text);
    return userIndex >= 0 ? tr("%1 (yours: double-click to edit, Delete removes it)").arg(text)
                          : tr("%1 (from the file: F2 corrects it, Delete removes it; the file is "
                               "not changed)")
                                .arg(text);
  }
  if (role == Qt::TextAlignmentRole && index.column() != TextColumn) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant AnnotationModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  switch (section) {
    case OnsetColumn:
      return tr("Onset");
    case DurationColumn:
      return tr("Duration");
    case TextColumn:
      return tr("Text");
    default:
      return {};
  }
}

AnnotationFilterModel::AnnotationFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
  setFilterKeyColumn(AnnotationModel::TextColumn);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
  // The user's rows come after the file's in the source; by onset they interleave (stable sort:
  // at equal onsets the file's first).
  setSortRole(AnnotationModel::kOnsetRole);
  sort(AnnotationModel::OnsetColumn, Qt::AscendingOrder);
}

int AnnotationFilterModel::userIndexAt(int proxyRow) const {
  const QModelIndex i = index(proxyRow, 0);
  return i.isValid() ? i.data(AnnotationModel::kUserIndexRole).toInt() : -1;
}

int AnnotationFilterModel::fileIndexAt(int proxyRow) const {
  const QModelIndex i = index(proxyRow, 0);
  return i.isValid() ? i.data(AnnotationModel::kFileIndexRole).toInt() : -1;
}

double AnnotationFilterModel::onsetAt(int proxyRow) const {
  return index(proxyRow, 0).data(AnnotationModel::kOnsetRole).toDouble();
}

void AnnotationFilterModel::setFilterText(const QString& text) { setFilterFixedString(text); }

}  // namespace modescope
