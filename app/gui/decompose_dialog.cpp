#include "app/gui/decompose_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "app/gui/channel_checklist.h"
#include "app/gui/dialog_parts.h"
#include "app/gui/range_backend_box.h"
#include "engine/core/error.h"

namespace modescope {
namespace {

const char kPreferredPreset[] = "iceemdan-colominas";

bool sameStop(const StopRule& a, const StopRule& b) {
  return a.kind == b.kind && a.threshold1 == b.threshold1 && a.threshold2 == b.threshold2 &&
         a.tolerance == b.tolerance && a.maxSifts == b.maxSifts && a.fixedSifts == b.fixedSifts &&
         a.sNumber == b.sNumber;
}

bool sameParams(const EmdParams& a, const EmdParams& b) {
  return a.method == b.method && sameStop(a.stop, b.stop) && sameStop(a.noiseStop, b.noiseStop) &&
         a.maxImfs == b.maxImfs && a.ensembleSize == b.ensembleSize && a.noiseStd == b.noiseStd &&
         a.seed == b.seed && a.noiseScaling == b.noiseScaling && a.pairedNoise == b.pairedNoise &&
         a.gpuPrecision == b.gpuPrecision;
}

QDoubleSpinBox* doubleSpin(QWidget* parent, const QString& name, double lo, double hi, int decimals,
                           double step, const QString& suffix, const QString& tip) {
  auto* s = new QDoubleSpinBox(parent);
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setDecimals(decimals);
  s->setSingleStep(step);
  s->setSuffix(suffix);
  s->setToolTip(tip);
  s->setKeyboardTracking(false);
  return s;
}

QSpinBox* intSpin(QWidget* parent, const QString& name, int lo, int hi, const QString& suffix,
                  const QString& tip) {
  auto* s = new QSpinBox(parent);
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setSuffix(suffix);
  s->setToolTip(tip);
  s->setKeyboardTracking(false);
  return s;
}

QComboBox* combo(QWidget* parent, const QString& name, const QString& tip) {
  auto* c = new QComboBox(parent);
  c->setObjectName(name);
  c->setToolTip(tip);
  return c;
}

void selectData(QComboBox* c, int value) {
  const int i = c->findData(value);
  if (i >= 0) c->setCurrentIndex(i);
}

}  // namespace

struct DecomposeDialog::StopRuleFields {
  QGroupBox* box = nullptr;
  QComboBox* kind = nullptr;
  QDoubleSpinBox* threshold1 = nullptr;
  QDoubleSpinBox* threshold2 = nullptr;
  QDoubleSpinBox* tolerance = nullptr;
  QSpinBox* maxSifts = nullptr;
  QSpinBox* fixedSifts = nullptr;
  QSpinBox* sNumber = nullptr;

  StopRule get() const {
    StopRule r;
    r.kind = static_cast<StopRuleKind>(kind->currentData().toInt());
    r.threshold1 = threshold1->value();
    r.threshold2 = threshold2->value();
    r.tolerance = tolerance->value();
    r.maxSifts = maxSifts->value();
    r.fixedSifts = fixedSifts->value();
    r.sNumber = sNumber->value();
    return r;
  }
  void set(const StopRule& r) {
    selectData(kind, static_cast<int>(r.kind));
    threshold1->setValue(r.threshold1);
    threshold2->setValue(r.threshold2);
    tolerance->setValue(r.tolerance);
    maxSifts->setValue(r.maxSifts);
    fixedSifts->setValue(r.fixedSifts);
    sNumber->setValue(r.sNumber);
  }
  void updateEnabled(bool on) {
    box->setEnabled(on);
    const auto k = static_cast<StopRuleKind>(kind->currentData().toInt());
    threshold1->setEnabled(k == StopRuleKind::Rilling);
    threshold2->setEnabled(k == StopRuleKind::Rilling);
    tolerance->setEnabled(k == StopRuleKind::Rilling);
    maxSifts->setEnabled(k != StopRuleKind::FixedSifts);
    fixedSifts->setEnabled(k == StopRuleKind::FixedSifts);
    sNumber->setEnabled(k == StopRuleKind::SNumber);
  }
};

DecomposeDialog::StopRuleFields* DecomposeDialog::makeStopRuleFields(const QString& prefix,
                                                                     QWidget* parent) {
  auto* f = new StopRuleFields;
  f->box = new QGroupBox(parent);
  f->kind = combo(f->box, prefix + QStringLiteral("Kind"),
                  tr("How sifting decides that a candidate is an IMF (Rilling/Flandrin emd.m's "
                     "three modes)."));
  f->kind->addItem(tr("Rilling thresholds"), static_cast<int>(StopRuleKind::Rilling));
  f->kind->addItem(tr("Fixed number of sifts"), static_cast<int>(StopRuleKind::FixedSifts));
  f->kind->addItem(tr("S-number"), static_cast<int>(StopRuleKind::SNumber));
  f->kind->setItemData(0,
                       tr("Rilling, Flandrin and Goncalves 2003: with sigma = |mean envelope| / "
                          "envelope amplitude, sift while more than a fraction alpha of samples "
                          "have sigma > theta1 or any has sigma > theta2 (emd.m default)."),
                       Qt::ToolTipRole);
  f->kind->setItemData(1,
                       tr("Exactly S sifts per IMF (emd.m 'FIX'); the thesis's GPU benchmarks use "
                          "S = 10 or 50 for a fair comparison with libeemd."),
                       Qt::ToolTipRole);
  f->kind->setItemData(2,
                       tr("Huang et al. 2003 (emd.m 'FIX_H'): stop once the numbers of zero "
                          "crossings and extrema differ by at most one for S consecutive sifts."),
                       Qt::ToolTipRole);
  f->threshold1 = doubleSpin(f->box, prefix + QStringLiteral("Threshold1"), 0.0, 10.0, 3, 0.01, {},
                             tr("theta1 of Rilling et al. 2003 (emd.m default 0.05): the "
                                "sigma most samples must stay under. Dimensionless."));
  f->threshold2 = doubleSpin(f->box, prefix + QStringLiteral("Threshold2"), 0.0, 10.0, 3, 0.05, {},
                             tr("theta2 of Rilling et al. 2003 (emd.m default 0.5): the "
                                "sigma no sample may exceed. Dimensionless."));
  f->tolerance = doubleSpin(f->box, prefix + QStringLiteral("Tolerance"), 0.0, 1.0, 3, 0.01, {},
                            tr("alpha of Rilling et al. 2003 (emd.m default 0.05): the fraction "
                               "of samples allowed above theta1."));
  f->maxSifts = intSpin(f->box, prefix + QStringLiteral("MaxSifts"), 1, 1000000, tr(" sifts"),
                        tr("Iteration cap per IMF for the Rilling and S-number rules (emd.m "
                           "MAXITERATIONS, default 2000; iceemdan.m MaxIter)."));
  f->fixedSifts = intSpin(f->box, prefix + QStringLiteral("FixedSifts"), 1, 100000, tr(" sifts"),
                          tr("Sifts per IMF for the fixed rule (the thesis's S)."));
  f->sNumber = intSpin(f->box, prefix + QStringLiteral("SNumber"), 1, 1000, tr(" sifts"),
                       tr("Consecutive sifts the zero-crossing condition must hold (Huang et al. "
                          "2003 recommend 3 to 5)."));
  auto* form = new QFormLayout(f->box);
  form->addRow(tr("Rule:"), f->kind);
  auto* thresholds = new QHBoxLayout;
  thresholds->addWidget(f->threshold1);
  thresholds->addWidget(f->threshold2);
  thresholds->addWidget(f->tolerance);
  form->addRow(tr("theta1 / theta2 / alpha:"), thresholds);
  form->addRow(tr("Max sifts:"), f->maxSifts);
  form->addRow(tr("Fixed sifts:"), f->fixedSifts);
  form->addRow(tr("S-number:"), f->sNumber);
  connect(f->kind, &QComboBox::currentIndexChanged, this, &DecomposeDialog::onFieldChanged);
  for (QDoubleSpinBox* s : {f->threshold1, f->threshold2, f->tolerance})
    connect(s, &QDoubleSpinBox::valueChanged, this, &DecomposeDialog::onFieldChanged);
  for (QSpinBox* s : {f->maxSifts, f->fixedSifts, f->sNumber})
    connect(s, &QSpinBox::valueChanged, this, &DecomposeDialog::onFieldChanged);
  return f;
}

DecomposeDialog::DecomposeDialog(std::shared_ptr<const Recording> recording,
                                 const std::vector<int>& selected, double startSeconds,
                                 double durationSeconds, std::vector<EmdPreset> presets,
                                 EmdParamsValidator validator, QWidget* parent)
    : QDialog(parent),
      recording_(std::move(recording)),
      presets_(std::move(presets)),
      validator_(std::move(validator)) {
  setWindowTitle(tr("Decompose (EMD family)"));
  filling_ = true;
  const Recording& rec = *recording_;

  // Method and preset.
  method_ = combo(this, QStringLiteral("method"),
                  tr("EMD: Huang et al. 1998, sifting of Rilling, Flandrin and Goncalves 2003.\n"
                     "EEMD: Wu and Huang 2009 (ensemble of noisy copies, averaged IMFs).\n"
                     "CEEMDAN: Torres et al. 2011 (one IMF at a time, averaged over the "
                     "ensemble).\nICEEMDAN: Colominas, Schlotthauer and Torres 2014 (noise IMFs, "
                     "local means; iceemdan.m)."));
  method_->addItem(QStringLiteral("EMD"), static_cast<int>(EmdMethod::Emd));
  method_->addItem(QStringLiteral("EEMD"), static_cast<int>(EmdMethod::Eemd));
  method_->addItem(QStringLiteral("CEEMDAN"), static_cast<int>(EmdMethod::Ceemdan));
  method_->addItem(QStringLiteral("ICEEMDAN"), static_cast<int>(EmdMethod::Iceemdan));
  preset_ = combo(this, QStringLiteral("preset"),
                  tr("Named parameter sets reproducing the reference codes; choosing one fills "
                     "every field. Editing a field afterwards makes the set custom."));
  addPresetItems(preset_, presets_);
  presetNote_ = new QLabel(this);
  presetNote_->setObjectName(QStringLiteral("presetNote"));
  presetNote_->setWordWrap(true);
  presetNote_->setStyleSheet(QStringLiteral("color: palette(mid)"));

  // Ensemble.
  noiseStd_ = doubleSpin(this, QStringLiteral("noiseStd"), 0.0, 10.0, 3, 0.05, tr(" \u00d7 std(x)"),
                         tr("epsilon_0: standard deviation of the added noise relative to the "
                            "signal's std(x) (iceemdan.m Nstd; 0.2 in Wu and Huang 2009 and in "
                            "the reference ICEEMDAN runs). ICEEMDAN scales it per stage: beta_0 "
                            "= eps_0 / std(E_1(w)), beta_k = eps_0 std(r_k)."));
  ensemble_ = intSpin(this, QStringLiteral("ensembleSize"), 1, 100000, tr(" members"),
                      tr("I: number of noise realizations averaged (iceemdan.m NR; Wu and Huang "
                         "2009 use 100, the thesis benchmarks 100 to 500). Time grows linearly "
                         "with it; the residual noise falls as 1/sqrt(I)."));
  paired_ = new QCheckBox(tr("Paired noise (+w and \u2212w)"), this);
  paired_->setObjectName(QStringLiteral("pairedNoise"));
  paired_->setToolTip(
      tr("EEMD only: complementary EEMD (Yeh, Shieh and Huang 2010) adds each "
         "noise realization with both signs so it cancels exactly in the "
         "average; the ensemble size must be even."));
  noiseScaling_ = combo(this, QStringLiteral("noiseScaling"),
                        tr("ICEEMDAN only (iceemdan.m SNRFlag). Increasing (1, default, the 2014 "
                           "paper): beta_k E_k(w) with E_k not re-normalised, so the SNR grows "
                           "with the stage. Constant (2): E_k(w) scaled to unit std first."));
  noiseScaling_->addItem(tr("Increasing SNR (SNRFlag 1)"),
                         static_cast<int>(NoiseScaling::Increasing));
  noiseScaling_->addItem(tr("Constant SNR (SNRFlag 2)"), static_cast<int>(NoiseScaling::Constant));
  seed_ = new QLineEdit(this);
  seed_->setObjectName(QStringLiteral("seed"));
  seed_->setValidator(
      new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,20}")), seed_));
  seed_->setToolTip(
      tr("Key of the counter-based Philox-4x32-10 generator (Salmon et al. 2011): "
         "the noise of member m, channel c, sample n depends only on (seed, c, m, "
         "n), so CPU and GPU add the same noise and a run can be repeated exactly."));
  auto* ensembleBox = new QGroupBox(tr("Ensemble (EEMD, CEEMDAN, ICEEMDAN)"), this);
  auto* ensembleForm = new QFormLayout(ensembleBox);
  ensembleForm->addRow(tr("Noise std:"), noiseStd_);
  ensembleForm->addRow(tr("Ensemble size:"), ensemble_);
  ensembleForm->addRow(QString(), paired_);
  ensembleForm->addRow(tr("Noise scaling:"), noiseScaling_);
  ensembleForm->addRow(tr("Seed:"), seed_);

  // Sifting.
  maxImfs_ = intSpin(this, QStringLiteral("maxImfs"), 0, 64, tr(" IMFs"),
                     tr("Maximum number of IMFs (the residue is an extra row). Automatic: until "
                        "the residue has fewer than 3 extrema or, for CEEMDAN/ICEEMDAN, is itself "
                        "an IMF (iceemdan.m). The thesis's GPU runs use 12."));
  maxImfs_->setSpecialValueText(tr("automatic"));
  precision_ = combo(this, QStringLiteral("gpuPrecision"),
                     tr("Arithmetic of the CUDA backend: float32 as the thesis's GPU code, or "
                        "float64 as the MATLAB reference. The CPU backend always uses double."));
  precision_->addItem(tr("float32"), static_cast<int>(GpuPrecision::Float32));
  precision_->addItem(tr("float64"), static_cast<int>(GpuPrecision::Float64));
  stop_ = makeStopRuleFields(QStringLiteral("stop"), this);
  stop_->box->setTitle(tr("Sifting stop rule (signal)"));
  noiseStop_ = makeStopRuleFields(QStringLiteral("noiseStop"), this);
  noiseStop_->box->setTitle(tr("Stop rule for the noise EMD"));
  noiseStop_->box->setToolTip(
      tr("Full EMD of every noise realization, whose IMFs E_k(w) are "
         "added at stage k. iceemdan.m uses emd.m's defaults here "
         "(Rilling, 2000 sifts) whatever MaxIter is."));
  auto* siftBox = new QGroupBox(tr("Modes"), this);
  auto* siftForm = new QFormLayout(siftBox);
  siftForm->addRow(tr("Max IMFs:"), maxImfs_);
  siftForm->addRow(tr("GPU precision:"), precision_);

  // Channels.
  channels_ = new ChannelChecklist(*recording_, selected, this);
  connect(channels_, &ChannelChecklist::changed, this, &DecomposeDialog::onFieldChanged);

  // Time range and backend.
  range_ = new RangeBackendBox(
      rec.duration(), startSeconds, durationSeconds,
      tr("Start of the decomposed range, seconds from the recording start."),
      tr("Length of the decomposed range. EMD-family cost grows with the samples times the "
         "ensemble size; a few tens of seconds of EEG are quick on the GPU."),
      this);
  connect(range_, &RangeBackendBox::changed, this, &DecomposeDialog::onFieldChanged);

  // Hilbert spectrum.
  fMin_ = doubleSpin(this, QStringLiteral("fMin"), 0.0, 1e6, 2, 0.5, tr(" Hz"),
                     tr("Lower edge of the first frequency bin (must be above 0 Hz on a "
                        "logarithmic axis)."));
  fMax_ = doubleSpin(this, QStringLiteral("fMax"), 0.0, 1e6, 2, 1.0, tr(" Hz"),
                     tr("Upper edge of the last frequency bin; Nyquist = half the sample rate."));
  fMax_->setSpecialValueText(tr("Nyquist"));
  bins_ = intSpin(this, QStringLiteral("frequencyBins"), 1, 4096, tr(" bins"),
                  tr("Rows of the Hilbert spectrum (frequency resolution)."));
  logFrequency_ = new QCheckBox(tr("Logarithmic frequency bins"), this);
  logFrequency_->setObjectName(QStringLiteral("logFrequency"));
  logFrequency_->setToolTip(
      tr("Geometric bin edges between the lowest and highest frequency: "
         "equal resolution per octave, as EEG bands are laid out."));
  quantity_ = combo(this, QStringLiteral("quantity"),
                    tr("Amplitude: the instantaneous amplitude a(t) of each IMF is added to the "
                       "bin of its instantaneous frequency (Huang et al. 1998). Energy: a(t)^2."));
  quantity_->addItem(tr("Amplitude"), static_cast<int>(HhtQuantity::Amplitude));
  quantity_->addItem(tr("Energy"), static_cast<int>(HhtQuantity::Energy));
  edge_ = doubleSpin(this, QStringLiteral("edgeSeconds"), 0.0, 3600.0, 3, 0.1, tr(" s"),
                     tr("Left out of the spectrum, marginal and IMF summaries at both ends: the "
                        "FFT Hilbert transform's edge error lives there."));
  timeBins_ = intSpin(this, QStringLiteral("timeBins"), 0, 100000, tr(" bins"),
                      tr("Columns of the Hilbert spectrum; automatic = one per sample up to "
                         "2048."));
  timeBins_->setSpecialValueText(tr("automatic"));
  HhtParams hhtDefaults;
  fMin_->setValue(hhtDefaults.fMin);
  fMax_->setValue(hhtDefaults.fMax);
  bins_->setValue(hhtDefaults.frequencyBins);
  logFrequency_->setChecked(hhtDefaults.logFrequency);
  edge_->setValue(hhtDefaults.edgeSeconds);
  timeBins_->setValue(hhtDefaults.timeBins);
  auto* hhtBox = new QGroupBox(tr("Hilbert spectrum"), this);
  auto* hhtForm = new QFormLayout(hhtBox);
  auto* fRow = new QHBoxLayout;
  fRow->addWidget(fMin_);
  fRow->addWidget(new QLabel(tr("to"), this));
  fRow->addWidget(fMax_);
  hhtForm->addRow(tr("Frequency:"), fRow);
  hhtForm->addRow(tr("Bins:"), bins_);
  hhtForm->addRow(QString(), logFrequency_);
  hhtForm->addRow(tr("Quantity:"), quantity_);
  hhtForm->addRow(tr("Time bins:"), timeBins_);
  hhtForm->addRow(tr("Leave out at the ends:"), edge_);
  for (QDoubleSpinBox* s : {fMin_, fMax_, edge_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &DecomposeDialog::onFieldChanged);
  for (QSpinBox* s : {bins_, timeBins_})
    connect(s, &QSpinBox::valueChanged, this, &DecomposeDialog::onFieldChanged);
  connect(logFrequency_, &QCheckBox::toggled, this, &DecomposeDialog::onFieldChanged);

  connect(method_, &QComboBox::currentIndexChanged, this, &DecomposeDialog::onFieldChanged);
  connect(noiseStd_, &QDoubleSpinBox::valueChanged, this, &DecomposeDialog::onFieldChanged);
  connect(ensemble_, &QSpinBox::valueChanged, this, &DecomposeDialog::onFieldChanged);
  connect(paired_, &QCheckBox::toggled, this, &DecomposeDialog::onFieldChanged);
  connect(noiseScaling_, &QComboBox::currentIndexChanged, this, &DecomposeDialog::onFieldChanged);
  connect(seed_, &QLineEdit::textChanged, this, &DecomposeDialog::onFieldChanged);
  connect(maxImfs_, &QSpinBox::valueChanged, this, &DecomposeDialog::onFieldChanged);
  connect(precision_, &QComboBox::currentIndexChanged, this, &DecomposeDialog::onFieldChanged);
  connect(preset_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (filling_ || index <= 0) return;
    applyPreset(preset_->itemData(index).toString());
  });

  const RunFooter footer = makeRunFooter(this, QStringLiteral("validationMessage"), false);
  error_ = footer.error;
  run_ = footer.run;
  QDialogButtonBox* buttons = footer.buttons;

  auto* top = new QFormLayout;
  top->addRow(tr("Method:"), method_);
  top->addRow(tr("Preset:"), preset_);
  top->addRow(QString(), presetNote_);
  auto* left = new QVBoxLayout;
  left->addLayout(top);
  left->addWidget(ensembleBox);
  left->addWidget(siftBox);
  left->addStretch(1);
  auto* middle = new QVBoxLayout;
  middle->addWidget(stop_->box);
  middle->addWidget(noiseStop_->box);
  middle->addWidget(hhtBox);
  middle->addStretch(1);
  auto* right = new QVBoxLayout;
  right->addWidget(channels_, 1);
  right->addWidget(range_);
  auto* columns = new QHBoxLayout;
  columns->addLayout(left);
  columns->addLayout(middle);
  columns->addLayout(right, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(columns, 1);
  layout->addWidget(error_);
  layout->addWidget(buttons);

  filling_ = false;
  int initial = -1;
  for (std::size_t i = 0; i < presets_.size(); ++i) {
    if (presets_[i].name == kPreferredPreset) initial = static_cast<int>(i);
  }
  if (initial < 0 && !presets_.empty()) initial = 0;
  if (initial >= 0) {
    applyPreset(QString::fromStdString(presets_[static_cast<std::size_t>(initial)].name));
  } else {
    setParams(EmdParams{});
  }
}

EmdParams DecomposeDialog::params() const {
  EmdParams p;
  p.method = static_cast<EmdMethod>(method_->currentData().toInt());
  p.stop = stop_->get();
  p.noiseStop = noiseStop_->get();
  p.maxImfs = maxImfs_->value();
  p.ensembleSize = ensemble_->value();
  p.noiseStd = noiseStd_->value();
  p.seed = seed_->text().toULongLong();
  p.noiseScaling = static_cast<NoiseScaling>(noiseScaling_->currentData().toInt());
  p.pairedNoise = paired_->isChecked();
  p.gpuPrecision = static_cast<GpuPrecision>(precision_->currentData().toInt());
  return p;
}

HhtParams DecomposeDialog::hhtParams() const {
  HhtParams h;
  h.fMin = fMin_->value();
  h.fMax = fMax_->value();
  h.frequencyBins = bins_->value();
  h.logFrequency = logFrequency_->isChecked();
  h.timeBins = timeBins_->value();
  h.quantity = static_cast<HhtQuantity>(quantity_->currentData().toInt());
  h.edgeSeconds = edge_->value();
  h.keepInstantaneous = true;  // the IMF stack shows instantaneous frequencies on demand
  return h;
}

void DecomposeDialog::setParams(const EmdParams& p) {
  const bool wasFilling = filling_;
  filling_ = true;
  selectData(method_, static_cast<int>(p.method));
  stop_->set(p.stop);
  noiseStop_->set(p.noiseStop);
  maxImfs_->setValue(p.maxImfs);
  ensemble_->setValue(p.ensembleSize);
  noiseStd_->setValue(p.noiseStd);
  seed_->setText(QString::number(p.seed));
  selectData(noiseScaling_, static_cast<int>(p.noiseScaling));
  paired_->setChecked(p.pairedNoise);
  selectData(precision_, static_cast<int>(p.gpuPrecision));
  filling_ = wasFilling;
  onFieldChanged();
}

bool DecomposeDialog::applyPreset(const QString& name) {
  for (const EmdPreset& p : presets_) {
    if (QString::fromStdString(p.name) != name) continue;
    setParams(p.params);  // onFieldChanged() then finds the matching preset and selects it
    return true;
  }
  return false;
}

QString DecomposeDialog::currentPresetName() const { return preset_->currentData().toString(); }

void DecomposeDialog::onFieldChanged() {
  if (filling_) return;
  // The preset combo names the preset the fields equal, or Custom.
  const EmdParams p = params();
  const int match = matchingPresetIndex(
      presets_, [&p](const EmdPreset& preset) { return sameParams(p, preset.params); });
  showPresetMatch(preset_, presetNote_, presets_, match, tr("Custom parameters"));
  updateEnabled();
  validate();
}

void DecomposeDialog::updateEnabled() {
  const auto m = static_cast<EmdMethod>(method_->currentData().toInt());
  const bool ensemble = m != EmdMethod::Emd;
  for (QWidget* w : std::initializer_list<QWidget*>{noiseStd_, ensemble_, seed_})
    w->setEnabled(ensemble);
  paired_->setEnabled(m == EmdMethod::Eemd);
  noiseScaling_->setEnabled(m == EmdMethod::Iceemdan);
  stop_->updateEnabled(true);
  // Only CEEMDAN and ICEEMDAN decompose the noise itself.
  noiseStop_->updateEnabled(m == EmdMethod::Ceemdan || m == EmdMethod::Iceemdan);
}

double DecomposeDialog::selectionSampleRate() const {
  double rate = 0;
  for (const std::size_t i : channels_->checkedChannels()) {
    const double r = recording_->channels[i].sampleRate;
    if (rate == 0) {
      rate = r;
    } else if (r != rate) {
      return 0;
    }
  }
  return rate;
}

void DecomposeDialog::validate() {
  QString problem;
  const DecomposeRequest r = request();
  if (r.channels.empty()) {
    problem = tr("Select at least one channel.");
  } else if (selectionSampleRate() == 0) {
    problem =
        tr("The selected channels have different sample rates; select channels that share "
           "one.");
  }
  const double rate = selectionSampleRate();
  if (problem.isEmpty() && rate > 0) {
    const double available = recording_->duration() - r.startSeconds;
    const double seconds =
        r.durationSeconds < 0 ? available : std::min(available, r.durationSeconds);
    if (seconds * rate < static_cast<double>(kEmdMinSamples)) {
      problem = tr("The time range holds %1 samples; the decomposition needs at least %2.")
                    .arg(std::max(0.0, std::floor(seconds * rate)))
                    .arg(kEmdMinSamples);
    }
    const HhtParams& h = r.hht;
    const double nyquist = rate / 2;
    if (!problem.isEmpty()) {
    } else if (h.fMax > nyquist) {
      problem = tr("Hilbert spectrum: the highest frequency %1 Hz is above Nyquist (%2 Hz); "
                   "lower it or choose Nyquist.")
                    .arg(h.fMax)
                    .arg(nyquist);
    } else if ((h.fMax > 0 ? h.fMax : nyquist) <= h.fMin) {
      problem =
          tr("Hilbert spectrum: the lowest frequency %1 Hz must be below the highest.").arg(h.fMin);
    } else if (h.logFrequency && h.fMin <= 0) {
      problem =
          tr("Hilbert spectrum: logarithmic bins need a lowest frequency above 0 Hz "
             "(e.g. 0.5 Hz).");
    } else if (2 * h.edgeSeconds >= seconds) {
      problem = tr("Hilbert spectrum: leaving out %1 s at each end leaves nothing of a %2 s "
                   "range.")
                    .arg(h.edgeSeconds)
                    .arg(seconds);
    }
  }
  if (problem.isEmpty() && seed_->text().isEmpty()) problem = tr("Enter a seed (0 or more).");
  if (problem.isEmpty() && validator_) {
    try {
      validator_(r.params);
    } catch (const std::exception& e) {
      problem = QString::fromUtf8(e.what());
    }
  }
  problem_ = problem;
  showValidation(error_, run_, problem);
}

DecomposeRequest DecomposeDialog::request() const {
  DecomposeRequest r;
  r.params = params();
  r.hht = hhtParams();
  r.channels = channels_->checkedChannels();
  r.startSeconds = range_->startSeconds();
  r.durationSeconds = range_->durationSeconds();
  r.backend = range_->backend();
  r.presetName = currentPresetName().toStdString();
  return r;
}

void DecomposeDialog::accept() {
  validate();
  if (!problem_.isEmpty()) return;
  QDialog::accept();
}

}  // namespace modescope
