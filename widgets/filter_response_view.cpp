#include "widgets/filter_response_view.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/dsp/fir_chain.h"

namespace modescope {

FilterResponseView::FilterResponseView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("filterResponse"));
  setMinimumSize(280, 160);
}

void FilterResponseView::setChain(const std::vector<FilterSpec>& chain, double sampleRate) {
  frequencies_.clear();
  gains_.clear();
  message_.clear();
  description_.clear();
  nyquist_ = sampleRate / 2.0;
  if (!(sampleRate > 0)) {
    message_ = tr("No sample rate to design the filter for");
  } else {
    constexpr int kPoints = 512;
    for (int i = 0; i < kPoints; ++i) frequencies_.push_back(nyquist_ * i / (kPoints - 1));
    if (chain.empty()) {
      gains_.assign(frequencies_.size(), 0.0);
      description_ = tr("No filter");
    } else {
      try {
        const FirKernel k = designFirChain(chain, sampleRate);
        gains_ = firGainDb(k, frequencies_);
        description_ = QString::fromStdString(k.description);
      } catch (const Error& e) {
        frequencies_.clear();
        message_ = QString::fromUtf8(e.what());
      }
    }
  }
  update();
}

QRectF FilterResponseView::plotArea() const {
  const QFontMetricsF fm(font());
  return QRectF(fm.horizontalAdvance(QStringLiteral("-80 dB")) + 10, fm.height() + 6,
                width() - fm.horizontalAdvance(QStringLiteral("-80 dB")) - 20,
                height() - 3 * fm.height() - 16);
}

QPointF FilterResponseView::positionFor(double hz, double db) const {
  const QRectF a = plotArea();
  const double x = a.left() + (nyquist_ > 0 ? hz / nyquist_ : 0.0) * a.width();
  const double clamped = std::clamp(db, kFloorDb, 5.0);
  const double y = a.top() + (5.0 - clamped) / (5.0 - kFloorDb) * a.height();
  return {x, y};
}

void FilterResponseView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  p.setRenderHint(QPainter::Antialiasing, true);
  const QRectF a = plotArea();
  const QColor ink = palette().color(QPalette::Text);
  const QFontMetricsF fm(font());
  p.setPen(ink);
  p.drawText(QRectF(0, 2, width(), fm.height()), Qt::AlignHCenter,
             fm.elidedText(message_.isEmpty() ? description_ : QString(), Qt::ElideRight, width()));
  // Grid: 0, -3 (the half-power line), -20, -40, -60, -80 dB; frequency in tenths of Nyquist.
  for (double db : {0.0, -3.0, -20.0, -40.0, -60.0, -80.0}) {
    const double y = positionFor(0, db).y();
    p.setPen(
        QPen(QColor(0, 0, 0, db == -3.0 ? 70 : 35), 0, db == -3.0 ? Qt::DashLine : Qt::SolidLine));
    p.drawLine(QPointF(a.left(), y), QPointF(a.right(), y));
    p.setPen(ink);
    p.drawText(QRectF(0, y - fm.height() / 2, a.left() - 4, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("%1 dB").arg(db));
  }
  if (nyquist_ > 0) {
    for (int i = 0; i <= 10; ++i) {
      const double hz = nyquist_ * i / 10.0;
      const double x = positionFor(hz, 0).x();
      p.setPen(QPen(QColor(0, 0, 0, 35), 0));
      p.drawLine(QPointF(x, a.top()), QPointF(x, a.bottom()));
      if (i % 2 == 0) {
        p.setPen(ink);
        p.drawText(QRectF(x - 40, a.bottom() + 2, 80, fm.height()), Qt::AlignHCenter,
                   QString::number(hz, 'g', 4));
      }
    }
    p.drawText(QRectF(a.left(), a.bottom() + fm.height() + 2, a.width(), fm.height()),
               Qt::AlignHCenter, tr("Frequency (Hz)"));
  }
  if (!message_.isEmpty()) {
    p.setPen(QColor(0x9a, 0x3b, 0x00));
    p.drawText(a.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, message_);
    return;
  }
  QPainterPath curve;
  for (std::size_t i = 0; i < frequencies_.size(); ++i) {
    const QPointF pt = positionFor(frequencies_[i], gains_[i]);
    if (i == 0)
      curve.moveTo(pt);
    else
      curve.lineTo(pt);
  }
  p.setPen(QPen(QColor(0x10, 0x50, 0xb0), 1.6));
  p.setClipRect(a.adjusted(-1, -1, 1, 1));
  p.drawPath(curve);
}

}  // namespace modescope
