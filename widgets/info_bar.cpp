#include "widgets/info_bar.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace modescope {

InfoBar::InfoBar(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("infoBar"));
  setFrameShape(QFrame::StyledPanel);
  icon_ = new QLabel(this);
  icon_->setObjectName(QStringLiteral("infoBarIcon"));
  icon_->setAlignment(Qt::AlignCenter);
  icon_->setFixedWidth(icon_->fontMetrics().height() + 4);
  label_ = new QLabel(this);
  label_->setObjectName(QStringLiteral("infoBarText"));
  label_->setTextFormat(Qt::PlainText);
  label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // One line that the bar's width cuts (Details and the tooltip give the whole text): a long
  // first sentence must not widen the dock holding the bar, and with it the window.
  label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  details_ = new QPushButton(tr("Details..."), this);
  details_->setObjectName(QStringLiteral("infoBarDetails"));
  details_->setToolTip(tr("Show the full text of every message"));
  connect(details_, &QPushButton::clicked, this, &InfoBar::showDetails);
  close_ = new QToolButton(this);
  close_->setText(QStringLiteral("x"));
  close_->setToolTip(tr("Hide this message"));
  close_->setAutoRaise(true);
  connect(close_, &QToolButton::clicked, this, &QWidget::hide);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 2, 4, 2);
  layout->addWidget(icon_);
  layout->addWidget(label_, 1);
  layout->addWidget(details_);
  layout->addWidget(close_);
  hide();
}

void InfoBar::setMessages(const QList<Message>& messages) {
  messages_ = messages;
  // Warnings first, each group in its given order.
  std::stable_sort(messages_.begin(), messages_.end(), [](const Message& a, const Message& b) {
    return a.severity == Severity::Warning && b.severity != Severity::Warning;
  });
  const bool warning = severity() == Severity::Warning;
  // Pale yellow (warning) or pale blue (information) with dark text: readable in light and dark
  // themes alike.
  setStyleSheet(warning ? QStringLiteral("#infoBar { background: #fff3b0; border: 1px solid "
                                         "#d6b600; } #infoBar QLabel { color: #3a3000; }")
                        : QStringLiteral("#infoBar { background: #e3f0ff; border: 1px solid "
                                         "#8fb4e0; } #infoBar QLabel { color: #0d2a4d; }"));
  icon_->setText(warning ? QStringLiteral("\u26a0") : QStringLiteral("\u2139"));
  icon_->setToolTip(warning ? tr("Warning") : tr("Information"));
  label_->setText(summary());
  label_->setToolTip(text());
  setVisible(!messages_.isEmpty());
}

void InfoBar::setMessages(const QStringList& warnings) {
  QList<Message> m;
  for (const QString& w : warnings) m.append({Severity::Warning, w});
  setMessages(m);
}

Severity InfoBar::severity() const {
  for (const Message& m : messages_) {
    if (m.severity == Severity::Warning) return Severity::Warning;
  }
  return Severity::Info;
}

QString InfoBar::text() const {
  QStringList lines;
  for (const Message& m : messages_) {
    lines << (m.severity == Severity::Warning ? tr("Warning: %1").arg(m.text) : m.text);
  }
  return lines.join(QLatin1Char('\n'));
}

QString InfoBar::summary() const {
  if (messages_.isEmpty()) return {};
  QString line = firstSentence(messages_.front().text);
  if (messages_.size() > 1) line += tr("  (+%1 more)").arg(messages_.size() - 1);
  return line;
}

QList<InfoBar::Message> InfoBar::fromDiagnostics(const Diagnostics& diagnostics) {
  QList<Message> m;
  for (const Diagnostic& d : diagnostics) m.append({d.severity, QString::fromStdString(d.message)});
  return m;
}

QString InfoBar::firstSentence(const QString& text, int maxChars) {
  QString s = text.simplified();
  // A sentence ends at ". " / "; " (not inside "e.g. " or a number like "0.5").
  static const QRegularExpression end(QStringLiteral("(?<![0-9]|e\\.g|i\\.e)[.;](\\s|$)"));
  const QRegularExpressionMatch m = end.match(s);
  if (m.hasMatch()) s = s.left(m.capturedStart() + 1);
  if (s.size() > maxChars) s = s.left(maxChars - 1).trimmed() + QStringLiteral("\u2026");
  return s;
}

void InfoBar::showDetails() {
  emit detailsRequested();
  QDialog dialog(this);
  dialog.setObjectName(QStringLiteral("infoBarDetailsDialog"));
  dialog.setWindowTitle(severity() == Severity::Warning ? tr("Warnings") : tr("Information"));
  auto* view = new QPlainTextEdit(&dialog);
  view->setReadOnly(true);
  view->setPlainText(text());
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(view);
  layout->addWidget(buttons);
  dialog.resize(640, 280);
  dialog.exec();
}

}  // namespace modescope
