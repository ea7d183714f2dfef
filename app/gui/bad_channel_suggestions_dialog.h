// The bad-channel suggestions shown to the user (engine/spatial/bad_channel_detection.h): every
// measured channel with its measures, the criteria's thresholds above the table, the suggested
// channels ticked. Accepting marks the ticked channels bad; nothing is marked without it.
#pragma once

#include <QDialog>
#include <string>
#include <vector>

#include "engine/core/recording.h"
#include "engine/spatial/bad_channel_detection.h"

class QTableWidget;

namespace modescope {

class BadChannelSuggestionsDialog : public QDialog {
  Q_OBJECT

 public:
  // `alreadyBad`: names marked bad now (ticked too, so accepting keeps them).
  BadChannelSuggestionsDialog(const Recording& rec, const BadChannelReport& report,
                              const std::vector<std::string>& alreadyBad,
                              QWidget* parent = nullptr);
  // The ticked channels' names, in table order.
  std::vector<std::string> checkedNames() const;
  QTableWidget* table() const { return table_; }

 private:
  QTableWidget* table_;
  std::vector<std::string> names_;
};

}  // namespace modescope
