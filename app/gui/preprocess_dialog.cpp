#include "app/gui/preprocess_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/channel_checklist.h"
#include "app/gui/dialog_parts.h"
#include "app/gui/range_backend_box.h"
#include "engine/dsp/filter_param_table.h"
#include "widgets/filter_spec_editor.h"
#include "widgets/param_editor.h"

namespace modescope {

PreprocessDialog::PreprocessDialog(std::shared_ptr<const Recording> recording,
                                   const std::vector<int>& selected, QWidget* parent)
    : QDialog(parent), recording_(std::move(recording)) {
  setWindowTitle(tr("Filter and re-reference"));
  const Recording& rec = *recording_;
  double maxRate = 0;
  for (const auto& c : rec.channels) maxRate = std::max(maxRate, c.sampleRate);

  filter_ = new FilterSpecEditor(false, this);
  FilterSpec band;  // the declared default: a band-pass, 1-40 Hz, below this data's Nyquist
  band.kind = FilterKind::BandPass;
  band.highHz = std::min(band.highHz, maxRate / 2.0 - 1.0);
  filter_->setSpec(band);
  filter_->setNyquist(maxRate / 2.0);
  notch_ = new QComboBox(this);
  notch_->addItem(tr("None"), 0.0);
  notch_->addItem(tr("50 Hz and harmonics"), 50.0);
  notch_->addItem(tr("60 Hz and harmonics"), 60.0);
  const ParamField<FilterSpec>& mains = *filterParamTable().find("notchHz");
  notch_->setToolTip(paramToolTip(mains.decl));
  auto* filterBox = new QGroupBox(tr("Filter"), this);
  auto* filterForm = new QFormLayout(filterBox);
  filterForm->addRow(filter_);
  filterForm->addRow(tr("Notch:"), notch_);

  // The reference kinds, their labels and help from the declaration; item data: the kind.
  const ParamField<ReferenceSpec>& referenceKind = *referenceParamTable().find("kind");
  reference_ = new QComboBox(this);
  reference_->setToolTip(paramToolTip(referenceKind.decl));
  for (const ParamChoice& c : referenceKind.decl.choices) {
    ReferenceSpec kind;
    referenceKind.set(kind, c.name);
    reference_->addItem(QString::fromStdString(c.label), static_cast<int>(kind.kind));
    reference_->setItemData(reference_->count() - 1, QString::fromStdString(c.help),
                            Qt::ToolTipRole);
  }
  referenceChannel_ = new QComboBox(this);
  for (const auto& c : rec.channels) {
    if (c.type == ChannelType::EEG) referenceChannel_->addItem(QString::fromStdString(c.name));
  }
  referenceChannel_->setEnabled(false);
  connect(reference_, &QComboBox::currentIndexChanged, this, [this] {
    referenceChannel_->setEnabled(reference_->currentData().toInt() ==
                                  static_cast<int>(ReferenceKind::Channel));
  });
  auto* refBox = new QGroupBox(tr("Reference"), this);
  auto* refRow = new QHBoxLayout(refBox);
  refRow->addWidget(reference_);
  refRow->addWidget(referenceChannel_, 1);

  channels_ = new ChannelChecklist(*recording_, selected, this);

  range_ = new RangeBackendBox(rec.duration(), 0.0, -1.0, tr("Start of the filtered range"),
                               tr("Length of the filtered range"), this);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Run"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  layOutMethodDialog(this, {{filterBox, refBox, range_}}, channels_, {buttons});
}

PreprocessRequest PreprocessDialog::request() const {
  PreprocessRequest r;
  if (auto f = filter_->spec()) r.spec.filters.push_back(*f);
  if (const double mains = notch_->currentData().toDouble(); mains > 0) {
    FilterSpec n;
    n.kind = FilterKind::Notch;
    n.notchHz = mains;
    n.notchHarmonics = true;
    r.spec.filters.push_back(n);
  }
  r.spec.reference.kind = static_cast<ReferenceKind>(reference_->currentData().toInt());
  if (r.spec.reference.kind == ReferenceKind::Channel) {
    r.spec.reference.channel = referenceChannel_->currentText().toStdString();
  }
  static_cast<RequestSelection&>(r) = range_->selection(*channels_);
  return r;
}

void PreprocessDialog::accept() {
  const PreprocessRequest r = request();
  if (r.channels.empty()) {
    QMessageBox::warning(this, windowTitle(), tr("Select at least one channel."));
    return;
  }
  if (r.spec.filters.empty() && r.spec.reference.kind == ReferenceKind::AsRecorded) {
    QMessageBox::warning(
        this, windowTitle(),
        tr("Choose a filter, a notch or a reference: as set, nothing would change."));
    return;
  }
  QDialog::accept();
}

}  // namespace modescope
