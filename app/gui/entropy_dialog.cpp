#include "app/gui/entropy_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <exception>

#include "app/gui/channel_checklist.h"
#include "app/gui/dialog_parts.h"
#include "app/gui/range_backend_box.h"

namespace modescope {
namespace {

// The seed's epoch (Martinez-Zarzuela et al. 2013: 1024 samples of MEG).
constexpr double kDefaultEpochSamples = 1024.0;

double selectionRate(const Recording& rec, const std::vector<std::size_t>& channels) {
  return channels.empty() || channels.front() >= rec.channelCount()
             ? 0.0
             : rec.channels[channels.front()].sampleRate;
}

}  // namespace

EntropyDialog::EntropyDialog(std::shared_ptr<const Recording> recording,
                             const std::vector<int>& selected, QWidget* parent)
    : QDialog(parent), recording_(std::move(recording)) {
  setWindowTitle(tr("Entropy matrices (Cross-ApEn / SampEn)"));
  setObjectName(QStringLiteral("entropyDialog"));
  filling_ = true;
  const Recording& rec = *recording_;

  // The fields come from their declarations (entropyParamTable()): range, unit, help.
  fields_.build(entropyParamTable(), this, QStringLiteral("entropy"));
  fields_.set(EntropyParams{});
  epoch_ = fields_.editorAs<QSpinBox>("epoch");
  epoch_->setValue(static_cast<int>(kDefaultEpochSamples));
  epochSeconds_ = named(new QDoubleSpinBox(this), "entropyEpochSeconds",
                        tr("Epoch length in seconds: N = round(seconds x sample rate) of the "
                           "selected channels, within the limits of the epoch in samples."));
  epochSeconds_->setRange(0.001, 1.0e6);
  epochSeconds_->setDecimals(3);
  epochSeconds_->setKeyboardTracking(false);
  epochSeconds_->setValue(1.0);
  epochUnit_ = new QComboBox(this);
  epochUnit_->setObjectName(QStringLiteral("entropyEpochUnit"));
  epochUnit_->addItem(tr("samples"), static_cast<int>(EntropyEpochUnit::Samples));
  epochUnit_->addItem(tr("s"), static_cast<int>(EntropyEpochUnit::Seconds));
  epochUnit_->addItem(tr("whole selection"), static_cast<int>(EntropyEpochUnit::WholeSelection));
  epochCount_ = new QLabel(this);
  epochCount_->setObjectName(QStringLiteral("entropyEpochCount"));
  epochCount_->setForegroundRole(QPalette::PlaceholderText);

  auto* epochRow = new QWidget(this);
  auto* epochLayout = new QHBoxLayout(epochRow);
  epochLayout->setContentsMargins(0, 0, 0, 0);
  epochLayout->addWidget(epoch_, 1);
  epochLayout->addWidget(epochSeconds_, 1);
  epochLayout->addWidget(epochUnit_);

  auto* box = new QGroupBox(tr("Entropy"), this);
  auto* form = new QFormLayout(box);
  form->addRow(tr("Measure:"), fields_.editor("measure"));
  form->addRow(tr("Template length m:"), fields_.editor("m"));
  form->addRow(tr("Tolerance r:"), fields_.editor("r"));
  form->addRow(tr("SD convention:"), fields_.editor("sd"));
  form->addRow(tr("Epoch length:"), epochRow);
  form->addRow(QString(), epochCount_);
  form->addRow(tr("Bias (ln 0):"), fields_.editor("bias"));
  form->addRow(fields_.editor("excludeBadSegments"));
  auto* note = new QLabel(tr("Entry [u][v] = Cross-ApEn(v||u): row = template channel u, "
                             "column = target channel v. The full ordered matrix is computed; "
                             "cost grows with epochs x channels\u00b2 x N\u00b2."),
                          this);
  note->setWordWrap(true);
  note->setForegroundRole(QPalette::PlaceholderText);
  // Below the form, not in it: a wrapped label in a form row gets the height of one line.

  channels_ = new ChannelChecklist(rec, selected, this);
  range_ = new RangeBackendBox(rec.duration(), 0.0, -1.0,
                               tr("Start of the range cut into epochs (s from the recording "
                                  "start)."),
                               tr("Length of the range cut into epochs."), this);
  range_->setBackendToolTip(
      tr("Where the matrices run. Auto: the GPU when one is usable (float counting, epochs x "
         "pairs batched), else the CPU (double, all cores)."));

  const RunFooter footer = makeRunFooter(this, QStringLiteral("entropyValidationMessage"), true);
  error_ = footer.error;
  run_ = footer.run;
  QDialogButtonBox* buttons = footer.buttons;

  auto* left = new QVBoxLayout;
  left->addWidget(box);
  left->addWidget(note);
  left->addWidget(range_);
  left->addStretch(1);
  auto* columns = new QHBoxLayout;
  columns->addLayout(left, 3);
  columns->addWidget(channels_, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(columns, 1);
  layout->addWidget(error_);
  layout->addWidget(buttons);

  auto revalidate = [this] {
    if (!filling_) validate();
  };
  fields_.onChanged(this, revalidate);
  connect(epochUnit_, &QComboBox::currentIndexChanged, this, revalidate);
  connect(epochSeconds_, &QDoubleSpinBox::valueChanged, this, revalidate);
  connect(channels_, &ChannelChecklist::changed, this, revalidate);
  connect(range_, &RangeBackendBox::changed, this, revalidate);
  filling_ = false;
  validate();
}

int64_t EntropyDialog::epochSamples() const {
  switch (static_cast<EntropyEpochUnit>(epochUnit_->currentData().toInt())) {
    case EntropyEpochUnit::WholeSelection:
      return 0;
    case EntropyEpochUnit::Seconds: {
      const double fs = selectionRate(*recording_, channels_->checkedChannels());
      // At least one sample so that a tiny length is refused as too short, not as "whole".
      return std::max<int64_t>(1, std::llround(epochSeconds_->value() * fs));
    }
    case EntropyEpochUnit::Samples:
      break;
  }
  return epoch_->value();
}

EntropyRequest EntropyDialog::request() const {
  EntropyRequest q;
  const RequestSelection selection = range_->selection(*channels_);
  q.backend = selection.backend;
  EntropyJobSpec& s = q.spec;
  static_cast<Selection&>(s) = selection;
  s.params = fields_.get();
  s.params.epochSamples = epochSamples();
  return q;
}

void EntropyDialog::setParams(const EntropyParams& p) {
  filling_ = true;
  for (const auto& f : entropyParamTable().fields())
    if (f.decl.key != "epoch") setParamEditorValue(fields_.editor(f.decl.key), f.decl, f.get(p));
  filling_ = false;
  validate();
}

void EntropyDialog::setEpoch(double value, EntropyEpochUnit unit) {
  filling_ = true;
  epochUnit_->setCurrentIndex(epochUnit_->findData(static_cast<int>(unit)));
  if (unit == EntropyEpochUnit::Seconds)
    epochSeconds_->setValue(value);
  else if (unit == EntropyEpochUnit::Samples)
    epoch_->setValue(static_cast<int>(std::llround(value)));
  filling_ = false;
  validate();
}

void EntropyDialog::setChannels(const std::vector<std::size_t>& channels) {
  auto* list = channels_->findChild<QListWidget*>(QStringLiteral("channels"));
  {
    const QSignalBlocker block(list);
    for (int i = 0; i < list->count(); ++i) {
      const bool on = std::find(channels.begin(), channels.end(), static_cast<std::size_t>(i)) !=
                      channels.end();
      list->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
  }
  validate();
}

QString EntropyDialog::epochCountText() const { return epochCount_->text(); }

void EntropyDialog::validate() {
  const EntropyRequest q = request();
  const bool whole = q.spec.params.epochSamples == 0;
  const bool seconds =
      static_cast<EntropyEpochUnit>(epochUnit_->currentData().toInt()) == EntropyEpochUnit::Seconds;
  fields_.enableApplicable(q.spec.params);  // bias for ApEn only, the epoch unless whole
  epochSeconds_->setEnabled(!whole);
  epoch_->setVisible(!seconds);
  epochSeconds_->setVisible(seconds);
  // The epoch count the current fields give, with N in both units.
  const Recording& rec = *recording_;
  const double fs = selectionRate(rec, q.spec.channels);
  const int64_t total = entropySelectionSamples(rec, q.spec);
  const int64_t epochs = entropyEpochCount(rec, q.spec);
  if (fs > 0 && total > 0) {
    const int64_t n = whole ? total : q.spec.params.epochSamples;
    QString text = (epochs == 1 ? tr("1 epoch") : tr("%1 epochs").arg(epochs)) +
                   tr(" of %1 samples (%2 s)").arg(n).arg(static_cast<double>(n) / fs, 0, 'g', 4);
    const int64_t left = whole || n <= 0 ? 0 : total - epochs * n;
    if (left > 0) text += tr("; %1 samples at the end not used").arg(left);
    const int64_t bad = entropyBadSegmentEpochCount(rec, q.spec);
    if (bad > 0 && q.spec.params.excludeBadSegments)
      text += tr("; %1 of them overlap bad segments and are left out").arg(bad);
    else if (bad > 0)
      text += tr("; %1 of them overlap bad segments and are kept").arg(bad);
    epochCount_->setText(text);
  } else {
    epochCount_->setText(tr("no epochs: check the channels and the range"));
  }
  QString problem;
  try {
    checkEntropyJob(rec, q.spec);
  } catch (const std::exception& e) {
    problem = QString::fromUtf8(e.what());
  }
  problem_ = problem;
  showValidation(error_, run_, problem);
}

void EntropyDialog::accept() {
  validate();
  if (!problem_.isEmpty()) return;
  QDialog::accept();
}

}  // namespace modescope
