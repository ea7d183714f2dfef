#include "app/gui/ica_dialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <utility>

#include "app/gui/channel_checklist.h"
#include "app/gui/dialog_parts.h"
#include "app/gui/range_backend_box.h"
#include "engine/core/error.h"
#include "engine/ica/ica_rank.h"
#include "engine/ica/infomax.h"
#include "widgets/param_editor.h"

namespace modescope {
namespace {

const char kDefaultPreset[] = "eeglab-runica";
// The rank proposal reads at most this much of the selection: rank deficiency (a common
// reference, interpolated or bridged channels) shows in any stretch with several samples per
// channel, and the dialog stays quick (the covariance costs channels^2 x samples: 256 channels
// at 1 kHz would take seconds for a whole minute).
constexpr double kRankProbeSeconds = 60.0;
constexpr double kRankProbeSamples = 20000.0;

// The fields the dialog shows, compared to say whether they still equal a preset.
bool sameShownFields(const IcaParams& a, const IcaParams& b) {
  return a.extended == b.extended && a.learningRate == b.learningRate &&
         a.blockSize == b.blockSize && a.maxSteps == b.maxSteps &&
         a.stopTolerance == b.stopTolerance && a.pcaRank == b.pcaRank && a.seed == b.seed;
}

}  // namespace

IcaDialog::IcaDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
                     double startSeconds, double durationSeconds, BackendChoice menuBackend,
                     QWidget* parent)
    : QDialog(parent), recording_(std::move(recording)), menuBackend_(menuBackend) {
  setWindowTitle(tr("Independent components (Infomax ICA)"));
  filling_ = true;
  const Recording& rec = *recording_;

  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("icaPreset"));
  preset_->setToolTip(
      tr("Named parameter sets: eeglab-runica is EEGLAB's pop_runica default call "
         "(runica 'extended', 1); mne-infomax is mne.preprocessing.infomax()'s defaults after "
         "PCA whitening. Choosing one fills every field; editing a field makes the set custom."));
  addPresetItems(preset_, icaPresets());
  presetNote_ = new QLabel(this);
  presetNote_->setObjectName(QStringLiteral("icaPresetNote"));
  presetNote_->setWordWrap(true);
  presetNote_->setForegroundRole(QPalette::PlaceholderText);

  // The fields come from their declarations (icaParamTable()): range, "automatic", unit, help.
  const ParamTable<IcaParams>& table = icaParamTable();
  auto editor = [&](const char* key) {
    return makeParamEditor(table.find(key)->decl, this, "ica");
  };
  extended_ = qobject_cast<QCheckBox*>(editor("extended"));
  learningRate_ = qobject_cast<QDoubleSpinBox*>(editor("learningRate"));
  blockSize_ = qobject_cast<QSpinBox*>(editor("blockSize"));
  maxSteps_ = qobject_cast<QSpinBox*>(editor("maxSteps"));
  stopTolerance_ = new QLineEdit(this);
  stopTolerance_->setObjectName(QStringLiteral("icaStopTolerance"));
  stopTolerance_->setToolTip(
      tr("Converged when the squared weight change ||W_k - W_k-1||^2 of a step falls below this "
         "(dimensionless). Empty or 0: auto, runica 1e-6 (1e-7 above 32 components), MNE "
         "1e-12."));
  stopTolerance_->setPlaceholderText(tr("auto"));
  auto* tolValidator = new QDoubleValidator(0.0, 1.0, 20, stopTolerance_);
  tolValidator->setNotation(QDoubleValidator::ScientificNotation);
  tolValidator->setLocale(QLocale::c());
  stopTolerance_->setValidator(tolValidator);
  pcaRank_ = qobject_cast<QSpinBox*>(editor("pcaRank"));
  // Never more components than channels: the declared ceiling is for any recording.
  pcaRank_->setMaximum(std::max<int>(2, static_cast<int>(rec.channelCount())));
  pcaRank_->setSpecialValueText(tr("automatic (detected rank)"));
  rankNote_ = new QLabel(this);
  rankNote_->setObjectName(QStringLiteral("icaRankNote"));
  rankNote_->setWordWrap(true);
  seed_ = qobject_cast<QLineEdit*>(editor("seed"));
  gpuMath_ = qobject_cast<QComboBox*>(editor("gpuMath"));
  {
    // Presets leave the arithmetic alone, so it starts at the declared default.
    const ParamField<IcaParams>& math = *table.find("gpuMath");
    setParamEditorValue(gpuMath_, math.decl, math.get(IcaParams{}));
  }
  gpuMath_->setToolTip(
      gpuMath_->toolTip() +
      tr("\nTF32 is about 5x faster than 3xTF32 for up to 64 components on an H100 (64 channels "
         "x 30 min: 4.6 s instead of 22 s) and separates the same components. Not part of a "
         "preset."));

  auto* paramBox = new QGroupBox(tr("Infomax"), this);
  auto* form = new QFormLayout(paramBox);
  form->addRow(tr("Preset:"), preset_);
  form->addRow(QString(), presetNote_);
  form->addRow(QString(), extended_);
  form->addRow(tr("Learning rate:"), learningRate_);
  form->addRow(tr("Block size:"), blockSize_);
  form->addRow(tr("Max steps:"), maxSteps_);
  form->addRow(tr("Stop tolerance:"), stopTolerance_);
  form->addRow(tr("PCA rank:"), pcaRank_);
  form->addRow(QString(), rankNote_);
  form->addRow(tr("Seed:"), seed_);
  form->addRow(tr("GPU arithmetic:"), gpuMath_);

  channels_ = new ChannelChecklist(rec, selected, this);
  range_ = new RangeBackendBox(
      rec.duration(), startSeconds, durationSeconds,
      tr("Start of the decomposed range, in seconds from the recording start."),
      tr("Length of the decomposed range in seconds. Stable components need about 20-30 x "
         "components^2 samples (EEGLAB's rule of thumb); the unmixing then applies to the whole "
         "recording."),
      this);
  range_->setBackendToolTip(
      tr("Where the job runs. Auto: the GPU when one is usable, else the CPU (double "
         "precision, all cores). CUDA fails with the reason where this machine has no usable "
         "GPU, instead of silently falling back."));

  const RunFooter footer = makeRunFooter(this, QStringLiteral("icaValidationMessage"), false);
  error_ = footer.error;
  run_ = footer.run;
  QDialogButtonBox* buttons = footer.buttons;

  layOutMethodDialog(this, {{paramBox, range_}}, channels_, {error_, buttons});

  rankTimer_ = new QTimer(this);
  rankTimer_->setSingleShot(true);
  rankTimer_->setInterval(250);
  connect(rankTimer_, &QTimer::timeout, this, &IcaDialog::updateRankProposal);
  auto changed = [this] { onFieldChanged(); };
  auto selectionChanged = [this] {
    onFieldChanged();
    if (!filling_) rankTimer_->start();
  };
  connect(extended_, &QCheckBox::toggled, this, changed);
  connect(learningRate_, &QDoubleSpinBox::valueChanged, this, changed);
  connect(blockSize_, &QSpinBox::valueChanged, this, changed);
  connect(maxSteps_, &QSpinBox::valueChanged, this, changed);
  connect(stopTolerance_, &QLineEdit::textChanged, this, changed);
  connect(pcaRank_, &QSpinBox::valueChanged, this, changed);
  connect(seed_, &QLineEdit::textChanged, this, changed);
  connect(gpuMath_, &QComboBox::currentIndexChanged, this, changed);
  connect(channels_, &ChannelChecklist::changed, this, selectionChanged);
  connect(range_, &RangeBackendBox::changed, this, selectionChanged);
  connect(preset_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (filling_ || index <= 0) return;
    applyPreset(preset_->itemData(index).toString());
  });

  filling_ = false;
  applyPreset(QLatin1String(kDefaultPreset));
  updateRankProposal();
}

IcaParams IcaDialog::params() const {
  IcaParams p = base_;
  const ParamTable<IcaParams>& table = icaParamTable();
  for (const auto& [key, w] : shownFields()) {
    const ParamField<IcaParams>& f = *table.find(key);
    f.set(p, paramEditorValue(w, f.decl));
  }
  p.stopTolerance = QLocale::c().toDouble(stopTolerance_->text().trimmed());  // "" -> 0 = auto
  return p;
}

IcaGpuMath IcaDialog::currentGpuMath() const {
  return static_cast<IcaGpuMath>(gpuMath_->currentData().toInt());
}

std::vector<std::pair<std::string, QWidget*>> IcaDialog::shownFields() const {
  return {{"extended", extended_}, {"learningRate", learningRate_}, {"blockSize", blockSize_},
          {"maxSteps", maxSteps_}, {"pcaRank", pcaRank_},           {"seed", seed_},
          {"gpuMath", gpuMath_}};
}

void IcaDialog::setParams(const IcaParams& p) {
  const bool wasFilling = filling_;
  filling_ = true;
  const ParamTable<IcaParams>& table = icaParamTable();
  for (const auto& [key, w] : shownFields()) {
    const ParamField<IcaParams>& f = *table.find(key);
    setParamEditorValue(w, f.decl, f.get(p));
  }
  stopTolerance_->setText(p.stopTolerance > 0 ? QString::number(p.stopTolerance, 'g', 6)
                                              : QString());
  filling_ = wasFilling;
  onFieldChanged();
}

bool IcaDialog::applyPreset(const QString& name) {
  for (const IcaPreset& p : icaPresets()) {
    if (QString::fromStdString(p.name) != name) continue;
    base_ = p.params;
    base_.gpuMath = currentGpuMath();  // a preset sets the algorithm, not the arithmetic
    setParams(base_);
    return true;
  }
  return false;
}

QString IcaDialog::currentPresetName() const { return preset_->currentData().toString(); }

void IcaDialog::onFieldChanged() {
  if (filling_) return;
  const IcaParams p = params();
  const auto& presets = icaPresets();
  // The hidden fields come from base_: a preset matches when base_ is that preset.
  const int match = matchingPresetIndex(presets, [&](const IcaPreset& preset) {
    return sameShownFields(p, preset.params) && base_.rules == preset.params.rules &&
           base_.sphering == preset.params.sphering;
  });
  showPresetMatch(preset_, presetNote_, presets, match,
                  tr("Custom parameters (the rest as in %1)")
                      .arg(QString::fromLatin1(icaRulesName(base_.rules))));
  validate();
}

void IcaDialog::updateRankProposal() {
  rankTimer_->stop();
  proposedRank_.reset();
  const IcaRequest r = request();
  try {
    if (r.channels.size() >= 2) {
      const double available = recording_->duration() - r.startSeconds;
      const double seconds =
          r.durationSeconds < 0 ? available : std::min(available, r.durationSeconds);
      const double rate = recording_->channels[r.channels.front()].sampleRate;
      const double probeSamples =
          std::max(kRankProbeSamples, 4.0 * static_cast<double>(r.channels.size()));
      const double probe = std::min({seconds, kRankProbeSeconds, probeSamples / rate});
      const SignalBlock block = extractBlock(*recording_, r.channels, r.startSeconds, probe);
      QApplication::setOverrideCursor(Qt::WaitCursor);
      JobContext ctx;
      try {
        proposedRank_ = estimateIcaRank(block, r.params.rankTolerance, ctx).detectedRank;
      } catch (...) {
        QApplication::restoreOverrideCursor();
        throw;
      }
      QApplication::restoreOverrideCursor();
    }
  } catch (const std::exception&) {
    proposedRank_.reset();  // validate() words what is wrong with the selection
  }
  validate();
}

QString IcaDialog::rankProposalText() const { return rankNote_->text(); }

void IcaDialog::validate() {
  const IcaRequest r = request();
  QString problem;
  QString note;
  try {
    IcaJobSpec spec = toJobSpec(r, recording_->sourcePath, menuBackend_);
    checkIcaJob(*recording_, spec);
  } catch (const std::exception& e) {
    problem = QString::fromUtf8(e.what());
  }
  if (r.channels.size() < 2 && problem.isEmpty()) problem = tr("Select at least two channels.");
  const int c = static_cast<int>(r.channels.size());
  if (problem.isEmpty() && proposedRank_ && r.params.pcaRank > *proposedRank_) {
    problem = tr("PCA rank %1 is above the rank of the selected data (%2); choose at most %2 or "
                 "auto.")
                  .arg(r.params.pcaRank)
                  .arg(*proposedRank_);
  }
  const int components = r.params.pcaRank > 0 ? r.params.pcaRank : proposedRank_.value_or(c);
  if (c >= 2) {
    note = proposedRank_
               ? (*proposedRank_ < c
                      ? tr("Detected rank %1 of %2 channels: the data are rank-deficient "
                           "(common average reference, interpolated or bridged channels); auto "
                           "reduces to %1 components by PCA.")
                            .arg(*proposedRank_)
                            .arg(c)
                      : tr("Detected rank %1 (full rank): auto gives %1 components.")
                            .arg(*proposedRank_))
               : tr("The rank is detected when the job runs.");
  }
  if (c >= 2 && !r.channels.empty()) {
    const double rate = recording_->channels[r.channels.front()].sampleRate;
    const double available = recording_->duration() - r.startSeconds;
    const double seconds =
        std::max(0.0, r.durationSeconds < 0 ? available : std::min(available, r.durationSeconds));
    const auto samples = static_cast<int64_t>(std::floor(seconds * rate));
    const IcaSampleRequirement need = icaSampleRequirement(components);
    if (problem.isEmpty() && samples < need.minimum) {
      problem = tr("The range holds %1 samples; %2 components need at least %3 (%4 s at %5 Hz). "
                   "Choose a longer range or a smaller PCA rank.")
                    .arg(samples)
                    .arg(components)
                    .arg(need.minimum)
                    .arg(static_cast<double>(need.minimum) / rate, 0, 'f', 1)
                    .arg(rate);
    } else if (samples < need.recommended) {
      note += QLatin1Char(' ') +
              tr("%1 samples is below the %2 (20 x components^2) EEGLAB recommends for stable "
                 "components; the run warns.")
                  .arg(samples)
                  .arg(need.recommended);
    }
  }
  rankNote_->setText(note);
  problem_ = problem;
  showValidation(error_, run_, problem);
}

IcaRequest IcaDialog::request() const {
  IcaRequest r;
  r.params = params();
  static_cast<RequestSelection&>(r) = range_->selection(*channels_);
  r.presetName = currentPresetName().toStdString();
  return r;
}

void IcaDialog::accept() {
  validate();
  if (!problem_.isEmpty()) return;
  QDialog::accept();
}

}  // namespace modescope
