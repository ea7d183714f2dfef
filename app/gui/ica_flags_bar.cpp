#include "app/gui/ica_flags_bar.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>

#include "app/gui/ica_component_model.h"
#include "app/gui/ica_flag_thresholds_dialog.h"
#include "app/gui/ica_properties_view.h"
#include "app/gui/ica_results_pane.h"

namespace modescope {

IcaFlagsBar::IcaFlagsBar(IcaResultsPane* pane) : QWidget(pane), pane_(pane) {
  filter_ = new QComboBox(this);
  filter_->setObjectName(QStringLiteral("icaLabelFilter"));
  filter_->addItem(tr("All labels"), QString());
  for (const char* name : {"eye", "heart", "muscle", "line", "channel", "brain"})
    filter_->addItem(QString::fromUtf8(name), QString::fromUtf8(name));
  filter_->setToolTip(tr("Show only the components with this automatic label"));
  threshold_ = new QDoubleSpinBox(this);
  threshold_->setObjectName(QStringLiteral("icaFlagThreshold"));
  threshold_->setRange(0.5, 1.0);
  threshold_->setSingleStep(0.05);
  threshold_->setDecimals(2);
  threshold_->setValue(0.5);
  threshold_->setPrefix(tr("conf. >= "));
  threshold_->setToolTip(
      tr("Confidence a flag needs for Mark flagged (0.5: every flagged rule; higher: only those "
         "well beyond their thresholds)"));
  mark_ = new QPushButton(tr("Mark flagged"), this);
  mark_->setObjectName(QStringLiteral("icaMarkFlagged"));
  mark_->setToolTip(
      tr("Mark every component labelled an artifact (of the label shown, or any) "
         "at this confidence: one step of Edit > Undo"));
  properties_ = new QPushButton(tr("Properties..."), this);
  properties_->setObjectName(QStringLiteral("icaProperties"));
  properties_->setToolTip(
      tr("The current component's map, spectrum, epoch image and the "
         "detectors' features (EEGLAB pop_prop, MNE plot_properties)"));
  thresholds_ = new QPushButton(tr("Thresholds..."), this);
  thresholds_->setObjectName(QStringLiteral("icaFlagThresholds"));
  thresholds_->setToolTip(
      tr("The detectors' thresholds and bands: label the components again with other values "
         "(recorded in the session history and exported pipelines)"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Label:"), this));
  layout->addWidget(filter_);
  layout->addWidget(threshold_);
  layout->addWidget(mark_);
  layout->addStretch(1);
  layout->addWidget(thresholds_);
  layout->addWidget(properties_);

  QSortFilterProxyModel* sorted = pane_->sortModel();
  sorted->setFilterKeyColumn(IcaComponentModel::kLabelColumn);
  sorted->setFilterRole(IcaComponentModel::kLabelRole);
  connect(filter_, &QComboBox::currentIndexChanged, this,
          [this] { setFilteredLabel(filteredLabel()); });
  connect(mark_, &QPushButton::clicked, this, [this] { markFlagged(); });
  connect(properties_, &QPushButton::clicked, this, [this] { showProperties(); });
  connect(thresholds_, &QPushButton::clicked, this, [this] { showThresholds(); });
  const bool any = !pane_->componentModel()->summary().flags.components.empty();
  setEnabled(any);
}

QString IcaFlagsBar::filteredLabel() const { return filter_->currentData().toString(); }

void IcaFlagsBar::setFilteredLabel(const QString& label) {
  const int i = filter_->findData(label);
  if (i >= 0 && i != filter_->currentIndex()) filter_->setCurrentIndex(i);
  pane_->sortModel()->setFilterRegularExpression(
      label.isEmpty() ? QRegularExpression()
                      : QRegularExpression(QStringLiteral("^%1$").arg(label)));
}

int IcaFlagsBar::markFlagged() {
  const QString label = filteredLabel() == QStringLiteral("brain") ? QString() : filteredLabel();
  const std::string labels =
      label.isEmpty() ? std::string("eye,heart,muscle,line,channel") : label.toStdString();
  return pane_->markFlagged(parseIcaFlagLabels(labels, "label filter"), threshold_->value());
}

IcaFlagThresholdsDialog* IcaFlagsBar::showThresholds() {
  auto* dialog = new IcaFlagThresholdsDialog(pane_->componentModel()->summary().flags.params, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, pane_,
          [pane = pane_, dialog] { pane->requestFlags(dialog->params()); });
  dialog->open();
  return dialog;
}

QWidget* IcaFlagsBar::showProperties() {
  auto* view = new IcaPropertiesView(pane_, pane_->currentComponent());
  view->setAttribute(Qt::WA_DeleteOnClose);
  view->show();
  return view;
}

}  // namespace modescope
