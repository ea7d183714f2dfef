#include "widgets/channel_table_model.h"

#include <QColor>

#include "widgets/time_format.h"

namespace modescope {

ChannelTableModel::ChannelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ChannelTableModel::setRecording(std::shared_ptr<const Recording> recording) {
  beginResetModel();
  recording_ = std::move(recording);
  visible_.assign(recording_ ? recording_->channelCount() : 0, true);
  endResetModel();
}

bool ChannelTableModel::isVisible(int channel) const {
  return channel >= 0 && static_cast<size_t>(channel) < visible_.size() &&
         visible_[static_cast<size_t>(channel)];
}

void ChannelTableModel::setVisibility(std::vector<bool> visible) {
  if (visible.size() != visible_.size()) return;
  visible_ = std::move(visible);
  if (!visible_.empty()) {
    emit dataChanged(index(0, VisibleColumn), index(rowCount() - 1, VisibleColumn),
                     {Qt::CheckStateRole});
  }
}

int ChannelTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !recording_ ? 0 : static_cast<int>(recording_->channelCount());
}

int ChannelTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ChannelTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const size_t row = static_cast<size_t>(index.row());
  const ChannelInfo& c = recording_->channels[row];
  if (role == Qt::CheckStateRole && index.column() == VisibleColumn) {
    return visible_[row] ? Qt::Checked : Qt::Unchecked;
  }
  if (role == Qt::TextAlignmentRole &&
      (index.column() == IndexColumn || index.column() == RateColumn ||
       index.column() == SamplesColumn)) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  // Channels marked bad are greyed, as the browser draws them (docs/bad-channels.md).
  if (role == Qt::ForegroundRole && c.bad) return QColor(Qt::gray);
  if (role == Qt::ToolTipRole && c.bad) return tr("Marked bad: methods leave it out");
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case IndexColumn:
      return index.row() + 1;  // 1-based, as the CLI's --channels spells it
    case LabelColumn:
      return QString::fromStdString(c.label);
    case NameColumn:
      return QString::fromStdString(c.name);
    case TypeColumn:
      return QString::fromLatin1(channelTypeName(c.type));
    case UnitColumn:
      return QString::fromStdString(c.unit);
    case RateColumn:
      return formatHz(c.sampleRate);
    case SamplesColumn:
      return QVariant::fromValue<qlonglong>(c.sampleCount);
    case PositionColumn:
      if (!c.position) return QStringLiteral("-");
      return QStringLiteral("%1, %2, %3")
          .arg(c.position->x, 0, 'f', 2)
          .arg(c.position->y, 0, 'f', 2)
          .arg(c.position->z, 0, 'f', 2);
    default:
      return {};
  }
}

bool ChannelTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.column() != VisibleColumn || role != Qt::CheckStateRole) {
    return false;
  }
  const bool on = value.toInt() == Qt::Checked;
  const size_t row = static_cast<size_t>(index.row());
  if (visible_[row] == on) return true;
  visible_[row] = on;
  emit dataChanged(index, index, {Qt::CheckStateRole});
  emit visibilityChanged(visible_);
  return true;
}

Qt::ItemFlags ChannelTableModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (index.isValid() && index.column() == VisibleColumn) f |= Qt::ItemIsUserCheckable;
  return f;
}

QVariant ChannelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case IndexColumn:
      return tr("#");
    case LabelColumn:
      return tr("Label");
    case NameColumn:
      return tr("Name");
    case TypeColumn:
      return tr("Type");
    case UnitColumn:
      return tr("Unit");
    case RateColumn:
      return tr("Rate");
    case SamplesColumn:
      return tr("Samples");
    case PositionColumn:
      return tr("Position (x, y, z)");
    case VisibleColumn:
      return tr("Visible");
    default:
      return {};
  }
}

}  // namespace modescope
