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

  measure_ = named(new QComboBox(this), "entropyMeasure",
                   tr("apen: Cross-ApEn(v||u) for every ordered channel pair, ApEn on the "
                      "diagonal (Pincus 1991; Martinez-Zarzuela et al. 2013).\nsampen: "
                      "cross-SampEn, SampEn on the diagonal (Richman and Moorman 2000): no "
                      "self-matches, undefined (NaN) when nothing matches."));
  measure_->addItem(tr("ApEn / Cross-ApEn"), static_cast<int>(EntropyMeasure::ApproximateEntropy));
  measure_->addItem(tr("SampEn / cross-SampEn"), static_cast<int>(EntropyMeasure::SampleEntropy));
  m_ = named(new QSpinBox(this), "entropyM",
             tr("Template length m in samples (1 to %1). The seed's MEG study: 1; Pincus "
                "suggests 1 or 2.")
                 .arg(kEntropyMaxM));
  m_->setRange(1, kEntropyMaxM);
  m_->setValue(1);
  r_ = named(new QDoubleSpinBox(this), "entropyR",
             tr("Tolerance r in SD units: each series is z-scored by its own mean and SD per "
                "epoch, and two templates match when their Chebyshev distance is <= r. Seed: "
                "0.2; Pincus: 0.1-0.25."));
  r_->setRange(0.0, 10.0);
  r_->setDecimals(3);
  r_->setSingleStep(0.05);
  r_->setValue(0.2);
  sd_ = named(new QComboBox(this), "entropySd",
              tr("The SD that z-scores each series: population (divide by N, default) or "
                 "sample (N - 1)."));
  sd_->addItem(tr("population (N)"), static_cast<int>(SdConvention::Population));
  sd_->addItem(tr("sample (N - 1)"), static_cast<int>(SdConvention::Sample));
  epoch_ = named(new QDoubleSpinBox(this), "entropyEpoch",
                 tr("Epoch length N: the selection is cut into consecutive disjoint epochs; "
                    "templates never cross an epoch boundary; a shorter tail is not used. "
                    "Values are comparable only at equal (m, r, N). Seed: 1024 samples."));
  epoch_->setRange(0.0, 1.0e7);
  epoch_->setDecimals(3);
  epoch_->setKeyboardTracking(false);
  epoch_->setValue(kDefaultEpochSamples);
  epochUnit_ = new QComboBox(this);
  epochUnit_->setObjectName(QStringLiteral("entropyEpochUnit"));
  epochUnit_->addItem(tr("samples"), static_cast<int>(EntropyEpochUnit::Samples));
  epochUnit_->addItem(tr("s"), static_cast<int>(EntropyEpochUnit::Seconds));
  epochUnit_->addItem(tr("whole selection"), static_cast<int>(EntropyEpochUnit::WholeSelection));
  epochCount_ = new QLabel(this);
  epochCount_->setObjectName(QStringLiteral("entropyEpochCount"));
  epochCount_->setForegroundRole(QPalette::PlaceholderText);
  bias_ = named(new QComboBox(this), "entropyBias",
                tr("The ln(0) correction of Cross-ApEn, when a template of u has no match in v "
                   "(never on the diagonal, where every template matches itself):\n"
                   "max (default): C_i^m = 0 -> 1 and C_i^(m+1) = 0 -> 1/(N-m+1): a template "
                   "with no match counts as maximal asynchrony, ln(N-m+1).\n"
                   "zero: C_i^m = C_i^(m+1) = 0 -> both 1 (the template contributes 0); "
                   "C_i^(m+1) = 0 alone -> 1/(N-m).\nThe seed used both. SampEn has no "
                   "correction: its undefined entries are NaN."));
  bias_->addItem(tr("max"), static_cast<int>(ApEnBias::Max));
  bias_->addItem(tr("zero"), static_cast<int>(ApEnBias::Zero));

  auto* epochRow = new QWidget(this);
  auto* epochLayout = new QHBoxLayout(epochRow);
  epochLayout->setContentsMargins(0, 0, 0, 0);
  epochLayout->addWidget(epoch_, 1);
  epochLayout->addWidget(epochUnit_);

  auto* box = new QGroupBox(tr("Entropy"), this);
  auto* form = new QFormLayout(box);
  form->addRow(tr("Measure:"), measure_);
  form->addRow(tr("Template length m:"), m_);
  form->addRow(tr("Tolerance r (SD):"), r_);
  form->addRow(tr("SD convention:"), sd_);
  form->addRow(tr("Epoch length:"), epochRow);
  form->addRow(QString(), epochCount_);
  form->addRow(tr("Bias (ln 0):"), bias_);
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
  for (QComboBox* c : {measure_, sd_, epochUnit_, bias_})
    connect(c, &QComboBox::currentIndexChanged, this, revalidate);
  connect(m_, &QSpinBox::valueChanged, this, revalidate);
  connect(r_, &QDoubleSpinBox::valueChanged, this, revalidate);
  connect(epoch_, &QDoubleSpinBox::valueChanged, this, revalidate);
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
      return std::max<int64_t>(1, std::llround(epoch_->value() * fs));
    }
    case EntropyEpochUnit::Samples:
      break;
  }
  return std::max<int64_t>(1, std::llround(epoch_->value()));
}

EntropyRequest EntropyDialog::request() const {
  EntropyRequest q;
  EntropyJobSpec& s = q.spec;
  s.channels = channels_->checkedChannels();
  s.params.measure = static_cast<EntropyMeasure>(measure_->currentData().toInt());
  s.params.m = m_->value();
  s.params.r = r_->value();
  s.params.sd = static_cast<SdConvention>(sd_->currentData().toInt());
  s.params.bias = static_cast<ApEnBias>(bias_->currentData().toInt());
  s.params.epochSamples = epochSamples();
  s.startSeconds = range_->startSeconds();
  s.durationSeconds = range_->durationSeconds();
  q.backend = range_->backend();
  return q;
}

void EntropyDialog::setParams(const EntropyParams& p) {
  filling_ = true;
  measure_->setCurrentIndex(measure_->findData(static_cast<int>(p.measure)));
  m_->setValue(p.m);
  r_->setValue(p.r);
  sd_->setCurrentIndex(sd_->findData(static_cast<int>(p.sd)));
  bias_->setCurrentIndex(bias_->findData(static_cast<int>(p.bias)));
  filling_ = false;
  validate();
}

void EntropyDialog::setEpoch(double value, EntropyEpochUnit unit) {
  filling_ = true;
  epochUnit_->setCurrentIndex(epochUnit_->findData(static_cast<int>(unit)));
  epoch_->setValue(value);
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
  epoch_->setEnabled(!whole);
  bias_->setEnabled(q.spec.params.measure == EntropyMeasure::ApproximateEntropy);
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
