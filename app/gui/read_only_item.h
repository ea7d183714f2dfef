// A right-aligned, read-only table cell: the numbers of the EMD and MEMD result tables.
//
// Thread rules: GUI thread.
#pragma once

#include <QTableWidgetItem>

namespace modescope {

inline QTableWidgetItem* readOnlyItem(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace modescope
