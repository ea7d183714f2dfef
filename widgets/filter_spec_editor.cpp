#include "widgets/filter_spec_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>

namespace modescope {
namespace {

// Combo item data: -1 for "None", else the FilterKind value.
constexpr int kNone = -1;

}  // namespace

FilterSpecEditor::FilterSpecEditor(bool allowNotch, QWidget* parent) : QWidget(parent) {
  kind_ = new QComboBox(this);
  kind_->setObjectName(QStringLiteral("filterKind"));
  kind_->addItem(tr("None"), kNone);
  kind_->addItem(tr("Band-pass"), static_cast<int>(FilterKind::BandPass));
  kind_->addItem(tr("High-pass"), static_cast<int>(FilterKind::HighPass));
  kind_->addItem(tr("Low-pass"), static_cast<int>(FilterKind::LowPass));
  if (allowNotch) kind_->addItem(tr("Notch"), static_cast<int>(FilterKind::Notch));

  auto makeSpin = [this](const char* name, double value) {
    auto* s = new QDoubleSpinBox(this);
    s->setObjectName(QLatin1String(name));
    s->setDecimals(2);
    s->setRange(0.01, 10000.0);
    s->setSingleStep(0.5);
    s->setSuffix(QStringLiteral(" Hz"));
    s->setValue(value);
    return s;
  };
  low_ = makeSpin("lowHz", 1.0);
  high_ = makeSpin("highHz", 40.0);
  notch_ = new QComboBox(this);
  notch_->addItem(QStringLiteral("50 Hz"), 50.0);
  notch_->addItem(QStringLiteral("60 Hz"), 60.0);
  harmonics_ = new QCheckBox(tr("also harmonics below Nyquist"), this);
  harmonics_->setChecked(true);

  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  form->addRow(tr("Type:"), kind_);
  form->addRow(tr("High-pass edge:"), low_);
  form->addRow(tr("Low-pass edge:"), high_);
  if (allowNotch) {
    form->addRow(tr("Notch at:"), notch_);
    form->addRow(QString(), harmonics_);
  } else {
    notch_->hide();
    harmonics_->hide();
  }

  connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    emit changed();
  });
  for (auto* s : {low_, high_}) {
    connect(s, &QDoubleSpinBox::valueChanged, this, &FilterSpecEditor::changed);
  }
  connect(notch_, &QComboBox::currentIndexChanged, this, &FilterSpecEditor::changed);
  connect(harmonics_, &QCheckBox::toggled, this, &FilterSpecEditor::changed);
  updateEnabled();
}

void FilterSpecEditor::updateEnabled() {
  const int k = kind_->currentData().toInt();
  low_->setEnabled(k == static_cast<int>(FilterKind::BandPass) ||
                   k == static_cast<int>(FilterKind::HighPass));
  high_->setEnabled(k == static_cast<int>(FilterKind::BandPass) ||
                    k == static_cast<int>(FilterKind::LowPass));
  notch_->setEnabled(k == static_cast<int>(FilterKind::Notch));
  harmonics_->setEnabled(k == static_cast<int>(FilterKind::Notch));
}

std::optional<FilterSpec> FilterSpecEditor::spec() const {
  const int k = kind_->currentData().toInt();
  if (k == kNone) return std::nullopt;
  FilterSpec s;
  s.kind = static_cast<FilterKind>(k);
  s.lowHz = s.kind == FilterKind::BandPass || s.kind == FilterKind::HighPass ? low_->value() : 0.0;
  s.highHz = s.kind == FilterKind::BandPass || s.kind == FilterKind::LowPass ? high_->value() : 0.0;
  s.notchHz = notch_->currentData().toDouble();
  s.notchHarmonics = harmonics_->isChecked();
  return s;
}

void FilterSpecEditor::setSpec(const std::optional<FilterSpec>& spec) {
  if (!spec) {
    kind_->setCurrentIndex(kind_->findData(kNone));
    return;
  }
  const int idx = kind_->findData(static_cast<int>(spec->kind));
  if (idx >= 0) kind_->setCurrentIndex(idx);
  if (spec->lowHz > 0) low_->setValue(spec->lowHz);
  if (spec->highHz > 0) high_->setValue(spec->highHz);
  const int n = notch_->findData(spec->notchHz);
  if (n >= 0) notch_->setCurrentIndex(n);
  harmonics_->setChecked(spec->notchHarmonics);
}

void FilterSpecEditor::setNyquist(double hz) {
  if (hz <= 0) return;
  const double cap = hz - 0.01;  // an edge at Nyquist itself is invalid (designFir)
  low_->setMaximum(cap);
  high_->setMaximum(cap);
}

}  // namespace modescope
