#include "widgets/filter_spec_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>

#include "engine/dsp/filter_param_table.h"
#include "widgets/param_editor.h"

namespace modescope {
namespace {

// Combo item data: -1 for "None", else the FilterKind value.
constexpr int kNone = -1;

}  // namespace

FilterSpecEditor::FilterSpecEditor(bool allowNotch, QWidget* parent) : QWidget(parent) {
  // Kinds, ranges, steps, defaults and tooltips come from the declarations
  // (engine/dsp/filter_param_table.h); the upper bound is the data's Nyquist (setNyquist).
  const ParamTable<FilterSpec>& table = filterParamTable();
  const FilterSpec defaults{};
  auto tip = [&](const ParamField<FilterSpec>& f) {
    return paramToolTip(f.decl, QString::fromStdString(describeValue(f.decl, f.get(defaults))));
  };
  const ParamField<FilterSpec>& kindField = *table.find("kind");
  kind_ = new QComboBox(this);
  kind_->setObjectName(QStringLiteral("filterKind"));
  kind_->setToolTip(tip(kindField));
  kind_->addItem(tr("None"), kNone);
  for (const auto& [kind, name] : filterKindNames()) {
    if (kind == FilterKind::Notch && !allowNotch) continue;
    const ParamChoice* c = findChoice(kindField.decl, name);
    kind_->addItem(QString::fromStdString(c->label), static_cast<int>(kind));
    kind_->setItemData(kind_->count() - 1, QString::fromStdString(c->help), Qt::ToolTipRole);
  }

  auto makeSpin = [&](const std::string& key) {
    const ParamField<FilterSpec>& f = *table.find(key);
    auto* s = qobject_cast<QDoubleSpinBox*>(makeParamEditor(f.decl, this));
    setParamEditorValue(s, f.decl, f.get(defaults));
    s->setToolTip(tip(f));
    s->setKeyboardTracking(true);  // previews follow each keystroke
    return s;
  };
  low_ = makeSpin("lowHz");
  high_ = makeSpin("highHz");
  notch_ = new QComboBox(this);
  notch_->addItem(QStringLiteral("50 Hz"), 50.0);
  notch_->addItem(QStringLiteral("60 Hz"), 60.0);
  notch_->setToolTip(tip(*table.find("notchHz")));
  harmonics_ = new QCheckBox(tr("also harmonics below Nyquist"), this);
  harmonics_->setChecked(defaults.notchHarmonics);
  harmonics_->setToolTip(tip(*table.find("notchHarmonics")));

  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  form->addRow(tr("Type:"), kind_);
  form->addRow(QString::fromStdString(table.find("lowHz")->decl.label) + QLatin1Char(':'), low_);
  form->addRow(QString::fromStdString(table.find("highHz")->decl.label) + QLatin1Char(':'), high_);
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
  FilterSpec shown;
  if (k != kNone) shown.kind = static_cast<FilterKind>(k);
  const ParamTable<FilterSpec>& table = filterParamTable();
  low_->setEnabled(k != kNone && table.find("lowHz")->appliesTo(shown));
  high_->setEnabled(k != kNone && table.find("highHz")->appliesTo(shown));
  notch_->setEnabled(k != kNone && table.find("notchHz")->appliesTo(shown));
  harmonics_->setEnabled(k != kNone && table.find("notchHarmonics")->appliesTo(shown));
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
