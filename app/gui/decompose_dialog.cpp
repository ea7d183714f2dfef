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

QComboBox* combo(QWidget* parent, const QString& name, const QString& tip) {
  auto* c = new QComboBox(parent);
  c->setObjectName(name);
  c->setToolTip(tip);
  return c;
}

}  // namespace

// The stop rule's fields (signal or noise EMD) in a group box, laid out as emd.m names them.
QGroupBox* DecomposeDialog::makeStopRuleBox(const std::string& key, QWidget* parent) {
  auto* box = new QGroupBox(parent);
  auto* form = new QFormLayout(box);
  auto* thresholds = new QHBoxLayout;
  for (const char* field : {".threshold1", ".threshold2", ".tolerance"})
    thresholds->addWidget(fields_.editor(key + field));
  form->addRow(tr("Rule:"), fields_.editor(key + ".kind"));
  form->addRow(tr("theta1 / theta2 / alpha:"), thresholds);
  form->addRow(tr("Max sifts:"), fields_.editor(key + ".maxSifts"));
  form->addRow(tr("Fixed sifts:"), fields_.editor(key + ".fixedSifts"));
  form->addRow(tr("S-number:"), fields_.editor(key + ".sNumber"));
  return box;
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

  // The method's fields, produced from their declarations (emdParamTable()).
  fields_.build(emdParamTable(), this);
  method_ = fields_.editorAs<QComboBox>("method");
  preset_ = combo(this, QStringLiteral("preset"),
                  tr("Named parameter sets reproducing the reference codes; choosing one fills "
                     "every field. Editing a field afterwards makes the set custom."));
  addPresetItems(preset_, presets_);
  presetNote_ = new QLabel(this);
  presetNote_->setObjectName(QStringLiteral("presetNote"));
  presetNote_->setWordWrap(true);
  presetNote_->setStyleSheet(QStringLiteral("color: palette(mid)"));

  auto* ensembleBox = new QGroupBox(tr("Ensemble (EEMD, CEEMDAN, ICEEMDAN)"), this);
  auto* ensembleForm = new QFormLayout(ensembleBox);
  ensembleForm->addRow(tr("Noise std:"), fields_.editor("noiseStd"));
  ensembleForm->addRow(tr("Ensemble size:"), fields_.editor("ensembleSize"));
  ensembleForm->addRow(QString(), fields_.editor("pairedNoise"));
  ensembleForm->addRow(tr("Noise scaling:"), fields_.editor("noiseScaling"));
  ensembleForm->addRow(tr("Seed:"), fields_.editor("seed"));

  // Sifting.
  QGroupBox* stopBox = makeStopRuleBox("stop", this);
  stopBox->setTitle(tr("Sifting stop rule (signal)"));
  QGroupBox* noiseStopBox = makeStopRuleBox("noiseStop", this);
  noiseStopBox->setTitle(tr("Stop rule for the noise EMD"));
  noiseStopBox->setToolTip(
      tr("Full EMD of every noise realization, whose IMFs E_k(w) are "
         "added at stage k. iceemdan.m uses emd.m's defaults here "
         "(Rilling, 2000 sifts) whatever MaxIter is."));
  auto* siftBox = new QGroupBox(tr("Modes"), this);
  auto* siftForm = new QFormLayout(siftBox);
  siftForm->addRow(tr("Max IMFs:"), fields_.editor("maxImfs"));
  siftForm->addRow(tr("GPU precision:"), fields_.editor("gpuPrecision"));

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

  // Hilbert spectrum: editors from hhtParamTable(). The instantaneous series are always kept
  // here (the IMF stack shows instantaneous frequencies on demand), so that editor is not shown.
  hhtFields_.build(hhtParamTable(), this);
  hhtFields_.set(HhtParams{});
  hhtFields_.editor("keepInstantaneous")->hide();
  auto* hhtBox = new QGroupBox(tr("Hilbert spectrum"), this);
  auto* hhtForm = new QFormLayout(hhtBox);
  auto* fRow = new QHBoxLayout;
  fRow->addWidget(hhtFields_.editor("fMin"));
  fRow->addWidget(new QLabel(tr("to"), this));
  fRow->addWidget(hhtFields_.editor("fMax"));
  hhtForm->addRow(tr("Frequency:"), fRow);
  hhtForm->addRow(tr("Bins:"), hhtFields_.editor("frequencyBins"));
  hhtForm->addRow(QString(), hhtFields_.editor("logFrequency"));
  hhtForm->addRow(tr("Quantity:"), hhtFields_.editor("quantity"));
  hhtForm->addRow(tr("Time bins:"), hhtFields_.editor("timeBins"));
  hhtForm->addRow(tr("Leave out at the ends:"), hhtFields_.editor("edgeSeconds"));
  hhtFields_.onChanged(this, [this] { onFieldChanged(); });

  fields_.onChanged(this, [this] { onFieldChanged(); });
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
  middle->addWidget(stopBox);
  middle->addWidget(noiseStopBox);
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

EmdParams DecomposeDialog::params() const { return fields_.get(); }

HhtParams DecomposeDialog::hhtParams() const {
  HhtParams h = hhtFields_.get();
  h.keepInstantaneous = true;  // the IMF stack shows instantaneous frequencies on demand
  return h;
}

void DecomposeDialog::setParams(const EmdParams& p) {
  const bool wasFilling = filling_;
  filling_ = true;
  fields_.set(p);
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

void DecomposeDialog::updateEnabled() { fields_.enableApplicable(params()); }

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
    if (problem.isEmpty()) problem = hhtFields_.problem(r.hht);
    if (problem.isEmpty()) {
      // The engine's own rules for this block (Nyquist, edges, time bins), word for word.
      try {
        checkHhtForBlock(r.hht, rate, static_cast<int64_t>(std::floor(seconds * rate)));
      } catch (const std::exception& e) {
        problem = tr("Hilbert spectrum: %1").arg(QString::fromUtf8(e.what()));
      }
    }
  }
  if (problem.isEmpty()) problem = fields_.problem(r.params);
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
  static_cast<RequestSelection&>(r) = range_->selection(*channels_);
  r.presetName = currentPresetName().toStdString();
  return r;
}

void DecomposeDialog::accept() {
  validate();
  if (!problem_.isEmpty()) return;
  QDialog::accept();
}

}  // namespace modescope
