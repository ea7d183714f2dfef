#include "widgets/info_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace modescope {

InfoBar::InfoBar(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("infoBar"));
  setFrameShape(QFrame::StyledPanel);
  // Pale yellow with dark text: readable in light and dark themes alike.
  setStyleSheet(
      QStringLiteral("#infoBar { background: #fff3b0; border: 1px solid #d6b600; }"
                     "#infoBar QLabel { color: #3a3000; }"));
  label_ = new QLabel(this);
  label_->setWordWrap(true);
  label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  close_ = new QToolButton(this);
  close_->setText(QStringLiteral("x"));
  close_->setToolTip(tr("Hide this message"));
  close_->setAutoRaise(true);
  connect(close_, &QToolButton::clicked, this, &QWidget::hide);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 4, 4);
  layout->addWidget(label_, 1);
  layout->addWidget(close_, 0, Qt::AlignTop);
  hide();
}

void InfoBar::setMessages(const QStringList& lines) {
  lines_ = lines;
  label_->setText(text());
  setVisible(!lines_.isEmpty());
}

QString InfoBar::text() const { return lines_.join(QLatin1Char('\n')); }

}  // namespace modescope
