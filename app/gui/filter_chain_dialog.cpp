#include "app/gui/filter_chain_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/dsp/filter_param_table.h"
#include "widgets/filter_response_view.h"
#include "widgets/param_editor.h"

namespace modescope {

FilterChainDialog::FilterChainDialog(const std::vector<FilterSpec>& chain, double sampleRate,
                                     QWidget* parent)
    : QDialog(parent), sampleRate_(sampleRate) {
  setObjectName(QStringLiteral("filterChainDialog"));
  setWindowTitle(tr("Display filter chain"));
  setProperty("helpTopic", QStringLiteral("browser.md#Montage and display filter"));
  const double nyquist = sampleRate > 0 ? sampleRate / 2.0 : 1000.0;
  // The edges' range, step and help from the declarations (engine/dsp/filter_param_table.h),
  // capped one display step below this data's Nyquist frequency, as designFir requires.
  auto edge = [&](const std::string& key, double value) {
    const ParamDecl& d = filterParamTable().find(key)->decl;
    auto* s = qobject_cast<QDoubleSpinBox*>(makeParamEditor(d, this));
    s->setMaximum(std::max(s->minimum(), nyquist - std::pow(10.0, -d.decimals)));
    s->setToolTip(paramToolTip(d));
    s->setKeyboardTracking(true);  // the response plot follows each keystroke
    s->setValue(value);
    return s;
  };
  highOn_ = new QCheckBox(tr("High-pass above"), this);
  highHz_ = edge("lowHz", 0.5);  // a display drift filter: gentler than the 1 Hz analysis default
  lowOn_ = new QCheckBox(tr("Low-pass below"), this);
  lowHz_ = edge("highHz", std::min(FilterSpec{}.highHz, nyquist * 0.8));
  notchOn_ = new QCheckBox(tr("Notch at"), this);
  notchHz_ = new QComboBox(this);
  notchHz_->addItem(QStringLiteral("50 Hz"), 50.0);
  notchHz_->addItem(QStringLiteral("60 Hz"), 60.0);
  harmonics_ = new QCheckBox(tr("and harmonics"), this);
  harmonics_->setChecked(FilterSpec{}.notchHarmonics);
  notchHz_->setToolTip(paramToolTip(filterParamTable().find("notchHz")->decl));
  harmonics_->setToolTip(paramToolTip(filterParamTable().find("notchHarmonics")->decl));
  response_ = new FilterResponseView(this);

  auto* grid = new QGridLayout;
  grid->addWidget(highOn_, 0, 0);
  grid->addWidget(highHz_, 0, 1);
  grid->addWidget(lowOn_, 1, 0);
  grid->addWidget(lowHz_, 1, 1);
  grid->addWidget(notchOn_, 2, 0);
  grid->addWidget(notchHz_, 2, 1);
  grid->addWidget(harmonics_, 2, 2);
  grid->setColumnStretch(3, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(grid);
  layout->addWidget(response_, 1);
  layout->addWidget(buttons);
  for (QCheckBox* b : {highOn_, lowOn_, notchOn_, harmonics_})
    connect(b, &QCheckBox::toggled, this, &FilterChainDialog::refresh);
  for (QDoubleSpinBox* s : {highHz_, lowHz_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &FilterChainDialog::refresh);
  connect(notchHz_, &QComboBox::currentIndexChanged, this, &FilterChainDialog::refresh);
  resize(560, 460);
  setChain(chain);
}

std::vector<FilterSpec> FilterChainDialog::chain() const {
  std::vector<FilterSpec> out;
  if (highOn_->isChecked()) {
    FilterSpec f;
    f.kind = FilterKind::HighPass;
    f.lowHz = highHz_->value();
    out.push_back(f);
  }
  if (lowOn_->isChecked()) {
    FilterSpec f;
    f.kind = FilterKind::LowPass;
    f.highHz = lowHz_->value();
    out.push_back(f);
  }
  if (notchOn_->isChecked()) {
    FilterSpec f;
    f.kind = FilterKind::Notch;
    f.notchHz = notchHz_->currentData().toDouble();
    f.notchHarmonics = harmonics_->isChecked();
    out.push_back(f);
  }
  return out;
}

void FilterChainDialog::setChain(const std::vector<FilterSpec>& chain) {
  {
    const QSignalBlocker b1(highOn_), b2(lowOn_), b3(notchOn_), b4(highHz_), b5(lowHz_),
        b6(notchHz_), b7(harmonics_);
    highOn_->setChecked(false);
    lowOn_->setChecked(false);
    notchOn_->setChecked(false);
    for (const FilterSpec& f : chain) {
      // A band-pass is its two edges.
      if (f.kind == FilterKind::HighPass || f.kind == FilterKind::BandPass) {
        highOn_->setChecked(true);
        highHz_->setValue(f.lowHz);
      }
      if (f.kind == FilterKind::LowPass || f.kind == FilterKind::BandPass) {
        lowOn_->setChecked(true);
        lowHz_->setValue(f.highHz);
      }
      if (f.kind == FilterKind::Notch) {
        notchOn_->setChecked(true);
        notchHz_->setCurrentIndex(f.notchHz == 60.0 ? 1 : 0);
        harmonics_->setChecked(f.notchHarmonics);
      }
    }
  }
  refresh();
}

void FilterChainDialog::refresh() {
  highHz_->setEnabled(highOn_->isChecked());
  lowHz_->setEnabled(lowOn_->isChecked());
  notchHz_->setEnabled(notchOn_->isChecked());
  harmonics_->setEnabled(notchOn_->isChecked());
  response_->setChain(chain(), sampleRate_);
}

}  // namespace modescope
