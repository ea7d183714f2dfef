#include "app/gui/bad_channel_suggestions_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStringList>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "engine/core/text.h"

namespace modescope {
namespace {

QString number(double v, int decimals) {
  return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("-");
}

}  // namespace

BadChannelSuggestionsDialog::BadChannelSuggestionsDialog(const Recording& rec,
                                                         const BadChannelReport& report,
                                                         const std::vector<std::string>& alreadyBad,
                                                         QWidget* parent)
    : QDialog(parent), table_(new QTableWidget(this)) {
  setObjectName(QStringLiteral("badChannelSuggestionsDialog"));
  setWindowTitle(tr("Suggested bad channels"));
  auto* layout = new QVBoxLayout(this);
  QString criteria = tr("Criteria (PREP pipeline, Bigdely-Shamlo et al. 2015) over %1 channels, "
                        "%2 correlation windows:")
                         .arg(report.channels.size())
                         .arg(report.windows);
  for (const std::string& line : report.thresholdLines())
    criteria += QStringLiteral("\n  \u2022 ") + QString::fromStdString(line);
  for (const std::string& note : report.notes)
    criteria += QStringLiteral("\n  ") + tr("Note: %1").arg(QString::fromStdString(note));
  const std::vector<std::size_t> suggested = report.suggested();
  QString verdict = tr("Suggested: none");
  if (!suggested.empty()) {
    QStringList names;
    for (std::size_t i : suggested)
      names << QString::fromStdString(sanitizeUtf8(rec.channels[i].name));
    verdict = tr("Suggested (ticked, listed first): %1").arg(names.join(QStringLiteral(", ")));
  }
  criteria += QStringLiteral("\n") + verdict;
  auto* thresholds = new QLabel(criteria, this);
  thresholds->setObjectName(QStringLiteral("suggestionThresholds"));
  thresholds->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(thresholds);

  const QStringList headers = {tr("Channel"),      tr("Robust SD"),     tr("Deviation z"),
                               tr("High-freq. z"), tr("Low-r windows"), tr("Why suggested")};
  table_->setObjectName(QStringLiteral("suggestionTable"));
  table_->setColumnCount(static_cast<int>(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(static_cast<int>(report.channels.size()));
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  // The suggested channels first, each group in recording order.
  std::vector<const ChannelQuality*> order;
  for (const ChannelQuality& q : report.channels)
    if (q.suggested()) order.push_back(&q);
  for (const ChannelQuality& q : report.channels)
    if (!q.suggested()) order.push_back(&q);
  for (int r = 0; r < static_cast<int>(order.size()); ++r) {
    const ChannelQuality& q = *order[static_cast<std::size_t>(r)];
    const ChannelInfo& c = rec.channels[q.channel];
    const std::string name = c.name.empty() ? c.label : c.name;
    names_.push_back(name);
    bool ticked = q.suggested();
    for (const std::string& b : alreadyBad) ticked |= equalsIgnoreCase(b, name);
    auto* item = new QTableWidgetItem(QString::fromStdString(sanitizeUtf8(name)));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(ticked ? Qt::Checked : Qt::Unchecked);
    table_->setItem(r, 0, item);
    table_->setItem(r, 1, new QTableWidgetItem(number(q.robustSd, 2)));
    table_->setItem(r, 2, new QTableWidgetItem(number(q.deviationZ, 2)));
    table_->setItem(r, 3, new QTableWidgetItem(number(q.highFrequencyZ, 2)));
    table_->setItem(
        r, 4,
        new QTableWidgetItem(std::isfinite(q.lowCorrelationFraction)
                                 ? QString::number(100.0 * q.lowCorrelationFraction, 'f', 1) +
                                       QStringLiteral(" %")
                                 : QStringLiteral("-")));
    auto* why = new QTableWidgetItem(
        QString::fromStdString(q.suggested() ? q.explanation(report.criteria) : std::string()));
    why->setToolTip(why->text());  // the column may be narrower than the reasons
    table_->setItem(r, 5, why);
    if (q.suggested()) {
      for (int col = 0; col < table_->columnCount(); ++col)
        table_->item(r, col)->setBackground(QColor(255, 228, 200));
    }
  }
  table_->resizeColumnsToContents();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  layout->addWidget(table_, 1);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Mark ticked channels bad"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(820, 560);
}

std::vector<std::string> BadChannelSuggestionsDialog::checkedNames() const {
  std::vector<std::string> out;
  for (int r = 0; r < table_->rowCount(); ++r)
    if (table_->item(r, 0)->checkState() == Qt::Checked)
      out.push_back(names_[static_cast<std::size_t>(r)]);
  return out;
}

}  // namespace modescope
