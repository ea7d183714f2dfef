#include "app/gui/synthetic_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace modescope {

SyntheticDialog::SyntheticDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("New synthetic recording"));
  channels_ = new QSpinBox(this);
  channels_->setRange(1, 128);  // the generator places up to 128 channels on 10-05 sites
  channels_->setToolTip(tr("19 (10-20), 32, 64 (10-10 sites), up to 128 (10-05 sites)"));
  rate_ = new QDoubleSpinBox(this);
  rate_->setRange(1.0, 100000.0);
  rate_->setDecimals(1);
  rate_->setSuffix(QStringLiteral(" Hz"));
  duration_ = new QDoubleSpinBox(this);
  duration_->setRange(0.1, 24 * 3600.0);
  duration_->setDecimals(1);
  duration_->setSuffix(QStringLiteral(" s"));
  sources_ = new QSpinBox(this);
  sources_->setRange(1, 64);
  mixing_ = new QComboBox(this);
  mixing_->addItem(tr("Spherical head model"), static_cast<int>(MixingModel::HeadModel));
  mixing_->addItem(tr("Random mixing matrix"), static_cast<int>(MixingModel::RandomMatrix));
  lineNoise_ = new QComboBox(this);
  lineNoise_->addItem(tr("None"), 0.0);
  lineNoise_->addItem(QStringLiteral("50 Hz"), 50.0);
  lineNoise_->addItem(QStringLiteral("60 Hz"), 60.0);
  lineNoiseAmplitude_ = new QDoubleSpinBox(this);
  lineNoiseAmplitude_->setRange(0.0, 10000.0);
  lineNoiseAmplitude_->setSuffix(QStringLiteral(" uV"));
  blinks_ = new QDoubleSpinBox(this);
  blinks_->setRange(0.0, 120.0);
  blinks_->setSuffix(tr(" per min"));
  bursts_ = new QDoubleSpinBox(this);
  bursts_->setRange(0.0, 120.0);
  bursts_->setSuffix(tr(" per min"));
  background_ = new QDoubleSpinBox(this);
  background_->setRange(0.0, 10000.0);
  background_->setSuffix(QStringLiteral(" uV RMS"));
  seed_ = new QSpinBox(this);
  seed_->setRange(0, std::numeric_limits<int>::max());
  seed_->setToolTip(tr("The same seed gives the same recording on every machine"));

  auto* form = new QFormLayout;
  form->addRow(tr("Channels:"), channels_);
  form->addRow(tr("Sample rate:"), rate_);
  form->addRow(tr("Duration:"), duration_);
  form->addRow(tr("Oscillatory sources:"), sources_);
  form->addRow(tr("Mixing:"), mixing_);
  form->addRow(tr("Line noise:"), lineNoise_);
  form->addRow(tr("Line noise amplitude:"), lineNoiseAmplitude_);
  form->addRow(tr("Eye blinks:"), blinks_);
  form->addRow(tr("Muscle bursts:"), bursts_);
  form->addRow(tr("Background noise:"), background_);
  form->addRow(tr("Seed:"), seed_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(lineNoise_, &QComboBox::currentIndexChanged, this,
          [this] { lineNoiseAmplitude_->setEnabled(lineNoise_->currentData().toDouble() > 0); });
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(buttons);
  setParams(SynthParams{});
}

SynthParams SyntheticDialog::params() const {
  SynthParams p;
  p.channels = channels_->value();
  p.sampleRate = rate_->value();
  p.duration = duration_->value();
  p.sources = sources_->value();
  p.mixing = static_cast<MixingModel>(mixing_->currentData().toInt());
  p.lineNoiseHz = lineNoise_->currentData().toDouble();
  p.lineNoiseMicrovolts = lineNoiseAmplitude_->value();
  p.blinkRatePerMinute = blinks_->value();
  p.muscleBurstsPerMinute = bursts_->value();
  p.backgroundMicrovolts = background_->value();
  p.seed = static_cast<std::uint64_t>(seed_->value());
  return p;
}

void SyntheticDialog::setParams(const SynthParams& p) {
  channels_->setValue(p.channels);
  rate_->setValue(p.sampleRate);
  duration_->setValue(p.duration);
  sources_->setValue(p.sources);
  mixing_->setCurrentIndex(mixing_->findData(static_cast<int>(p.mixing)));
  const int line = lineNoise_->findData(p.lineNoiseHz);
  lineNoise_->setCurrentIndex(line >= 0 ? line : 0);
  lineNoiseAmplitude_->setValue(p.lineNoiseMicrovolts);
  lineNoiseAmplitude_->setEnabled(p.lineNoiseHz > 0);
  blinks_->setValue(p.blinkRatePerMinute);
  bursts_->setValue(p.muscleBurstsPerMinute);
  background_->setValue(p.backgroundMicrovolts);
  seed_->setValue(
      static_cast<int>(std::min<std::uint64_t>(p.seed, std::numeric_limits<int>::max())));
}

}  // namespace modescope
