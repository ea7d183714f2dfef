#include "widgets/annotation_model.h"

#include "widgets/time_format.h"

namespace modescope {

AnnotationModel::AnnotationModel(QObject* parent) : QAbstractTableModel(parent) {}

void AnnotationModel::setAnnotations(std::vector<Annotation> annotations) {
  beginResetModel();
  annotations_ = std::move(annotations);
  endResetModel();
}

int AnnotationModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(annotations_.size());
}

int AnnotationModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant AnnotationModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Annotation& a = annotations_[static_cast<size_t>(index.row())];
  if (role == kOnsetRole) return a.onset;
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
  if (role == Qt::ToolTipRole && index.column() == TextColumn) {
    return QString::fromStdString(a.text);
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
}

double AnnotationFilterModel::onsetAt(int proxyRow) const {
  return index(proxyRow, 0).data(AnnotationModel::kOnsetRole).toDouble();
}

void AnnotationFilterModel::setFilterText(const QString& text) { setFilterFixedString(text); }

}  // namespace modescope
