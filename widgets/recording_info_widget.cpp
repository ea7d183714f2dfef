#include "widgets/recording_info_widget.h"

#include <QFormLayout>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>
#include <map>

#include "widgets/info_bar.h"
#include "widgets/time_format.h"

namespace modescope {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString channelTypesText(const Recording& rec) {
  std::map<std::string, int> counts;
  for (const auto& c : rec.channels) ++counts[channelTypeName(c.type)];
  QStringList parts;
  for (const auto& [type, n] : counts) parts << QStringLiteral("%1 %2").arg(n).arg(qs(type));
  return QStringLiteral("%1 (%2)").arg(rec.channelCount()).arg(parts.join(QStringLiteral(", ")));
}

QString ratesText(const Recording& rec) {
  std::map<double, int> counts;
  for (const auto& c : rec.channels) ++counts[c.sampleRate];
  QStringList parts;
  for (const auto& [rate, n] : counts) {
    parts << QStringLiteral("%1 (%2 channel%3)").arg(formatHz(rate)).arg(n).arg(n == 1 ? "" : "s");
  }
  return parts.join(QStringLiteral(", "));
}

}  // namespace

RecordingInfoWidget::RecordingInfoWidget(QWidget* parent) : QWidget(parent) {
  bar_ = new InfoBar(this);
  auto* inner = new QWidget;
  form_ = new QFormLayout(inner);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(bar_);
  layout->addWidget(scroll, 1);
  setRecording(nullptr);
}

QStringList RecordingInfoWidget::diagnosticLines(const Diagnostics& diagnostics) {
  QStringList warnings, infos;
  for (const auto& d : diagnostics) {
    if (d.severity == Severity::Warning) {
      warnings << tr("Warning: %1").arg(qs(d.message));
    } else {
      infos << qs(d.message);
    }
  }
  return warnings + infos;
}

void RecordingInfoWidget::addField(const QString& name, const QString& value) {
  values_.insert(name, value);
  auto* label = new QLabel;
  label->setTextFormat(Qt::PlainText);
  label->setText(value.isEmpty() ? QStringLiteral("-") : value);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form_->addRow(name + QLatin1Char(':'), label);
}

void RecordingInfoWidget::setRecording(const std::shared_ptr<const Recording>& rec,
                                       const QString& origin) {
  while (form_->rowCount() > 0) form_->removeRow(0);
  values_.clear();
  if (!rec) {
    bar_->setMessages(QList<InfoBar::Message>{});
    addField(tr("Recording"), tr("none opened"));
    return;
  }
  bar_->setMessages(InfoBar::fromDiagnostics(rec->diagnostics));
  const RecordingInfo& i = rec->info;
  if (!origin.isEmpty()) addField(tr("Origin"), origin);
  addField(tr("File"), qs(rec->sourcePath));
  addField(tr("Format"), qs(i.format));
  addField(tr("Reader"), qs(i.reader));
  addField(tr("Start"), qs(i.startDateTime));
  addField(tr("Duration"), formatClock(rec->duration()) +
                               QStringLiteral(" (%1 s)").arg(rec->duration(), 0, 'f', 3));
  addField(tr("Channels"), channelTypesText(*rec));
  addField(tr("Sample rates"), ratesText(*rec));
  addField(tr("Annotations"), QString::number(rec->annotations.size()));
  addField(tr("Patient"), qs(i.patient));
  addField(tr("Patient code"), qs(i.patientCode));
  addField(tr("Sex"), qs(i.sex));
  addField(tr("Birth date"), qs(i.birthdate));
  addField(tr("Recording ID"), qs(i.recordingId));
  addField(tr("Technician"), qs(i.technician));
  addField(tr("Equipment"), qs(i.equipment));
  addField(tr("Admin code"), qs(i.adminCode));
  addField(tr("Diagnostics"), rec->diagnostics.empty()
                                  ? tr("none")
                                  : diagnosticLines(rec->diagnostics).join(QLatin1Char('\n')));
}

QString RecordingInfoWidget::fieldText(const QString& field) const { return values_.value(field); }

}  // namespace modescope
