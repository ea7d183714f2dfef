#include "app/gui/channel_checklist.h"

#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>

namespace modescope {

ChannelChecklist::ChannelChecklist(const Recording& rec, const std::vector<int>& selected,
                                   QWidget* parent)
    : QGroupBox(tr("Channels (one sample rate)"), parent), recording_(rec) {
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("channels"));
  for (std::size_t i = 0; i < rec.channelCount(); ++i) {
    const auto& c = rec.channels[i];
    auto* item = new QListWidgetItem(QStringLiteral("%1  %2  (%3, %4 Hz)%5")
                                         .arg(i + 1)
                                         .arg(QString::fromStdString(c.name))
                                         .arg(QLatin1String(channelTypeName(c.type)))
                                         .arg(c.sampleRate)
                                         .arg(c.bad ? tr("  bad") : QString()),
                                     list_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    // Channels marked bad start unticked (docs/bad-channels.md).
    const bool pre = selected.empty() ? c.type == ChannelType::EEG && !c.bad
                                      : std::find(selected.begin(), selected.end(),
                                                  static_cast<int>(i)) != selected.end();
    item->setCheckState(pre ? Qt::Checked : Qt::Unchecked);
  }
  connect(list_, &QListWidget::itemChanged, this, &ChannelChecklist::changed);
  auto* all = new QPushButton(tr("All"), this);
  auto* eeg = new QPushButton(tr("EEG"), this);
  auto* none = new QPushButton(tr("None"), this);
  connect(all, &QPushButton::clicked, this,
          [this] { checkWhere([](const ChannelInfo&) { return true; }); });
  connect(eeg, &QPushButton::clicked, this, [this] {
    checkWhere([](const ChannelInfo& c) { return c.type == ChannelType::EEG && !c.bad; });
  });
  connect(none, &QPushButton::clicked, this,
          [this] { checkWhere([](const ChannelInfo&) { return false; }); });
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(list_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(all);
  buttons->addWidget(eeg);
  buttons->addWidget(none);
  buttons->addStretch(1);
  layout->addLayout(buttons);
}

std::vector<std::size_t> ChannelChecklist::checkedChannels() const {
  std::vector<std::size_t> out;
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->checkState() == Qt::Checked) out.push_back(static_cast<std::size_t>(i));
  }
  return out;
}

void ChannelChecklist::checkWhere(bool (*pick)(const ChannelInfo&)) {
  {
    // One changed() for the whole press, not one per row: listeners revalidate the dialog.
    const QSignalBlocker block(list_);
    for (int i = 0; i < list_->count(); ++i) {
      list_->item(i)->setCheckState(
          pick(recording_.channels[static_cast<std::size_t>(i)]) ? Qt::Checked : Qt::Unchecked);
    }
  }
  emit changed();
}

}  // namespace modescope
