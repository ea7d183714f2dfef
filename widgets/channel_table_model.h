// Table model over a recording's channels: index, label, name, type, unit, rate, samples,
// position, and a user-checkable "visible" column that decides which channels the browser shows.
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

class ChannelTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    IndexColumn = 0,
    LabelColumn,
    NameColumn,
    TypeColumn,
    UnitColumn,
    RateColumn,
    SamplesColumn,
    PositionColumn,
    VisibleColumn,
    ColumnCount
  };

  explicit ChannelTableModel(QObject* parent = nullptr);

  // Resets the table; every channel starts visible.
  void setRecording(std::shared_ptr<const Recording> recording);
  const Recording* recording() const { return recording_.get(); }

  bool isVisible(int channel) const;
  const std::vector<bool>& visibility() const { return visible_; }
  // Sets the visible flags without emitting visibilityChanged (used when restoring a view).
  void setVisibility(std::vector<bool> visible);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 signals:
  // The user toggled a channel's visible box; `visible` holds every channel's flag.
  void visibilityChanged(const std::vector<bool>& visible);

 private:
  std::shared_ptr<const Recording> recording_;
  std::vector<bool> visible_;
};

}  // namespace modescope
