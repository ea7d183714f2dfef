// The channel picker of the processing dialogs (preprocess, decompose): one checkable row per
// channel of a recording ("3  Cz  (EEG, 256 Hz)") and All / EEG / None buttons, in a group box.
// GUI thread only.
#pragma once

#include <QGroupBox>
#include <cstddef>
#include <vector>

#include "engine/core/recording.h"

class QListWidget;

namespace modescope {

class ChannelChecklist : public QGroupBox {
  Q_OBJECT
 public:
  // `rec` must outlive the widget. `selected`: recording indices checked at the start; empty
  // checks the EEG channels. The list is named "channels" (tests find it by that name).
  ChannelChecklist(const Recording& rec, const std::vector<int>& selected,
                   QWidget* parent = nullptr);

  // Recording indices of the checked rows, ascending.
  std::vector<std::size_t> checkedChannels() const;

 signals:
  // A row was checked or unchecked; once per button press, however many rows it changed.
  void changed();

 private:
  void checkWhere(bool (*pick)(const ChannelInfo&));

  const Recording& recording_;
  QListWidget* list_ = nullptr;
};

}  // namespace modescope
