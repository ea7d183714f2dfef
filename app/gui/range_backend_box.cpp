#include "app/gui/range_backend_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <algorithm>

#include "app/core/time_range_note.h"
#include "app/gui/channel_checklist.h"

namespace modescope {
namespace {

constexpr int kMenuBackend = -1;

QDoubleSpinBox* secondsField(QWidget* parent, const QString& name, double lo, double hi,
                             const QString& tip) {
  auto* s = new QDoubleSpinBox(parent);
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setDecimals(3);
  s->setSingleStep(1.0);
  s->setSuffix(QObject::tr(" s"));
  s->setToolTip(tip);
  s->setKeyboardTracking(false);
  return s;
}

}  // namespace

RangeBackendBox::RangeBackendBox(double recordingSeconds, double startSeconds,
                                 double durationSeconds, const QString& startTip,
                                 const QString& durationTip, QWidget* parent)
    : QGroupBox(tr("Time range and backend"), parent) {
  const double length = std::max(0.0, recordingSeconds);
  start_ = secondsField(this, QStringLiteral("start"), 0.0, length, startTip);
  duration_ =
      secondsField(this, QStringLiteral("duration"), 0.001, std::max(0.001, length), durationTip);
  toEnd_ = new QCheckBox(tr("to the end"), this);
  toEnd_->setObjectName(QStringLiteral("toEnd"));
  start_->setValue(std::clamp(startSeconds, 0.0, length));
  duration_->setValue(durationSeconds > 0 ? durationSeconds : length);
  toEnd_->setChecked(durationSeconds < 0);
  duration_->setEnabled(durationSeconds >= 0);
  backend_ = new QComboBox(this);
  backend_->setObjectName(QStringLiteral("backend"));
  backend_->setToolTip(
      tr("Where the job runs. Auto: the GPU when one is usable, else the CPU "
         "(double precision, all cores)."));
  backend_->addItem(tr("As in the Compute menu"), kMenuBackend);
  backend_->addItem(tr("Auto (GPU if available)"), static_cast<int>(BackendChoice::Auto));
  backend_->addItem(tr("CPU"), static_cast<int>(BackendChoice::Cpu));
  backend_->addItem(tr("CUDA"), static_cast<int>(BackendChoice::Cuda));
  auto* form = new QFormLayout(this);
  form->addRow(tr("Start:"), start_);
  auto* durationRow = new QHBoxLayout;
  durationRow->addWidget(duration_, 1);
  durationRow->addWidget(toEnd_);
  form->addRow(tr("Duration:"), durationRow);
  // A range ending after the recording is cut to it, and said so (as the command line does).
  truncated_ = new QLabel(this);
  truncated_->setObjectName(QStringLiteral("rangeTruncated"));
  truncated_->setWordWrap(true);
  form->addRow(truncated_);
  auto updateTruncated = [this, length] {
    const std::string note =
        truncatedRangeNote(length, this->startSeconds(), this->durationSeconds(), 0.0005);
    truncated_->setText(QString::fromStdString(note));
    truncated_->setVisible(!note.empty());
  };
  updateTruncated();
  connect(this, &RangeBackendBox::changed, this, updateTruncated);
  form->addRow(tr("Backend:"), backend_);

  connect(toEnd_, &QCheckBox::toggled, this, [this](bool on) {
    duration_->setEnabled(!on);
    emit changed();
  });
  connect(start_, &QDoubleSpinBox::valueChanged, this, &RangeBackendBox::changed);
  connect(duration_, &QDoubleSpinBox::valueChanged, this, &RangeBackendBox::changed);
  connect(backend_, &QComboBox::currentIndexChanged, this, &RangeBackendBox::changed);
}

double RangeBackendBox::startSeconds() const { return start_->value(); }

double RangeBackendBox::durationSeconds() const {
  return toEnd_->isChecked() ? -1.0 : duration_->value();
}

std::optional<BackendChoice> RangeBackendBox::backend() const {
  const int b = backend_->currentData().toInt();
  if (b == kMenuBackend) return std::nullopt;
  return static_cast<BackendChoice>(b);
}

void RangeBackendBox::setBackendToolTip(const QString& tip) { backend_->setToolTip(tip); }

RequestSelection RangeBackendBox::selection(const ChannelChecklist& channels) const {
  RequestSelection s;
  s.channels = channels.checkedChannels();
  s.startSeconds = startSeconds();
  s.durationSeconds = durationSeconds();
  s.backend = backend();
  return s;
}

}  // namespace modescope
